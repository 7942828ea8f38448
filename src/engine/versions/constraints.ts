// Version constraints under OpenTofu's two rule sets (see version.ts):
//  - 'module'  (hashicorp/go-version): "~> 1" has no upper bound; ">", "<" … never match a
//    prerelease unless the constraint itself names a prerelease of the same release.
//  - 'provider' (apparentlymart/go-versions, Ruby style): "~> 1" = ">= 1.0.0, < 2.0.0"; a "v"
//    prefix is an error; partial versions are padded with zeros.
import { compareVersions, parseVersion, ParsedVersion, VersionRules } from './version';

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
  const terms: ConstraintTerm[] = [];
  let remain = text.trim();
  if (remain === '') throw new ConstraintError('empty version constraint');
  while (remain !== '') {
    const m = /^([<>=!~^]*)(\s*)([^\s,]*)/.exec(remain)!;
    const [consumed, op, sep, ver] = m;
    const fail = (why: string) => new ConstraintError(`invalid version constraint ${JSON.stringify(consumed.trim() || remain)}: ${why}`);
    if (op === '=<') throw fail('invalid constraint operator "=<"; did you mean "<="?');
    if (op === '=>') throw fail('invalid constraint operator "=>"; did you mean ">="?');
    if (op !== '' && !['=', '!=', '>', '>=', '<', '<=', '~>'].includes(op)) throw fail(`invalid constraint operator ${JSON.stringify(op)}`);
    if (ver.startsWith('v')) throw fail('a "v" prefix should not be used when specifying versions');
    if (sep !== '' && op === '') throw fail('extraneous spaces at start of specification');
    if (sep.length > 1) throw fail(`only one space is expected after the operator ${JSON.stringify(op)}`);
    if (ver === '') throw fail('a version number is required');
    if (/(^|\.)(\*|x|X)(\.|$)/.test(ver)) throw fail("wildcards can't be used; omit segments that should be unconstrained");
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
  return { text, rules: 'provider', terms };
}

/** Does `v` satisfy every term? (Plain constraint semantics, before the prerelease selection rule.) */
export function matchesConstraint(v: ParsedVersion, c: Constraint): boolean {
  return c.terms.every((t) => (c.rules === 'module' ? moduleTerm(v, t) : providerTerm(v, t)));
}

function moduleTerm(v: ParsedVersion, t: ConstraintTerm): boolean {
  const c = t.version;
  const cmp = compareVersions(v, c);
  // go-version's prereleaseCheck for the ordering operators
  const preOk = () => {
    if (c.prerelease && v.prerelease) return v.major === c.major && v.minor === c.minor && v.patch === c.patch;
    return !v.prerelease;
  };
  switch (t.op) {
    case '=': return cmp === 0;
    case '!=': return cmp !== 0;
    case '>': return preOk() && cmp > 0;
    case '>=': return preOk() && cmp >= 0;
    case '<': return preOk() && cmp < 0;
    case '<=': return preOk() && cmp <= 0;
    case '~>': {
      // go-version's constraintPessimistic
      if (!!c.prerelease !== !!v.prerelease) return false;
      if (cmp < 0) return false;
      if (c.segments.length > v.segments.length) return false;
      for (let i = 0; i < c.specified - 1; i++) if (v.segments[i] !== c.segments[i]) return false;
      return true;
    }
  }
}

function providerTerm(v: ParsedVersion, t: ConstraintTerm): boolean {
  const c = t.version;
  const cmp = compareVersions(v, c);
  switch (t.op) {
    case '=': return cmp === 0 && (c.build === '' || c.build === v.build);
    case '!=': return !(cmp === 0 && (c.build === '' || c.build === v.build));
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
  // tofu init re-parses module prereleases with go-versions (three parts at most) and drops the rest
  if (v.segments.length > 3) return false;
  const exact = (t: ConstraintTerm) => t.op === '=' && compareVersions(t.version, v) === 0;
  // modules: the whole constraint must be that one exact version; providers: an exact term among others
  return c.rules === 'module' ? c.terms.length === 1 && exact(c.terms[0]) : c.terms.some(exact);
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
