// Character classes and look-ahead helpers for the scanner (scanner.ts): plain functions over the
// text, each bounded so that the scan as a whole stays linear.
import { T } from './tokens';

// Character classes for ASCII: 1 = identifier start, 2 = identifier part, 4 = digit.
export const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  const digit = c >= 48 && c <= 57;
  CLASS[c] = (letter ? 3 : 0) | (digit ? 6 : 0) | (c === 45 ? 2 : 0);
}

/**
 * Punctuation and operators that need no context, by first character: the kind of the
 * one-character token (0: not one of them; lone `&` and `|` are invalid), and twoCharOperator for
 * the forms a second character makes. One table and one push site for all of them keep the
 * scanner's loop small, and an operator first seen late in a long run (`%`, `>=`, `?`) no longer
 * reaches a push call that V8 optimized without type feedback for it: each such call used to throw
 * the scanner's optimized code away and compile it again (≈ 20 ms of compile each, 4–5 times over a
 * large tree).
 */
export const OPERATOR = new Uint8Array(128);
OPERATOR[61] = T.Equal; // = == =>
OPERATOR[33] = T.Bang; // ! !=
OPERATOR[62] = T.Gt; // > >=
OPERATOR[38] = T.Invalid; // &&
OPERATOR[124] = T.Invalid; // ||
OPERATOR[44] = T.Comma;
OPERATOR[58] = T.Colon;
OPERATOR[63] = T.Question;
OPERATOR[43] = T.Plus;
OPERATOR[45] = T.Minus;
OPERATOR[42] = T.Star;
OPERATOR[37] = T.Percent;

/** The two-character operator that `c` followed by `d` makes (==, !=, >=, =>, &&, ||), or 0. */
export function twoCharOperator(c: number, d: number): T | 0 {
  if (d === 61) return c === 61 ? T.EqEq : c === 33 ? T.NotEq : c === 62 ? T.Ge : 0;
  if (d === 62) return c === 61 ? T.FatArrow : 0;
  if (d === c) return c === 38 ? T.And : c === 124 ? T.Or : 0;
  return 0;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isUnicodeIdentStart(c: number): boolean {
  // Letters outside ASCII: accept everything that is not whitespace/punctuation-like.
  return c >= 0xc0 && c !== 0xd7 && c !== 0xf7 && !(c >= 0x2000 && c <= 0x206f) && c !== 0x3000 && c !== 0xfeff;
}

export function isUnicodeIdentPart(c: number): boolean {
  return isUnicodeIdentStart(c) || c === 0xb7;
}

/** Offset of the next `\n` at or after i (or `end`). */
export function lineEnd(text: string, i: number, end: number): number {
  const n = text.indexOf('\n', i);
  return n < 0 || n > end ? end : n;
}

/** A line that looks like a top-level block header: `type "label" name {` at column 0. */
const TOP_LEVEL_HEADER = /^[A-Za-z_][A-Za-z0-9_-]*(?:[ \t]+(?:"[^"\n]*"|[A-Za-z_][A-Za-z0-9_-]*))*[ \t]*\{[ \t]*\r?$/gm;
const HEADER_AT = /[A-Za-z_][A-Za-z0-9_-]*(?:[ \t]+(?:"[^"\n]*"|[A-Za-z_][A-Za-z0-9_-]*))*[ \t]*\{[ \t]*\r?$/my;

/** Finds the next top-level block header line at or after an offset; caches the last answer. */
export class HeaderFinder {
  private from = -1;
  private at = -1;

  constructor(private readonly text: string) {}

  /** Start offset of the next header line at or after `from`, or -1. */
  next(from: number): number {
    if (!(this.from >= 0 && this.from <= from && (this.at < 0 || this.at >= from))) {
      TOP_LEVEL_HEADER.lastIndex = from;
      const m = TOP_LEVEL_HEADER.exec(this.text);
      this.from = from;
      this.at = m ? m.index : -1;
    }
    return this.at;
  }

  /** True when the line starting at `ls` is a top-level block header (one line is examined). */
  isHeaderLine(ls: number): boolean {
    HEADER_AT.lastIndex = ls;
    return HEADER_AT.test(this.text);
  }
}

/** Tokens after which an expression cannot end: a newline after one of them continues it. */
const CONTINUES = new Uint8Array(64);
for (const k of [
  T.TemplateInterp, T.TemplateControl, T.LBrace, T.LBrack, T.LParen, T.Equal, T.Comma, T.Dot, T.Colon, T.Question,
  T.FatArrow, T.Plus, T.Minus, T.Star, T.Slash, T.Percent, T.EqEq, T.NotEq, T.Lt, T.Le, T.Gt, T.Ge, T.And, T.Or, T.Bang,
]) CONTINUES[k] = 1;

/**
 * A newline inside `${…}` / `%{…}` of a quoted string: HCL allows it (the sequence continues on the
 * next line), but while typing it is usually an unterminated sequence that must not swallow the
 * following lines. The sequence continues when brackets are open inside it, when the last token
 * cannot end an expression (`${`, an operator, `,`, `(`…), when the next line is blank, or when the
 * next line starts with `}` / `~}` / `)` / `]` / `?` / `:` / `.`; never when the next line looks like
 * a top-level block header. `nl` is the newline's offset; only the next line is examined.
 */
export function interpContinues(text: string, nl: number, open: number, lastKind: T, headers: HeaderFinder): boolean {
  let j = nl + 1;
  for (let c = text.charCodeAt(j); c === 32 || c === 9 || c === 13; c = text.charCodeAt(++j));
  if (j >= text.length) return false;
  const c = text.charCodeAt(j);
  if (c === 10) return true; // blank line: decided at the next newline
  if (headers.isHeaderLine(nl + 1)) return false;
  if (open > 0 || CONTINUES[lastKind] === 1) return true;
  return c === 125 || (c === 126 && text.charCodeAt(j + 1) === 125) || c === 41 || c === 93 || c === 63 || c === 58 || c === 46;
}
