// `.terraform.lock.hcl` written byte for byte as OpenTofu writes it (internal/depsfile/locks_file.go
// SaveLocksToBytes, through hclwrite): the two header comments, one block per provider ordered by
// hostname, namespace, type; `version` and `constraints` aligned as hclwrite aligns a run of
// single-line attributes; hashes sorted, deduplicated, one per line, each with a trailing comma.
// The constraints string is getproviders.VersionConstraintsString: every term of every constraint,
// deduplicated and ordered by version, then by operator.
import { compareIdentifiers, compareVersions, ConstraintTerm, parseConstraint } from '../versions';

export const LOCK_FILE_NAME = '.terraform.lock.hcl';

export const LOCK_FILE_HEADER = '# This file is maintained automatically by "tofu init".\n# Manual edits may be lost in future updates.\n';

/** One provider entry to write. */
export interface LockEntry {
  /** Fully qualified "hostname/namespace/type". */
  address: string;
  version: string;
  /** Canonical constraints ("" or absent: no `constraints` line). */
  constraints?: string;
  hashes: readonly string[];
}

/** The file OpenTofu writes for these entries (any order, hashes in any order). */
export function renderLockFile(entries: readonly LockEntry[]): string {
  let out = LOCK_FILE_HEADER;
  for (const e of [...entries].sort(compareEntries)) {
    out += `\nprovider ${quoted(e.address)} {\n`;
    const attrs: Array<[string, string]> = [['version', e.version]];
    if (e.constraints) attrs.push(['constraints', e.constraints]);
    const width = Math.max(...attrs.map(([k]) => k.length));
    for (const [k, v] of attrs) out += `  ${k.padEnd(width)} = ${quoted(v)}\n`;
    const hashes = normalizeHashes(e.hashes);
    // hclwrite leaves `hashes = [` out of the alignment: the line opens a multi-line bracket.
    if (hashes.length) out += `  hashes = [\n${hashes.map((h) => `    ${quoted(h)},\n`).join('')}  ]\n`;
    out += '}\n';
  }
  return out;
}

/** Sorted (byte order, as Go sorts strings) and deduplicated: how a lock records a hash set. */
export function normalizeHashes(hashes: Iterable<string>): string[] {
  return [...new Set(hashes)].sort(compareBytes);
}

/** Go's string order (bytes of the UTF-8 encoding). */
export function compareBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** addrs.Provider.LessThan: hostname, then namespace, then type. */
function compareEntries(a: LockEntry, b: LockEntry): number {
  const [ah, an, at] = splitAddress(a.address);
  const [bh, bn, bt] = splitAddress(b.address);
  return compareBytes(ah, bh) || compareBytes(an, bn) || compareBytes(at, bt);
}

function splitAddress(address: string): [string, string, string] {
  const parts = address.split('/');
  return [parts.slice(0, -2).join('/'), parts[parts.length - 2] ?? '', parts[parts.length - 1] ?? ''];
}

type Op = ConstraintTerm['op'] | '~>patch';

// getproviders' versionSelectionsBoundaryPriority: lower bounds first, upper bounds last.
const OP_PRIORITY: Record<Op, number> = { '>': 1, '>=': 2, '=': 3, '~>patch': 4, '~>': 5, '<=': 6, '<': 7, '!=': 8 };
const OP_TEXT: Record<Op, string> = { '>': '> ', '>=': '>= ', '=': '', '~>patch': '~> ', '~>': '~> ', '<=': '<= ', '<': '< ', '!=': '!= ' };

/**
 * OpenTofu's canonical rendering of the union of constraint strings ("" for none): what a lock
 * file's `constraints` holds. Throws ConstraintError when one of them is invalid (provider rules).
 * `~> 1.2.3` stays three-part (patch-only), `~> 1.2` and `~> 1` become two-part; every other
 * version is written with three parts, so ">= 2.0" and ">= 2.0.0" are one term.
 */
export function canonicalConstraints(constraints: Iterable<string>): string {
  const terms = new Map<string, { op: Op; term: ConstraintTerm }>();
  for (const text of constraints) {
    for (const term of parseConstraint(text, 'provider').terms) {
      const op: Op = term.op === '~>' && term.version.specified >= 3 ? '~>patch' : term.op;
      terms.set(`${op} ${versionText(op, term)}`, { op, term });
    }
  }
  return [...terms.values()].sort((a, b) => compareBoundary(a.term, b.term) || OP_PRIORITY[a.op] - OP_PRIORITY[b.op])
    .map(({ op, term }) => OP_TEXT[op] + versionText(op, term)).join(', ');
}

function versionText(op: Op, t: ConstraintTerm): string {
  const v = t.version;
  const numbers = op === '~>' ? `${v.major}.${v.minor}` : `${v.major}.${v.minor}.${v.patch}`;
  return numbers + (v.prerelease ? `-${v.prerelease}` : '') + (v.build ? `+${v.build}` : '');
}

function compareBoundary(a: ConstraintTerm, b: ConstraintTerm): number {
  const c = compareVersions(a.version, b.version);
  if (c !== 0) return c;
  // Same precedence: build metadata decides, only so that the order is stable.
  if (a.version.build === b.version.build) return 0;
  return compareIdentifierLists(a.version.build, b.version.build);
}

function compareIdentifierLists(a: string, b: string): number {
  const pa = a ? a.split('.') : [];
  const pb = b ? b.split('.') : [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const c = compareIdentifiers(pa[i], pb[i]);
    if (c) return c;
  }
  return 0;
}

/** A quoted HCL string as hclwrite.TokensForValue writes a cty string (escapeQuotedStringLit). */
export function quoted(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.codePointAt(i)!;
    if (code > 0xffff) i++;
    if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if ((ch === '$' || ch === '%') && s[i + 1] === '{') out += ch + ch;
    else if (!isPrintable(code)) out += code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
    else out += String.fromCodePoint(code);
  }
  return out + '"';
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
function isPrintable(code: number): boolean {
  if (code === 0x20) return true;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(String.fromCodePoint(code));
}
