// The workspace dependency graph: for each configuration directory, every module call and every
// provider, with what is locked/installed, what `tofu init` would select now, what is newer and a
// status. Registry lookups go through the Engine's caches (single-flight, one request per module
// or provider per TTL across all directories); progress is reported and the run can be cancelled.
import * as path from 'node:path';
import { parseModuleSource, parseOciModuleSource, parseProviderSource, ProviderAddress } from '../addresses';
import type { Engine } from '../engine';
import { problemText, ProviderRequirements, RequiredProviderInfo } from '../lock/requirements';
import type { ModuleBudgetLimits } from '../modulepkg/budget';
import { InstalledModules, ModuleResolver } from '../modulepkg/resolve';
import { RegistryError } from '../net/errors';
import { modulePath, providerRequirements } from './children';
import { localModuleDir } from '../modulepkg/locate';
import { LocalFacts, LocalModuleCall, readLocalFacts, readModuleCalls } from './collect';
import { ociModuleDependency } from './oci';
import { gitModuleDependency } from './git';
import { parseGitModuleSource } from '../git';
import { evaluateVersions } from './status';
import type { Dependency, DependencyGraph, DirectoryDependencies } from './types';

export interface GraphOptions {
  engine: Engine;
  /** Reads child modules for their required providers (fetching remote ones); none: local and installed only. */
  resolver?: ModuleResolver;
  /** False: no registry lookups (untrusted workspace, --offline); local facts are still reported. */
  networkAllowed?: () => boolean;
  signal?: AbortSignal;
  /** After each directory. */
  onProgress?: (done: number, total: number, dir: string) => void;
  /** Directories worked on at once (default 8). */
  concurrency?: number;
  /** How deep and how large each directory's module tree may be (modulepkg/budget.ts). */
  moduleLimits?: ModuleBudgetLimits;
  /** What `tofu init` installed, read once per directory chain: one per run (buildDependencyGraph makes it). */
  installed?: InstalledModules;
}

/** Dependencies of several configuration directories, in the order given. */
export async function buildDependencyGraph(dirs: string[], options: GraphOptions): Promise<DependencyGraph> {
  // The modules.json files as they are now (the editor's graph re-runs after `tofu init`).
  const opts = { ...options, installed: options.installed ?? new InstalledModules() };
  const out: DirectoryDependencies[] = new Array(dirs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < dirs.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      out[i] = await directoryDependencies(dirs[i], opts);
      opts.onProgress?.(++done, dirs.length, dirs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 8, dirs.length)) }, worker));
  opts.signal?.throwIfAborted();
  return { directories: out };
}

export async function directoryDependencies(dir: string, options: GraphOptions): Promise<DirectoryDependencies> {
  const opts = { ...options, installed: options.installed ?? new InstalledModules() };
  const abs = path.resolve(dir);
  const online = opts.networkAllowed?.() ?? true;
  const [facts, requirements] = await Promise.all([readLocalFacts(abs), providerRequirements(abs, opts.resolver, online, opts)]);
  opts.signal?.throwIfAborted();
  const nested = await nestedModuleCalls(abs, facts.modules);
  const [modules, providers] = await Promise.all([
    Promise.all([
      ...facts.modules.map((m) => moduleDependency(abs, abs, m, opts, online)),
      ...nested.map(async (n) => ({ ...await moduleDependency(abs, n.dir, n.call, opts, online), modulePath: n.path })),
    ]),
    providerDependencies(facts, requirements, opts, online),
  ]);
  // Problems a provider item already shows (a malformed constraint, a lock file tofu refuses) are not repeated.
  const shown = new Set(providers.map((p) => p.message));
  const errors = [...facts.errors, ...requirements.errors.map(problemText), ...(facts.lock.error ? [facts.lock.error] : [])]
    .filter((e) => !shown.has(e) && !shown.has(lockRefused(e)));
  return { dir: abs, modules, providers, errors };
}

function base(dir: string, kind: Dependency['kind'], name: string, source: string, constraint: string | null, locked: string | null): Dependency {
  return { dir, kind, name, source, constraint, locked, selected: null, newestMatching: null, newest: null, status: 'up-to-date', message: null };
}

/** How deep local child modules are followed for their module calls (a safety bound, far above real trees). */
const MAX_LOCAL_DEPTH = 16;

/**
 * The module calls of the root's local child modules, recursively: `tofu init` installs those
 * too, and they belong to the root (a child module's directory is not a configuration of its own:
 * roots.ts). Each child directory is read once, so local cycles end; `path` is the calling child's
 * modules.json key ("network", "network.subnets").
 */
async function nestedModuleCalls(root: string, rootCalls: LocalModuleCall[]): Promise<Array<{ dir: string; path: string; call: LocalModuleCall }>> {
  const out: Array<{ dir: string; path: string; call: LocalModuleCall }> = [];
  const seen = new Set([root]);
  const children = (dir: string, parent: string, calls: LocalModuleCall[]) => calls.flatMap((c) => {
    const child = localModuleDir(dir, c.source);
    if (child === undefined || seen.has(child)) return [];
    seen.add(child);
    return [{ dir: child, path: parent ? `${parent}.${c.name}` : c.name }];
  });
  let level = children(root, '', rootCalls);
  for (let depth = 0; level.length && depth < MAX_LOCAL_DEPTH; depth++) {
    // An unreadable child is reported by the requirement collector (its providers come from there).
    const read = await Promise.all(level.map(async (c) => ({ ...c, calls: await readModuleCalls(c.dir) })));
    level = [];
    for (const c of read) {
      for (const call of c.calls) out.push({ dir: c.dir, path: c.path, call });
      level.push(...children(c.dir, c.path, c.calls));
    }
  }
  return out;
}

/** One module call of `callerDir` (the root or one of its local child modules), listed under the configuration `dir`. */
async function moduleDependency(dir: string, callerDir: string, call: LocalModuleCall, opts: GraphOptions & { installed: InstalledModules }, online: boolean): Promise<Dependency> {
  const dep = base(dir, 'module', call.name, call.source ?? '', call.constraint, null);
  dep.site = call.site;
  if (!call.source) return fail(dep, 'error', 'the module source is missing or not a literal string');
  if (call.versionNotLiteral) return fail(dep, 'error', 'the version argument is not a literal string');
  const src = parseModuleSource(call.source);
  if (src.kind === 'oci' && call.constraint === null) {
    const oci = parseOciModuleSource(call.source);
    if (oci) return ociModuleDependency(dep, oci, opts.engine, online, (d, err) => lookupFailed(d, err, opts.signal), offline, opts.signal);
  }
  if ((src.kind === 'git' || src.kind === 'github' || src.kind === 'bitbucket') && call.constraint === null) {
    const git = parseGitModuleSource(call.source);
    if (git) return gitModuleDependency(dep, git, opts.engine, online, (d, err) => lookupFailed(d, err, opts.signal), offline, opts.signal);
  }
  if (src.kind !== 'registry') {
    if (src.kind === 'unknown') return fail(dep, 'error', `invalid module source: ${src.error ?? 'unrecognised'}`);
    if (call.constraint !== null) return fail(dep, 'error', `a version constraint applies only to registry modules; ${src.kind === 'local' ? 'a local path' : src.description} has none`);
    dep.message = src.kind === 'local' ? 'local module: not versioned' : `${src.description} source: versions are not tracked by a registry`;
    return dep;
  }
  dep.registryAddress = src.address;
  dep.host = src.host;
  const installed = await opts.installed.find({ callerDir, name: call.name, source: call.source, version: call.constraint }).catch(() => undefined);
  dep.locked = installed?.version ?? null;
  if (!online) return offline(dep);
  try {
    opts.signal?.throwIfAborted();
    const list = await opts.engine.listModuleVersions(src, { signal: opts.signal });
    return settle(dep, evaluateVersions('module', list.versions, call.constraint, dep.locked));
  } catch (err) {
    return lookupFailed(dep, err, opts.signal);
  }
}

async function providerDependencies(facts: LocalFacts, reqs: ProviderRequirements, opts: GraphOptions, online: boolean): Promise<Dependency[]> {
  // Root required_providers first (file order), then providers only child modules, provider blocks
  // or resources require, then lock-file-only providers: `tofu init` installs all of them.
  const byAddress = new Map(reqs.providers.map((p) => [p.address, p]));
  const order = [...[...facts.declared.keys()].filter((a) => byAddress.has(a)), ...reqs.providers.map((p) => p.address).filter((a) => !facts.declared.has(a))];
  const items: Array<{ name: string; address: ProviderAddress; info?: RequiredProviderInfo }> = [...new Set(order)].map((address) => {
    const info = byAddress.get(address)!;
    const name = facts.declared.get(address)?.name ?? info.origins.find((o) => o.module === '')?.localName ?? info.provider.type;
    return { name, address: info.provider, info };
  });
  for (const address of facts.lock.providers.keys()) {
    if (!byAddress.has(address)) items.push({ name: address.split('/').pop()!, address: parseProviderSource(address) });
  }
  return Promise.all(items.map(async ({ name, address, info }) => {
    const constraint = info?.constraints.length ? [...new Set(info.constraints)].join(', ') : null;
    const lock = facts.lock.providers.get(address.address);
    const dep = base(facts.dir, 'provider', name, address.address, constraint, lock?.version ?? null);
    dep.registryAddress = address.address;
    dep.host = address.host;
    const site = facts.declared.get(address.address)?.site;
    if (site) dep.site = site;
    if (lock) dep.lockSite = lock.site;
    const child = (info?.origins ?? []).filter((o) => o.module !== '' && o.constraint !== null).map((o) => ({ module: modulePath(o.module), constraint: o.constraint! }));
    if (child.length) dep.childConstraints = child;
    const invalid = info && reqs.errors.find((e) => info.origins.some((o) => o.constraint === null && o.file === e.file && o.range.start.offset === e.range?.start.offset));
    if (invalid) return fail(dep, 'error', problemText(invalid));
    const evaluated = await evaluate(dep, constraint, opts, online);
    // tofu init refuses a broken lock file whatever the registry says
    return facts.lock.error ? { ...evaluated, selected: null, status: 'error', message: lockRefused(facts.lock.error), problem: undefined } : evaluated;
  }));
}

async function evaluate(dep: Dependency, constraint: string | null, opts: GraphOptions, online: boolean): Promise<Dependency> {
  if (!online) return offline(dep);
  try {
    opts.signal?.throwIfAborted();
    const list = await opts.engine.listProviderVersions(dep.registryAddress!, { signal: opts.signal });
    return settle(dep, evaluateVersions('provider', list.versions.map((v) => v.version), constraint, dep.locked));
  } catch (err) {
    return lookupFailed(dep, err, opts.signal);
  }
}

function lockRefused(problem: string): string {
  return `tofu init refuses the lock file: ${problem}`;
}

function settle(dep: Dependency, e: ReturnType<typeof evaluateVersions>): Dependency {
  return { ...dep, ...e };
}

function fail(dep: Dependency, status: Dependency['status'], message: string): Dependency {
  return { ...dep, status, message };
}

function offline(dep: Dependency): Dependency {
  return { ...dep, status: 'error', message: 'registry lookups are disabled (untrusted workspace or offline)', problem: 'network-disabled' };
}

const UNREACHABLE = new Set(['network', 'timeout', 'tls', 'too-many-redirects', 'rate-limited', 'server-error']);

function lookupFailed(dep: Dependency, err: unknown, signal: AbortSignal | undefined): Dependency {
  if (signal?.aborted) throw signal.reason ?? err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RegistryError) {
    if (err.code === 'not-found') return fail(dep, 'not-found', message);
    if (err.code === 'network-disabled') return offline(dep);
    if (UNREACHABLE.has(err.code)) return { ...fail(dep, 'error', message), problem: 'unreachable', host: err.host ?? dep.host };
  }
  return fail(dep, 'error', message);
}
