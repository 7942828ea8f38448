// Version numbers under OpenTofu's two rule sets.
//  - 'module'  : hashicorp/go-version (lenient: leading "v", any number of numeric parts —
//                "1.2.3.4" is a release `tofu init` accepts and installs —, "1.0.0beta").
//  - 'provider': apparentlymart/go-versions (1–3 numeric parts padded with 0, no "v" prefix).
// Ordering is semantic-versioning precedence (build metadata ignored), via `semver`.
import * as semver from 'semver';

export type VersionRules = 'module' | 'provider';

export interface ParsedVersion {
  /** The text as written (registry or user). */
  raw: string;
  major: number;
  minor: number;
  patch: number;
  /** Prerelease identifiers ("" when a release). */
  prerelease: string;
  build: string;
  /** How many numeric parts were written (1–3; more for module versions such as "1.2.3.4"). */
  specified: number;
  /** Every numeric part, padded with zeros to at least three ([major, minor, patch, …]). */
  segments: number[];
  /** Canonical "M.m.p[.x…][-pre]" (no build): what equality, display and download URLs use. */
  canonical: string;
}

const IDENT = '[0-9A-Za-z\\-~]+';
// hashicorp/go-version's grammar (VersionRegexpRaw): any number of numeric parts.
const MODULE_RE = new RegExp(
  `^v?([0-9]+(?:\\.[0-9]+)*)` +
    `(?:-([0-9]+[0-9A-Za-z\\-~]*(?:\\.${IDENT})*)|(-?[A-Za-z\\-~]+[0-9A-Za-z\\-~]*(?:\\.${IDENT})*))?` +
    `(?:\\+(${IDENT}(?:\\.${IDENT})*))?$`,
);
// go-versions: strict semver-ish, optional parts padded.
const PROVIDER_RE = /^([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** Parse a version; returns an error message string instead of throwing. */
export function parseVersion(text: string, rules: VersionRules): ParsedVersion | string {
  const raw = text;
  if (rules === 'module') {
    const m = MODULE_RE.exec(text.trim());
    if (!m) return `malformed version: ${JSON.stringify(text)}`;
    const nums = m[1].split('.').map((n) => Number(n));
    let pre = m[2] ?? m[3] ?? '';
    if (pre.startsWith('-')) pre = pre.slice(1);
    return make(raw, nums, pre, m[4] ?? '');
  }
  if (text.startsWith('v')) return `a "v" prefix should not be used (${JSON.stringify(text)})`;
  const m = PROVIDER_RE.exec(text);
  if (!m) {
    if (/^[0-9]+(\.[0-9]+){3,}/.test(text)) return `too many numbered portions in ${JSON.stringify(text)}; only three are allowed (major, minor, patch)`;
    return `invalid version ${JSON.stringify(text)}; required format is three positive integers separated by periods`;
  }
  const nums = [m[1], m[2], m[3]].filter((x) => x !== undefined).map(Number);
  return make(raw, nums, m[4] ?? '', m[5] ?? '');
}

function make(raw: string, nums: number[], prerelease: string, build: string): ParsedVersion {
  const segments = [...nums];
  while (segments.length < 3) segments.push(0);
  const [major, minor, patch] = segments;
  const canonical = `${segments.join('.')}${prerelease ? `-${prerelease}` : ''}`;
  return { raw, major, minor, patch, prerelease, build, specified: nums.length, segments, canonical };
}

/** Semantic-versioning precedence; build metadata is ignored; missing parts count as 0 (1.2.3 = 1.2.3.0). */
export function compareVersions(a: ParsedVersion, b: ParsedVersion): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const x = a.segments[i] ?? 0;
    const y = b.segments[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  if (a.prerelease === b.prerelease) return 0;
  if (!a.prerelease) return 1;
  if (!b.prerelease) return -1;
  const pa = a.prerelease.split('.');
  const pb = b.prerelease.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const c = semver.compareIdentifiers(pa[i], pb[i]);
    if (c !== 0) return c;
  }
  return 0;
}

/** Same precedence (1.2 == 1.2.0 == v1.2.0). */
export function sameVersion(a: ParsedVersion, b: ParsedVersion): boolean {
  return compareVersions(a, b) === 0;
}

/** Newest first; stable for equal versions. */
export function sortNewestFirst(list: ParsedVersion[]): ParsedVersion[] {
  return list.map((v, i) => ({ v, i })).sort((x, y) => compareVersions(y.v, x.v) || x.i - y.i).map((x) => x.v);
}
