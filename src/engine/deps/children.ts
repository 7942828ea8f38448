// THE seam for providers required by child modules. Today: walk the module calls with the
// ModuleResolver (local directories, modules installed by `tofu init`, else fetched like
// `types check` fetches them) and read each module's required_providers. When the lock-file
// engine (src/engine/lockfile, issue 10) lands, this one function switches to its
// collectProviderRequirements(dir, opts), which computes the same thing.
import * as path from 'node:path';
import { parseModuleSource } from '../addresses';
import { loadConfigDir } from '../config/files';
import { findInstalled, ModuleResolver } from '../modules/resolve';
import { LocalModuleCall, providersOf } from './collect';
import type { ProviderAddress } from '../addresses';

export interface ChildRequirement {
  /** Module path as OpenTofu prints it: "module.vpc", "module.vpc.module.subnets". */
  module: string;
  address: ProviderAddress;
  constraints: string[];
}

export interface ChildWalkOptions {
  /** Without one, only local and installed modules are read. */
  resolver?: ModuleResolver;
  /** Shared across directories of one graph run: one fetch per distinct remote module. */
  memo?: Map<string, Promise<string>>;
  signal?: AbortSignal;
}

const MAX_DEPTH = 10;

export async function childProviderRequirements(dir: string, calls: LocalModuleCall[], opts: ChildWalkOptions): Promise<{ requirements: ChildRequirement[]; errors: string[] }> {
  const requirements: ChildRequirement[] = [];
  const errors: string[] = [];
  const memo = opts.memo ?? new Map<string, Promise<string>>();
  const walk = async (callerDir: string, list: LocalModuleCall[], prefix: string, seen: string[]): Promise<void> => {
    await Promise.all(list.map(async (call) => {
      opts.signal?.throwIfAborted();
      if (!call.source) return;
      const modulePath = `${prefix}module.${call.name}`;
      let moduleDir: string;
      try {
        moduleDir = await locateModule(callerDir, call, opts.resolver, memo);
      } catch (err) {
        errors.push(`${modulePath}: its required providers are unknown: ${(err as Error).message}`);
        return;
      }
      if (seen.includes(moduleDir) || seen.length >= MAX_DEPTH) return;
      let files;
      try {
        files = (await loadConfigDir(moduleDir)).files.filter((f) => !f.override);
      } catch (err) {
        errors.push(`${modulePath}: ${(err as Error).message}`);
        return;
      }
      for (const p of providersOf(files, errors)) requirements.push({ module: modulePath, address: p.address, constraints: p.constraints });
      const nested = files.flatMap((f) => f.summary.modules.map((m) => ({
        name: m.name, source: m.source?.literal ?? null, constraint: m.version?.literal ?? null,
        versionNotLiteral: false, site: { file: f.path, range: m.range },
      })));
      await walk(moduleDir, nested, `${modulePath}.`, [...seen, moduleDir]);
    }));
  };
  await walk(dir, calls, '', [path.resolve(dir)]);
  requirements.sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
  return { requirements, errors };
}

/** The directory of a called module: local path, installed copy, else fetched once per (source, version). */
async function locateModule(callerDir: string, call: LocalModuleCall, resolver: ModuleResolver | undefined, memo: Map<string, Promise<string>>): Promise<string> {
  const source = call.source!;
  const src = parseModuleSource(source);
  if (src.kind === 'local') return path.resolve(callerDir, src.path);
  const req = { callerDir, name: call.name, source, version: call.constraint };
  const installed = await findInstalled(req);
  if (installed) return installed.dir;
  if (!resolver) throw new Error(`module ${source} is not installed (run tofu init)`);
  const key = JSON.stringify([source, call.constraint ?? '']);
  let dir = memo.get(key);
  if (!dir) {
    const fetched = resolver.resolve(req).then((r) => r.dir);
    memo.set(key, fetched);
    // a failure is not remembered here (the resolver keeps it briefly): the next run tries again
    fetched.catch(() => { if (memo.get(key) === fetched) memo.delete(key); });
    dir = fetched;
  }
  return dir;
}
