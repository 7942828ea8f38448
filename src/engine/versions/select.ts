// Version selection as `tofu init` does it: the newest available version that matches, with
// prereleases considered only when requested exactly (rules differ per kind, see constraints.ts).
import { Constraint, matchesConstraint, prereleaseRequested, tryParseConstraint } from './constraints';
import { parseVersion, ParsedVersion, sortNewestFirst, VersionRules } from './version';

export interface Selection {
  /** Every valid version, newest first, as the registry wrote them. */
  versions: string[];
  /** Versions that satisfy the constraint (and the prerelease rule), newest first. */
  matching: string[];
  /** Newest matching version, or null. */
  selected: string | null;
  /** Newest version OpenTofu would consider at all (releases, plus an exactly requested prerelease). */
  newest: string | null;
  /** Versions the registry returned that are not valid under these rules. */
  invalid: string[];
  /** Set when the constraint could not be parsed (then nothing matches). */
  error?: string;
}

export function selectVersions(versions: string[], constraint: string | null, rules: VersionRules): Selection {
  const parsed: ParsedVersion[] = [];
  const invalid: string[] = [];
  for (const raw of versions) {
    const v = parseVersion(raw, rules);
    if (typeof v === 'string') invalid.push(raw);
    else parsed.push(v);
  }
  const sorted = sortNewestFirst(parsed);
  let c: Constraint | null = null;
  let error: string | undefined;
  if (constraint !== null && constraint !== undefined) {
    const r = tryParseConstraint(constraint, rules);
    if ('error' in r) error = r.error;
    else c = r.constraint;
  }
  const considered = sorted.filter((v) => prereleaseRequested(v, c));
  const matching = error ? [] : considered.filter((v) => !c || matchesConstraint(v, c));
  const result: Selection = {
    versions: sorted.map((v) => v.raw),
    matching: matching.map((v) => v.raw),
    selected: matching[0]?.raw ?? null,
    newest: considered[0]?.raw ?? null,
    invalid,
  };
  if (error) result.error = error;
  return result;
}
