// Updating `.terraform.lock.hcl` after a provider upgrade. That is the lock-file engine's job
// (src/engine/lockfile, issue 10: lockProviders selects, hashes for the team's platforms, merges
// and writes atomically), which this branch does not have yet: this is the one place to wire it.
export interface RelockRequest {
  /** Configuration directory whose lock file is updated. */
  dir: string;
  /** Provider address → the version to lock. */
  versions: Map<string, string>;
  /** os_arch platforms to hash for (tofuRegistry.lock.platforms). */
  platforms?: string[];
  signal?: AbortSignal;
}

export class LockEngineMissingError extends Error {
  readonly code = 'needs-lock-engine';
  constructor(dir: string) {
    super(`updating ${dir}/.terraform.lock.hcl needs the lock engine (tofu-registry lock), which this build does not include yet: run tofu init -upgrade there`);
  }
}

/** Relock the given providers; rejects with LockEngineMissingError until the lock engine is wired. */
export async function relockProviders(req: RelockRequest): Promise<never> {
  throw new LockEngineMissingError(req.dir);
}
