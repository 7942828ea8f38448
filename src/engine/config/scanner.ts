// Hand-written HCL scanner over char codes. One linear pass; a small mode stack handles quoted
// templates, heredocs and `${…}` / `%{…}` sequences. Tolerant: an unterminated string ends at the
// end of its line, an unterminated heredoc ends before the next line that looks like a top-level
// block header, an unterminated `/*` comment ends at the end of its line — each with a diagnostic.
// A `${…}` in a quoted string may span lines (as in HCL) when the next line plausibly continues it
// (see interpContinues); otherwise the newline ends it as unterminated. Heredoc openers and their
// closing lines: heredoc.ts.
import { HeredocFinder } from './heredoc';
import { CLASS, HeaderFinder, interpContinues, isDigit, isUnicodeIdentPart, isUnicodeIdentStart, lineEnd, OPERATOR, twoCharOperator } from './scanhelpers';
import { F_ESCAPES, F_FIRST, F_FLUSH, F_MISSING, F_STRIP, T, takeTokenArrays, TokenStream } from './tokens';

export interface RawDiag {
  message: string;
  start: number;
  end: number;
}

const enum M {
  Quoted,
  Heredoc,
  Interp,
  Bare,
}

interface Frame {
  mode: M;
  /** Scanning in this frame stops at this offset. */
  limit: number;
  /** Brace nesting inside an interpolation. */
  depth: number;
  /** Paren/bracket nesting inside an interpolation (only used to decide whether a newline continues it). */
  nest: number;
  /** Interpolation: offset of its `${` / `%{`. */
  open: number;
  /** For an interpolation: true when it sits in a quoted string (a newline then ends it). */
  inQuoted: boolean;
  /** Heredoc: the closing marker's range (start === end when missing). */
  closeStart: number;
  closeEnd: number;
  marker: string;
}

export class Scanner {
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  flags: Uint8Array;
  count = 0;
  diags: RawDiag[] = [];
  private frames: Frame[] = [];
  // Next comment close at or after the last search (-1: not searched yet, -2: none).
  private commentClose = -1;
  private readonly headers: HeaderFinder;
  private readonly heredocs: HeredocFinder;
  private atLineStart = true;
  /** Kind of the last token pushed other than a newline. */
  private lastKind: T = T.EOF;

  constructor(private readonly text: string, private i: number, private readonly to: number) {
    // At most one token per three characters in practice (0.29 in the densest corpus file): grow()
    // stays a cold path that optimized code never meets.
    const arrays = takeTokenArrays(Math.ceil((to - i) / 3) + 16);
    this.kinds = arrays.kinds;
    this.starts = arrays.starts;
    this.ends = arrays.ends;
    this.flags = arrays.flags;
    this.headers = new HeaderFinder(text);
    this.heredocs = new HeredocFinder(text, to, this.headers);
  }

  /** Scans native syntax; with `bareTemplate` the whole range is template content (JSON strings). */
  run(bareTemplate: boolean): TokenStream {
    if (bareTemplate) this.frames.push(frame(M.Bare, this.to));
    for (;;) {
      const top = this.frames.length ? this.frames[this.frames.length - 1] : undefined;
      if (!top) {
        if (this.scanNormal(this.to, undefined)) break;
      } else if (top.mode === M.Interp) {
        this.scanNormal(top.limit, top);
      } else if (top.mode === M.Quoted) {
        this.scanTemplate(top, true);
      } else if (top.mode === M.Heredoc) {
        this.scanTemplate(top, false);
      } else {
        this.scanTemplate(top, false);
        if (!this.frames.length) break;
      }
    }
    this.push(T.EOF, this.to, this.to, 0);
    // Reused arrays hold older tokens past the end: what a look-ahead beyond EOF reads is EOF, as
    // in new (zero-filled) arrays.
    this.kinds.fill(T.EOF, this.count, Math.min(this.kinds.length, this.count + 4));
    return { kinds: this.kinds, starts: this.starts, ends: this.ends, flags: this.flags, count: this.count };
  }

  private push(kind: T, start: number, end: number, flags: number): void {
    if (this.count === this.kinds.length) this.grow();
    const n = this.count++;
    this.kinds[n] = kind;
    this.starts[n] = start;
    this.ends[n] = end;
    if (kind !== T.Newline) {
      this.lastKind = kind;
      if (this.atLineStart) {
        flags |= F_FIRST;
        this.atLineStart = false;
      }
    }
    this.flags[n] = flags;
  }

  private grow(): void {
    const cap = this.kinds.length * 2;
    const k = new Uint8Array(cap); k.set(this.kinds); this.kinds = k;
    const s = new Int32Array(cap); s.set(this.starts); this.starts = s;
    const e = new Int32Array(cap); e.set(this.ends); this.ends = e;
    const f = new Uint8Array(cap); f.set(this.flags); this.flags = f;
  }

  /**
   * Scans native-syntax tokens until `end` or until the mode changes. Returns true at the end of
   * the top-level input (EOF to be emitted by the caller).
   */
  private scanNormal(end: number, interp: Frame | undefined): boolean {
    const text = this.text;
    let i = this.i;
    for (;;) {
      if (i >= end) {
        this.i = i;
        if (!interp) return true;
        this.diags.push({ message: 'Unterminated template sequence: expected "}"', start: interp.open, end: interp.open + 2 });
        this.push(T.TemplateSeqEnd, i, i, F_MISSING);
        this.frames.pop();
        return false;
      }
      const c = text.charCodeAt(i);
      if (c < 128 && CLASS[c] & 1) {
        const s = i++;
        while (i < end) {
          const d = text.charCodeAt(i);
          if (d < 128 ? (CLASS[d] & 2) === 0 : !isUnicodeIdentPart(d)) break;
          i++;
        }
        this.push(T.Ident, s, i, 0);
        continue;
      }
      const op = c < 128 ? OPERATOR[c] : 0;
      if (op !== 0) {
        const two = twoCharOperator(c, text.charCodeAt(i + 1));
        if (two !== 0) { this.push(two, i, i + 2, 0); i += 2; } else { this.push(op, i, ++i, 0); }
        continue;
      }
      switch (c) {
        case 32: case 9: case 13: case 12: // a run at once (indentation, alignment)
          do i++; while (i < end && text.charCodeAt(i) === 32);
          continue;
        case 10:
          if (interp && interp.inQuoted && !interpContinues(text, i, interp.depth + interp.nest, this.lastKind, this.headers)) {
            this.diags.push({ message: 'Unterminated template sequence: expected "}" before the end of the line', start: i, end: i });
            this.push(T.TemplateSeqEnd, i, i, F_MISSING);
            this.frames.pop();
            this.i = i;
            return false;
          }
          this.push(T.Newline, i, i + 1, 0);
          this.atLineStart = true;
          i++;
          continue;
        case 35: // #
          i = lineEnd(text, i, end);
          continue;
        case 47: { // /
          const d = text.charCodeAt(i + 1);
          if (d === 47) { i = lineEnd(text, i, end); continue; }
          if (d === 42) {
            // Cached so that many unterminated comments cannot make the scan quadratic.
            if (this.commentClose === -1 || (this.commentClose >= 0 && this.commentClose < i + 2)) {
              this.commentClose = text.indexOf('*/', i + 2);
              if (this.commentClose < 0) this.commentClose = -2;
            }
            const close = this.commentClose === -2 ? -1 : this.commentClose;
            if (close < 0 || close + 2 > end) {
              const e = lineEnd(text, i, end);
              this.diags.push({ message: 'Unterminated comment: expected "*/"', start: i, end: e });
              i = e;
            } else {
              i = close + 2;
            }
            continue;
          }
          this.push(T.Slash, i, ++i, 0);
          continue;
        }
        case 34: { // "
          // A plain string, closed on its line with no `\\`, `$` or `%` in it (most of them): the
          // tokens scanTemplate would give, here, without opening and closing a template frame.
          const to = this.to;
          let j = i + 1;
          let d = 0;
          while (j < to && (d = text.charCodeAt(j)) !== 34 && d !== 10 && d !== 92 && d !== 36 && d !== 37) j++;
          if (j < to && d === 34) {
            this.push(T.OQuote, i, i + 1, 0);
            if (j > i + 1) this.push(T.TemplateLiteral, i + 1, j, 0);
            this.push(T.CQuote, j, j + 1, 0);
            i = j + 1;
            continue;
          }
          this.push(T.OQuote, i, i + 1, 0);
          this.i = i + 1;
          this.frames.push(frame(M.Quoted, this.to));
          return false;
        }
        case 60: { // <
          const d = text.charCodeAt(i + 1);
          if (d === 60 && this.tryHeredoc(i, end)) return false;
          if (d === 61) { this.push(T.Le, i, i + 2, 0); i += 2; } else { this.push(T.Lt, i, ++i, 0); }
          continue;
        }
        case 123: // {
          this.push(T.LBrace, i, ++i, 0);
          if (interp) interp.depth++;
          continue;
        case 125: // }
          if (interp && interp.depth === 0) {
            this.push(T.TemplateSeqEnd, i, i + 1, 0);
            this.frames.pop();
            this.i = i + 1;
            return false;
          }
          this.push(T.RBrace, i, ++i, 0);
          if (interp) interp.depth--;
          continue;
        case 126: // ~
          if (interp && interp.depth === 0 && text.charCodeAt(i + 1) === 125) {
            this.push(T.TemplateSeqEnd, i, i + 2, F_STRIP);
            this.frames.pop();
            this.i = i + 2;
            return false;
          }
          this.invalid(i); i++;
          continue;
        case 91: case 40:
          this.push(c === 91 ? T.LBrack : T.LParen, i, ++i, 0);
          if (interp) interp.nest++;
          continue;
        case 93: case 41:
          this.push(c === 93 ? T.RBrack : T.RParen, i, ++i, 0);
          if (interp && interp.nest > 0) interp.nest--;
          continue;
        case 46: // .
          if (text.charCodeAt(i + 1) === 46 && text.charCodeAt(i + 2) === 46) { this.push(T.Ellipsis, i, i + 3, 0); i += 3; } else { this.push(T.Dot, i, ++i, 0); }
          continue;
        default:
          if (c >= 48 && c <= 57) { i = this.number(i, end); continue; }
          if (c >= 128 && isUnicodeIdentStart(c)) {
            const s = i++;
            while (i < end && (text.charCodeAt(i) < 128 ? (CLASS[text.charCodeAt(i)] & 2) !== 0 : isUnicodeIdentPart(text.charCodeAt(i)))) i++;
            this.push(T.Ident, s, i, 0);
            continue;
          }
          if (c === 0xfeff || c === 0xa0) { i++; continue; } // BOM, no-break space
          this.invalid(i);
          i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
          continue;
      }
    }
  }

  private invalid(i: number): void {
    const e = this.text.charCodeAt(i) >= 0xd800 && this.text.charCodeAt(i) <= 0xdbff ? i + 2 : i + 1;
    this.push(T.Invalid, i, e, 0);
  }

  private number(i: number, end: number): number {
    const text = this.text;
    const s = i;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
    // After a `.` (legacy index `foo.0.1`) a number is an integer only.
    const afterDot = this.count > 0 && this.kinds[this.count - 1] === T.Dot;
    if (!afterDot && text.charCodeAt(i) === 46 && isDigit(text.charCodeAt(i + 1))) {
      i += 2;
      while (i < end && isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (!afterDot && (e === 101 || e === 69)) {
      let j = i + 1;
      const sign = text.charCodeAt(j);
      if (sign === 43 || sign === 45) j++;
      if (isDigit(text.charCodeAt(j))) {
        i = j;
        while (i < end && isDigit(text.charCodeAt(i))) i++;
      }
    }
    this.push(T.Number, s, i, 0);
    return i;
  }

  /** `<<EOT` / `<<-EOT` followed by a newline opens a heredoc. */
  private tryHeredoc(i: number, end: number): boolean {
    const h = this.heredocs.open(i, end);
    if (!h) return false;
    this.push(T.HeredocOpen, i, h.contentStart, h.flush ? F_FLUSH : 0);
    const f = frame(M.Heredoc, h.limit);
    f.marker = h.marker;
    f.closeStart = h.closeStart;
    f.closeEnd = h.closeEnd;
    if (h.missing) this.diags.push({ message: `Unterminated heredoc: expected a line containing only "${h.marker}"`, start: i, end: h.contentStart - 1 });
    this.i = h.contentStart;
    this.frames.push(f);
    return true;
  }

  /** Template content of a quoted string (`quoted`), a heredoc or a bare JSON-string template. */
  private scanTemplate(f: Frame, quoted: boolean): void {
    const text = this.text;
    const limit = f.limit;
    let i = this.i;
    const s = i;
    let fl = 0;
    let c = 0;
    while (i < limit) {
      c = text.charCodeAt(i);
      if (quoted) {
        if (c === 34 || c === 10) break;
        if (c === 92) {
          fl = F_ESCAPES;
          i += i + 1 < limit && text.charCodeAt(i + 1) !== 10 ? 2 : 1;
          continue;
        }
      }
      if (c === 36 || c === 37) {
        const d = text.charCodeAt(i + 1);
        if (d === 123 && i + 1 < limit) break;
        if (d === c && text.charCodeAt(i + 2) === 123 && i + 2 < limit) { fl = F_ESCAPES; i += 3; continue; }
      }
      i++;
    }
    if (i > s) this.push(T.TemplateLiteral, s, i, fl);
    if (i >= limit) {
      this.frames.pop();
      if (f.mode === M.Quoted) {
        this.diags.push({ message: 'Unterminated string: expected a closing "', start: i, end: i });
        this.push(T.CQuote, i, i, F_MISSING);
      } else if (f.mode === M.Heredoc) {
        const missing = f.closeStart === f.closeEnd;
        this.push(T.HeredocEnd, f.closeStart, f.closeEnd, missing ? F_MISSING : 0);
        if (missing) this.atLineStart = true; // the recovery point is the start of a line
        i = f.closeEnd;
      }
      this.i = i;
      return;
    }
    if (quoted && c === 34) {
      this.push(T.CQuote, i, i + 1, 0);
      this.frames.pop();
      this.i = i + 1;
      return;
    }
    if (quoted && c === 10) {
      this.diags.push({ message: 'Unterminated string: expected a closing " before the end of the line', start: i, end: i });
      this.push(T.CQuote, i, i, F_MISSING);
      this.frames.pop();
      this.i = i;
      return;
    }
    // `${` or `%{`, optionally with a strip marker
    const strip = text.charCodeAt(i + 2) === 126 ? F_STRIP : 0;
    this.push(c === 36 ? T.TemplateInterp : T.TemplateControl, i, i + (strip ? 3 : 2), strip);
    const inner = frame(M.Interp, f.mode === M.Heredoc ? f.limit : this.to);
    inner.inQuoted = quoted;
    inner.open = i;
    this.frames.push(inner);
    this.i = i + (strip ? 3 : 2);
  }
}

function frame(mode: M, limit: number): Frame {
  return { mode, limit, depth: 0, nest: 0, open: 0, inQuoted: false, closeStart: 0, closeEnd: 0, marker: '' };
}

export function scan(text: string, from = 0, to = text.length, bareTemplate = false): { tokens: TokenStream; diags: RawDiag[] } {
  const s = new Scanner(text, from, to);
  const tokens = s.run(bareTemplate);
  return { tokens, diags: s.diags };
}
