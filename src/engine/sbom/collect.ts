// What an SBOM lists, collected from the workspace: each root module, its module calls followed
// recursively through the packages `tofu init` installed or the resolver fetched (as `types check`
// walks them: installed copies in place, others fetched once per package into the cache), and
// its providers (as the dependency graph `outdated` builds lists them, from the same parts: the
// module tree's requirements and the lock file; the locked version, or the one tofu would select)
// with the lock file's hashes. Online, every remote package is fetched through the
// ModuleResolver (cached: a re-run asks nothing), which records what its bytes were; an installed
// registry module is fetched at the version installed. Offline, only lock files and modules.json
// are read, and each component says what could not be known. Nothing here is invented: a hash or
// commit that was not seen is absent, with a note.
import * as path from 'node:path';
import { parseModuleSource, parseOciModuleSource, parseProviderSource } from '../addresses';
import type { RegistryModuleSource } from '../addresses/module-source';
import { splitSubdir } from '../addresses/module-source';
import type { Engine } from '../engine';
import { evaluateVersions, providerRequirements, readLocalFacts } from '../deps';
import type { LocalModuleCall } from '../deps/collect';
import { readModuleCalls } from '../deps/collect';
import { mapLimit, readTextIfExists } from '../fstree';
import { LOCK_FILE_NAME, readLockFile } from '../lockfile';
import { problemText } from '../lock';
import { ModuleBudget, ModuleBudgetLimits } from '../modulepkg/budget';
import { packageSource } from '../modulepkg/fetch';
import { parseGitSource } from '../git/clone';
import type { FetchedFacts, LocatedModule, ModuleRequest } from '../modulepkg/locate';
import { InstalledModules, ModuleResolver } from '../modulepkg/resolve';
import { redactUrls, shortText, shownUrl } from '../net/http-errors';
import { modulePurlOf, ociPurlOf, providerPurlOf } from './purl';
import type { ModuleSourceKind, SbomComponent, SbomInventory } from './types';
import { GitCommitLookup, settleGitCommit } from './git-commit';

export interface SbomCollectOptions {
  engine: Engine;
  /** Fetches packages (online); its `installed` memo is the run's modules.json reader. */
  resolver?: ModuleResolver;
  /** Only lock files and modules.json: nothing fetched, no registry asked. */
  offline?: boolean;
  /** Paths in names and refs are shown relative to it (default: the process's working directory). */
  baseDir?: string;
  moduleLimits?: ModuleBudgetLimits;
  gitCommit?: GitCommitLookup;
  signal?: AbortSignal;
}

/** Root modules collected at once (like the dependency graph's directories). */
const ROOT_CONCURRENCY = 8;

const NOT_FETCHED_OFFLINE = 'package not fetched (--offline): no hash';

/** The SBOM inventory of the root modules `roots` (absolute or relative to baseDir), in that order. */
export async function collectSbom(roots: string[], opts: SbomCollectOptions): Promise<SbomInventory> {
  const base = path.resolve(opts.baseDir ?? process.cwd());
  const online = !opts.offline;
  const installed = opts.resolver?.installed ?? new InstalledModules();
  const run = new Collector(opts, base, online, installed);
  const absRoots = roots.map((r) => path.resolve(base, r));
  // Roots a few at a time (shared caches make each package one fetch however many roots call it);
  // the result does not depend on the order they finish in: everything is sorted at the end.
  const rootRefs = await mapLimit(absRoots, ROOT_CONCURRENCY, (root) => {
    opts.signal?.throwIfAborted();
    return run.root(root);
  });
  const notes = [...run.notes];
  if (!online) notes.push('offline: module packages were not fetched and no registry was asked; versions and sources come from .terraform/modules/modules.json and lock files');
  const rootSet = new Set(rootRefs);
  const rest = [...run.components.values()].filter((c) => !rootSet.has(c.ref)).sort((a, b) => cmp(a.ref, b.ref));
  const components = [...rootRefs.map((r) => run.components.get(r)!), ...rest].map(finish);
  // every component has its entry, an empty one when it depends on nothing (CycloneDX's advice: "none" is a fact too)
  for (const c of components) if (!run.edges.has(c.ref)) run.edges.set(c.ref, new Set());
  const dependencies = new Map([...run.edges.entries()].sort((a, b) => cmp(a[0], b[0])).map(([k, v]) => [k, [...v].sort(cmp)]));
  return { roots: rootRefs, components, dependencies, notes: [...new Set(notes)].sort(cmp), online };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function finish(c: SbomComponent): SbomComponent {
  const props = [...new Map(c.properties.map((p) => [`${p[0]}\u0000${p[1]}`, p])).values()]
    .sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  return { ...c, sha256: [...new Set(c.sha256)].sort(cmp), properties: props, notes: [...new Set(c.notes)].sort(cmp), ...(c.lockHashes ? { lockHashes: [...new Set(c.lockHashes)].sort(cmp) } : {}) };
}

/** A message without secrets or control characters, short enough for a document. */
function clean(message: string): string {
  return printable(shortText(redactUrls(message), 300));
}

/** Control characters (a hostile server's or workspace's text) as visible escapes: nothing reaches a terminal raw. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

class Collector {
  readonly components = new Map<string, SbomComponent>();
  readonly edges = new Map<string, Set<string>>();
  readonly notes: string[] = [];
  private readonly calls = new Map<string, Promise<LocalModuleCall[]>>();

  constructor(private readonly opts: SbomCollectOptions, private readonly base: string, private readonly online: boolean,
    private readonly installed: InstalledModules) {}

  private shownDir(dir: string): string {
    return (path.relative(this.base, dir) || '.').split(path.sep).join('/');
  }

  private edge(from: string, to: string): void {
    let set = this.edges.get(from);
    if (!set) this.edges.set(from, set = new Set());
    set.add(to);
  }

  private component(c: SbomComponent): SbomComponent {
    const have = this.components.get(c.ref);
    if (!have) {
      this.components.set(c.ref, c);
      return c;
    }
    // the same package reached twice: what either visit learned
    have.sha256.push(...c.sha256);
    have.properties.push(...c.properties);
    have.notes.push(...c.notes);
    have.downloadLocation ??= c.downloadLocation;
    if (c.lockHashes) have.lockHashes = [...(have.lockHashes ?? []), ...c.lockHashes];
    if (c.locked) have.locked = true;
    if (c.git?.commit && have.git && !have.git.commit) have.git.commit = c.git.commit;
    return have;
  }

  private callsOf(dir: string): Promise<LocalModuleCall[]> {
    let p = this.calls.get(dir);
    if (!p) this.calls.set(dir, p = readModuleCalls(dir));
    return p;
  }

  async root(dir: string): Promise<string> {
    const shown = this.shownDir(dir);
    const ref = `root:${shown}`;
    this.component({
      ref, kind: 'root', name: shown === '.' ? path.basename(dir) : shown, version: null, source: shown,
      sha256: [], properties: [['tofu-registry:directory', shown]], notes: [],
    });
    this.edges.set(ref, this.edges.get(ref) ?? new Set());
    // module path ("net.subnets", modules.json keys) → component, for the providers each requires
    const byPath = new Map<string, string>([['', ref]]);
    const budget = new ModuleBudget(this.opts.moduleLimits);
    await this.walk(dir, ref, { ref, dir }, '', [shown], byPath, budget);
    await this.providers(dir, ref, byPath);
    return ref;
  }

  /** The module calls of `callerDir` (part of component `callerRef`; local modules belong to `owner`). */
  private async walk(callerDir: string, callerRef: string, owner: { ref: string; dir: string }, keyPrefix: string, chain: string[],
    byPath: Map<string, string>, budget: ModuleBudget): Promise<void> {
    this.opts.signal?.throwIfAborted();
    const calls = await this.callsOf(callerDir);
    await Promise.all(calls.map(async (call) => {
      const key = keyPrefix ? `${keyPrefix}.${call.name}` : call.name;
      const link = [...chain, `${call.name} (${shownUrl(call.source ?? '?')})`];
      const refused = budget.claim(link);
      if (refused !== undefined) {
        if (refused) this.notes.push(clean(refused));
        return;
      }
      if (!call.source) {
        this.notes.push(`${chain.join(' → ')}: module "${call.name}": the source is missing or not a literal string; not listed`);
        return;
      }
      const src = parseModuleSource(call.source);
      if (src.kind === 'local') {
        const dir = path.resolve(callerDir, src.path);
        const rel = path.relative(owner.dir, dir).split(path.sep).join('/') || '.';
        const ref = `${owner.ref}//${rel}`;
        const parent = this.components.get(owner.ref);
        this.component({
          ref, kind: 'module', sourceKind: 'local', name: `${parent?.name ?? owner.ref}//${rel}`, version: parent?.kind === 'module' ? parent.version : null,
          source: call.source, partOf: owner.ref, path: rel, sha256: [], properties: [['tofu-registry:source', call.source]], notes: [],
        });
        this.edge(callerRef, ref);
        byPath.set(key, ref);
        await this.walk(dir, ref, owner, key, link, byPath, budget);
        return;
      }
      const found = await this.module(callerDir, call, src);
      this.edge(callerRef, found.ref);
      byPath.set(key, found.ref);
      if (found.dir) await this.walk(found.dir, found.ref, { ref: found.ref, dir: found.dir }, key, link, byPath, budget);
    }));
  }

  /** A non-local module call: its component, and the directory its nested calls are read from (when it is on disk). */
  private async module(callerDir: string, call: LocalModuleCall, src: ReturnType<typeof parseModuleSource>): Promise<{ ref: string; dir?: string }> {
    const source = call.source!;
    const req: ModuleRequest = { callerDir, name: call.name, source, version: call.constraint, signal: this.opts.signal };
    const notes: string[] = [];
    const inst = await this.installed.find(req).catch(() => undefined);
    let fetched: LocatedModule | undefined;
    const resolver = this.opts.resolver;
    if (this.online && resolver && src.kind !== 'local' && src.kind !== 'file' && src.kind !== 'unknown') {
      // the package tofu uses: the installed version when tofu init installed one, else what it selects
      const pinned = src.kind === 'registry' && inst?.version ? { ...req, version: `= ${inst.version}` } : req;
      try {
        fetched = await resolver.fetchPackage(pinned, src);
      } catch (err) {
        if (this.opts.signal?.aborted) throw err;
        notes.push(`package not fetched: ${clean((err as Error).message)}`);
      }
    } else if (!this.online && src.kind !== 'file') {
      notes.push(NOT_FETCHED_OFFLINE);
    }
    let dir = inst?.dir ?? fetched?.dir;
    if (src.kind === 'file') {
      const located = await resolver?.locate(req, { installed: this.installed, fetch: false }).catch(() => undefined);
      dir = located?.dir ?? dir;
    }
    if (!inst && !fetched && src.kind !== 'file') notes.push(this.online ? 'not installed, and its package could not be fetched: its module calls are not listed' : 'not installed (run tofu init): its module calls are not listed');
    const facts = fetched?.fetched;
    const version = inst?.version ?? fetched?.version ?? null;
    const c = src.kind === 'registry' ? this.registryModule(src, version, source, facts, notes)
      : src.kind === 'oci' ? this.ociModule(source, facts, notes)
        : await this.remoteModule(src.kind, source, src, facts, notes);
    if (inst && !fetched) c.properties.push(['tofu-registry:installed', 'true']);
    return { ref: this.component(c).ref, dir };
  }

  private registryModule(src: RegistryModuleSource, version: string | null, source: string, facts: FetchedFacts | undefined, notes: string[]): SbomComponent {
    if (version === null) notes.push('version unknown: not installed, and the registry was not asked or did not answer');
    const c: SbomComponent = {
      ref: `module:${src.fullAddress}@${version ?? 'unknown'}${src.subdir ? `//${src.subdir}` : ''}`, kind: 'module', sourceKind: 'registry',
      name: src.address + (src.subdir ? `//${src.subdir}` : ''), version, source: shownUrl(source), purl: modulePurlOf(src, version),
      sha256: [], properties: [['tofu-registry:source', shownUrl(source)], ['tofu-registry:registry', src.host]], notes,
    };
    this.addFacts(c, facts);
    return c;
  }

  private ociModule(source: string, facts: FetchedFacts | undefined, notes: string[]): SbomComponent {
    const parsed = parseOciModuleSource(source);
    const shown = shownUrl(source);
    const oci = facts?.oci;
    const tag = oci?.tag ?? (parsed && !parsed.digest ? parsed.tag ?? 'latest' : undefined) ?? undefined;
    const manifestDigest = oci?.manifestDigest ?? parsed?.digest;
    if (!manifestDigest) notes.push('manifest digest unknown: the tag was not resolved');
    const c: SbomComponent = {
      ref: manifestDigest && parsed ? `module:oci://${parsed.registry}/${parsed.repository}@${manifestDigest}${parsed.subdir ? `//${parsed.subdir}` : ''}` : `module:${shown}`,
      kind: 'module', sourceKind: 'oci', name: parsed ? `oci://${parsed.registry}/${parsed.repository}${parsed.subdir ? `//${parsed.subdir}` : ''}` : shown,
      version: tag ?? manifestDigest ?? null, source: shown, sha256: [], properties: [['tofu-registry:source', shown]], notes,
    };
    if (parsed) {
      c.oci = { registry: parsed.registry, repository: parsed.repository, ...(tag ? { tag } : {}), ...(manifestDigest ? { manifestDigest } : {}), ...(oci?.blobDigest ? { blobDigest: oci.blobDigest } : {}) };
      if (manifestDigest) c.purl = ociPurlOf({ registry: parsed.registry, repository: parsed.repository, tag, manifestDigest });
      if (manifestDigest) c.properties.push(['tofu-registry:oci-manifest-digest', manifestDigest]);
      if (oci?.blobDigest) c.properties.push(['tofu-registry:oci-blob-digest', oci.blobDigest]);
    }
    this.addFacts(c, facts);
    return c;
  }

  private async remoteModule(kind: string, source: string, src: ReturnType<typeof parseModuleSource>, facts: FetchedFacts | undefined, notes: string[]): Promise<SbomComponent> {
    const shown = shownUrl(source);
    const sourceKind: ModuleSourceKind = kind === 'git' || kind === 'github' || kind === 'bitbucket' ? 'git' : kind === 'http' ? 'http' : 'other';
    const c: SbomComponent = {
      ref: `module:${shown}`, kind: 'module', sourceKind, name: shown, version: null, source: shown, sha256: [],
      properties: [['tofu-registry:source', shown]], notes,
    };
    if (sourceKind === 'other') notes.push(`${'description' in src ? src.description : kind} sources are not fetched by tofu-registry: no hash`);
    this.addFacts(c, facts);
    if (sourceKind === 'git') {
      c.version = c.git?.ref ?? null;
      await settleGitCommit(c, source, facts, this.online ? this.opts.gitCommit : undefined, this.opts.signal, clean);
    }
    return c;
  }

  /** The download location, hashes and git facts of a fetched package (or, unfetched, what the source says). */
  private addFacts(c: SbomComponent, facts: FetchedFacts | undefined): void {
    const location = facts?.location ?? (c.sourceKind === 'git' || c.sourceKind === 'http' ? c.source : undefined);
    if (location) {
      c.downloadLocation = shownUrl(location);
      const git = gitOf(location);
      if (git) c.git = { url: shownUrl(git.url), ...(git.ref ? { ref: git.ref } : {}), ...(facts?.commit ? { commit: facts.commit } : {}) };
    }
    if (facts?.sha256) {
      c.sha256.push(facts.sha256);
      if (facts.size !== undefined) c.properties.push(['tofu-registry:package-size', String(facts.size)]);
    } else if (facts && !facts.commit) {
      c.notes.push('no hash recorded: the package was cached by an earlier version of tofu-registry (clear the cache to record it)');
    } else if (facts?.commit) {
      c.notes.push('git package: identified by its commit, no archive hash');
    }
    if (c.git?.commit) c.properties.push(['tofu-registry:git-commit', c.git.commit]);
    if (c.git?.ref) c.properties.push(['tofu-registry:git-ref', c.git.ref]);
  }

  /**
   * The root's providers — what the dependency graph lists (deps/: the requirements of the whole
   * module tree, then providers only the lock file names), each at its locked version, or the one
   * tofu would select (versions/ rules over the registry's list) — with the lock file's hashes and
   * which modules require each. Built from the graph's parts rather than buildDependencyGraph,
   * which would also ask for every module's newer versions and OCI tag lists an SBOM does not need.
   */
  private async providers(root: string, rootRef: string, byPath: Map<string, string>): Promise<void> {
    const { engine, resolver, moduleLimits, signal } = this.opts;
    const online = this.online;
    const [reqs, lockText, facts] = await Promise.all([
      providerRequirements(root, resolver, online, { installed: this.installed, moduleLimits, signal }),
      readTextIfExists(path.join(root, LOCK_FILE_NAME)),
      readLocalFacts(root),
    ]);
    const shown = this.shownDir(root);
    const lock = new Map<string, string[]>();
    if (lockText !== undefined) {
      for (const p of readLockFile(lockText).providers) {
        try { lock.set(parseProviderSource(p.address).address, p.hashes); } catch { /* reported with the lock file's error */ }
      }
    }
    for (const e of [...facts.errors, ...reqs.errors.map(problemText)]) this.notes.push(`${shown}: ${clean(e)}`);
    if (facts.lock.error) this.notes.push(`${shown}: tofu init refuses the lock file: ${clean(facts.lock.error)}`);
    const items = reqs.providers.map((p) => ({ address: p.address, constraint: p.constraints.length ? [...new Set(p.constraints)].join(', ') : null, origins: p.origins }));
    for (const address of facts.lock.providers.keys()) {
      if (!items.some((i) => i.address === address)) items.push({ address, constraint: null, origins: [] });
    }
    await Promise.all(items.map(async (item) => {
      let parsed;
      try { parsed = parseProviderSource(item.address); } catch { return; }
      const lockedVersion = facts.lock.providers.get(parsed.address)?.version ?? null;
      const locked = lockedVersion !== null;
      const notes: string[] = [];
      let version = lockedVersion;
      if (!locked) {
        if (!online) notes.push('not locked, and the version tofu would select is unknown (offline: no registry asked)');
        else {
          try {
            const list = await engine.listProviderVersions(parsed.address, { signal });
            const e = evaluateVersions('provider', list.versions.map((v) => v.version), item.constraint, null);
            version = e.selected;
            notes.push(version ? 'not locked: the version tofu init would select now' : `not locked, and no version can be selected${e.message ? `: ${clean(e.message)}` : ''}`);
          } catch (err) {
            if (signal?.aborted) throw err;
            notes.push(`not locked, and the version tofu would select is unknown: ${clean((err as Error).message)}`);
          }
        }
      }
      const hashes = locked ? lock.get(parsed.address) ?? [] : [];
      const zh = hashes.filter((h) => /^zh:[0-9a-f]{64}$/.test(h)).map((h) => h.slice(3));
      if (locked && !hashes.length) notes.push('the lock file records no hashes for it');
      const c = this.component({
        ref: `provider:${parsed.address}@${version ?? 'unknown'}`, kind: 'provider', name: parsed.address, version, source: parsed.address,
        purl: providerPurlOf(parsed, version), sha256: zh, lockHashes: [...hashes], locked,
        properties: [['tofu-registry:locked', String(locked)], ['tofu-registry:registry', parsed.host], ...hashes.map((h) => ['tofu-registry:lock-hash', h] as [string, string])],
        notes,
      });
      this.edge(rootRef, c.ref);
      for (const o of item.origins) {
        const owner = o.module === '' ? rootRef : byPath.get(o.module);
        if (owner) this.edge(owner, c.ref);
      }
    }));
  }
}

/** A git package location's repository and ref (go-getter's `git::URL?ref=…`, the GitHub shorthands), or undefined. */
function gitOf(location: string): { url: string; ref?: string } | undefined {
  const pkg = splitSubdir(location)[0];
  let ps;
  try { ps = packageSource(pkg); } catch { return undefined; }
  if (ps.kind !== 'git') return undefined;
  try {
    const g = parseGitSource(ps.src);
    return { url: g.url, ...(g.ref ? { ref: g.ref } : {}) };
  } catch {
    return undefined;
  }
}
