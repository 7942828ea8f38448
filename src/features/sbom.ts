// "Export SBOM…" as plain data for both adapters (the extension's command, the language server's
// workspace/executeCommand): the root modules under the folders given (chosen as `outdated` and
// `tofu-registry sbom` choose them), the engine's SBOM collected and written (CycloneDX 1.6 or
// SPDX 2.3), the file replaced whole or not at all. Without network access (an untrusted
// workspace, the offline setting) it is the --offline document: lock files and modules.json only.
// sbomGitCommits is the git commit lookup both front ends (this and `tofu-registry sbom`) hand the engine.
import * as path from 'node:path';
import { writeFileAtomic } from '../engine/fstree/outdir';
import { rootConfigDirs } from '../engine/deps';
import type { Engine } from '../engine/engine';
import { parseGitModuleSource } from '../engine/git';
import { ModuleResolver } from '../engine/modulepkg/resolve';
import { shownUrl } from '../engine/net/http-errors';
import { collectSbom, GitCommitLookup, renderSbom, SbomFormat, sbomTimestamp } from '../engine/sbom';
import type { FeatureContext } from './context';
import type { FeatureSettings } from './settings';
import { scanFeatureDirs } from './workspace';

export type { SbomFormat } from '../engine/sbom';

// package.json's version, written into the bundles by scripts/build.mjs (absent when tsc-compiled).
declare const __TOFU_REGISTRY_VERSION__: string | undefined;

export interface SbomExportRequest {
  /** Folders whose root modules are listed (one document for all). */
  dirs: string[];
  format: SbomFormat;
  /** The file to write; without it only the text is returned. */
  out?: string;
  /** Lock files and modules.json only (also when the network is not allowed). */
  offline?: boolean;
  /** SOURCE_DATE_EPOCH is read from it (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Paths in the document are relative to it (default: the first of `dirs`). */
  baseDir?: string;
  signal?: AbortSignal;
}

export interface SbomExportResult {
  format: SbomFormat;
  /** The file written, when `out` was given. */
  out?: string;
  /** The document. */
  text: string;
  /** Root module directories (absolute), in order. */
  roots: string[];
  components: number;
  /** What could not be known, one line each (also in the document). */
  notes: string[];
  offline: boolean;
}

/** The default file name of a format: sbom.cdx.json or sbom.spdx.json. */
export function sbomFileName(format: SbomFormat): string {
  return format === 'spdx' ? 'sbom.spdx.json' : 'sbom.cdx.json';
}

/**
 * The commit of a git module whose package was not cloned (collectSbom's `gitCommit`), for both
 * front ends — `tofu-registry sbom` and the editors' Export SBOM: what the source's ref names on
 * its remote now, read as `tofu-registry resolve` reads it (engine.resolveGitSource: a tag, a
 * branch, the default branch without a ref, a commit id as written; one cached `git ls-remote`
 * per remote, the user's git configuration, never a prompt).
 */
export function sbomGitCommits(engine: Pick<Engine, 'resolveGitSource'>): GitCommitLookup {
  return async (source, signal) => {
    const src = parseGitModuleSource(source);
    if (!src || src.error) throw new Error(`not a git source tofu-registry reads: ${shownUrl(source)}${src?.error ? ` (${src.error})` : ''}`);
    return (await engine.resolveGitSource(src, { signal })).resolved?.commit;
  };
}

export async function exportSbom(ctx: Pick<FeatureContext, 'engine' | 'log' | 'networkAllowed' | 'cacheDir'> & { settings?(): Pick<FeatureSettings, 'maxConfigDirs'> },
  req: SbomExportRequest): Promise<SbomExportResult> {
  const offline = !!req.offline || !ctx.networkAllowed();
  const timestamp = sbomTimestamp(req.env ?? process.env);
  const dirs = req.dirs.map((d) => path.resolve(d));
  if (!dirs.length) throw new Error('no folder to list: open a folder or choose one');
  const scan = await scanFeatureDirs(dirs, ctx.settings?.() ?? {}, ctx.log);
  const roots = await rootConfigDirs(scan.dirs, dirs);
  if (!roots.length) throw new Error(`no OpenTofu configuration found under ${dirs.join(', ')}`);
  const resolver = new ModuleResolver({ engine: ctx.engine, cacheDir: ctx.cacheDir, networkAllowed: () => !offline && ctx.networkAllowed() });
  const base = req.baseDir ?? dirs[0];
  const inv = await collectSbom(roots, { engine: ctx.engine, resolver, offline, baseDir: base, gitCommit: sbomGitCommits(ctx.engine), signal: req.signal });
  const name = roots.length === 1 ? path.basename(roots[0]) : path.basename(base);
  const text = renderSbom(inv, req.format, { timestamp, name, toolVersion: typeof __TOFU_REGISTRY_VERSION__ === 'string' ? __TOFU_REGISTRY_VERSION__ : '0.0.0-dev' });
  const notes = [...new Set([...inv.notes, ...inv.components.flatMap((c) => c.notes.map((n) => `${c.name}${c.version ? ` ${c.version}` : ''}: ${n}`))])];
  for (const n of notes) ctx.log.info(`sbom: ${n}`);
  if (req.out) await writeFileAtomic(req.out, text);
  ctx.log.info(`sbom: ${inv.components.length} components of ${roots.length} root module${roots.length === 1 ? '' : 's'} (${req.format}${offline ? ', offline' : ''})${req.out ? ` → ${req.out}` : ''}`);
  return { format: req.format, ...(req.out ? { out: req.out } : {}), text, roots, components: inv.components.length, notes, offline };
}

