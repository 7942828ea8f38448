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
// run, and most of that time went to V8 compiling the many parser functions while they ran. Here
// one loop is compiled, once (the warm-up sample in warmup.ts takes each of its branches first),
// and plain attribute lines go through a regular expression (skimhelpers.ts).
import {
  F, forAt, heredocFound, heredocTextEnd, identEnd, isIdentPart, isIdentStart, labelStringEnd, numberEnd, openHeredoc, P,
  PLAIN_ATTRIBUTE, PLAIN_LINES, quotedTextEnd, recordAttribute, skimmedAttributes, skipBlank,
} from './skimhelpers';

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
 * Skims the body of a top-level block whose `{` is just before `from`: the offset after its
 * closing `}`, or -1 when the skim is not sure the parser would read it without a diagnostic (or
 * finds one). Fills skimmedAttributes with the body's own attributes.
 */
export function skimBody(text: string, from: number, record: boolean): number {
  const n = text.length;
  skimmedAttributes.count = 0;
  let sp = 0;
  kind[0] = F.BODY;
  let want = 0; // in an expression: 0 = an operand comes next, 1 = after an operand
  let unary = 0;
  /** Just after `[`, `(` of a call, `{` of an object or a separator in them: their closer may come next. */
  let open = 0;
  let interps = 0; // open F.INTERP frames: a newline inside one is given up
  let attrName = 0;
  let attrNameEnd = 0;
  let attrValue = 0;
  let i = from;
  for (;;) {
    if (i >= n) return -1;
    const top = kind[sp];
    let c = text.charCodeAt(i);

    // Template text: a quoted string or a heredoc's content, up to its end or a `${`.
    if (top === F.QSTR || top === F.HEREDOC) {
      i = top === F.QSTR ? quotedTextEnd(text, i) : heredocTextEnd(text, i, limit[sp]);
      if (i < 0) return -1;
      if (top === F.QSTR ? text.charCodeAt(i) === 34 : i >= limit[sp]) {
        i = top === F.QSTR ? i + 1 : closeEnd[sp];
        sp--;
        want = 1;
        continue;
      }
      // `${` or `${~`
      if (sp === MAX_FRAMES) return -1;
      i += text.charCodeAt(i + 2) === 126 ? 3 : 2;
      kind[++sp] = F.INTERP; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
      interps++;
      want = 0; unary = 0;
      continue;
    }

    // Blanks and comments, as the scanner skips them: skipBlank(text, i, false) written out, because
    // calling it from this loop made the warm overview ≈ 2.5 % slower (61–63 → 62–65 ms per pass
    // over the corpus × 7, four interleaved runs).
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
      if (top === F.BODY) { i++; continue; }
      if (top === F.ATTR) {
        if (want === 0 || pend[sp] !== 0) return -1;
        if (sp === 1) recordAttribute(attrName, attrNameEnd, attrValue, i);
        sp--;
        i++;
        continue;
      }
      if (top === F.OBJ) {
        const ph = phase[sp];
        if (ph === P.KEY) return -1;
        if (ph === P.VALUE) {
          if (want === 0 || pend[sp] !== 0) return -1;
          phase[sp] = P.ITEM;
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
    if (top === F.BODY) {
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
        kind[++sp] = F.ATTR; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
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
      kind[++sp] = F.BODY;
      continue;
    }

    // In an expression.
    if (want === 0) {
      if (open === 1) {
        // Closers right after an opener or a trailing separator.
        if ((c === 93 && top === F.TUPLE) || (c === 41 && top === F.CALL) || (c === 125 && top === F.OBJ)) { sp--; i++; want = 1; open = 0; continue; }
        open = 0;
      }
      if (top === F.OBJ && phase[sp] === P.ITEM) phase[sp] = P.KEY;
      if (isIdentStart(c)) {
        i = identEnd(text, i + 1);
        if (text.charCodeAt(i) === 58 && text.charCodeAt(i + 1) === 58) return -1; // provider::…::f()
        let j = i;
        while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
        if (text.charCodeAt(j) === 40) {
          if (sp === MAX_FRAMES) return -1;
          i = j + 1;
          kind[++sp] = F.CALL; phase[sp] = P.ITEM; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
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
        kind[++sp] = F.QSTR;
        fullSplat[sp - 1] = 0;
        continue;
      }
      if (c === 60 && text.charCodeAt(i + 1) === 60) {
        // <<EOT / <<-EOT and a newline, closed by a line holding only the marker.
        if (interps > 0 || sp === MAX_FRAMES) return -1;
        i = openHeredoc(text, i);
        if (i < 0) return -1;
        fullSplat[sp] = 0;
        kind[++sp] = F.HEREDOC;
        limit[sp] = heredocFound.limit;
        closeEnd[sp] = heredocFound.closeEnd;
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
          kind[sp] = c === 91 ? F.FORT : F.FORO;
          phase[sp] = P.F_VAR1;
          i = f;
          want = 1; // `for` read: the next token is a name, handled below
        } else {
          kind[sp] = c === 91 ? F.TUPLE : F.OBJ;
          phase[sp] = P.ITEM;
          open = 1;
        }
        continue;
      }
      if (c === 40) {
        if (sp === MAX_FRAMES) return -1;
        fullSplat[sp] = 0;
        i++;
        kind[++sp] = F.PAREN; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
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
    if (top === F.FORT || top === F.FORO) {
      const ph = phase[sp];
      if (ph <= P.F_IN) {
        // for ▮x ▮, ▮v ▮in
        if (ph === P.F_AFTER1 && c === 44) { phase[sp] = P.F_VAR2; i++; continue; }
        if (!isIdentStart(c)) return -1;
        const s = i;
        i = identEnd(text, i + 1);
        if (ph === P.F_VAR1) phase[sp] = P.F_AFTER1;
        else if (ph === P.F_VAR2) phase[sp] = P.F_IN;
        else if (i - s === 2 && text.charCodeAt(s) === 105 && text.charCodeAt(s + 1) === 110) { phase[sp] = P.F_COLL; want = 0; unary = 0; }
        else return -1;
        continue;
      }
      if (c === 105 && text.charCodeAt(i + 1) === 102 && !isIdentPart(text.charCodeAt(i + 2)) && pend[sp] === 0
        && ((top === F.FORT && ph === P.F_FIRST) || (top === F.FORO && (ph === P.F_VAL || ph === P.F_GROUPED)))) {
        i += 2; phase[sp] = P.F_COND; want = 0; unary = 0;
        continue;
      }
      if (ph === P.F_GROUPED && c !== 125) return -1;
    }
    if (c === 46) {
      const d = text.charCodeAt(i + 1);
      if (d === 46) {
        if (text.charCodeAt(i + 2) !== 46 || pend[sp] !== 0) return -1;
        if (top === F.CALL) {
          // f(a...): only `)` may follow
          const j = skipBlank(text, i + 3, true);
          if (j < 0 || text.charCodeAt(j) !== 41) return -1;
          i = j;
          continue;
        }
        if (top === F.FORO && phase[sp] === P.F_VAL) { phase[sp] = P.F_GROUPED; i += 3; continue; }
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
      kind[++sp] = F.INDEX; pend[sp] = 0; conds[sp] = 0; fullSplat[sp] = 0;
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
        if (top !== F.FORO || phase[sp] !== P.F_FIRST) return -1;
        phase[sp] = P.F_VAL; i += 2; want = 0; unary = 0;
        continue;
      }
      if (top !== F.OBJ || phase[sp] !== P.KEY) return -1;
      phase[sp] = P.VALUE; i++; want = 0; unary = 0;
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
      if (top === F.OBJ && phase[sp] === P.KEY) { phase[sp] = P.VALUE; i++; want = 0; unary = 0; continue; }
      if ((top === F.FORT || top === F.FORO) && phase[sp] === P.F_COLL) { phase[sp] = P.F_FIRST; i++; want = 0; unary = 0; continue; }
      return -1;
    }
    if (pend[sp] !== 0) return -1; // a `?` without its `:` before a separator or closer
    if (c === 44) {
      if (top === F.TUPLE || top === F.CALL || (top === F.OBJ && phase[sp] === P.VALUE)) { phase[sp] = P.ITEM; i++; want = 0; unary = 0; open = 1; continue; }
      return -1;
    }
    if (c === 41) {
      if (top !== F.PAREN && top !== F.CALL) return -1;
      sp--; i++;
      continue;
    }
    if (c === 93) {
      if (top === F.TUPLE || top === F.INDEX || (top === F.FORT && (phase[sp] === P.F_FIRST || phase[sp] === P.F_COND))) { sp--; i++; continue; }
      return -1;
    }
    if (c === 125 || (c === 126 && text.charCodeAt(i + 1) === 125)) {
      if (top === F.INTERP) { sp--; interps--; i += c === 126 ? 2 : 1; continue; }
      if (c === 126) return -1;
      if ((top === F.OBJ && phase[sp] === P.VALUE) || (top === F.FORO && phase[sp] >= P.F_VAL)) { sp--; i++; continue; }
      if (top === F.ATTR) {
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
