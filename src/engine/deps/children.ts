// Which providers a configuration requires is the lock engine's answer (collectProviderRequirements:
// the root and every child module — required_providers, provider blocks, resources), so that the
// dependency graph, `outdated`, the lock diagnostics and `lock` agree. What the graph adds is where
// child modules are read from: local and installed ones in place; others fetched through the
// ModuleResolver once per (source, selected version) however many directories call them; none
// fetched when the network is not allowed. `installed` is the run's memo of modules.json files.
import { collectProviderRequirements, ProviderRequirements } from '../lock/requirements';
import { ModuleBudget, ModuleBudgetLimits } from '../modulepkg/budget';
import { InstalledModules, ModuleResolver, sharedModuleReader } from '../modulepkg/resolve';

/** Every provider the module tree rooted at `dir` requires, with each constraint's origin. */
export function providerRequirements(dir: string, resolver: ModuleResolver | undefined, online: boolean,
  walk: { signal?: AbortSignal; moduleLimits?: ModuleBudgetLimits; installed?: InstalledModules } = {}): Promise<ProviderRequirements> {
  return collectProviderRequirements(dir, {
    resolver: sharedModuleReader(resolver, { fetch: online, installed: walk.installed }), signal: walk.signal, budget: new ModuleBudget(walk.moduleLimits),
  });
}

/** OpenTofu's module path for a requirement origin's "net.subnets": "module.net.module.subnets". */
export function modulePath(path: string): string {
  return path.split('.').map((name) => `module.${name}`).join('.');
}
