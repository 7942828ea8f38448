// Rewriting a version constraint so that `tofu init` selects a newer version, in the operator
// style already used: "~> 5.1" → "~> 6.0", ">= 1.2" → ">= 2.0", "1.2.3" → "2.0.0",
// ">= 1.2, < 2.0" → ">= 2.0, < 3.0". Only the version numbers inside the string change (spacing,
// operators and order stay), and the edit is returned as plain data: the smallest range of the
// file that differs, plus its new text, so everything else is kept byte for byte.
import type { Position, Range } from '../config/ast';
import { ConstraintTerm, parseVersion, ParsedVersion, tryParseConstraint, VersionRules } from '../versions';
import { selectVersions } from '../versions/select';

export interface TextEdit {
  range: Range;
  newText: string;
}

/** The first `n` numeric parts of `v` (at least one), plus its prerelease. */
function leading(v: ParsedVersion, n: number): string {
  const count = Math.max(1, Math.min(n, v.segments.length));
  return v.segments.slice(0, count).join('.') + (v.prerelease ? `-${v.prerelease}` : '');
}

/** The version text a term gets so that `target` is inside it; undefined keeps the term as written. */
function termVersion(t: ConstraintTerm, target: ParsedVersion, rules: VersionRules): string | undefined {
  const fits = selectVersions([target.raw], t.text, rules).selected !== null;
  switch (t.op) {
    case '~>':
    case '>=':
      // Raise the floor to the target, with as many parts as were written.
      return leading(target, t.version.specified);
    case '=':
      return target.canonical; // the version itself, without a "v" or build metadata the registry may add
    case '<': {
      if (fits) return undefined;
      // Keep the bound's granularity: "< 2.0.0" bounds a major (→ "< 3.0.0" for 2.3.1), "< 1.3" a
      // minor (→ "< 1.6" for 1.5.0): the last non-zero part written is the one raised above the target.
      const written = t.version.segments.slice(0, Math.max(1, t.version.specified));
      let at = written.length - 1;
      while (at > 0 && written[at] === 0) at--;
      const parts = written.map((_, i) => (i < at ? target.segments[i] : i === at ? target.segments[i] + 1 : 0));
      return parts.join('.');
    }
    case '<=':
      return fits ? undefined : leading(target, Math.max(3, t.version.specified));
    default:
      return undefined; // ">" and "!=" stay: a lower bound or an exclusion does not hold back an upgrade
  }
}

/**
 * `text` rewritten so that `target` is the version `tofu init -upgrade` selects, keeping the
 * operators; undefined when no such rewrite exists (then the caller proposes nothing).
 */
export function rewriteConstraint(text: string, target: string, rules: VersionRules): string | undefined {
  const parsed = tryParseConstraint(text, rules);
  const tv = parseVersion(target, rules);
  if ('error' in parsed || typeof tv === 'string') return undefined;
  // Replace each term's version where it is written; pieces are the comma-separated terms.
  const pieces = text.split(',');
  if (pieces.length !== parsed.constraint.terms.length) return undefined;
  const out = pieces.map((piece, i) => {
    const t = parsed.constraint.terms[i];
    const next = termVersion(t, tv, rules);
    if (next === undefined) return piece;
    const at = piece.lastIndexOf(t.version.raw);
    if (at < 0) return piece;
    return piece.slice(0, at) + next + piece.slice(at + t.version.raw.length);
  }).join(',');
  return selectVersions([target], out, rules).selected === target ? out : undefined;
}

/**
 * The edit that replaces a `version` string's content (`contentRange`, between the quotes of
 * `fileText`) with `newConstraint`: only the differing characters, so comments, spacing and
 * quoting around it stay. Undefined when the written text is not the plain string (escapes).
 */
export function constraintEdit(fileText: string, contentRange: Range, oldConstraint: string, newConstraint: string): TextEdit | undefined {
  const written = fileText.slice(contentRange.start.offset, contentRange.end.offset);
  if (written !== oldConstraint || contentRange.start.line !== contentRange.end.line) return undefined;
  if (newConstraint.includes('"') || newConstraint.includes('\\') || newConstraint.includes('\n')) return undefined;
  let pre = 0;
  while (pre < written.length && pre < newConstraint.length && written[pre] === newConstraint[pre]) pre++;
  let suf = 0;
  while (suf < written.length - pre && suf < newConstraint.length - pre
    && written[written.length - 1 - suf] === newConstraint[newConstraint.length - 1 - suf]) suf++;
  const start = shift(contentRange.start, pre);
  const end = shift(contentRange.start, written.length - suf);
  return { range: { start, end }, newText: newConstraint.slice(pre, newConstraint.length - suf) };
}

function shift(p: Position, by: number): Position {
  return { line: p.line, character: p.character + by, offset: p.offset + by };
}

/** Apply edits (non-overlapping) to a text: for the CLI, tests and previews. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.range.start.offset - a.range.start.offset)) {
    out = out.slice(0, e.range.start.offset) + e.newText + out.slice(e.range.end.offset);
  }
  return out;
}
