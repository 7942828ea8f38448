// Updating `.terraform.lock.hcl` after a provider upgrade ("Upgrade to newest" once its constraint
// is rewritten, "Update within constraint" as it is), through the lock engine: lockProviders with
// `upgrade` limited to the providers that move selects the newest version their constraints allow
// (root and child modules), hashes it for the team's platforms, keeps every other entry as
// `tofu init` would, and writes atomically — only when the whole directory succeeded, so a failed
// or cancelled relock leaves the file byte for byte as it was. Each directory is relocked once,
// however many of its providers move; directories moving the same providers share one run.
import { join, resolve } from 'node:path';
import type { Engine } from '../engine';
import { lockProviders } from '../lock/lock';
import { LOCK_FILE_NAME } from '../lockfile/render';
import type { LockFailure, LockProgressEvent, LockReport } from '../lock/types';
import { ModuleResolver, sharedModuleReader } from '../modulepkg/resolve';

export interface RelockRequest {
  engine: Engine;
  /** Configuration directory → addresses of the providers that take the newest version allowed. */
  providers: ReadonlyMap<string, readonly string[]>;
  /** os_arch platforms whose h1: hashes the lock records (the team's: tofuRegistry.lock.platforms). */
  platforms: string[];
  /** Reads remote child modules (for their constraints), once per source and constraint; default: the lock engine's own. */
  resolver?: ModuleResolver;
  /** Configuration text that differs from disk (unsaved editor buffers), by absolute path. */
  overlay?: ReadonlyMap<string, string>;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (e: LockProgressEvent) => void;
}

/** Relock; the report lists the directories in the order given (failed ones too, `changed: false`). */
export async function relockProviders(req: RelockRequest): Promise<LockReport> {
  const wanted = new Map<string, Set<string>>();
  for (const [d, addresses] of req.providers) {
    const dir = resolve(d);
    wanted.set(dir, new Set([...(wanted.get(dir) ?? []), ...addresses]));
  }
  const groups = new Map<string, { upgrade: string[]; dirs: string[] }>();
  for (const [dir, addresses] of wanted) {
    const upgrade = [...addresses].sort();
    const key = JSON.stringify(upgrade);
    const g = groups.get(key) ?? { upgrade, dirs: [] };
    g.dirs.push(dir);
    groups.set(key, g);
  }
  const resolver = req.resolver ? sharedModuleReader(req.resolver) : undefined;
  const reports: LockReport[] = [];
  for (const { upgrade, dirs } of groups.values()) {
    if (req.signal?.aborted) { reports.push(cancelled(dirs)); continue; }
    reports.push(await lockProviders({
      engine: req.engine, dirs, platforms: req.platforms, upgrade, resolver, overlay: req.overlay,
      concurrency: req.concurrency, signal: req.signal, onProgress: req.onProgress,
    }));
  }
  const byDir = new Map(reports.flatMap((r) => r.lockFiles.map((f) => [f.dir, f] as const)));
  return {
    lockFiles: [...wanted.keys()].map((d) => byDir.get(d)!),
    failed: reports.flatMap((r) => r.failed),
    notes: [...new Set(reports.flatMap((r) => r.notes))],
    archivesDownloaded: reports.reduce((n, r) => n + r.archivesDownloaded, 0),
    bytesDownloaded: reports.reduce((n, r) => n + r.bytesDownloaded, 0),
  };
}

/** Directories a cancelled run never reached: nothing written. */
function cancelled(dirs: string[]): LockReport {
  const failed: LockFailure[] = dirs.map((dir) => ({
    dir, provider: '', version: '', platform: '', step: 'cancelled', message: `${join(dir, LOCK_FILE_NAME)}: not written: the run was cancelled`,
  }));
  return { lockFiles: dirs.map((dir) => ({ dir, path: join(dir, LOCK_FILE_NAME), changed: false, providers: [] })), failed, notes: [], archivesDownloaded: 0, bytesDownloaded: 0 };
}
