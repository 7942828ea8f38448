// Version constraints under OpenTofu's two rule sets (see version.ts):
//  - 'module'  (hashicorp/go-version): "~> 1" has no upper bound; ">", "<" … never match a
//    prerelease unless the constraint itself names a prerelease of the same release.
//  - 'provider' (apparentlymart/go-versions, Ruby style): "~> 1" = ">= 1.0.0, < 2.0.0"; a "v"
//    prefix is an error; partial versions are padded with zeros.
import { compareVersions, equalSegments, parseVersion, ParsedVersion, VersionRules } from './version';

export type ConstraintOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~>';

export interface ConstraintTerm {
  op: ConstraintOp;
  /** The operator was omitted ("1.2.3" rather than "= 1.2.3"). */
  implicit: boolean;
  version: ParsedVersion;
  text: string;
}

export interface Constraint {
  text: string;
  rules: VersionRules;
  terms: ConstraintTerm[];
}

export class ConstraintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConstraintError';
  }
}

const MODULE_TERM = /^\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*$/;

/** Parse a constraint string; throws ConstraintError with a user-facing message. */
export function parseConstraint(text: string, rules: VersionRules): Constraint {
  return rules === 'module' ? parseModuleConstraint(text) : parseProviderConstraint(text);
}

/** Like parseConstraint, but returns the message instead of throwing. */
export function tryParseConstraint(text: string, rules: VersionRules): { constraint: Constraint } | { error: string } {
  try {
    return { constraint: parseConstraint(text, rules) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function parseModuleConstraint(text: string): Constraint {
  const terms: ConstraintTerm[] = [];
  for (const piece of text.split(',')) {
    const m = MODULE_TERM.exec(piece);
    const v = m ? parseVersion(m[2], 'module') : null;
    if (!m || v === null || typeof v === 'string') {
      throw new ConstraintError(`malformed version constraint ${JSON.stringify(piece.trim())} in ${JSON.stringify(text)}`);
    }
    terms.push({ op: (m[1] as ConstraintOp | undefined) ?? '=', implicit: !m[1], version: v, text: piece.trim() });
  }
  return { text, rules: 'module', terms };
}

function parseProviderConstraint(text: string): Constraint {
  // tofu decodes every `version` argument with go-version first (configs.VersionConstraint) and
  // only then re-parses required_providers constraints with go-versions, so a provider constraint
  // must satisfy both grammars ("1.0," and "" fail in go-version; "v1" and "1.2.3.4" in go-versions).
  const terms: ConstraintTerm[] = [];
  let remain = text.trim();
  if (remain === '') throw new ConstraintError('empty version constraint');
  while (remain !== '') {
    // go-versions' scanner: operator = any run of symbols, then spaces or "v", then the version
    const m = /^([^0-9A-Za-z\s.*]*)([\sv]*)([^\s,]*)/.exec(remain)!;
    const [consumed, op, sep, ver] = m;
    const fail = (why: string) => new ConstraintError(`invalid version constraint ${JSON.stringify(consumed.trim() || remain)}: ${why}`);
    if (op === '=<') throw fail('invalid constraint operator "=<"; did you mean "<="?');
    if (op === '=>') throw fail('invalid constraint operator "=>"; did you mean ">="?');
    if (op !== '' && !['=', '!=', '>', '>=', '<', '<=', '~>'].includes(op)) throw fail(`invalid constraint operator ${JSON.stringify(op)}`);
    if (sep.includes('v') || ver.startsWith('v')) throw fail('a "v" prefix should not be used when specifying versions');
    if (sep !== '' && op === '') throw fail('extraneous spaces at start of specification');
    if (sep !== '' && sep !== ' ') throw fail(`only one space is expected after the operator ${JSON.stringify(op)}`);
    if (ver === '') throw fail('a version number is required');
    if (/(^|\.)(\*|x|X)(\.|$|[-+])/.test(ver)) throw fail("wildcards can't be used; omit segments that should be unconstrained");
    const v = parseVersion(ver, 'provider');
    if (typeof v === 'string') throw fail(v);
    terms.push({ op: (op || '=') as ConstraintOp, implicit: op === '', version: v, text: consumed.trim() });
    remain = remain.slice(consumed.length).trim();
    if (remain !== '') {
      if (remain.startsWith('v')) throw new ConstraintError('a "v" prefix should not be used when specifying versions');
      if (!remain.startsWith(',')) throw new ConstraintError(`missing comma after ${JSON.stringify(consumed.trim())}`);
      remain = remain.slice(1).trim();
      if (remain === '') throw new ConstraintError(`trailing comma in ${JSON.stringify(text)}`);
    }
  }
  // …and go-version must accept it too (e.g. it refuses a comma with nothing before it).
  try {
    parseModuleConstraint(text);
  } catch (err) {
    throw new ConstraintError(`invalid version constraint ${JSON.stringify(text)}: ${(err as Error).message}`);
  }
  return { text, rules: 'provider', terms };
}

/** Does `v` satisfy every term? (Plain constraint semantics, before the prerelease selection rule.) */
export function matchesConstraint(v: ParsedVersion, c: Constraint): boolean {
  // go-versions: "0.0.0" is its Unspecified version, which no constraint ever contains
  if (c.rules === 'provider' && c.terms.length > 0 && v.canonical === '0.0.0' && !v.build) return false;
  return c.terms.every((t) => (c.rules === 'module' ? moduleTerm(v, t) : providerTerm(v, t)));
}

function moduleTerm(v: ParsedVersion, t: ConstraintTerm): boolean {
  const c = t.version;
  const cmp = compareVersions(v, c);
  // go-version's prereleaseCheck: a prerelease only matches a constraint naming a prerelease of
  // exactly the same numeric parts (same count too: 1.2.3-a and 1.2.3.0-b differ)
  const preOk = () => (v.prerelease ? !!c.prerelease && equalSegments(v, c) : true);
  switch (t.op) {
    case '=': return cmp === 0;
    case '!=': return cmp !== 0;
    case '>': return preOk() && cmp > 0;
    case '>=': return preOk() && cmp >= 0;
    case '<': return preOk() && cmp < 0;
    case '<=': return preOk() && cmp <= 0;
    case '~>': {
      // go-version's constraintPessimistic
      if (!preOk() || (c.prerelease && !v.prerelease)) return false;
      if (cmp < 0) return false;
      if (c.segments.length > v.segments.length) return false;
      for (let i = 0; i < c.specified - 1; i++) if (v.segments[i] !== c.segments[i]) return false;
      return true;
    }
  }
}

// go-versions' Only(v) is keyed by the whole version, metadata included.
const identical = (a: ParsedVersion, b: ParsedVersion) =>
  a.major === b.major && a.minor === b.minor && a.patch === b.patch && a.prerelease === b.prerelease && a.build === b.build;

function providerTerm(v: ParsedVersion, t: ConstraintTerm): boolean {
  const c = t.version;
  const cmp = compareVersions(v, c);
  switch (t.op) {
    case '=': return identical(v, c);
    case '!=': return !identical(v, c);
    case '>': return cmp > 0;
    case '>=': return cmp >= 0;
    case '<': return cmp < 0;
    case '<=': return cmp <= 0;
    case '~>': {
      if (cmp < 0) return false;
      // three parts: patch-only (< M.(m+1).0); otherwise minor-only (< (M+1).0.0)
      if (c.specified === 3) return v.major === c.major && v.minor === c.minor;
      return v.major === c.major;
    }
  }
}

/** May a prerelease version be chosen at all under this constraint (OpenTofu's "requested exactly")? */
export function prereleaseRequested(v: ParsedVersion, c: Constraint | null): boolean {
  if (!v.prerelease) return true;
  if (!c) return false;
  const exact = (t: ConstraintTerm) => t.op === '=' && identical(t.version, v) && t.version.segments.length === 3;
  if (c.rules === 'provider') return c.terms.some(exact);
  // tofu init decides on module prereleases with go-versions' npm-style parser: the whole constraint
  // must be one exact selection ("1.0.0-beta", "=1.0.0-beta", "=v1.0.0-beta"; no space after "=",
  // no comma), and the registry's version must be readable by go-versions (three parts, no "~").
  if (c.terms.length !== 1 || !exact(c.terms[0])) return false;
  if (!/^=?v?[0-9][0-9A-Za-z.+-]*$/.test(c.terms[0].text)) return false;
  const extra = /^[0-9A-Za-z.-]+$/;
  return v.segments.length === 3 && extra.test(v.prerelease) && (v.build === '' || extra.test(v.build));
}

/** "at least 1.2.0 and below 2.0.0" — for hovers. Invalid constraints describe their error. */
export function describeConstraint(text: string, rules: VersionRules): string {
  const r = tryParseConstraint(text, rules);
  if ('error' in r) return r.error;
  return r.constraint.terms.map((t) => describeTerm(t, rules)).join(' and ');
}

function describeTerm(t: ConstraintTerm, rules: VersionRules): string {
  const v = t.version.canonical;
  switch (t.op) {
    case '=': return `exactly ${v}`;
    case '!=': return `not ${v}`;
    case '>': return `above ${v}`;
    case '>=': return `at least ${v}`;
    case '<': return `below ${v}`;
    case '<=': return `at most ${v}`;
    case '~>': {
      const { major, segments, specified } = t.version;
      if (specified >= 3) {
        const below = segments.slice(0, specified - 1);
        below[below.length - 1]++;
        while (below.length < 3) below.push(0);
        return `at least ${v} and below ${below.join('.')}`;
      }
      if (specified === 1 && rules === 'module') return `at least ${v} (no upper bound)`;
      return `at least ${v} and below ${major + 1}.0.0`;
    }
  }
}
