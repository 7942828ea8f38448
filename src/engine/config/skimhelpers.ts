// Character-level helpers of the overview's skim (skim.ts): names, blanks and comments, template
// text, numbers, heredoc openers and the pattern for plain attribute lines. Each is bounded and
// gives -1 where the skim must give up; none allocates but openHeredoc's marker.
import { findHeredocClose } from './heredoc';
import { CLASS } from './scanhelpers';

/** Frame kinds on the skim's stack. */
export const enum F {
  BODY = 1, // a block body: attributes and nested blocks (newlines significant)
  ATTR = 2, // an attribute's value (newlines significant: one ends it)
  OBJ = 3, // { key = value, … } (newlines significant between items)
  TUPLE = 4, // [ a, b ]
  CALL = 5, // f(a, b...)
  PAREN = 6, // ( a )
  INDEX = 7, // x[ a ]
  FORT = 8, // [for x in c : v if k]
  FORO = 9, // {for k, v in c : k => v... if k}
  INTERP = 10, // ${ a } in a string or heredoc
  QSTR = 11, // "…" (template text)
  HEREDOC = 12, // <<EOT … EOT (template text)
}

/** Phases: of OBJ (before an item's key, in its key, in its value) and of FORT / FORO. */
export const enum P {
  ITEM = 0,
  KEY = 1,
  VALUE = 2,
  F_VAR1 = 0, // for ▮x
  F_AFTER1 = 1, // for x ▮, / in
  F_VAR2 = 2, // for k, ▮v
  F_IN = 3, // for k, v ▮in
  F_COLL = 4, // in ▮collection :
  F_FIRST = 5, // : ▮first (tuple: the value; object: the key)
  F_VAL = 6, // => ▮value (object)
  F_GROUPED = 7, // value... ▮ (object: only `if` or `}` may follow)
  F_COND = 8, // if ▮cond
}

/** ASCII letters and `_` (what else the scanner takes for an identifier, the skim gives up on). */
export function isIdentStart(c: number): boolean {
  return c < 128 && (CLASS[c] & 1) !== 0;
}

export function isIdentPart(c: number): boolean {
  return c < 128 && (CLASS[c] & 2) !== 0;
}

/** The offset after the identifier characters (ASCII letters, digits, `_`, `-`) from i on. */
export function identEnd(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i); // NaN past the end: not a part
    if (!(c < 128 && (CLASS[c] & 2) !== 0)) return i;
    i++;
  }
}

/**
 * Whether a `[` or `{` whose contents start at `i` opens a for expression (`for` and a name, as
 * the parser's isFor decides), skipping blanks, newlines and comments. Returns the offset after
 * `for`, or -1.
 */
export function forAt(text: string, i: number): number {
  const n = text.length;
  i = skipBlank(text, i, true);
  if (i < 0 || text.charCodeAt(i) !== 102 || text.charCodeAt(i + 1) !== 111 || text.charCodeAt(i + 2) !== 114 || isIdentPart(text.charCodeAt(i + 3))) return -1;
  const after = i + 3;
  const j = skipBlank(text, after, true);
  return j >= 0 && j < n && isIdentStart(text.charCodeAt(j)) ? after : -1;
}

/** Skips spaces, tabs, carriage returns, comments and (with `newlines`) newlines; -1 at an unterminated comment. */
export function skipBlank(text: string, i: number, newlines: boolean): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13 || (c === 10 && newlines)) { i++; continue; }
    if (c === 35 || (c === 47 && text.charCodeAt(i + 1) === 47)) {
      const e = text.indexOf('\n', i);
      i = e < 0 ? n : e;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const e = text.indexOf('*/', i + 2);
      if (e < 0) return -1;
      i = e + 2;
      continue;
    }
    break;
  }
  return i;
}

/**
 * Quoted template text from i: the offset of the closing `"` or of a `${`, or -1 at what the skim
 * gives up on (a line break: unterminated; a `%{` directive; an escape before the line's end).
 */
export function quotedTextEnd(text: string, i: number): number {
  const n = text.length;
  for (;;) {
    if (i >= n) return -1;
    const c = text.charCodeAt(i);
    if (c === 34) return i;
    if (c === 10) return -1;
    if (c === 92) {
      if (i + 1 >= n || text.charCodeAt(i + 1) === 10) return -1;
      i += 2;
      continue;
    }
    if (c === 36 || c === 37) {
      const d = text.charCodeAt(i + 1);
      if (d === 123) return c === 36 ? i : -1;
      if (d === c && text.charCodeAt(i + 2) === 123) { i += 3; continue; }
    }
    i++;
  }
}

/** Heredoc text from i: `lim` (its end), the offset of a `${`, or -1 at a `%{` directive. */
export function heredocTextEnd(text: string, i: number, lim: number): number {
  for (;;) {
    if (i >= lim) return lim;
    const c = text.charCodeAt(i);
    if (c === 36 || c === 37) {
      const d = text.charCodeAt(i + 1);
      if (d === 123) return c === 36 ? i : -1;
      if (d === c && text.charCodeAt(i + 2) === 123) { i += 3; continue; }
    }
    i++;
  }
}

/** The offset after a number starting with a digit at i (the scanner's rule, not after a `.`). */
export function numberEnd(text: string, i: number): number {
  const n = text.length;
  i++;
  while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  let d = text.charCodeAt(i + 1);
  if (text.charCodeAt(i) === 46 && d >= 48 && d <= 57) {
    i += 2;
    while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 101 || e === 69) {
    let j = i + 1;
    d = text.charCodeAt(j);
    if (d === 43 || d === 45) d = text.charCodeAt(++j);
    if (d >= 48 && d <= 57) {
      i = j;
      while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    }
  }
  return i;
}

// Plain attribute lines, read by V8's regular expression engine (native code from its second use:
// no JIT warm-up) rather than the loop below: `name = value` where the value is a string with no
// escape or template sequence, a number, a name with attribute and index steps, `{}` or a one-line
// list of those (trailing comma allowed), then blanks and a `#` or `//` comment; blank and comment
// lines too. Each one is an attribute the parser reads without a diagnostic. The first line starts
// at an attribute's name (the loop has skipped the indentation before it). No two parts of the
// pattern can match the same blanks, and a shorter name or number never lets the rest match, so a
// line that does not match fails in linear time. (A pattern for operators and calls as well was
// slower than the loop: one pattern, many alternatives.)
const STRING = '"[^"\\\\$%\\n]*"';
const NAME = '[A-Za-z_][\\w-]*';
const TRAVERSAL = `${NAME}(?:\\.${NAME}|\\.\\d+|\\[\\d+\\]|\\[${STRING}\\])*`;
const NUMBER = '\\d+(?:\\.\\d+)?';
const SIMPLE = `(?:${STRING}|${NUMBER}|${TRAVERSAL})`;
const LIST = `\\[[ \\t]*(?:${SIMPLE}[ \\t]*(?:,[ \\t]*${SIMPLE}[ \\t]*)*(?:,[ \\t]*)?)?\\]`;
const ATTRIBUTE_LINE = `${NAME}[ \\t]*=(?![=>])[ \\t]*(?:${SIMPLE}|${LIST}|\\{\\})`;
const LINE_END = '(?:(?:#|//)[^\\n]*)?\\r?\\n';
export const PLAIN_LINES = new RegExp(`(?:[ \\t]*(?:${ATTRIBUTE_LINE}[ \\t]*)?${LINE_END})+`, 'y');
/** One such attribute and its line break, nothing more. */
export const PLAIN_ATTRIBUTE = new RegExp(`${ATTRIBUTE_LINE}[ \\t]*${LINE_END}`, 'y');

/** Set by openHeredoc: where the content ends (the closing line's start) and where its marker ends. */
export const heredocFound = { limit: 0, closeEnd: 0 };

/**
 * `<<EOT` / `<<-EOT` at i and a line break (the scanner's HeredocFinder.open): the offset where its
 * content starts, with heredocFound set; -1 when it is no heredoc or no line closes it.
 */
export function openHeredoc(text: string, i: number): number {
  let j = i + 2;
  if (text.charCodeAt(j) === 45) j++;
  const ms = j;
  if (!isIdentStart(text.charCodeAt(j))) return -1;
  j = identEnd(text, j + 1);
  const me = j;
  if (text.charCodeAt(j) === 13) j++;
  if (text.charCodeAt(j) !== 10) return -1;
  const close = findHeredocClose(text, text.slice(ms, me), j + 1, text.length);
  if (!close) return -1;
  heredocFound.limit = close.limit;
  heredocFound.closeEnd = close.end;
  return j + 1;
}

/**
 * The offset after a block label string whose `"` is at i: its text may hold escapes but no
 * template sequence and no line break (-1 otherwise, as for everything the parser would report).
 */
export function labelStringEnd(text: string, i: number): number {
  // quotedTextEnd's rules, where a `${` is the end of what a label can be too.
  const e = quotedTextEnd(text, i + 1);
  return e >= 0 && text.charCodeAt(e) === 34 ? e + 1 : -1;
}


/**
 * The attributes found directly in the skimmed body (not in nested blocks): `count` of them, four
 * offsets each in `list`: name start and end, value start and end (the value's text with surrounding blanks or a comment; the
 * caller parses it). Filled by skimBody, read until the next call.
 */
export const skimmedAttributes = { list: new Int32Array(256), count: 0 };

/** One attribute of the skimmed body into skimmedAttributes. */
export function recordAttribute(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
  let a = skimmedAttributes.list;
  const k = skimmedAttributes.count * 4;
  if (k + 4 > a.length) {
    const grown = new Int32Array(a.length * 2);
    grown.set(a);
    a = skimmedAttributes.list = grown;
  }
  a[k] = nameStart;
  a[k + 1] = nameEnd;
  a[k + 2] = valueStart;
  a[k + 3] = valueEnd;
  skimmedAttributes.count++;
}
