// The lock file measured against the configuration, as plain diagnostics per file (for the editor):
// a locked version outside the constraints (what `tofu init` rejects), a required provider the lock
// lacks, a locked provider no longer required, and a lock that lacks h1: for one of the team's
// platforms — plus the lock file's own problems (syntax, OpenTofu's checks).
import type { Range } from '../config/ast';
import { selectVersions } from '../versions';
import type { LockedProvider, LockFile } from '../lockfile/read';
import { canonicalConstraints } from '../lockfile/render';
import type { ProviderRequirements } from './requirements';

export type LockStatusCode = 'lock-version-mismatch' | 'lock-missing-provider' | 'lock-stale-provider' | 'lock-missing-platform' | 'lock-file';

export interface LockStatusDiagnostic {
  file: string;
  range: Range;
  message: string;
  severity: 'error' | 'warning' | 'information';
  code: LockStatusCode;
  /** The provider it is about (for a quick fix that re-locks just that one). */
  provider?: string;
}

/** Which team platforms a locked provider's h1: hashes cover (see platformCoverage). */
export interface PlatformCoverage {
  /** Team platforms whose h1: is known and recorded. */
  covered: string[];
  /** Team platforms whose h1: is known and NOT recorded. */
  missing: string[];
  /** Team platforms whose h1: nobody could tell (no cache entry, no `packages`). */
  unknown: string[];
}

export interface LockStatusInput {
  requirements: ProviderRequirements;
  lockPath: string;
  lock: LockFile;
  /** The team's platforms (tofuRegistry.lock.platforms). */
  platforms: string[];
  /** Coverage per locked address@version, when known. */
  coverage?: ReadonlyMap<string, PlatformCoverage>;
}

export function coverageKey(address: string, version: string): string {
  return `${address}@${version}`;
}

export function lockStatus(input: LockStatusInput): LockStatusDiagnostic[] {
  const { requirements: reqs, lock, lockPath } = input;
  const out: LockStatusDiagnostic[] = lock.diagnostics.map((d) => ({
    file: lockPath, range: d.range, message: d.message, severity: d.severity, code: 'lock-file' as const,
  }));
  const locked = new Map<string, LockedProvider>(lock.providers.map((p) => [p.address, p]));
  const unlocked: string[] = [];
  for (const req of reqs.providers) {
    const entry = locked.get(req.address);
    if (!entry) {
      unlocked.push(req.address);
      for (const o of req.origins) {
        out.push({
          file: o.file, range: o.range, severity: 'warning', code: 'lock-missing-provider', provider: req.address,
          message: `${req.address} is not in ${lockPath}: tofu init will add it (and a CI run with -lockfile=readonly will fail). Lock providers to record it for every platform.`,
        });
      }
      continue;
    }
    if (!entry.version) continue; // the lock file's own diagnostics say why
    let constraints: string;
    try { constraints = canonicalConstraints(req.constraints); } catch { continue; } // the configuration diagnostics say why
    const sel = selectVersions([entry.version], constraints || null, 'provider');
    if (sel.selected !== entry.version && !sel.invalid.length) {
      const message = `Locked version ${entry.version} of ${req.address} does not match the configured constraints ${constraints}: tofu init fails until the lock is updated (tofu init -upgrade, or lock providers).`;
      out.push({ file: lockPath, range: entry.versionRange ?? entry.headerRange, severity: 'error', code: 'lock-version-mismatch', provider: req.address, message });
      for (const o of req.origins.filter((x) => x.constraint !== null)) {
        out.push({ file: o.file, range: o.range, severity: 'error', code: 'lock-version-mismatch', provider: req.address, message });
      }
      continue;
    }
    const cov = input.coverage?.get(coverageKey(entry.address, entry.version));
    if (cov?.missing.length) {
      out.push({
        file: lockPath, range: entry.headerRange, severity: 'warning', code: 'lock-missing-platform', provider: req.address,
        message: `${req.address} ${entry.version} has no h1: hash for ${cov.missing.join(', ')}: tofu init on ${cov.missing.length > 1 ? 'those platforms' : 'that platform'} will change the lock file (or fail with -lockfile=readonly).`,
      });
    } else if (cov?.unknown.length) {
      const h1 = entry.hashes.filter((h) => h.startsWith('h1:')).length;
      if (h1 < input.platforms.length) {
        out.push({
          file: lockPath, range: entry.headerRange, severity: 'information', code: 'lock-missing-platform', provider: req.address,
          message: `${req.address} ${entry.version} has ${h1} h1: hash${h1 === 1 ? '' : 'es'} for the team's ${input.platforms.length} platforms (${input.platforms.join(', ')}); which platforms they cover is not known yet. Lock providers to make sure.`,
        });
      }
    }
  }
  // A provider no longer required is only certain when every module could be read.
  if (!reqs.errors.length) {
    const required = new Set(reqs.providers.map((p) => p.address));
    for (const p of lock.providers.filter((x) => !required.has(x.address))) {
      out.push({
        file: lockPath, range: p.headerRange, severity: 'warning', code: 'lock-stale-provider', provider: p.address,
        message: `${p.address} is locked but no longer required by the configuration: tofu init will remove it.`,
      });
    }
  }
  return out;
}
