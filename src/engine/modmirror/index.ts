// The module mirror's entry point, shared by `tofu-registry mirror-modules` and "OpenTofu: Mirror
// modules": configuration directories → registry module calls (recursively through the packages)
// → the versions tofu init would select → a static modules.v1 site in OUT/modules/HOST/.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
import { resolve } from 'node:path';
import { hostnameToASCII } from '../addresses';
import { makeTempDir, removeTempDir } from '../fstree';
import { parseVersion, compareVersions } from '../versions/version';
import { cmp, MirrorRun, ModMirrorEngine, RunOptions } from './run';
import { moduleHostBlocks } from './report';
import { ModuleSite } from './site';
import type { ModuleMirrorReport, ModuleVersionRef } from './types';

export type {
  ModuleMirrorReport, MirroredModule, ModuleFailure, ModuleMirrorProgress, ModuleMirrorStep, ModuleVersionRef, SkippedSource,
} from './types';
export { moduleFailureDetail, STEP_LABEL } from './types';
export { moduleHostBlocks, renderModuleReportMarkdown, PLACEHOLDER_BASE_URL } from './report';
export { packDirectory } from './tarball';
export type { ModMirrorEngine } from './run';

export interface MirrorModulesOptions extends RunOptions {
  engine: ModMirrorEngine & { discoverServices?(host: string, opts?: { signal?: AbortSignal }): Promise<{ services: Record<string, string>; objectServices?: Record<string, unknown> }> };
  /** Configuration directories (each read on its own; local modules they call are read too). */
  dirs: string[];
  out: string;
  /** Where OUT will be served, for the `host` blocks (default: a placeholder URL). */
  baseUrl?: string;
}

export async function mirrorModules(opts: MirrorModulesOptions): Promise<ModuleMirrorReport> {
  const out = resolve(opts.out);
  const work = await makeTempDir('tofu-registry-modmirror-');
  try {
    const site = await ModuleSite.open(out, work);
    let run: MirrorRun;
    try {
      run = new MirrorRun(opts, site, work);
      await run.run(opts.dirs);
    } finally {
      await site.close();
    }
    const hosts = await site.hosts();
    return {
      out,
      mirrored: run.mirrored.sort(byModule),
      upToDate: run.upToDate.sort(byModule),
      failed: run.failed.sort((a, b) => byModule(a, b) || cmp(a.message, b.message)), // in any order they happened
      skipped: run.skipped(),
      cliConfig: moduleHostBlocks(hosts, opts.baseUrl, await otherServices(opts.engine, run.hostsSeen, opts.signal)),
      hosts,
    };
  } finally {
    await removeTempDir(work);
  }
}

/** Every service of the origin hosts this run asked (URLs and objects such as login.v1), from the engine's discovery cache. */
async function otherServices(engine: MirrorModulesOptions['engine'], hosts: Set<string>, signal?: AbortSignal): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (!engine.discoverServices) return out;
  for (const host of hosts) {
    if (signal?.aborted) break; // cancelled: no new requests (the blocks keep modules.v1)
    try {
      const d = await engine.discoverServices(host, { signal });
      out.set(hostnameToASCII(host), { ...d.objectServices, ...d.services });
    } catch { /* unreachable origin: only modules.v1 in its block */ }
  }
  return out;
}

/** By module, then version precedence. */
function byModule(a: ModuleVersionRef, b: ModuleVersionRef): number {
  const x = parseVersion(a.version, 'module');
  const y = parseVersion(b.version, 'module');
  const byVersion = typeof x !== 'string' && typeof y !== 'string' ? compareVersions(x, y) : 0;
  return cmp(a.module, b.module) || byVersion || cmp(a.version, b.version);
}
