// One answer to "where is the package of this module call", for every reader: the requirement
// collector (lock/requirements.ts), the module resolver (inputs and outputs: resolve.ts), the
// dependency graph and the root-module filter (deps/). In `tofu init`'s terms:
// - a local path (`./x`, `../x`) is the caller's directory joined with it, and must exist;
// - an absolute path is copied like a remote package: read in place when it exists, else the copy
//   `tofu init` installed (a source written for another machine);
// - anything else is what `tofu init` installed for this call (.terraform/modules/modules.json),
//   else fetched the way `tofu init` would (registry, git / HTTP archives, OCI registries) by a
//   ModulePackageFetcher — the ModuleResolver, which fetches each package once.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseModuleSource, splitSubdir } from '../addresses/module-source';
import type { ModuleSource } from '../addresses/module-source';
import { withOpenFile } from '../fstree';
import { redactUrls, safeText, shownUrl } from '../net/http-errors';

export interface ModuleRequest {
  /** Directory of the configuration that contains the module block. */
  callerDir: string;
  /** The module block's name (for modules.json keys). */
  name: string;
  source: string;
  /** The version constraint, if any. */
  version?: string | null;
  /** Cancels the package fetch (a git clone is killed, a download aborted). */
  signal?: AbortSignal;
}

/** What `tofu init` installed for a call (resolve.ts's InstalledModules: one per run). */
export interface InstalledLookup {
  find(req: ModuleRequest): Promise<{ dir: string; version?: string } | undefined>;
}

export interface LocatedModule {
  dir: string;
  /** How it was found. */
  via: 'local' | 'installed' | 'registry' | 'remote' | 'oci';
  /** Registry modules: the selected version; installed ones: the version modules.json records. */
  version?: string;
  /** Fetched packages (via registry, remote, oci): where they came from and what their bytes were. */
  fetched?: FetchedFacts;
}

/**
 * What a fetched package was (an SBOM's download location and hashes): the location fetched
 * (registry modules: the download location; as given, secrets included — show it with
 * shownUrl), the archive's SHA-256 or the git commit, and for oci:// the tag and digests.
 */
export interface FetchedFacts {
  location?: string;
  sha256?: string;
  size?: number;
  commit?: string;
  oci?: { registry: string; repository: string; tag: string | null; manifestDigest: string; blobDigest: string | null };
}

/** Fetches a package `tofu init` would download (the call is not installed): the ModuleResolver. */
export interface ModulePackageFetcher {
  fetchPackage(req: ModuleRequest, src: ModuleSource): Promise<LocatedModule>;
}

export interface LocateOptions {
  /** What `tofu init` installed (one per run); without it installed modules are not consulted. */
  installed?: InstalledLookup;
  /** Fetches what is not on disk; without it only local and installed modules are found. */
  fetcher?: ModulePackageFetcher;
  /** False: nothing fetched (untrusted workspace, offline), with a message saying so. */
  fetch?: boolean;
}

/** The directory a local module source (`./modules/net`, `../shared`) names, resolved against its caller; undefined for any other source. No I/O. */
export function localModuleDir(callerDir: string, source: string | null | undefined): string | undefined {
  if (!source) return undefined;
  const src = parseModuleSource(source);
  return src.kind === 'local' ? path.resolve(callerDir, src.path) : undefined;
}

async function isDirectory(dir: string): Promise<boolean> {
  return !!(await withOpenFile(() => fs.stat(dir)).catch(() => undefined))?.isDirectory();
}

/** The package directory of one module call, or a rejection whose message says why (sources shown redacted). */
export async function locateModule(req: ModuleRequest, opts: LocateOptions): Promise<LocatedModule> {
  const src = parseModuleSource(req.source);
  // A source may carry user:password or a signed query: messages show it redacted.
  const shown = shownUrl(req.source);
  if (src.kind === 'local') {
    const dir = path.resolve(req.callerDir, src.path);
    if (!(await isDirectory(dir))) throw new Error(`module directory ${src.path} does not exist (resolved to ${dir})`);
    return { dir, via: 'local' };
  }
  if (src.kind === 'file') {
    const dir = path.join(path.resolve(splitSubdir(req.source)[0]), src.subdir ?? '');
    if (await isDirectory(dir)) return { dir, via: 'local' };
    const copy = await opts.installed?.find(req);
    if (copy) return { ...copy, via: 'installed' };
    throw new Error(`module directory ${shown} does not exist (${redactUrls(dir)})`);
  }
  const installed = await opts.installed?.find(req);
  if (installed) return { ...installed, via: 'installed' };
  if (!opts.fetcher) {
    throw new Error(opts.installed ? `module ${shown} is not installed (run tofu init)` : 'not a local module, and remote modules are not read here');
  }
  if (opts.fetch === false) throw new Error(`module ${shown} is not installed, and registry lookups are disabled`);
  if (src.kind === 'unknown') throw new Error(`invalid module source ${JSON.stringify(shown)}: ${safeText(src.error ?? 'unrecognised')}`);
  return opts.fetcher.fetchPackage(req, src);
}
