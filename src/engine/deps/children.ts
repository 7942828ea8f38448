// Which providers a configuration requires is the lock engine's answer (collectProviderRequirements:
// the root and every child module — required_providers, provider blocks, resources), so that the
// dependency graph, `outdated`, the lock diagnostics and `lock` agree. What the graph adds is where
// child modules are read from: local and installed ones in place; others fetched through the
// ModuleResolver once per (source, constraint) however many directories call them; none fetched
// when the network is not allowed.
import { collectProviderRequirements, ModuleDirResolver, ProviderRequirements } from '../lockfile/requirements';
import { findInstalled, ModuleRequest, ModuleResolver } from '../modules/resolve';

// Remote child modules fetched per resolver (its own cache lives as long): one fetch per
// (source, constraint) however many directories call it, in this run and the next.
const fetchedByResolver = new WeakMap<ModuleResolver, Map<string, Promise<string>>>();

/** Reads installed modules in place; fetches others through `resolver` (shared per resolver) unless offline. */
export function graphModuleReader(resolver: ModuleResolver | undefined, online: boolean): ModuleDirResolver {
  let memo = resolver && fetchedByResolver.get(resolver);
  if (resolver && !memo) fetchedByResolver.set(resolver, (memo = new Map()));
  return {
    async resolve(req: ModuleRequest) {
      const installed = await findInstalled(req);
      if (installed) return { dir: installed.dir };
      if (!resolver || !memo) throw new Error(`module ${req.source} is not installed (run tofu init)`);
      if (!online) throw new Error(`module ${req.source} is not installed, and registry lookups are disabled`);
      const key = JSON.stringify([req.source, req.version ?? '']);
      let dir = memo.get(key);
      if (!dir) {
        const fetched = resolver.resolve(req).then((r) => r.dir);
        memo.set(key, fetched);
        // a failure is not remembered here (the resolver keeps it briefly): the next run tries again
        fetched.catch(() => { if (memo!.get(key) === fetched) memo!.delete(key); });
        dir = fetched;
      }
      return { dir: await dir };
    },
  };
}

/** Every provider the module tree rooted at `dir` requires, with each constraint's origin. */
export function providerRequirements(dir: string, resolver: ModuleResolver | undefined, online: boolean): Promise<ProviderRequirements> {
  return collectProviderRequirements(dir, { resolver: graphModuleReader(resolver, online) });
}

/** OpenTofu's module path for a requirement origin's "net.subnets": "module.net.module.subnets". */
export function modulePath(path: string): string {
  return path.split('.').map((name) => `module.${name}`).join('.');
}
