// Token cursor shared by the expression and body parsers: newline significance, diagnostics,
// node ranges, and the indentation heuristics used by the second (recovery) pass.
import { Diagnostic, Expression, NO_RANGE, Range } from './ast';
import { F_FIRST, LineMap, T, TOKEN_NAMES, TokenStream } from './tokens';

export class Cursor {
  readonly k: Uint8Array;
  readonly s: Int32Array;
  readonly e: Int32Array;
  readonly f: Uint8Array;
  /** Current token index (never past the EOF token). */
  p = 0;
  /** Whether newline tokens are significant (body level, object items) or skipped (inside brackets). */
  nl = true;
  /** Recovery pass: indentation tells where a broken construct ends. */
  readonly heur: boolean;
  /** In the recovery pass: an identifier starting a line at or left of this column ends the expression. */
  baseIndent = -1;
  diags: Diagnostic[] = [];
  /** Nesting depth of expressions/blocks being parsed (bounded so deep input cannot overflow the stack). */
  depth = 0;
  /**
   * Outside the scope of a scoped parse (ParseOptions.scope): nodes get NO_RANGE and template text
   * is not decoded, since nothing will read them. Diagnostics always get their real ranges.
   */
  lean = false;

  constructor(readonly text: string, readonly lm: LineMap, tokens: TokenStream, heur: boolean) {
    this.k = tokens.kinds;
    this.s = tokens.starts;
    this.e = tokens.ends;
    this.f = tokens.flags;
    this.heur = heur;
  }

  /** Kind of the current token, skipping newlines when they are not significant. */
  peek(): T {
    const k = this.k;
    let p = this.p;
    if (!this.nl) while (k[p] === T.Newline) p++;
    this.p = p;
    return this.atRecoveryStop(p) ? T.EOF : k[p];
  }

  /** Recovery pass: token p starts a new attribute/block line, so the broken construct ends before it. */
  atRecoveryStop(p: number): boolean {
    return this.heur && this.baseIndent >= 0 && this.k[p] === T.Ident && (this.f[p] & F_FIRST) !== 0 && this.column(p) <= this.baseIndent;
  }

  /** Kind of the token after the current one (raw, no newline skipping unless `skipNl`). */
  peekAt(offset: number, skipNl = false): T {
    let p = this.p;
    const k = this.k;
    for (let n = 0; n < offset; n++) {
      if (k[p] !== T.EOF) p++;
      if (skipNl) while (k[p] === T.Newline) p++;
    }
    return k[p];
  }

  next(): number {
    const p = this.p;
    if (this.k[p] !== T.EOF) this.p = p + 1;
    return p;
  }

  column(p: number): number {
    const off = this.s[p];
    return off - this.lm.starts[this.lm.lineOf(off)];
  }

  /** Indentation (in characters) of the line that holds token p. */
  indentOf(p: number): number {
    const text = this.text;
    const ls = this.lm.starts[this.lm.lineOf(this.s[p])];
    let i = ls;
    for (let c = text.charCodeAt(i); c === 32 || c === 9; c = text.charCodeAt(++i));
    return i - ls;
  }

  slice(p: number): string {
    return this.text.slice(this.s[p], this.e[p]);
  }

  /** End offset of the token before the current one (where a missing thing would go). */
  prevEnd(): number {
    let p = this.p - 1;
    while (p > 0 && this.k[p] === T.Newline) p--;
    return p >= 0 ? this.e[p] : 0;
  }

  range(start: number, end: number): Range {
    return this.lean ? NO_RANGE : this.lm.range(start, end);
  }

  /** A range from a child's start to an offset: shares the child's Position (fewer allocations). */
  from(a: Range, end: number): Range {
    return this.lean ? NO_RANGE : { start: a.start, end: this.lm.pos(end) };
  }

  /** A range from an offset to a child's end: shares the child's Position. */
  to(start: number, b: Range): Range {
    return this.lean ? NO_RANGE : { start: this.lm.pos(start), end: b.end };
  }

  /** A range spanning two children: shares their Positions. */
  join(a: Range, b: Range): Range {
    return this.lean ? NO_RANGE : { start: a.start, end: b.end };
  }

  error(message: string, start: number, end: number): void {
    this.diags.push({ message, range: this.lm.range(start, end), severity: 'error' });
  }

  describe(p: number): string {
    const kind = this.k[p];
    if (kind === T.Ident || kind === T.Number) return `"${this.slice(p)}"`;
    if (kind === T.Invalid) return `invalid character "${this.slice(p)}"`;
    return kind === T.Newline || kind === T.EOF ? TOKEN_NAMES[kind] : `"${TOKEN_NAMES[kind]}"`;
  }

  /** A diagnostic at the current token (zero width before a newline/EOF) and an invalid expression. */
  missing(what: string): Expression {
    const stop = this.peek() === T.EOF; // real end, or a line where the recovery pass stops
    const p = this.p;
    const kind = this.k[p];
    const gap = stop || kind === T.Newline;
    const at = gap ? this.prevEnd() : this.s[p];
    const end = gap ? at : this.e[p];
    this.error(`Expected ${what}, found ${stop && kind !== T.EOF ? 'a new line' : this.describe(p)}`, at, end);
    return { kind: 'invalid', range: this.range(at, at) };
  }

  /**
   * Skips a broken bracketed construct: to its matching closer (consumed, returns true), or to a
   * closer of another kind / a newline when `stopAtNewline` / the end (not consumed, false).
   */
  skipTo(closer: T, stopAtNewline: boolean): boolean {
    let depth = 0;
    const saved = this.nl;
    this.nl = stopAtNewline;
    try {
      for (;;) {
        const kind = this.peek();
        switch (kind) {
          case T.EOF:
            return false;
          case T.Newline:
            if (depth === 0) return false;
            this.p++;
            continue;
          case T.LBrace: case T.LBrack: case T.LParen: case T.TemplateInterp: case T.TemplateControl:
            depth++;
            break;
          case T.RBrace: case T.RBrack: case T.RParen: case T.TemplateSeqEnd:
            if (depth === 0) {
              if (kind === closer) { this.p++; return true; }
              return false;
            }
            depth--;
            break;
        }
        this.p++;
      }
    } finally {
      this.nl = saved;
    }
  }
}
