// Body parser (attributes and blocks) and the public entry points for the HCL native syntax.
//
// Recovery strategy: the file is parsed once strictly (HCL's own rules plus local recovery:
// a broken attribute skips to the next newline at bracket depth 0). If that produced any
// diagnostic, it is parsed a second time with indentation heuristics switched on: a line that
// starts at or left of the enclosing block's (or attribute's) indentation ends whatever broken
// construct is open, so a missing `}` or `]` does not swallow the following blocks. Valid files
// never see the heuristics; broken ones cost two linear passes.
import { Attribute, Block, BlockLabel, Body, BodyItem, ConfigFile, Diagnostic, Expression } from './ast';
import { ExprParser } from './expressions';
import { RawDiag, scan } from './scanner';
import { decode } from './templates';
import { F_ESCAPES, F_FIRST, F_MISSING, LineMap, releaseTokens, T } from './tokens';

/**
 * The parts of a file a caller will read, by top-level block type: the block itself (type, labels,
 * range), these of its attributes and these nested blocks (each with everything below it). Top-level
 * blocks of other types are out of scope as a whole. A Map, so that any block type name is just a key.
 */
export type ParseScope = ReadonlyMap<string, { attributes: readonly string[]; blocks: readonly string[] }>;

export interface ParseOptions {
  /**
   * Parse the whole file (the same tree shape and the same diagnostics) but compute ranges and
   * decode template text only inside this scope: every other node gets NO_RANGE, and its string
   * literals ''. For callers that read a small part of many files (`inspect` over a large tree).
   */
  scope?: ParseScope;
}

class BodyParser extends ExprParser {
  scope: ParseScope | undefined;
  /** With a scope: what it keeps of the top-level block being parsed. */
  private kept: { attributes: readonly string[]; blocks: readonly string[] } | undefined;

  parseFile(): Body {
    const items = this.parseItems(-1);
    return { items, range: this.range(0, this.text.length) };
  }

  /** Items until `}` (left for the caller), EOF, or — recovery pass — a line at/left of `indent`. */
  private parseItems(indent: number): BodyItem[] {
    const items: BodyItem[] = [];
    const inBlock = indent >= 0;
    this.nl = true;
    for (;;) {
      let kind = this.k[this.p];
      while (kind === T.Newline) kind = this.k[++this.p];
      if (kind === T.EOF) return items;
      const p = this.p;
      if (this.f[p] & F_MISSING && this.s[p] === this.e[p]) { this.p++; continue; } // closes an unterminated string (already reported)
      if (this.heur && inBlock && (this.f[p] & F_FIRST) !== 0) {
        const col = this.column(p);
        if (kind === T.RBrace ? col < indent : col <= indent) return items;
      }
      if (kind === T.RBrace) {
        if (inBlock) return items;
        this.error('Unexpected "}": no block is open here', this.s[p], this.e[p]);
        this.p++;
        continue;
      }
      if (kind === T.Ident) {
        const next = this.k[p + 1];
        if (next === T.Equal) { items.push(this.parseAttribute(indent)); continue; }
        if (next === T.LBrace || next === T.OQuote || next === T.Ident || next === T.Newline || next === T.EOF) {
          items.push(this.parseBlock(indent));
          continue;
        }
        this.error(`Expected "=" or a block after "${this.slice(p)}", found ${this.describe(p + 1)}`, this.s[p + 1], this.e[p + 1]);
      } else {
        this.error(`Expected an attribute or a block, found ${this.describe(p)}`, this.s[p], this.e[p]);
      }
      this.skipLine(indent);
    }
  }

  /** Skips to the next newline at bracket depth 0 (or `}` / EOF, or a recovery-pass line start). */
  private skipLine(indent: number): void {
    let depth = 0;
    const k = this.k;
    const stopCol = indent < 0 ? 0 : indent;
    for (;;) {
      const kind = k[this.p];
      if (kind === T.EOF) return;
      if (this.heur && depth > 0 && kind === T.Ident && (this.f[this.p] & F_FIRST) !== 0 && this.column(this.p) <= stopCol) return;
      if (kind === T.Newline && depth === 0) return;
      if (kind === T.LBrace || kind === T.LBrack || kind === T.LParen) depth++;
      else if (kind === T.RBrace || kind === T.RBrack || kind === T.RParen) {
        if (depth === 0) { if (kind === T.RBrace) return; } else depth--;
      }
      this.p++;
    }
  }

  private parseAttribute(indent: number): Attribute {
    const n = this.p;
    const name = this.slice(n);
    const savedLean = this.lean;
    // In scope: a kept attribute of a kept top-level block, or anything inside a kept nested block.
    if (this.scope && !this.lean && this.depth <= 1) this.lean = this.depth === 0 || !this.kept!.attributes.includes(name);
    this.p += 2; // name =
    this.nl = true;
    const savedBase = this.baseIndent;
    this.baseIndent = this.heur ? this.indentOf(n) : -1;
    const expr = this.parseExpr();
    this.baseIndent = savedBase;
    const nameRange = this.range(this.s[n], this.e[n]);
    const attr: Attribute = {
      kind: 'attribute', name, nameRange, expr,
      range: expr.range.end.offset > this.e[n + 1] ? this.join(nameRange, expr.range) : this.from(nameRange, this.e[n + 1]),
    };
    this.lean = savedLean;
    this.nl = true;
    const after = this.peek();
    const newLine = (this.f[this.p] & F_FIRST) !== 0; // e.g. after an unterminated heredoc
    if (after !== T.Newline && after !== T.EOF && !newLine && !(after === T.RBrace && indent >= 0)) {
      if (expr.kind !== 'invalid') {
        this.error(`Unexpected ${this.describe(this.p)} after the value of "${attr.name}"; expected a newline`, this.s[this.p], this.e[this.p]);
      }
      this.skipLine(indent);
    }
    return attr;
  }

  private parseBlock(indent: number): Block {
    const t = this.next();
    const typeName = this.slice(t);
    // With a scope, a top-level block it does not name is out of scope as a whole, its own ranges
    // included; a named one keeps its type, labels and range, and the scope says what of its body.
    const savedLean = this.lean;
    const savedKept = this.kept;
    if (this.scope && !this.lean && this.depth === 0) {
      this.kept = this.scope.get(typeName);
      this.lean = this.kept === undefined;
    }
    const block = this.parseBlockAfterType(t, typeName, indent);
    this.lean = savedLean;
    this.kept = savedKept;
    return block;
  }

  private parseBlockAfterType(t: number, typeName: string, indent: number): Block {
    const labels: BlockLabel[] = [];
    for (;;) {
      const kind = this.k[this.p];
      if (kind === T.Ident) {
        const l = this.next();
        labels.push({ value: this.slice(l), range: this.range(this.s[l], this.e[l]) });
      } else if (kind === T.OQuote) {
        labels.push(this.parseLabel());
      } else break;
    }
    const typeRange = this.range(this.s[t], this.e[t]);
    if (this.k[this.p] !== T.LBrace || this.depth >= 100) {
      const p = this.p;
      const headerEnd = this.prevEnd();
      if (this.k[p] !== T.LBrace) {
        const where = this.k[p] === T.Newline || this.k[p] === T.EOF ? headerEnd : this.s[p];
        this.error(`Expected "{" to open the body of the ${typeName} block, found ${this.describe(p)}`, where, this.k[p] === T.Newline || this.k[p] === T.EOF ? where : this.e[p]);
      } else {
        this.error('Blocks nested too deeply', this.s[t], this.e[t]);
      }
      this.skipLine(indent);
      return {
        kind: 'block', type: typeName, typeRange, labels,
        body: { items: [], range: this.range(headerEnd, headerEnd) }, range: this.range(this.s[t], headerEnd), closed: false,
      };
    }
    const open = this.next();
    // Only the recovery pass reads a block's indentation; the strict pass needs its sign (in a block).
    const myIndent = this.heur ? this.indentOf(t) : 0;
    const savedLean = this.lean;
    if (this.scope && !this.lean && this.depth === 1) this.lean = !this.kept!.blocks.includes(typeName);
    this.depth++;
    const items = this.parseItems(myIndent);
    this.depth--;
    this.lean = savedLean;
    this.nl = true;
    let end: number;
    let closed = false;
    if (this.k[this.p] === T.RBrace) {
      end = this.e[this.next()];
      closed = true;
    } else {
      end = this.prevEnd();
      if (end < this.e[open]) end = this.e[open];
      this.error(`Missing "}" to close the ${typeName} block`, this.s[t], this.e[open]);
    }
    return { kind: 'block', type: typeName, typeRange, labels, body: { items, range: this.range(this.s[open], end) }, range: this.range(this.s[t], end), closed };
  }

  private parseLabel(): BlockLabel {
    const open = this.next();
    let value = '';
    while (this.k[this.p] === T.TemplateLiteral) {
      const p = this.next();
      const raw = this.slice(p);
      value += this.f[p] & F_ESCAPES ? decode(raw, true) : raw;
    }
    if (this.k[this.p] !== T.CQuote) {
      this.error('Block labels must be literal strings', this.s[this.p], this.e[this.p]);
      let depth = 0;
      for (;;) {
        const kind = this.k[this.p];
        if (kind === T.EOF || (kind === T.CQuote && depth === 0)) break;
        if (kind === T.OQuote) depth++;
        else if (kind === T.CQuote) depth--;
        this.p++;
      }
    }
    let end = this.s[this.p];
    if (this.k[this.p] === T.CQuote) end = this.e[this.next()];
    return { value, range: this.range(this.s[open], end) };
  }
}

function scannerDiags(lm: LineMap, raw: RawDiag[]): Diagnostic[] {
  return raw.map((d) => ({ message: d.message, range: lm.range(d.start, d.end), severity: 'error' as const }));
}

function mergeDiags(a: Diagnostic[], b: Diagnostic[]): Diagnostic[] {
  if (!a.length) return b;
  if (!b.length) return a;
  return [...a, ...b].sort((x, y) => x.range.start.offset - y.range.start.offset);
}

/** Parses a file in HCL native syntax (.tf, .tofu). Never throws; problems become diagnostics. */
export function parseHcl(text: string, opts: ParseOptions = {}): ConfigFile {
  try {
    return parseHclUnsafe(text, opts);
  } catch (err) {
    // Last line of defence: the parser is written not to throw; if it ever does, degrade.
    const lm = new LineMap(text);
    return { syntax: 'hcl', body: { items: [], range: lm.range(0, text.length) }, diagnostics: [{ message: `Internal parser error: ${String(err)}`, range: lm.range(0, 0), severity: 'error' }] };
  }
}

function parseHclUnsafe(text: string, opts: ParseOptions): ConfigFile {
  const lm = new LineMap(text);
  const { tokens, diags } = scan(text);
  let parser = new BodyParser(text, lm, tokens, false);
  parser.scope = opts.scope;
  let body = parser.parseFile();
  if (parser.diags.length || diags.length) {
    parser = new BodyParser(text, lm, tokens, true);
    parser.scope = opts.scope;
    body = parser.parseFile();
  }
  releaseTokens(tokens);
  return { syntax: 'hcl', body, diagnostics: mergeDiags(scannerDiags(lm, diags), parser.diags) };
}

/**
 * For the skimmed overview (overview.ts): `text.slice(start, end)` parsed as one attribute's value
 * (newlines significant, as after `name =`), with ranges in the file's coordinates, or undefined
 * when the scanner or parser reports anything or the value does not reach `end`.
 */
export function parseValueAt(text: string, lm: LineMap, start: number, end: number): Expression | undefined {
  const { tokens, diags } = scan(text, start, end);
  const parser = new BodyParser(text, lm, tokens, false);
  const expr = parser.parseExpr();
  const ok = !diags.length && !parser.diags.length && parser.peek() === T.EOF;
  releaseTokens(tokens);
  return ok ? expr : undefined;
}

/**
 * For the skimmed overview: the one top-level block in `text.slice(start, end)`, parsed with
 * `scope` as parseHcl would parse it in the whole file, or undefined when anything is reported.
 */
export function parseBlockAt(text: string, lm: LineMap, start: number, end: number, scope: ParseScope): Block | undefined {
  const { tokens, diags } = scan(text, start, end);
  const parser = new BodyParser(text, lm, tokens, false);
  parser.scope = scope;
  const { items } = parser.parseFile();
  releaseTokens(tokens);
  return !diags.length && !parser.diags.length && items.length === 1 && items[0].kind === 'block' ? items[0] : undefined;
}

/** Parses one standalone HCL expression, e.g. `list(string)` or `["a", 15]`. */
export function parseExpression(text: string): { expr: Expression; diagnostics: Diagnostic[] } {
  const lm = new LineMap(text);
  const { tokens, diags } = scan(text);
  const parser = new BodyParser(text, lm, tokens, false);
  parser.nl = false;
  const expr = parser.parseExpr();
  if (parser.peek() !== T.EOF) parser.error(`Unexpected ${parser.describe(parser.p)} after the expression`, parser.s[parser.p], text.length);
  releaseTokens(tokens);
  return { expr, diagnostics: mergeDiags(scannerDiags(lm, diags), parser.diags) };
}

/**
 * Parses `text.slice(start, end)` of a larger document (a JSON string's content) as a template
 * (`bare`) or an expression, with ranges in the larger document's coordinates.
 */
export function parseEmbedded(text: string, lm: LineMap, start: number, end: number, bare: boolean): { expr: Expression; diagnostics: Diagnostic[] } {
  const { tokens, diags } = scan(text, start, end, bare);
  const parser = new BodyParser(text, lm, tokens, false);
  parser.nl = false;
  let expr: Expression;
  if (bare) {
    expr = parser.parseBareTemplate(start, end);
  } else {
    expr = parser.parseExpr();
    if (parser.peek() !== T.EOF) parser.error(`Unexpected ${parser.describe(parser.p)} after the expression`, parser.s[parser.p], end);
  }
  releaseTokens(tokens);
  return { expr, diagnostics: mergeDiags(scannerDiags(lm, diags), parser.diags) };
}

