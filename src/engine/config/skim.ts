// A skim of one top-level block's body for `inspect` (overview.ts): one tight loop over the char
// codes that finds the `}` closing the body and says whether the full scanner and parser would
// report nothing in it, without building tokens or nodes. It recognizes a subset of the native
// syntax (blocks, attributes, operators, conditionals, calls, traversals, splats, tuples, objects,
// for expressions, quoted strings and heredocs with `${…}`) and gives up (-1) on anything it is not
// sure of: `%{` directives, a newline inside `${…}`, non-ASCII outside strings and comments,
// provider functions, deep nesting, and every construct the parser would report. A caller that
// gets -1 parses the file as before, so a skim can only be faster, never different.
//
// Why not the parser: over a large tree most of the text is resources, outputs and locals that
// `inspect` does not report; scanning them into tokens and parsing them into nodes was most of the
// run, and most of that time went to V8 compiling the many parser functions while they ran. A
// single loop is compiled (on-stack replacement) within the first file or two.
import { findHeredocClose } from './heredoc';
import { CLASS } from './scanhelpers';

// Frame kinds on the skim's stack.
const BODY = 1; // a block body: attributes and nested blocks (newlines significant)
const ATTR = 2; // an attribute's value (newlines significant: one ends it)
const OBJ = 3; // { key = value, … } (newlines significant between items)
const TUPLE = 4; // [ a, b ]
const CALL = 5; // f(a, b...)
const PAREN = 6; // ( a )
const INDEX = 7; // x[ a ]
const FORT = 8; // [for x in c : v if k]
const FORO = 9; // {for k, v in c : k => v... if k}
const INTERP = 10; // ${ a } in a string or heredoc
const QSTR = 11; // "…" (template text)
const HEREDOC = 12; // <<EOT … EOT (template text)

// Phases of OBJ: before an item's key, in its key, in its value.
const ITEM = 0;
const KEY = 1;
const VALUE = 2;
// Phases of FORT / FORO.
const F_VAR1 = 0; // for ▮x
const F_AFTER1 = 1; // for x ▮, / in
const F_VAR2 = 2; // for k, ▮v
const F_IN = 3; // for k, v ▮in
const F_COLL = 4; // in ▮collection :
const F_FIRST = 5; // : ▮first (tuple: the value; object: the key)
const F_VAL = 6; // => ▮value (object)
const F_GROUPED = 7; // value... ▮ (object: only `if` or `}` may follow)
const F_COND = 8; // if ▮cond

/** Frames deeper than this, or more `?` than MAX_COND in one frame: given up (the parser bounds its depth). */
const MAX_FRAMES = 20;
const MAX_COND = 5;
const MAX_UNARY = 8;

const kind = new Uint8Array(MAX_FRAMES + 1);
const phase = new Uint8Array(MAX_FRAMES + 1);
/** `?` waiting for their `:`, and `?` seen in all, per frame. */
const pend = new Uint8Array(MAX_FRAMES + 1);
const conds = new Uint8Array(MAX_FRAMES + 1);
/** A full splat `[*]` was taken in this frame's current operand (after it, `.*` is an error). */
const fullSplat = new Uint8Array(MAX_FRAMES + 1);
/** HEREDOC: where its content ends and where its closing marker ends. */
const limit = new Int32Array(MAX_FRAMES + 1);
const closeEnd = new Int32Array(MAX_FRAMES + 1);

/**
 * The attributes found directly in the skimmed body (not in nested blocks): `count` of them, four
 * offsets each in `list`: name start and end, value start and end (the value's text with surrounding blanks or a comment; the
 * caller parses it). Filled by skimBody, read until the next call.
 */
export const skimmedAttributes = { list: new Int32Array(256), count: 0 };

/** ASCII letters and `_` (what else the scanner takes for an identifier, the skim gives up on). */
export function isIdentStart(c: number): boolean {
  return c < 128 && (CLASS[c] & 1) !== 0;
}

function isIdentPart(c: number): boolean {
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
function forAt(text: string, i: number): number {
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
function quotedTextEnd(text: string, i: number): number {
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
function heredocTextEnd(text: string, i: number, lim: number): number {
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
function numberEnd(text: string, i: number): number {
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
const PLAIN_LINES = new RegExp(`(?:[ \\t]*(?:${ATTRIBUTE_LINE}[ \\t]*)?${LINE_END})+`, 'y');
/** One such attribute and its line break, nothing more. */
const PLAIN_ATTRIBUTE = new RegExp(`${ATTRIBUTE_LINE}[ \\t]*${LINE_END}`, 'y');

/** Set by openHeredoc: where the content ends (the closing line's start) and where its marker ends. */
let heredocLimit = 0;
let heredocCloseEnd = 0;

/**
 * `<<EOT` / `<<-EOT` at i and a line break (the scanner's HeredocFinder.open): the offset where its
 * content starts, with heredocLimit and heredocCloseEnd set; -1 when it is no heredoc or no line closes it.
 */
function openHeredoc(text: string, i: number): number {
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
  heredocLimit = close.limit;
  heredocCloseEnd = close.end;
  return j + 1;
}

/** One attribute of the skimmed body into skimmedAttributes. */
function recordAttribute(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
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

/**
 * The offset after a block label string whose `"` is at i: its text may hold escapes but no
 * template sequence and no line break (-1 otherwise, as for everything the parser would report).
 */
export function labelStringEnd(text: string, i: number): number {
  const n = text.length;
  i++;
  for (;;) {
    if (i >= n) return -1;
    const d = text.charCodeAt(i);
    if (d === 34) return i + 1;
    if (d === 10) return -1;
    if (d === 92) {
      if (i + 1 >= n || text.charCodeAt(i + 1) === 10) return -1;
      i += 2;
      continue;
    }
    if (d === 36 || d === 37) {
      const e = text.charCodeAt(i + 1);
      if (e === 123) return -1;
      if (e === d && text.charCodeAt(i + 2) === 123) { i += 3; continue; }
    }
    i++;
  }
}

/**
 * Skims the body of a top-level block whose `{` is just before `from`: the offset after its
 * closing `}`, or -1 when the skim is not sure the parser would read it without a diagnostic (or
 * finds one). Fills skimmedAttributes with the body's own attributes.
 */
export function skimBody(text: string, from: number, record: boolean): number {
  const n = text.length;
  skimmedAttributes.count = 0;
  let sp = 0;
  kind[0] = BODY;
  let want = 0; // in an expression: 0 = an operand comes next, 1 = after an operand
  let unary = 0;
  /** Just after `[`, `(` of a call, `{` of an object or a separator in them: their closer may come next. */
  let open = 0;
  let interps = 0; // open INTERP frames: a newline inside one is given up
  let attrName = 0;
  let attrNameEnd = 0;
  let attrValue = 0;
  let i = from;
  for (;;) {
    if (i >= n) return -1;
    const top = kind[sp];
    let c = text.charCodeAt(i);

    // Template text: a quoted string or a heredoc's content, up to its end or a `${`.
    if (top === QSTR || top === HEREDOC) {
      i = top === QSTR ? quotedTextEnd(text, i) : heredocTextEnd(text, i, limit[sp]);
      if (i < 0) return -1;
      if (top === QSTR ? text.charCodeAt(i) === 34 : i >= limit[sp]) {
        i = top === QSTR ? i + 1 : closeEnd[sp];
        sp--;
        want = 1;
        continue;
      }
      // `${` or `${~`
      if (sp === MAX_FRAMES) return -1;
      i += text.charCodeAt(i + 2) === 126 ? 3 : 2;
      kind[++sp] = INTERP; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
      interps++;
      want = 0; unary = 0;
      continue;
    }

    // Blanks and comments, as the scanner skips them.
    if (c === 32 || c === 9 || c === 13) {
      do i++; while (text.charCodeAt(i) === 32);
      continue;
    }
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
    if (c === 10) {
      if (interps > 0) return -1;
      if (top === BODY) { i++; continue; }
      if (top === ATTR) {
        if (want === 0 || pend[sp] !== 0) return -1;
        if (sp === 1) recordAttribute(attrName, attrNameEnd, attrValue, i);
        sp--;
        i++;
        continue;
      }
      if (top === OBJ) {
        const ph = phase[sp];
        if (ph === KEY) return -1;
        if (ph === VALUE) {
          if (want === 0 || pend[sp] !== 0) return -1;
          phase[sp] = ITEM;
          want = 0;
          open = 1;
        }
        i++;
        continue;
      }
      i++; // newlines are not significant inside brackets
      continue;
    }

    // A block body: `}`, an attribute or a nested block.
    if (top === BODY) {
      // Lines of plain attributes (and blank and comment lines) at once where none is recorded, else one.
      if (sp > 0 || !record) {
        PLAIN_LINES.lastIndex = i;
        if (PLAIN_LINES.test(text)) {
          i = PLAIN_LINES.lastIndex;
          continue;
        }
      } else {
        PLAIN_ATTRIBUTE.lastIndex = i;
        if (PLAIN_ATTRIBUTE.test(text)) {
          const nameEnd = identEnd(text, i + 1);
          recordAttribute(i, nameEnd, text.indexOf('=', nameEnd) + 1, PLAIN_ATTRIBUTE.lastIndex - 1); // value: to the line break
          i = PLAIN_ATTRIBUTE.lastIndex;
          continue;
        }
      }
      if (c === 125) {
        i++;
        if (sp === 0) return i;
        sp--;
        continue;
      }
      if (!isIdentStart(c)) return -1;
      const s = i;
      i = identEnd(text, i + 1);
      const e = i;
      while (i < n && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
      c = text.charCodeAt(i);
      if (c === 61) {
        const d = text.charCodeAt(i + 1);
        if (d === 61 || d === 62) return -1;
        if (sp === MAX_FRAMES) return -1;
        i++;
        kind[++sp] = ATTR; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
        attrName = s; attrNameEnd = e; attrValue = i;
        want = 0; unary = 0;
        continue;
      }
      // A nested block: labels (names or strings with no template sequence), then `{` on the same line.
      for (;;) {
        if (c === 123) break;
        if (isIdentStart(c)) {
          i = identEnd(text, i + 1);
        } else if (c === 34) {
          i = labelStringEnd(text, i);
          if (i < 0) return -1;
        } else {
          return -1;
        }
        while (i < n && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
        c = text.charCodeAt(i);
      }
      if (sp === MAX_FRAMES) return -1;
      i++;
      kind[++sp] = BODY;
      continue;
    }

    // In an expression.
    if (want === 0) {
      if (open === 1) {
        // Closers right after an opener or a trailing separator.
        if ((c === 93 && top === TUPLE) || (c === 41 && top === CALL) || (c === 125 && top === OBJ)) { sp--; i++; want = 1; open = 0; continue; }
        open = 0;
      }
      if (top === OBJ && phase[sp] === ITEM) phase[sp] = KEY;
      if (isIdentStart(c)) {
        i = identEnd(text, i + 1);
        if (text.charCodeAt(i) === 58 && text.charCodeAt(i + 1) === 58) return -1; // provider::…::f()
        let j = i;
        while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
        if (text.charCodeAt(j) === 40) {
          if (sp === MAX_FRAMES) return -1;
          i = j + 1;
          kind[++sp] = CALL; phase[sp] = ITEM; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
          unary = 0; open = 1;
          continue;
        }
        fullSplat[sp] = 0;
        want = 1;
        continue;
      }
      if (c >= 48 && c <= 57) {
        i = numberEnd(text, i);
        fullSplat[sp] = 0;
        want = 1;
        continue;
      }
      if (c === 34) {
        if (sp === MAX_FRAMES) return -1;
        i++;
        kind[++sp] = QSTR;
        fullSplat[sp - 1] = 0;
        continue;
      }
      if (c === 60 && text.charCodeAt(i + 1) === 60) {
        // <<EOT / <<-EOT and a newline, closed by a line holding only the marker.
        if (interps > 0 || sp === MAX_FRAMES) return -1;
        i = openHeredoc(text, i);
        if (i < 0) return -1;
        fullSplat[sp] = 0;
        kind[++sp] = HEREDOC;
        limit[sp] = heredocLimit;
        closeEnd[sp] = heredocCloseEnd;
        continue;
      }
      if (c === 91 || c === 123) {
        if (sp === MAX_FRAMES) return -1;
        fullSplat[sp] = 0;
        const f = forAt(text, i + 1);
        i++;
        sp++;
        pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
        unary = 0;
        if (f >= 0) {
          kind[sp] = c === 91 ? FORT : FORO;
          phase[sp] = F_VAR1;
          i = f;
          want = 1; // `for` read: the next token is a name, handled below
        } else {
          kind[sp] = c === 91 ? TUPLE : OBJ;
          phase[sp] = ITEM;
          open = 1;
        }
        continue;
      }
      if (c === 40) {
        if (sp === MAX_FRAMES) return -1;
        fullSplat[sp] = 0;
        i++;
        kind[++sp] = PAREN; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
        unary = 0;
        continue;
      }
      if ((c === 33 && text.charCodeAt(i + 1) !== 61) || c === 45) {
        if (++unary > MAX_UNARY) return -1;
        i++;
        continue;
      }
      return -1;
    }

    // After an operand (want === 1). A for expression's names and keywords first.
    if (top === FORT || top === FORO) {
      const ph = phase[sp];
      if (ph <= F_IN) {
        // for ▮x ▮, ▮v ▮in
        if (ph === F_AFTER1 && c === 44) { phase[sp] = F_VAR2; i++; continue; }
        if (!isIdentStart(c)) return -1;
        const s = i;
        i = identEnd(text, i + 1);
        if (ph === F_VAR1) phase[sp] = F_AFTER1;
        else if (ph === F_VAR2) phase[sp] = F_IN;
        else if (i - s === 2 && text.charCodeAt(s) === 105 && text.charCodeAt(s + 1) === 110) { phase[sp] = F_COLL; want = 0; unary = 0; }
        else return -1;
        continue;
      }
      if (c === 105 && text.charCodeAt(i + 1) === 102 && !isIdentPart(text.charCodeAt(i + 2)) && pend[sp] === 0
        && ((top === FORT && ph === F_FIRST) || (top === FORO && (ph === F_VAL || ph === F_GROUPED)))) {
        i += 2; phase[sp] = F_COND; want = 0; unary = 0;
        continue;
      }
      if (ph === F_GROUPED && c !== 125) return -1;
    }
    if (c === 46) {
      const d = text.charCodeAt(i + 1);
      if (d === 46) {
        if (text.charCodeAt(i + 2) !== 46 || pend[sp] !== 0) return -1;
        if (top === CALL) {
          // f(a...): only `)` may follow
          const j = skipBlank(text, i + 3, true);
          if (j < 0 || text.charCodeAt(j) !== 41) return -1;
          i = j;
          continue;
        }
        if (top === FORO && phase[sp] === F_VAL) { phase[sp] = F_GROUPED; i += 3; continue; }
        return -1;
      }
      if (isIdentStart(d)) { i = identEnd(text, i + 2); continue; }
      if (d >= 48 && d <= 57) {
        i += 2;
        while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
        continue;
      }
      if (d === 42 && fullSplat[sp] === 0) { i += 2; continue; }
      return -1;
    }
    if (c === 91) {
      if (text.charCodeAt(i + 1) === 42 && text.charCodeAt(i + 2) === 93) { fullSplat[sp] = 1; i += 3; continue; }
      if (sp === MAX_FRAMES) return -1;
      i++;
      kind[++sp] = INDEX; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
      want = 0; unary = 0;
      continue;
    }
    // Binary operators.
    if (c === 43 || c === 45 || c === 42 || c === 47 || c === 37) { i++; want = 0; unary = 0; continue; }
    if (c === 61 || c === 33) {
      const d = text.charCodeAt(i + 1);
      if (d === 61) { i += 2; want = 0; unary = 0; continue; }
      if (c === 33) return -1;
      if (pend[sp] !== 0) return -1;
      if (d === 62) {
        // =>
        if (top !== FORO || phase[sp] !== F_FIRST) return -1;
        phase[sp] = F_VAL; i += 2; want = 0; unary = 0;
        continue;
      }
      if (top !== OBJ || phase[sp] !== KEY) return -1;
      phase[sp] = VALUE; i++; want = 0; unary = 0;
      continue;
    }
    if (c === 60 || c === 62) {
      const d = text.charCodeAt(i + 1);
      if (c === 60 && d === 60) return -1;
      i += d === 61 ? 2 : 1; want = 0; unary = 0;
      continue;
    }
    if (c === 38 || c === 124) {
      if (text.charCodeAt(i + 1) !== c) return -1;
      i += 2; want = 0; unary = 0;
      continue;
    }
    if (c === 63) {
      if (++conds[sp] > MAX_COND) return -1;
      pend[sp]++;
      i++; want = 0; unary = 0;
      continue;
    }
    if (c === 58) {
      if (pend[sp] !== 0) { pend[sp]--; i++; want = 0; unary = 0; continue; }
      if (top === OBJ && phase[sp] === KEY) { phase[sp] = VALUE; i++; want = 0; unary = 0; continue; }
      if ((top === FORT || top === FORO) && phase[sp] === F_COLL) { phase[sp] = F_FIRST; i++; want = 0; unary = 0; continue; }
      return -1;
    }
    if (pend[sp] !== 0) return -1; // a `?` without its `:` before a separator or closer
    if (c === 44) {
      if (top === TUPLE || top === CALL || (top === OBJ && phase[sp] === VALUE)) { phase[sp] = ITEM; i++; want = 0; unary = 0; open = 1; continue; }
      return -1;
    }
    if (c === 41) {
      if (top !== PAREN && top !== CALL) return -1;
      sp--; i++;
      continue;
    }
    if (c === 93) {
      if (top === TUPLE || top === INDEX || (top === FORT && (phase[sp] === F_FIRST || phase[sp] === F_COND))) { sp--; i++; continue; }
      return -1;
    }
    if (c === 125 || (c === 126 && text.charCodeAt(i + 1) === 125)) {
      if (top === INTERP) { sp--; interps--; i += c === 126 ? 2 : 1; continue; }
      if (c === 126) return -1;
      if ((top === OBJ && phase[sp] === VALUE) || (top === FORO && phase[sp] >= F_VAL)) { sp--; i++; continue; }
      if (top === ATTR) {
        // `}` ends the attribute and closes the body it is in.
        if (sp === 1) recordAttribute(attrName, attrNameEnd, attrValue, i);
        sp -= 2;
        i++;
        if (sp < 0) return i;
        continue;
      }
      return -1;
    }
    return -1;
  }
}
