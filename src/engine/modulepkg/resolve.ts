// Finding the directory of a called module: local paths, absolute paths (read in place, honouring
// `//subdir`), modules installed by `tofu init` (.terraform/modules/modules.json, found once per
// directory chain: InstalledModules), and registry / HTTP archive / git sources fetched into a
// cache. A registry module is resolved once per (address, selected version) — never per call,
// calling directory or constraint — and a remote one once per source; the version list and the
// download location come from the engine's caches. Failures are remembered briefly.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Engine } from '../engine';
import type { ModuleAddress, ModuleSource } from '../addresses/module-source';
import { readTextIfExists, withOpenFile } from '../fstree';
import { shownUrl } from '../net/http-errors';
import { selectVersions } from '../versions';
import { parseOciModuleSource } from '../addresses/oci-source';
import { fetchOciPackage } from './oci-fetch';
import { resolveOciModule } from './oci-registry';
import { engineCaCertificates, fetchModuleWithFacts, FetchOptions, moduleDirectory } from './fetch';
import { fetchWithFreshLocation } from './location';
import { FetchedFacts, LocatedModule, locateModule, ModuleRequest } from './locate';
import { loadModuleInterface, ModuleInterface } from './variables';

export type { ModuleRequest } from './locate';

export interface ResolvedModule {
  dir: string;
  /** How it was found. */
  via: LocatedModule['via'];
  /** Registry modules: the selected version. */
  version?: string;
  iface: ModuleInterface;
}

export interface ResolverOptions {
  engine?: Engine;
  /** Remote modules are fetched below `<cacheDir>/modules`; without it remote sources are not fetched. */
  cacheDir?: string;
  /** False: only local and installed modules (untrusted workspace / offline). */
  networkAllowed?: () => boolean;
  timeoutMs?: number;
  /** Deadline of a whole `git::` clone (default 10 min; not the request timeout). */
  gitTimeoutMs?: number;
  maxBytes?: number;
  /** How long a failure is remembered (default 30 s). */
  failureTtlMs?: number;
}

interface ModulesJson { Modules?: { Key?: string; Source?: string; Version?: string; Dir?: string }[] }

/** The `.terraform/modules/modules.json` that applies to a directory: the nearest one above it (or in it). */
interface Manifest { root: string; doc?: ModulesJson }

/** How far up a directory chain a modules.json is looked for. */
const MANIFEST_LEVELS = 32;

/**
 * What `tofu init` installed, looked up through the modules.json that applies to a caller: each
 * directory of a chain is asked once (a monorepo's thousands of module calls share the reads of
 * their common parents instead of walking up to / each time). Forget it when files may have
 * changed (clear()).
 */
export class InstalledModules {
  private readonly manifests = new Map<string, Promise<Manifest | undefined>>();

  /** The module as `tofu init` installed it for this call, or undefined. */
  async find(req: ModuleRequest): Promise<{ dir: string; version?: string } | undefined> {
    const callerDir = path.resolve(req.callerDir);
    const manifest = await this.manifestFor(callerDir, MANIFEST_LEVELS);
    if (!manifest?.doc) return undefined;
    const mods = manifest.doc.Modules ?? [];
    const callerRel = path.relative(manifest.root, callerDir).split(path.sep).join('/') || '.';
    // The key of the calling module: "" for the root, else the entry whose Dir is the caller.
    const parent = callerRel === '.' ? { Key: '' } : mods.find((m) => normDir(m.Dir) === callerRel);
    if (!parent) return undefined;
    const key = parent.Key ? `${parent.Key}.${req.name}` : req.name;
    const entry = mods.find((m) => m.Key === key);
    if (!entry?.Dir) return undefined;
    // A source edited since `tofu init` is not installed any more.
    if (entry.Source && entry.Source !== req.source && !entry.Source.endsWith(`/${req.source}`)) return undefined;
    const dir = path.resolve(manifest.root, entry.Dir);
    if (!(await withOpenFile(() => fs.stat(dir)).catch(() => undefined))?.isDirectory()) return undefined;
    return { dir, version: entry.Version };
  }

  clear(): void { this.manifests.clear(); }

  /** The manifest in `dir` or the nearest above it (up to `levels` directories), read once per directory. */
  private manifestFor(dir: string, levels: number): Promise<Manifest | undefined> {
    let p = this.manifests.get(dir);
    if (!p) {
      p = (async () => {
        const text = await readTextIfExists(path.join(dir, '.terraform', 'modules', 'modules.json'));
        if (text !== undefined) {
          try { return { root: dir, doc: JSON.parse(text) as ModulesJson }; } catch { return { root: dir }; } // unreadable: nothing installed
        }
        const up = path.dirname(dir);
        return up === dir || levels <= 1 ? undefined : this.manifestFor(up, levels - 1);
      })();
      this.manifests.set(dir, p);
      // a read error (not "no such file") is not remembered: the next request tries again
      p.catch(() => { if (this.manifests.get(dir) === p) this.manifests.delete(dir); });
    }
    return p;
  }
}

export class ModuleResolver {
  /** Local and installed modules' interfaces by directory (their files may change while editing: invalidateLocal). */
  private readonly local = new Map<string, Promise<ResolvedModule>>();
  /** Fetched packages' interfaces by directory. */
  private readonly interfaces = new Map<string, Promise<ResolvedModule>>();
  /** Registry modules by (address, selected version, subdir, answer context); remote ones by source. */
  private readonly packages = new Map<string, Promise<LocatedModule>>();
  /** What `tofu init` installed, by the modules.json that applies to each caller. */
  readonly installed = new InstalledModules();
  private fetchOptions?: FetchOptions;

  constructor(private readonly opts: ResolverOptions) {}

  /** Resolve and load the module's variables. Rejects with an error that names the source. */
  async resolve(req: ModuleRequest): Promise<ResolvedModule> {
    const found = await this.locate(req);
    // Local and installed files may change while editing (invalidateLocal); fetched packages do not.
    const memo = found.via === 'local' || found.via === 'installed' ? this.local : this.interfaces;
    return this.once(memo, `${found.via} ${found.dir} ${found.version ?? ''}`, async () => ({ ...found, iface: await loadModuleInterface(found.dir) }));
  }

  /**
   * The package directory of a call (locateModule): local, installed (through `installed`, this
   * resolver's own by default), else fetched by this resolver unless `fetch` is false.
   */
  locate(req: ModuleRequest, opts: { installed?: InstalledModules; fetch?: boolean } = {}): Promise<LocatedModule> {
    return locateModule(req, { installed: opts.installed ?? this.installed, fetcher: this, fetch: opts.fetch });
  }

  /** A package `tofu init` would download: registry and remote sources, once per package key. */
  fetchPackage(req: ModuleRequest, src: ModuleSource): Promise<LocatedModule> {
    const shown = shownUrl(req.source);
    const { engine, cacheDir } = this.opts;
    if (!engine || !cacheDir) return Promise.reject(new Error(`module ${shown} is not installed (run tofu init) and no download cache is configured`));
    if (this.opts.networkAllowed && !this.opts.networkAllowed()) return Promise.reject(new Error(`module ${shown} is not installed, and network access is disabled`));
    if (src.kind === 'registry') {
      return (async () => {
        const version = await this.selectVersion(engine, src, req.version ?? null, req.signal);
        // Keyed like the registry's answers (engine.answerContext): a package fetched where another
        // `host` block, CA, proxy or credentials source pointed is never served for this one.
        const context = engine.answerContext([src.host]);
        return this.once(this.packages, `registry ${src.fullAddress}@${version}//${src.subdir ?? ''}|${context}`, async () => {
          const { dir, fetched } = await this.fetchRegistryModule(engine, src, version, `${src.fullAddress}@${version}|${context}`, req.signal);
          return { dir, via: 'registry' as const, version, fetched };
        }, req.signal);
      })();
    }
    if (src.kind === 'http' || src.kind === 'git' || src.kind === 'github' || src.kind === 'bitbucket') {
      // The source names where it comes from; the trust (CAs, proxy) it was fetched under is in the key too.
      const key = `${req.source}|${engine.answerContext([])}`;
      return this.once(this.packages, `remote ${key}`, async () => {
        // The user's own source: cloned with the user's git credential helpers, as tofu init clones it.
        const opts = { ...this.fetchOpts(engine, cacheDir, req.signal), gitUserCredentials: { env: engine.options.env ?? process.env } };
        const { dir, facts } = await fetchModuleWithFacts(req.source, key, opts);
        return { dir, via: 'remote' as const, fetched: { location: req.source, ...facts } };
      }, req.signal);
    }
    if (src.kind === 'oci') {
      const oci = parseOciModuleSource(req.source);
      if (!oci || oci.error) return Promise.reject(new Error(`invalid module source ${JSON.stringify(shown)}: ${oci?.error?.message ?? 'not an oci:// source'}`));
      // The tag is resolved once per run; the package is fetched once per digest (fetchOciPackage's cache).
      return this.once(this.packages, `oci ${req.source}|${engine.answerContext([])}`, async () => {
        const resolved = await resolveOciModule(engine, oci, { signal: req.signal });
        const pkg = await fetchOciPackage(engine, resolved, cacheDir, { signal: req.signal, maxBytes: this.opts.maxBytes });
        const dir = await moduleDirectory(pkg.root, oci.subdir ?? '', req.source);
        const fetched: FetchedFacts = {
          location: `oci://${resolved.registry}/${resolved.repository}@${resolved.manifestDigest}`,
          ...(resolved.blobDigest?.startsWith('sha256:') ? { sha256: resolved.blobDigest.slice(7) } : {}), ...(resolved.size !== null ? { size: resolved.size } : {}),
          oci: { registry: resolved.registry, repository: resolved.repository, tag: resolved.tag, manifestDigest: resolved.manifestDigest, blobDigest: resolved.blobDigest },
        };
        return { dir, via: 'oci' as const, ...(resolved.tag ? { version: resolved.tag } : {}), fetched };
      }, req.signal);
    }
    const description = src.kind === 'local' ? 'local' : src.description;
    return Promise.reject(new Error(`cannot read the variables of module source ${shown}: ${description} sources are not supported`));
  }

  /** Forget everything (e.g. after files of a local module changed). */
  clear(): void {
    this.local.clear();
    this.interfaces.clear();
    this.packages.clear();
    this.installed.clear();
  }

  /** Forget local/installed results only: their files may change while editing. */
  invalidateLocal(): void {
    this.local.clear();
    this.installed.clear();
  }

  /**
   * The version `tofu init` selects: from the registry's version list (cached), an exact pin
   * ("1.2.0", "= 1.2.0") too — a version the list does not name (withdrawn) is not installed by
   * tofu, even when its download endpoint still answers. Its download location is then cached.
   */
  private async selectVersion(engine: Engine, src: ModuleAddress, constraint: string | null, signal?: AbortSignal): Promise<string> {
    const list = await engine.listModuleVersions(src, { signal });
    const sel = selectVersions(list.versions, constraint, 'module');
    if (sel.error) throw new Error(`module ${src.address}: ${sel.error}`);
    if (!sel.selected) {
      throw new Error(`no version of module ${src.address} on ${src.host} matches ${constraint ? JSON.stringify(constraint) : 'any version'}`);
    }
    return (await engine.resolveDownloadLocation(src, sel.selected, { signal })).version;
  }

  /**
   * Fetches a registry module version (once per package key: fetchModule keeps it on disk) from
   * its cached download location, asked again once when that fails (fetchWithFreshLocation).
   */
  private async fetchRegistryModule(engine: Engine, src: ModuleAddress & { subdir?: string }, version: string, key: string, signal?: AbortSignal): Promise<{ dir: string; fetched: FetchedFacts }> {
    const opts = this.fetchOpts(engine, this.opts.cacheDir!, signal);
    const loc = await engine.resolveDownloadLocation(src, version, { signal });
    const fetched = await fetchWithFreshLocation(engine, src, version, loc.location,
      (location) => fetchModuleWithFacts(src.subdir ? addSubdir(location, src.subdir) : location, key, opts), signal);
    return { dir: fetched.value.dir, fetched: { location: fetched.location, ...fetched.value.facts } };
  }

  /** The fetch settings of this resolver (the engine's CA certificates read once), with the caller's signal. */
  private fetchOpts(engine: Engine, cacheDir: string, signal?: AbortSignal): FetchOptions {
    this.fetchOptions ??= {
      http: engine.http, cacheDir, timeoutMs: this.opts.timeoutMs, gitTimeoutMs: this.opts.gitTimeoutMs, maxBytes: this.opts.maxBytes,
      caCertificates: engineCaCertificates(engine), env: engine.options.env ?? process.env,
    };
    return signal ? { ...this.fetchOptions, signal } : this.fetchOptions;
  }

  /**
   * One promise per key in `memo`; a failure is forgotten after failureTtlMs (default 30 s), a
   * cancelled one at once (it says nothing about the module: the next caller fetches again).
   */
  private once<T>(memo: Map<string, Promise<T>>, key: string, run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const hit = memo.get(key);
    if (hit) return hit;
    const promise = run();
    memo.set(key, promise);
    const ttl = this.opts.failureTtlMs ?? 30_000;
    const forget = () => { if (memo.get(key) === promise) memo.delete(key); };
    promise.catch(() => (signal?.aborted ? forget() : setTimeout(forget, ttl).unref?.()));
    return promise;
  }
}

/**
 * Reads called modules for many root modules at once: installed ones in place (per caller, through
 * `installed`: one run's memo of the modules.json files, a new one by default), others through
 * `resolver` — which resolves each registry module once per selected version and each remote
 * source once, whatever the caller. `fetch: false` (untrusted workspace, offline): installed
 * modules only.
 */
export function sharedModuleReader(resolver: ModuleResolver | undefined, opts: { fetch?: boolean; installed?: InstalledModules } = {}): { resolve(req: ModuleRequest): Promise<LocatedModule> } {
  const installed = opts.installed ?? new InstalledModules();
  return { resolve: (req) => locateModule(req, { installed, fetcher: resolver, fetch: opts.fetch }) };
}

/** `loc//sub` with a module source subdir, keeping a `//dir` the location already has. */
function addSubdir(location: string, subdir: string): string {
  const q = location.indexOf('?', location.indexOf('://') + 3);
  const base = q >= 0 ? location.slice(0, q) : location;
  const query = q >= 0 ? location.slice(q) : '';
  const afterScheme = base.indexOf('://') >= 0 ? base.indexOf('://') + 3 : 0;
  const hasSub = base.indexOf('//', afterScheme) >= 0;
  return hasSub ? `${base}/${subdir}${query}` : `${base}//${subdir}${query}`;
}

/** The module as `tofu init` installed it (a one-off lookup; many lookups share an InstalledModules). */
export function findInstalled(req: ModuleRequest, installed: InstalledModules = new InstalledModules()): Promise<{ dir: string; version?: string } | undefined> {
  return installed.find(req);
}

function normDir(d: string | undefined): string {
  return (d ?? '').replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '') || '.';
}
