// Recursive-descent parser for HCL native-syntax expressions (operators, conditionals, calls,
// traversals, splats, tuples, objects, for expressions). Templates live in templates.ts.
import { BinaryOp, Expression, ObjectItem } from './ast';
import { T } from './tokens';
import { TemplateParser } from './templates';

// Binary operator precedence (higher binds tighter); 0 = not a binary operator.
const PREC = new Uint8Array(64);
const OPS: BinaryOp[] = [];
function op(kind: T, prec: number, name: BinaryOp): void { PREC[kind] = prec; OPS[kind] = name; }
op(T.Or, 1, '||'); op(T.And, 2, '&&'); op(T.EqEq, 3, '=='); op(T.NotEq, 3, '!=');
op(T.Lt, 4, '<'); op(T.Le, 4, '<='); op(T.Gt, 4, '>'); op(T.Ge, 4, '>=');
op(T.Plus, 5, '+'); op(T.Minus, 5, '-'); op(T.Star, 6, '*'); op(T.Slash, 6, '/'); op(T.Percent, 6, '%');

const MAX_DEPTH = 200;

export class ExprParser extends TemplateParser {
  // (parseExpr is the entry point; TemplateParser calls it for interpolations)
  parseExpr(): Expression {
    if (this.depth >= MAX_DEPTH) return this.missing('a less deeply nested expression');
    if (this.peek() === T.OQuote && this.loneString()) return this.parseQuoted();
    this.depth++;
    try {
      return this.parseConditional();
    } finally {
      this.depth--;
    }
  }

  /**
   * Whether the quoted string at the current token is the whole expression: plain text (no `${`)
   * followed by a token no operator level below would take (a significant newline, `,`, a closing
   * bracket, the end). The most common value of all, it then skips five levels that would only
   * pass it through; parseQuoted gives the node those levels would have returned.
   */
  private loneString(): boolean {
    const k = this.k;
    const p = this.p;
    const q = k[p + 1] === T.CQuote ? p + 2 : k[p + 1] === T.TemplateLiteral && k[p + 2] === T.CQuote ? p + 3 : -1;
    if (q < 0) return false;
    const after = k[q];
    return (after === T.Newline && this.nl) || after === T.Comma || after === T.RBrace || after === T.RBrack || after === T.RParen || after === T.EOF;
  }

  private parseConditional(): Expression {
    const cond = this.parseBinary(1);
    if (this.peek() !== T.Question) return cond;
    this.p++;
    const then = this.parseExpr();
    let els: Expression;
    if (this.peek() === T.Colon) {
      this.p++;
      els = this.parseExpr();
    } else {
      els = this.missing('":" in the conditional expression');
    }
    return { kind: 'conditional', cond, then, else: els, range: this.join(cond.range, els.range) };
  }

  private parseBinary(minPrec: number): Expression {
    let left = this.parseUnary();
    for (;;) {
      const kind = this.peek();
      const prec = PREC[kind];
      if (prec === 0 || prec < minPrec) return left;
      this.p++;
      const right = this.parseBinary(prec + 1);
      left = { kind: 'binary', op: OPS[kind], left, right, range: this.join(left.range, right.range) };
    }
  }

  private parseUnary(): Expression {
    const kind = this.peek();
    if (kind === T.Bang || kind === T.Minus) {
      const p = this.next();
      const operand = this.parseUnary();
      return { kind: 'unary', op: kind === T.Bang ? '!' : '-', operand, range: this.to(this.s[p], operand.range) };
    }
    return this.parsePostfix(this.parseTerm());
  }

  private parseTerm(): Expression {
    const kind = this.peek();
    const p = this.p;
    switch (kind) {
      case T.Number:
        this.p++;
        return { kind: 'literal', value: Number(this.slice(p)), range: this.range(this.s[p], this.e[p]) };
      case T.Ident:
        return this.parseIdentTerm();
      case T.OQuote:
        return this.parseQuoted();
      case T.HeredocOpen:
        return this.parseHeredoc();
      case T.LBrack:
        return this.parseTuple();
      case T.LBrace:
        return this.parseObject();
      case T.LParen: {
        this.p++;
        const saved = this.nl;
        this.nl = false;
        const expr = this.parseExpr();
        let end = expr.range.end.offset;
        if (this.peek() === T.RParen) end = this.e[this.next()];
        else { this.missing('")"'); this.skipTo(T.RParen, false); end = this.prevEnd(); }
        this.nl = saved;
        return { kind: 'paren', expr, range: this.range(this.s[p], end) };
      }
      default:
        return this.missing('an expression');
    }
  }

  private parseIdentTerm(): Expression {
    const p = this.next();
    const start = this.s[p];
    let name = this.slice(p);
    let nameEnd = this.e[p];
    // Provider-defined functions: provider::name::func(...)
    while (this.k[this.p] === T.Colon && this.k[this.p + 1] === T.Colon && this.k[this.p + 2] === T.Ident
      && this.s[this.p] === nameEnd && this.s[this.p + 2] === this.e[this.p + 1]) {
      nameEnd = this.e[this.p + 2];
      this.p += 3;
      name = this.text.slice(start, nameEnd);
    }
    if (this.k[this.p] === T.LParen) return this.parseCall(name, start, nameEnd);
    if (nameEnd === this.e[p]) {
      if (name === 'true') return { kind: 'literal', value: true, range: this.range(start, nameEnd) };
      if (name === 'false') return { kind: 'literal', value: false, range: this.range(start, nameEnd) };
      if (name === 'null') return { kind: 'literal', value: null, range: this.range(start, nameEnd) };
    }
    return { kind: 'variable', name, range: this.range(start, nameEnd) };
  }

  private parseCall(name: string, start: number, nameEnd: number): Expression {
    this.p++; // (
    const saved = this.nl;
    this.nl = false;
    const args: Expression[] = [];
    let expandFinal = false;
    let end = -1;
    for (;;) {
      const kind = this.peek();
      if (kind === T.RParen) { end = this.e[this.next()]; break; }
      if (kind === T.EOF) { this.missing('")" to close the call to ' + name); break; }
      args.push(this.parseExpr());
      const after = this.peek();
      if (after === T.Ellipsis) { this.p++; expandFinal = true; continue; }
      if (after === T.Comma) { this.p++; continue; }
      if (after === T.RParen) continue;
      this.missing('"," or ")" in the arguments of ' + name);
      if (this.skipTo(T.RParen, false)) end = this.e[this.p - 1];
      break;
    }
    this.nl = saved;
    if (end < 0) end = this.prevEnd();
    return { kind: 'call', name, nameRange: this.range(start, nameEnd), args, expandFinal, range: this.range(start, end) };
  }

  parsePostfix(expr: Expression): Expression {
    for (;;) {
      const kind = this.peek();
      if (kind === T.Dot) {
        const t = this.peekAt(1);
        if (t === T.Ident || t === T.Number) {
          this.p++;
          const n = this.next();
          expr = t === T.Ident
            ? { kind: 'getattr', target: expr, name: this.slice(n), range: this.from(expr.range, this.e[n]) }
            : { kind: 'index', target: expr, key: { kind: 'literal', value: Number(this.slice(n)), range: this.range(this.s[n], this.e[n]) }, legacy: true, range: this.from(expr.range, this.e[n]) };
          continue;
        }
        if (t === T.Star) {
          this.p++;
          const star = this.next();
          return this.finishSplat(expr, false, this.e[star]);
        }
        this.p++;
        this.missing('an attribute name after "."');
        return expr;
      }
      if (kind === T.LBrack) {
        expr = this.parsePostfixStep(expr);
        if (expr.kind === 'splat') return expr;
        continue;
      }
      return expr;
    }
  }

  /** `x[*].a.b` / `x.*.a`: the traversal after the splat applies to each element. */
  private finishSplat(target: Expression, full: boolean, splatEnd: number): Expression {
    const root: Expression = { kind: 'variable', name: '', range: this.range(splatEnd, splatEnd) };
    let each: Expression = root;
    for (;;) {
      const kind = this.peek();
      if (kind === T.Dot && (this.peekAt(1) === T.Ident || this.peekAt(1) === T.Number)) {
        this.p++;
        const n = this.next();
        each = this.k[n] === T.Ident
          ? { kind: 'getattr', target: each, name: this.slice(n), range: this.range(splatEnd, this.e[n]) }
          : { kind: 'index', target: each, key: { kind: 'literal', value: Number(this.slice(n)), range: this.range(this.s[n], this.e[n]) }, legacy: true, range: this.range(splatEnd, this.e[n]) };
        continue;
      }
      if (full && kind === T.LBrack) {
        each = this.parsePostfixOne(each, splatEnd);
        if (each.kind === 'splat') break;
        continue;
      }
      break;
    }
    const end = each === root ? splatEnd : each.range.end.offset;
    const splat: Expression = { kind: 'splat', target, full, each: each === root ? undefined : each, range: each === root ? this.from(target.range, end) : this.join(target.range, each.range) };
    return full ? splat : this.parsePostfix(splat);
  }

  private parsePostfixOne(each: Expression, splatEnd: number): Expression {
    // One `[...]` step inside a full splat (re-uses parsePostfix on a detached chain).
    const r = this.parsePostfixStep(each);
    if (r.kind === 'index' || r.kind === 'splat') r.range = this.range(splatEnd, r.range.end.offset);
    return r;
  }

  private parsePostfixStep(expr: Expression): Expression {
    this.p++; // [
    const saved = this.nl;
    this.nl = false;
    if (this.peek() === T.Star && this.peekAt(1, true) === T.RBrack) {
      this.p++;
      this.peek();
      const close = this.next();
      this.nl = saved;
      return this.finishSplat(expr, true, this.e[close]);
    }
    const key = this.parseExpr();
    let end: number;
    if (this.peek() === T.RBrack) end = this.e[this.next()];
    else { this.missing('"]"'); this.skipTo(T.RBrack, false); end = this.prevEnd(); }
    this.nl = saved;
    return { kind: 'index', target: expr, key, legacy: false, range: this.from(expr.range, end) };
  }

  private isFor(): boolean {
    return this.peek() === T.Ident && this.slice(this.p) === 'for' && this.peekAt(1, true) === T.Ident;
  }

  private parseTuple(): Expression {
    const open = this.next();
    const saved = this.nl;
    this.nl = false;
    try {
      if (this.isFor()) return this.parseFor(open, false);
      const items: Expression[] = [];
      let end = -1;
      for (;;) {
        const kind = this.peek();
        if (kind === T.RBrack) { end = this.e[this.next()]; break; }
        if (kind === T.EOF || kind === T.RBrace || kind === T.RParen) { this.missing('"]" to close the list'); break; }
        items.push(this.parseExpr());
        const after = this.peek();
        if (after === T.Comma) { this.p++; continue; }
        if (after === T.RBrack) continue;
        this.missing('"," or "]" in the list');
        if (this.skipTo(T.RBrack, false)) end = this.e[this.p - 1];
        break;
      }
      if (end < 0) end = this.prevEnd();
      return { kind: 'tuple', items, range: this.range(this.s[open], end) };
    } finally {
      this.nl = saved;
    }
  }

  private parseObject(): Expression {
    const open = this.next();
    const saved = this.nl;
    const savedIndent = this.baseIndent;
    this.nl = false;
    if (this.isFor()) {
      const r = this.parseFor(open, true);
      this.nl = saved;
      return r;
    }
    this.nl = true;
    const items: ObjectItem[] = [];
    let end = -1;
    for (;;) {
      while (this.peek() === T.Newline) this.p++;
      const kind = this.peek();
      if (kind === T.RBrace) { end = this.e[this.next()]; break; }
      if (kind === T.EOF || kind === T.RBrack || kind === T.RParen || kind === T.TemplateSeqEnd || kind === T.CQuote || kind === T.HeredocEnd) {
        this.missing('"}" to close the object');
        break;
      }
      if (this.heur) this.baseIndent = this.indentOf(this.p);
      let key: Expression;
      let keyIsBare = false;
      const after = this.peekAt(1);
      if (kind === T.Ident && (after === T.Equal || after === T.Colon)) {
        const n = this.next();
        key = { kind: 'literal', value: this.slice(n), range: this.range(this.s[n], this.e[n]) };
        keyIsBare = true;
      } else {
        key = this.parseExpr();
      }
      const sep = this.peek();
      let value: Expression;
      if (sep === T.Equal || sep === T.Colon) {
        this.p++;
        value = this.parseExpr();
      } else {
        value = this.missing('"=" after the object key');
      }
      items.push({ key, keyIsBare, value, range: value.range.end.offset >= key.range.end.offset ? this.join(key.range, value.range) : key.range });
      const next = this.peek();
      if (next === T.Comma) { this.p++; continue; }
      if (next === T.Newline || next === T.RBrace || next === T.EOF) continue;
      this.missing('a newline, "," or "}" after the object item');
      const at = this.p;
      if (this.skipTo(T.RBrace, true)) { end = this.e[this.p - 1]; break; }
      if (this.p === at && this.peek() !== T.Newline) break; // stopped at a closer of another kind
    }
    this.nl = saved;
    this.baseIndent = savedIndent;
    if (end < 0) end = this.prevEnd();
    return { kind: 'object', items, range: this.range(this.s[open], end) };
  }

  private parseFor(open: number, object: boolean): Expression {
    const closer = object ? T.RBrace : T.RBrack;
    this.p++; // for
    let keyVar: string | undefined;
    let valueVar = '';
    if (this.peek() === T.Ident) valueVar = this.slice(this.next());
    if (this.peek() === T.Comma) {
      this.p++;
      keyVar = valueVar;
      valueVar = this.peek() === T.Ident ? this.slice(this.next()) : (this.missing('a variable name'), '');
    }
    let collection: Expression;
    let keyExpr: Expression | undefined;
    let valueExpr: Expression;
    let cond: Expression | undefined;
    let grouping = false;
    if (this.peek() === T.Ident && this.slice(this.p) === 'in') {
      this.p++;
      collection = this.parseExpr();
    } else {
      collection = this.missing('"in" in the for expression');
    }
    if (this.peek() === T.Colon) {
      this.p++;
      const first = this.parseExpr();
      if (object) {
        keyExpr = first;
        if (this.peek() === T.FatArrow) { this.p++; valueExpr = this.parseExpr(); } else valueExpr = this.missing('"=>" in the object for expression');
        if (this.peek() === T.Ellipsis) { this.p++; grouping = true; }
      } else {
        valueExpr = first;
      }
      if (this.peek() === T.Ident && this.slice(this.p) === 'if') {
        this.p++;
        cond = this.parseExpr();
      }
    } else {
      valueExpr = this.missing('":" in the for expression');
    }
    let end: number;
    if (this.peek() === closer) end = this.e[this.next()];
    else {
      this.missing(object ? '"}" to close the for expression' : '"]" to close the for expression');
      end = this.skipTo(closer, false) ? this.e[this.p - 1] : this.prevEnd();
    }
    return { kind: 'for', keyVar, valueVar, collection, keyExpr, valueExpr, cond, grouping, range: this.range(this.s[open], end) };
  }
}
