// What `tofu init` would select for one dependency, what is newer, and the resulting status.
// Pure: a version list in, plain data out. Module and provider rules differ (versions/), and so
// does what init keeps: an installed module stays while it matches its constraint
// (initwd's module installer), a locked provider must match or init fails ("locked provider …
// does not match configured version constraint …; must use tofu init -upgrade").
import { compareVersions, matchesConstraint, parseVersion, tryParseConstraint, VersionRules } from '../versions';
import { selectVersions } from '../versions/select';
import type { DependencyStatus } from './types';

export interface Evaluation {
  selected: string | null;
  newestMatching: string | null;
  newest: string | null;
  status: DependencyStatus;
  message: string | null;
}

/**
 * Evaluate a dependency against the registry's versions.
 * `constraint`: every constraint that applies, already joined with ", " (null = any version).
 * `locked`: the lock file's provider version, or the installed module's version.
 */
export function evaluateVersions(kind: VersionRules, versions: readonly string[], constraint: string | null, locked: string | null): Evaluation {
  if (constraint !== null) {
    const parsed = tryParseConstraint(constraint, kind);
    if ('error' in parsed) return { selected: null, newestMatching: null, newest: null, status: 'error', message: `invalid version constraint: ${parsed.error}` };
  }
  const sel = selectVersions(versions as string[], constraint, kind);
  const all = selectVersions(versions as string[], null, kind);
  // The newest release overall, or the newest version the constraint itself asks for when that
  // is newer (a constraint naming a prerelease exactly may select it; nothing else offers one).
  const newest = newer(kind, all.newest, sel.newest);
  const newestMatching = sel.selected;
  // A locked provider version the registry no longer lists: init queries for exactly that version
  // and fails ("the previously-selected version … is no longer available"), whatever else matches.
  if (kind === 'provider' && locked && matches(kind, locked, constraint) && !listed(kind, versions, locked)) {
    return {
      selected: null, newestMatching, newest, status: 'error',
      message: `locked version ${locked} is no longer available from the registry: tofu init fails until the lock is updated (tofu init -upgrade)`,
    };
  }
  if (!newestMatching) {
    const what = constraint === null ? 'no version is available' : `no version matches ${JSON.stringify(constraint)}`;
    return { selected: null, newestMatching: null, newest, status: 'unsatisfiable', message: newest ? `${what} (newest ${newest})` : what };
  }
  let selected = newestMatching;
  if (locked) {
    const lockedOk = matches(kind, locked, constraint);
    if (kind === 'provider' && !lockedOk) {
      return {
        selected: null, newestMatching, newest, status: 'unsatisfiable',
        message: `locked version ${locked} does not match ${JSON.stringify(constraint)}: tofu init fails until the lock is updated (tofu init -upgrade)`,
      };
    }
    if (lockedOk) selected = locked;
  }
  if (isNewer(kind, newestMatching, selected)) {
    return { selected, newestMatching, newest, status: 'update-in-range', message: null };
  }
  if (newest && isNewer(kind, newest, newestMatching)) {
    return { selected, newestMatching, newest, status: 'update-out-of-range', message: null };
  }
  return { selected, newestMatching, newest, status: 'up-to-date', message: null };
}

function matches(kind: VersionRules, version: string, constraint: string | null): boolean {
  const v = parseVersion(version, kind);
  if (typeof v === 'string') return false;
  if (constraint === null) return true;
  const c = tryParseConstraint(constraint, kind);
  return !('error' in c) && matchesConstraint(v, c.constraint);
}

/** Whether the registry lists `version` (compared as versions, so build metadata aside). */
function listed(kind: VersionRules, versions: readonly string[], version: string): boolean {
  const want = parseVersion(version, kind);
  if (typeof want === 'string') return false;
  return versions.some((v) => { const p = parseVersion(v, kind); return typeof p !== 'string' && compareVersions(p, want) === 0; });
}

/** a > b (false when either is missing or invalid). */
export function isNewer(kind: VersionRules, a: string | null, b: string | null): boolean {
  if (!a || !b) return false;
  const pa = parseVersion(a, kind);
  const pb = parseVersion(b, kind);
  return typeof pa !== 'string' && typeof pb !== 'string' && compareVersions(pa, pb) > 0;
}

function newer(kind: VersionRules, a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return isNewer(kind, b, a) ? b : a;
}
