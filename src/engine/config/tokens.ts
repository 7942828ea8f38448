// Token kinds and the position table shared by the scanner and the parsers.
// Tokens live in parallel typed arrays (kind, start offset, end offset, flags) — no per-token objects —
// reused from one scan to the next.
import { Position, Range } from './ast';

export const enum T {
  EOF = 0,
  Newline,
  Ident,
  Number,
  OQuote, // "
  CQuote, // " (zero width when the string was unterminated: flag MISSING)
  TemplateLiteral, // raw text chunk inside a quoted string or heredoc
  TemplateInterp, // ${ or ${~
  TemplateControl, // %{ or %{~
  TemplateSeqEnd, // } or ~} closing an interpolation/directive (zero width + MISSING when unterminated)
  HeredocOpen, // <<EOT / <<-EOT including the newline
  HeredocEnd, // the closing marker line (zero width + MISSING when unterminated)
  LBrace,
  RBrace,
  LBrack,
  RBrack,
  LParen,
  RParen,
  Equal, // =
  Comma,
  Dot,
  Ellipsis, // ...
  Colon,
  Question,
  FatArrow, // =>
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  EqEq,
  NotEq,
  Lt,
  Le,
  Gt,
  Ge,
  And,
  Or,
  Bang,
  Invalid,
}

/** Token flags. */
export const F_MISSING = 1; // synthesised token (unterminated construct)
export const F_STRIP = 2; // `${~` / `%{~` (strip before) or `~}` (strip after)
export const F_FLUSH = 4; // `<<-` heredoc
export const F_FIRST = 8; // first token on its line (after indentation)
export const F_ESCAPES = 16; // template literal chunk contains `\`, `$${` or `%%{` (needs decoding)

export const TOKEN_NAMES: string[] = [
  'end of file', 'newline', 'identifier', 'number', '"', '"', 'string text', '${', '%{', '}',
  'heredoc', 'heredoc end', '{', '}', '[', ']', '(', ')', '=', ',', '.', '...', ':', '?', '=>',
  '+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', '&&', '||', '!', 'invalid character',
];

let sharedStarts = new Int32Array(4096);
const MAX_SHARED_STARTS = 1 << 20;

/** Maps UTF-16 offsets to 0-based line/character positions using a line-start table. */
export class LineMap {
  readonly starts: Int32Array;
  readonly count: number;
  private hint = 0;

  /**
   * `shared`: the line table goes into one buffer shared by every LineMap made so, for a caller that
   * is done with each before it makes the next (the overview of many files): no typed array, off
   * the V8 heap, allocated and collected per file.
   */
  constructor(readonly text: string, shared = false) {
    let starts = shared ? sharedStarts : new Int32Array(64);
    let n = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      if (n === starts.length) {
        const grown = new Int32Array(n * 4);
        grown.set(starts);
        starts = grown;
      }
      starts[n++] = i + 1;
    }
    if (shared && starts.length <= MAX_SHARED_STARTS) sharedStarts = starts;
    this.starts = starts;
    this.count = n;
  }

  lineOf(offset: number): number {
    const s = this.starts;
    let h = this.hint;
    // Positions are mostly requested in increasing order: try the hint and its successor first.
    if (s[h] <= offset) {
      if (h + 1 >= this.count || s[h + 1] > offset) return h;
      if (h + 2 >= this.count || s[h + 2] > offset) return (this.hint = h + 1);
    }
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    this.hint = lo;
    return lo;
  }

  pos(offset: number): Position {
    const line = this.lineOf(offset);
    return { line, character: offset - this.starts[line], offset };
  }

  range(start: number, end: number): Range {
    return { start: this.pos(start), end: this.pos(end) };
  }
}

export interface TokenStream {
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  flags: Uint8Array;
  count: number;
}

// Token arrays are reused from one scan to the next: four typed arrays per file, off the V8 heap,
// made and zero-filled for every file of a large tree, were a noticeable part of its parse time and
// of the garbage collections (external memory counts towards them). A caller that is done with a
// stream returns its arrays (releaseTokens); one that does not only loses the reuse.
const spareArrays: TokenArrays[] = [];
const MAX_SPARE_SETS = 4;
const MAX_SPARE_CAPACITY = 1 << 20;

type TokenArrays = Pick<TokenStream, 'kinds' | 'starts' | 'ends' | 'flags'>;

/** Arrays for a stream of at least `cap` tokens: spare ones when there are, else new ones. */
export function takeTokenArrays(cap: number): TokenArrays {
  const i = spareArrays.findIndex((a) => a.kinds.length >= cap);
  if (i >= 0) return spareArrays.splice(i, 1)[0];
  return { kinds: new Uint8Array(cap), starts: new Int32Array(cap), ends: new Int32Array(cap), flags: new Uint8Array(cap) };
}

/** Gives a stream's arrays back for the next scan. The stream must not be read afterwards. */
export function releaseTokens(tokens: TokenStream): void {
  if (spareArrays.length < MAX_SPARE_SETS && tokens.kinds.length <= MAX_SPARE_CAPACITY) {
    spareArrays.push({ kinds: tokens.kinds, starts: tokens.starts, ends: tokens.ends, flags: tokens.flags });
  }
}
