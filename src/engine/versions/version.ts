// Version numbers under OpenTofu's two rule sets.
//  - 'module'  : hashicorp/go-version (lenient: leading "v", any number of numeric parts —
//                "1.2.3.4" is a release `tofu init` accepts and installs —, "1.0.0beta").
//  - 'provider': apparentlymart/go-versions (1–3 numeric parts padded with 0, no "v" prefix).
// Ordering is semantic-versioning precedence (build metadata ignored), via `semver`.
import { compareIdentifiers } from './semver-identifiers';

export type VersionRules = 'module' | 'provider';

export interface ParsedVersion {
  /** The text as written (registry or user). */
  raw: string;
  /** Which library's rules parsed it (ordering differs slightly between the two). */
  rules: VersionRules;
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
    // go-version does not trim: " 1.2.3" from a registry is invalid
    const m = MODULE_RE.exec(text);
    if (!m) return `malformed version: ${JSON.stringify(text)}`;
    const nums = numbers(m[1], INT64_MAX);
    if (!nums) return `malformed version: ${JSON.stringify(text)} (number out of range)`;
    let pre = m[2] ?? m[3] ?? '';
    // Go's leftmost-first match gives "-" to the optional separator unless nothing would be left
    // ("1.0-" has the prerelease "-", "1.0-beta" has "beta", "1.0--x" has "-x").
    if (pre.startsWith('-') && pre.length > 1) pre = pre.slice(1);
    return make(raw, 'module', nums, pre, m[4] ?? '');
  }
  if (text.startsWith('v')) return `a "v" prefix should not be used (${JSON.stringify(text)})`;
  const m = PROVIDER_RE.exec(text);
  if (!m) {
    if (/^[0-9]+(\.[0-9]+){3,}/.test(text)) return `too many numbered portions in ${JSON.stringify(text)}; only three are allowed (major, minor, patch)`;
    return `invalid version ${JSON.stringify(text)}; required format is three positive integers separated by periods`;
  }
  const nums = numbers([m[1], m[2], m[3]].filter((x) => x !== undefined).join('.'), UINT64_MAX);
  if (!nums) return `invalid version ${JSON.stringify(text)}: number out of range`;
  return make(raw, 'provider', nums, m[4] ?? '', m[5] ?? '');
}

const INT64_MAX = 9223372036854775807n; // go-version parses with strconv.ParseInt(…, 64)
const UINT64_MAX = 18446744073709551615n; // go-versions uses uint64

/** Numeric parts, or null when one does not fit the Go integer type the library uses. */
function numbers(dotted: string, max: bigint): number[] | null {
  const parts = dotted.split('.');
  if (parts.some((p) => BigInt(p) > max)) return null;
  return parts.map(Number);
}

function make(raw: string, rules: VersionRules, nums: number[], prerelease: string, build: string): ParsedVersion {
  const segments = [...nums];
  while (segments.length < 3) segments.push(0);
  const [major, minor, patch] = segments;
  const canonical = `${segments.join('.')}${prerelease ? `-${prerelease}` : ''}`;
  return { raw, rules, major, minor, patch, prerelease, build, specified: nums.length, segments, canonical };
}

/**
 * Precedence; build metadata is ignored; missing parts count as 0 (1.2.3 = 1.2.3.0).
 * Module versions follow go-version's Compare exactly: prereleases are compared only when both
 * have the same number of numeric parts ("1.2.3-beta" = "1.2.3.0"), and its prerelease ordering
 * ranks "1.0.0-alpha" above "1.0.0-alpha.beta". Provider versions follow semver (go-versions).
 */
export function compareVersions(a: ParsedVersion, b: ParsedVersion): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const x = a.segments[i] ?? 0;
    const y = b.segments[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  const goVersion = a.rules === 'module' || b.rules === 'module';
  if (goVersion && a.segments.length !== b.segments.length) return 0;
  if (a.prerelease === b.prerelease) return 0;
  if (!a.prerelease) return 1;
  if (!b.prerelease) return -1;
  return goVersion ? goComparePrereleases(a.prerelease, b.prerelease) : semverComparePrereleases(a.prerelease, b.prerelease);
}

/** Do both have exactly the same numeric parts (same count too), as go-version's equalSegments? */
export function equalSegments(a: ParsedVersion, b: ParsedVersion): boolean {
  return a.segments.length === b.segments.length && a.segments.every((s, i) => s === b.segments[i]);
}

function semverComparePrereleases(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const c = compareIdentifiers(pa[i], pb[i]);
    if (c !== 0) return c;
  }
  return 0;
}

const GO_INT = /^[+-]?[0-9]+$/;
function goComparePrereleases(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const c = goComparePart(pa[i] ?? '', pb[i] ?? '');
    if (c !== 0) return c;
  }
  return 0;
}

// go-version's comparePart: a missing part ranks below a numeric one and above a word.
function goComparePart(x: string, y: string): number {
  if (x === y) return 0;
  const xn = GO_INT.test(x) && BigInt(x) <= INT64_MAX && BigInt(x) >= -INT64_MAX - 1n;
  const yn = GO_INT.test(y) && BigInt(y) <= INT64_MAX && BigInt(y) >= -INT64_MAX - 1n;
  if (x === '') return yn ? -1 : 1;
  if (y === '') return xn ? 1 : -1;
  if (xn && !yn) return -1;
  if (!xn && yn) return 1;
  if (!xn && !yn) return x > y ? 1 : -1;
  return BigInt(x) > BigInt(y) ? 1 : -1;
}

/** Same precedence (1.2 == 1.2.0 == v1.2.0). */
export function sameVersion(a: ParsedVersion, b: ParsedVersion): boolean {
  return compareVersions(a, b) === 0;
}

/** Newest first; stable for equal versions. */
export function sortNewestFirst(list: ParsedVersion[]): ParsedVersion[] {
  return list.map((v, i) => ({ v, i })).sort((x, y) => compareVersions(y.v, x.v) || x.i - y.i).map((x) => x.v);
}
