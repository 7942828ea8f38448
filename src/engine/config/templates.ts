// Templates: quoted strings and heredocs with `${…}` interpolations and `%{ if }` / `%{ for }`
// directives, escape decoding, strip markers (`~`) and `<<-` indentation flushing.
import { Expression, TemplatePart } from './ast';
import { Cursor } from './cursor';
import { F_ESCAPES, F_FLUSH, F_MISSING, F_STRIP, T } from './tokens';

const STOP_ELSE = 1;
const STOP_ENDIF = 2;
const STOP_ENDFOR = 4;

export abstract class TemplateParser extends Cursor {
  /** Indentation removed from each line of the `<<-` heredoc being parsed (-1: none). */
  private flush = -1;
  /** Whether backslash escapes apply (quoted strings in native syntax). */
  private escapes = true;

  abstract parseExpr(): Expression;

  parseQuoted(): Expression {
    const open = this.next();
    // Fast path: "text" / "" with no template sequences.
    const k = this.k;
    const fast = k[open + 1] === T.CQuote ? open + 1 : k[open + 1] === T.TemplateLiteral && k[open + 2] === T.CQuote ? open + 2 : -1;
    if (fast > 0) {
      this.p = fast + 1;
      const value = fast === open + 1 ? '' : this.textValue(open + 1);
      const unterminated = (this.f[fast] & F_MISSING) !== 0;
      return { kind: 'literal', value, range: this.range(this.s[open], this.e[fast]), unterminated: unterminated || undefined, quoting: 'quoted' };
    }
    const savedEsc = this.escapes;
    const savedFlush = this.flush;
    this.escapes = true;
    this.flush = -1;
    const parts = this.parseParts(T.CQuote, 0).parts;
    this.escapes = savedEsc;
    this.flush = savedFlush;
    const close = this.p;
    let end = this.s[close];
    let unterminated = true;
    if (this.k[close] === T.CQuote) {
      this.p++;
      end = this.e[close];
      unterminated = (this.f[close] & F_MISSING) !== 0;
    }
    return this.finish(parts, false, this.s[open], end, this.e[open], this.s[close], unterminated);
  }

  parseHeredoc(): Expression {
    const open = this.next();
    const savedEsc = this.escapes;
    const savedFlush = this.flush;
    this.escapes = false;
    this.flush = (this.f[open] & F_FLUSH) !== 0 ? this.flushIndent(open) : -1;
    const parts = this.parseParts(T.HeredocEnd, 0).parts;
    this.escapes = savedEsc;
    this.flush = savedFlush;
    const close = this.p;
    let end = this.s[close];
    let contentEnd = end;
    let unterminated = true;
    if (this.k[close] === T.HeredocEnd) {
      this.p++;
      end = this.e[close];
      unterminated = (this.f[close] & F_MISSING) !== 0;
      contentEnd = unterminated ? this.s[close] : this.lm.starts[this.lm.lineOf(this.s[close])];
    }
    return this.finish(parts, true, this.s[open], end, this.e[open], contentEnd, unterminated);
  }

  /** Parses a bare template (JSON string content): the whole token stream is template text. */
  parseBareTemplate(start: number, end: number): Expression {
    this.escapes = false;
    const parts = this.parseParts(T.EOF, 0).parts;
    return this.finish(parts, false, start, end, start, end, false);
  }

  private finish(parts: TemplatePart[], heredoc: boolean, start: number, end: number, cs: number, ce: number, unterminated: boolean): Expression {
    const range = this.range(start, end);
    // Quoted strings are single-line: their content range is derived from `range` (see valueInfo).
    const contentRange = heredoc || bareJson(cs, start) ? this.range(cs, Math.max(cs, ce)) : undefined;
    let literal = true;
    for (const part of parts) if (part.kind !== 'text') { literal = false; break; }
    if (literal) {
      const value = parts.length === 1 ? (parts[0] as { value: string }).value : parts.map((x) => (x as { value: string }).value).join('');
      return { kind: 'literal', value, range, contentRange, unterminated: unterminated || undefined, quoting: heredoc ? 'heredoc' : 'quoted' };
    }
    return { kind: 'template', parts, heredoc, range, contentRange, unterminated: unterminated || undefined };
  }

  private parseParts(endKind: T, stops: number): { parts: TemplatePart[]; stop: string | null } {
    const parts: TemplatePart[] = [];
    const k = this.k;
    for (;;) {
      const p = this.p;
      const kind = k[p];
      if (kind === endKind || kind === T.EOF || kind === T.CQuote || kind === T.HeredocEnd) return { parts, stop: null };
      if (kind === T.TemplateLiteral) {
        parts.push({ kind: 'text', value: this.textValue(p), range: this.range(this.s[p], this.e[p]) });
        this.p++;
        continue;
      }
      if (kind === T.TemplateInterp) {
        this.p++;
        const expr = this.inner(() => this.parseExpr());
        const end = this.closeSequence();
        parts.push({ kind: 'interpolation', expr, range: this.range(this.s[p], end) });
        continue;
      }
      if (kind === T.TemplateControl) {
        this.p++;
        const kw = this.inner(() => (this.peek() === T.Ident ? this.slice(this.p) : ''));
        if ((kw === 'else' && stops & STOP_ELSE) || (kw === 'endif' && stops & STOP_ENDIF) || (kw === 'endfor' && stops & STOP_ENDFOR)) {
          this.p = p; // the caller consumes the directive
          return { parts, stop: kw };
        }
        if (kw === 'if') parts.push(this.parseIf(p, endKind));
        else if (kw === 'for') parts.push(this.parseForDirective(p, endKind));
        else {
          this.error(kw ? `Unexpected template directive "${kw}"` : 'Expected a template directive (if, for, else, endif, endfor)', this.s[p], this.e[p]);
          this.closeSequence();
        }
        continue;
      }
      // Only after an unterminated sequence that ran on over several lines: stop at a line that
      // starts a new attribute or block (recovery pass), otherwise step over the token.
      if (this.atRecoveryStop(p)) return { parts, stop: null };
      this.p++;
    }
  }

  /** Runs fn with newlines insignificant (inside `${ }` / `%{ }`). */
  private inner<R>(fn: () => R): R {
    const saved = this.nl;
    this.nl = false;
    const r = fn();
    this.nl = saved;
    return r;
  }

  /** Expects the `}` closing a template sequence; skips anything before it. Returns its end offset. */
  private closeSequence(): number {
    const saved = this.nl;
    this.nl = false;
    if (this.peek() !== T.TemplateSeqEnd) {
      this.missing('"}" to close the template sequence');
      let depth = 0;
      for (;;) {
        const kind = this.k[this.p];
        if (kind === T.EOF || kind === T.CQuote || kind === T.HeredocEnd || this.atRecoveryStop(this.p)) { this.nl = saved; return this.prevEnd(); }
        if (kind === T.TemplateInterp || kind === T.TemplateControl) depth++;
        else if (kind === T.TemplateSeqEnd && depth-- === 0) break;
        this.p++;
      }
    }
    this.nl = saved;
    return this.e[this.next()];
  }

  /** Consumes `%{ keyword }` (the keyword must be there). */
  private directiveEnd(): number {
    this.p++; // %{
    this.inner(() => { this.peek(); this.p++; });
    return this.closeSequence();
  }

  private parseIf(start: number, endKind: T): TemplatePart {
    this.inner(() => { this.peek(); this.p++; }); // if
    const cond = this.inner(() => this.parseExpr());
    this.closeSequence();
    const then = this.parseParts(endKind, STOP_ELSE | STOP_ENDIF);
    let els: TemplatePart[] | undefined;
    let stop = then.stop;
    if (stop === 'else') {
      this.directiveEnd();
      const r = this.parseParts(endKind, STOP_ENDIF);
      els = r.parts;
      stop = r.stop;
    }
    let end: number;
    if (stop === 'endif') end = this.directiveEnd();
    else { end = this.prevEnd(); this.error('Missing %{ endif } for this %{ if }', this.s[start], this.e[start]); }
    return { kind: 'if', cond, then: then.parts, else: els, range: this.range(this.s[start], end) };
  }

  private parseForDirective(start: number, endKind: T): TemplatePart {
    let keyVar: string | undefined;
    let valueVar = '';
    const collection = this.inner(() => {
      this.peek(); this.p++; // for
      if (this.peek() === T.Ident) valueVar = this.slice(this.next());
      if (this.peek() === T.Comma) {
        this.p++;
        keyVar = valueVar;
        valueVar = this.peek() === T.Ident ? this.slice(this.next()) : '';
      }
      if (this.peek() === T.Ident && this.slice(this.p) === 'in') { this.p++; return this.parseExpr(); }
      return this.missing('"in" in the for directive');
    });
    this.closeSequence();
    const body = this.parseParts(endKind, STOP_ENDFOR);
    let end: number;
    if (body.stop === 'endfor') end = this.directiveEnd();
    else { end = this.prevEnd(); this.error('Missing %{ endfor } for this %{ for }', this.s[start], this.e[start]); }
    return { kind: 'for', keyVar, valueVar, collection, body: body.parts, range: this.range(this.s[start], end) };
  }

  /** Decoded value of a literal chunk: escapes, strip markers, heredoc flushing. */
  private textValue(p: number): string {
    if (this.lean) return ''; // out of a scoped parse's scope: nobody reads it
    let v = this.text.slice(this.s[p], this.e[p]);
    if (this.flush > 0) v = this.unindent(v, this.s[p]);
    if (this.f[p] & F_ESCAPES) v = decode(v, this.escapes);
    if (p > 0 && this.k[p - 1] === T.TemplateSeqEnd && this.f[p - 1] & F_STRIP) v = v.replace(/^\s+/, '');
    const n = this.k[p + 1];
    if ((n === T.TemplateInterp || n === T.TemplateControl) && this.f[p + 1] & F_STRIP) v = v.replace(/\s+$/, '');
    return v;
  }

  /** Smallest indentation of the non-blank lines of a `<<-` heredoc (lines starting in literal text). */
  private flushIndent(open: number): number {
    const text = this.text;
    let min = Infinity;
    for (let p = open + 1; this.k[p] !== T.HeredocEnd && this.k[p] !== T.EOF; p++) {
      if (this.k[p] !== T.TemplateLiteral) continue;
      const s = this.s[p];
      const e = this.e[p];
      let i = s;
      if (!(i === this.e[open] || text.charCodeAt(i - 1) === 10)) {
        const nl = text.indexOf('\n', i);
        if (nl < 0 || nl >= e) continue;
        i = nl + 1;
      }
      while (i < e) {
        let j = i;
        while (j < e && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
        const c = text.charCodeAt(j);
        if (!(j < e && (c === 10 || c === 13))) if (j - i < min) min = j - i; // blank lines do not count
        const nl = text.indexOf('\n', j);
        if (nl < 0 || nl >= e) break;
        i = nl + 1;
      }
    }
    return min === Infinity ? 0 : min;
  }

  private unindent(v: string, start: number): string {
    const n = this.flush;
    const atLineStart = start === 0 || this.text.charCodeAt(start - 1) === 10;
    const lines = v.split('\n');
    for (let i = atLineStart ? 0 : 1; i < lines.length; i++) {
      const line = lines[i];
      let j = 0;
      while (j < n && j < line.length && (line.charCodeAt(j) === 32 || line.charCodeAt(j) === 9)) j++;
      lines[i] = line.slice(j);
    }
    return lines.join('\n');
  }
}

function bareJson(cs: number, start: number): boolean {
  return cs === start; // parseBareTemplate: content and range start together
}

/** Decodes `$${`, `%%{` and (quoted strings only) backslash escapes. */
export function decode(raw: string, backslash: boolean): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c === 36 || c === 37) && raw.charCodeAt(i + 1) === c && raw.charCodeAt(i + 2) === 123) {
      out += raw.slice(last, i + 1);
      i += 1;
      last = i + 1;
      continue;
    }
    if (c !== 92 || !backslash) continue;
    const d = raw.charCodeAt(i + 1);
    let rep: string | undefined;
    let len = 2;
    switch (d) {
      case 110: rep = '\n'; break;
      case 114: rep = '\r'; break;
      case 116: rep = '\t'; break;
      case 34: rep = '"'; break;
      case 92: rep = '\\'; break;
      case 117: case 85: {
        const digits = d === 117 ? 4 : 8;
        const hex = raw.slice(i + 2, i + 2 + digits);
        if (hex.length === digits && /^[0-9a-fA-F]+$/.test(hex)) {
          const cp = parseInt(hex, 16);
          rep = cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
          len = 2 + digits;
        }
        break;
      }
    }
    if (rep === undefined) continue;
    out += raw.slice(last, i) + rep;
    i += len - 1;
    last = i + 1;
  }
  return last === 0 ? raw : out + raw.slice(last);
}
