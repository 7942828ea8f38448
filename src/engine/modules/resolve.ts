// Finding the directory of a called module: local paths, absolute paths (read in place, honouring
// `//subdir`), modules installed by `tofu init`
// (.terraform/modules/modules.json), and registry / HTTP archive / git sources fetched into a
// cache. Results (and failures, briefly) are cached per (caller dir, source, version).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Engine } from '../engine';
import { parseModuleSource, splitSubdir } from '../addresses/module-source';
import { redactUrls, shownUrl } from '../net/http-errors';
import { selectVersions } from '../versions';
import { engineCaCertificates, fetchModule, FetchOptions } from './fetch';
import { loadModuleInterface, ModuleInterface } from './variables';

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

export interface ResolvedModule {
  dir: string;
  /** How it was found. */
  via: 'local' | 'installed' | 'registry' | 'remote';
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

export class ModuleResolver {
  private readonly cache = new Map<string, Promise<ResolvedModule>>();

  constructor(private readonly opts: ResolverOptions) {}

  /** Resolve and load the module's variables. Rejects with an error that names the source. */
  resolve(req: ModuleRequest): Promise<ResolvedModule> {
    const key = JSON.stringify([path.resolve(req.callerDir), req.name, req.source, req.version ?? '']);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const promise = this.doResolve(req);
    this.cache.set(key, promise);
    const ttl = this.opts.failureTtlMs ?? 30_000;
    const forget = () => { if (this.cache.get(key) === promise) this.cache.delete(key); };
    // a cancelled fetch says nothing about the module: the next caller fetches again
    promise.catch(() => (req.signal?.aborted ? forget() : setTimeout(forget, ttl).unref?.()));
    return promise;
  }

  /** Forget everything (e.g. after files of a local module changed). */
  clear(): void { this.cache.clear(); }

  /** Forget local/installed results only: their files may change while editing. */
  invalidateLocal(): void {
    for (const [k, v] of this.cache) {
      v.then((r) => { if (r.via === 'local' || r.via === 'installed') this.cache.delete(k); }, () => undefined);
    }
  }

  private async doResolve(req: ModuleRequest): Promise<ResolvedModule> {
    const src = parseModuleSource(req.source);
    // A source may carry user:password or a signed query: messages show it redacted.
    const shown = shownUrl(req.source);
    if (src.kind === 'local') {
      const dir = path.resolve(req.callerDir, src.path);
      const st = await fs.stat(dir).catch(() => undefined);
      if (!st?.isDirectory()) throw new Error(`module directory ${src.path} does not exist (resolved to ${dir})`);
      return { dir, via: 'local', iface: await loadModuleInterface(dir) };
    }
    if (src.kind === 'file') {
      // tofu init copies this directory like a remote package; its files are read in place
      // (as current as a local module). Not there (written for another machine): the installed copy.
      const dir = path.join(path.resolve(splitSubdir(req.source)[0]), src.subdir ?? '');
      if ((await fs.stat(dir).catch(() => undefined))?.isDirectory()) return { dir, via: 'local', iface: await loadModuleInterface(dir) };
      const copy = await findInstalled(req);
      if (copy) return { dir: copy.dir, via: 'installed', iface: await loadModuleInterface(copy.dir) };
      throw new Error(`module directory ${shown} does not exist (${redactUrls(dir)})`);
    }
    const installed = await findInstalled(req);
    if (installed) return { dir: installed.dir, via: 'installed', version: installed.version, iface: await loadModuleInterface(installed.dir) };
    if (src.kind === 'unknown') throw new Error(`invalid module source ${JSON.stringify(shown)}: ${redactUrls(src.error ?? 'unrecognised')}`);
    const { engine, cacheDir } = this.opts;
    if (!engine || !cacheDir) throw new Error(`module ${shown} is not installed (run tofu init) and no download cache is configured`);
    if (this.opts.networkAllowed && !this.opts.networkAllowed()) throw new Error(`module ${shown} is not installed, and network access is disabled`);
    const fetchOpts: FetchOptions = {
      http: engine.http, cacheDir, timeoutMs: this.opts.timeoutMs, gitTimeoutMs: this.opts.gitTimeoutMs, maxBytes: this.opts.maxBytes,
      caCertificates: engineCaCertificates(engine), signal: req.signal,
    };
    if (src.kind === 'registry') {
      const list = await engine.listModuleVersions(src);
      const sel = selectVersions(list.versions, req.version ?? null, 'module');
      if (sel.error) throw new Error(`module ${src.address}: ${sel.error}`);
      if (!sel.selected) {
        throw new Error(`no version of module ${src.address} on ${src.host} matches ${req.version ? JSON.stringify(req.version) : 'any version'}`);
      }
      const loc = await engine.resolveDownloadLocation(src, sel.selected);
      let location = loc.location;
      if (src.subdir) location = addSubdir(location, src.subdir);
      // Keyed like the registry's answers (engine.answerContext): a package fetched where another
      // `host` block, CA, proxy or credentials source pointed is never served for this one.
      const dir = await fetchModule(location, `${src.fullAddress}@${loc.version}|${engine.answerContext([src.host])}`, fetchOpts);
      return { dir, via: 'registry', version: loc.version, iface: await loadModuleInterface(dir) };
    }
    if (src.kind === 'http' || src.kind === 'git' || src.kind === 'github' || src.kind === 'bitbucket') {
      // The source names where it comes from; the trust (CAs, proxy) it was fetched under is in the key too.
      const dir = await fetchModule(req.source, `${req.source}|${engine.answerContext([])}`, fetchOpts);
      return { dir, via: 'remote', iface: await loadModuleInterface(dir) };
    }
    throw new Error(`cannot read the variables of module source ${shown}: ${src.description} sources are not supported`);
  }
}

// Remote modules read per resolver (its own cache lives as long): one fetch per (source, constraint).
const sharedByResolver = new WeakMap<ModuleResolver, Map<string, Promise<string>>>();

/**
 * Reads called modules for many root modules at once: installed ones in place (per caller), others
 * through `resolver` once per (source, constraint) — their directory does not depend on the caller
 * — in this run and the next; a failure is not remembered here (the resolver keeps it briefly).
 * `fetch: false` (untrusted workspace, offline): installed modules only.
 */
export function sharedModuleReader(resolver: ModuleResolver | undefined, opts: { fetch?: boolean } = {}): { resolve(req: ModuleRequest): Promise<{ dir: string }> } {
  let memo = resolver && sharedByResolver.get(resolver);
  if (resolver && !memo) sharedByResolver.set(resolver, (memo = new Map()));
  return {
    async resolve(req: ModuleRequest) {
      const installed = await findInstalled(req);
      if (installed) return { dir: installed.dir };
      if (!resolver || !memo) throw new Error(`module ${shownUrl(req.source)} is not installed (run tofu init)`);
      if (opts.fetch === false) throw new Error(`module ${shownUrl(req.source)} is not installed, and registry lookups are disabled`);
      if (parseModuleSource(req.source).kind === 'local') return resolver.resolve(req);
      const key = JSON.stringify([req.source, req.version ?? '']);
      let dir = memo.get(key);
      if (!dir) {
        const fetched = resolver.resolve(req).then((r) => r.dir);
        memo.set(key, fetched);
        fetched.catch(() => { if (memo!.get(key) === fetched) memo!.delete(key); });
        dir = fetched;
      }
      return { dir: await dir };
    },
  };
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

/** The module as `tofu init` installed it, found via .terraform/modules/modules.json above the caller. */
export async function findInstalled(req: ModuleRequest): Promise<{ dir: string; version?: string } | undefined> {
  let root = path.resolve(req.callerDir);
  for (let i = 0; i < 32; i++) {
    const manifest = path.join(root, '.terraform', 'modules', 'modules.json');
    const text = await fs.readFile(manifest, 'utf8').catch(() => undefined);
    if (text !== undefined) {
      let doc: ModulesJson;
      try { doc = JSON.parse(text) as ModulesJson; } catch { return undefined; }
      const mods = doc.Modules ?? [];
      const callerRel = path.relative(root, path.resolve(req.callerDir)).split(path.sep).join('/') || '.';
      // The key of the calling module: "" for the root, else the entry whose Dir is the caller.
      const parent = callerRel === '.' ? { Key: '' } : mods.find((m) => normDir(m.Dir) === callerRel);
      if (!parent) return undefined;
      const key = parent.Key ? `${parent.Key}.${req.name}` : req.name;
      const entry = mods.find((m) => m.Key === key);
      if (!entry?.Dir) return undefined;
      // A source edited since `tofu init` is not installed any more.
      if (entry.Source && entry.Source !== req.source && !entry.Source.endsWith(`/${req.source}`)) return undefined;
      const dir = path.resolve(root, entry.Dir);
      if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) return undefined;
      return { dir, version: entry.Version };
    }
    const up = path.dirname(root);
    if (up === root) break;
    root = up;
  }
  return undefined;
}

function normDir(d: string | undefined): string {
  return (d ?? '').replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '') || '.';
}
