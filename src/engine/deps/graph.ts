// The workspace dependency graph: for each configuration directory, every module call and every
// provider, with what is locked/installed, what `tofu init` would select now, what is newer and a
// status. Registry lookups go through the Engine's caches (single-flight, one request per module
// or provider per TTL across all directories); progress is reported and the run can be cancelled.
import * as path from 'node:path';
import { parseModuleSource, parseProviderSource } from '../addresses';
import type { Engine } from '../engine';
import { findInstalled, ModuleResolver } from '../modules/resolve';
import { RegistryError } from '../net/errors';
import { childProviderRequirements } from './children';
import { LocalFacts, LocalModuleCall, LocalProvider, readLocalFacts } from './collect';
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
}

// Remote child modules fetched per resolver (its own cache lives as long): one fetch per
// (source, constraint) however many directories call it, in this run and the next.
const fetchedByResolver = new WeakMap<ModuleResolver, Map<string, Promise<string>>>();

function memoFor(resolver: ModuleResolver | undefined): Map<string, Promise<string>> {
  if (!resolver) return new Map();
  let m = fetchedByResolver.get(resolver);
  if (!m) fetchedByResolver.set(resolver, (m = new Map()));
  return m;
}

/** Dependencies of several configuration directories, in the order given. */
export async function buildDependencyGraph(dirs: string[], opts: GraphOptions): Promise<DependencyGraph> {
  const memo = memoFor(opts.resolver);
  const out: DirectoryDependencies[] = new Array(dirs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < dirs.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      out[i] = await directoryDependencies(dirs[i], opts, memo);
      opts.onProgress?.(++done, dirs.length, dirs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 8, dirs.length)) }, worker));
  opts.signal?.throwIfAborted();
  return { directories: out };
}

export async function directoryDependencies(dir: string, opts: GraphOptions, memo = memoFor(opts.resolver)): Promise<DirectoryDependencies> {
  const abs = path.resolve(dir);
  const facts = await readLocalFacts(abs);
  const online = opts.networkAllowed?.() ?? true;
  const children = await childProviderRequirements(abs, facts.modules, {
    resolver: online ? opts.resolver : undefined, memo, signal: opts.signal,
  });
  const [modules, providers] = await Promise.all([
    Promise.all(facts.modules.map((m) => moduleDependency(abs, m, opts, online))),
    providerDependencies(facts, children.requirements, opts, online),
  ]);
  return { dir: abs, modules, providers, errors: [...facts.errors, ...children.errors] };
}

function base(dir: string, kind: Dependency['kind'], name: string, source: string, constraint: string | null, locked: string | null): Dependency {
  return { dir, kind, name, source, constraint, locked, selected: null, newestMatching: null, newest: null, status: 'up-to-date', message: null };
}

async function moduleDependency(dir: string, call: LocalModuleCall, opts: GraphOptions, online: boolean): Promise<Dependency> {
  const dep = base(dir, 'module', call.name, call.source ?? '', call.constraint, null);
  dep.site = call.site;
  if (!call.source) return fail(dep, 'error', 'the module source is missing or not a literal string');
  if (call.versionNotLiteral) return fail(dep, 'error', 'the version argument is not a literal string');
  const src = parseModuleSource(call.source);
  if (src.kind !== 'registry') {
    if (src.kind === 'unknown') return fail(dep, 'error', `invalid module source: ${src.error ?? 'unrecognised'}`);
    if (call.constraint !== null) return fail(dep, 'error', `a version constraint applies only to registry modules; ${src.kind === 'local' ? 'a local path' : src.description} has none`);
    dep.message = src.kind === 'local' ? 'local module: not versioned' : `${src.description} source: versions are not tracked by a registry`;
    return dep;
  }
  dep.registryAddress = src.address;
  dep.host = src.host;
  const installed = await findInstalled({ callerDir: dir, name: call.name, source: call.source, version: call.constraint }).catch(() => undefined);
  dep.locked = installed?.version ?? null;
  if (!online) return offline(dep);
  try {
    opts.signal?.throwIfAborted();
    const list = await opts.engine.listModuleVersions(src);
    return settle(dep, evaluateVersions('module', list.versions, call.constraint, dep.locked));
  } catch (err) {
    return lookupFailed(dep, err, opts.signal);
  }
}

async function providerDependencies(facts: LocalFacts, children: { module: string; address: LocalProvider['address']; constraints: string[] }[], opts: GraphOptions, online: boolean): Promise<Dependency[]> {
  // Root entries first, then providers only child modules require, then lock-file-only providers
  // (usually implied by resources): `tofu init` installs all of them.
  const entries = new Map<string, { name: string; provider: LocalProvider; child: { module: string; constraint: string }[] }>();
  for (const p of facts.providers) entries.set(p.address.address, { name: p.name, provider: p, child: [] });
  for (const c of children) {
    let e = entries.get(c.address.address);
    if (!e) {
      e = { name: c.address.type, provider: { name: c.address.type, address: c.address, constraints: [] }, child: [] };
      entries.set(c.address.address, e);
    }
    for (const constraint of c.constraints) e.child.push({ module: c.module, constraint });
  }
  for (const address of facts.locked.keys()) {
    if (entries.has(address)) continue;
    try {
      const provider = { name: address.split('/').pop()!, address: parseProviderSource(address), constraints: [] };
      entries.set(address, { name: provider.name, provider, child: [] });
    } catch { /* an unreadable lock entry is the lock engine's to report */ }
  }
  return Promise.all([...entries.values()].map(async ({ name, provider, child }) => {
    const all = [...provider.constraints, ...child.map((c) => c.constraint).filter((c) => !provider.constraints.includes(c))];
    const constraint = all.length ? [...new Set(all)].join(', ') : null;
    const dep = base(facts.dir, 'provider', name, provider.address.address, constraint, facts.locked.get(provider.address.address) ?? null);
    dep.registryAddress = provider.address.address;
    dep.host = provider.address.host;
    if (provider.site) dep.site = provider.site;
    if (child.length) dep.childConstraints = child;
    if (!online) return offline(dep);
    try {
      opts.signal?.throwIfAborted();
      const list = await opts.engine.listProviderVersions(provider.address);
      return settle(dep, evaluateVersions('provider', list.versions.map((v) => v.version), constraint, dep.locked));
    } catch (err) {
      return lookupFailed(dep, err, opts.signal);
    }
  }));
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
