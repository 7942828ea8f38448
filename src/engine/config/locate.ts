// Cursor helpers for the editor: what is under (line, character)? Binary search over source-ordered
// items, so each call is O(depth · log items) — cheap enough per keystroke on large files.
import { Attribute, BodyItem, ConfigFile, Expression, Range } from './ast';
import { FileSummary, ModuleCall, RequiredProvider, ValueInfo, valueInfo, VariableDecl } from './extract';

function cmp(line: number, character: number, l2: number, c2: number): number {
  return line !== l2 ? line - l2 : character - c2;
}

/** True when (line, character) is inside the range; both ends inclusive (a cursor right after a token counts). */
export function rangeContains(range: Range, line: number, character: number): boolean {
  return cmp(line, character, range.start.line, range.start.character) >= 0 && cmp(line, character, range.end.line, range.end.character) <= 0;
}

/** Index of the item whose range contains the position (items sorted by start), or -1. */
function search<T extends { range: Range }>(items: T[], line: number, character: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = items[mid].range.start;
    if (cmp(line, character, s.line, s.character) >= 0) { best = mid; lo = mid + 1; } else hi = mid - 1;
  }
  // Ranges are inclusive at the end: a cursor at the boundary of two adjacent items prefers the later one.
  return best >= 0 && rangeContains(items[best].range, line, character) ? best : -1;
}

export type NodePathEntry = BodyItem | Expression;

/** The chain of nodes (outermost first) whose ranges contain the position. */
export function findNodeAt(file: ConfigFile, line: number, character: number): NodePathEntry[] {
  const path: NodePathEntry[] = [];
  let items = file.body.items;
  for (;;) {
    const i = search(items, line, character);
    if (i < 0) return path;
    const item = items[i];
    path.push(item);
    if (item.kind === 'attribute') {
      descend(item.expr, line, character, path);
      return path;
    }
    items = item.body.items;
  }
}

/** The direct sub-expressions of an expression (template interpolations included). */
export function childExpressions(e: Expression): Expression[] {
  switch (e.kind) {
    case 'tuple': return e.items;
    case 'object': return e.items.flatMap((i) => [i.key, i.value]);
    case 'getattr': return [e.target];
    case 'index': return [e.target, e.key];
    case 'splat': return e.each ? [e.target, e.each] : [e.target];
    case 'call': return e.args;
    case 'conditional': return [e.cond, e.then, e.else];
    case 'binary': return [e.left, e.right];
    case 'unary': return [e.operand];
    case 'for': return [e.collection, ...(e.keyExpr ? [e.keyExpr] : []), e.valueExpr, ...(e.cond ? [e.cond] : [])];
    case 'paren': return [e.expr];
    case 'template': return e.parts.flatMap((p) => (p.kind === 'interpolation' ? [p.expr] : p.kind === 'if' ? [p.cond] : p.kind === 'for' ? [p.collection] : []));
    default: return [];
  }
}

function descend(e: Expression, line: number, character: number, path: NodePathEntry[]): void {
  if (!rangeContains(e.range, line, character)) return;
  path.push(e);
  for (const c of childExpressions(e)) {
    if (rangeContains(c.range, line, character)) { descend(c, line, character, path); return; }
  }
}

export interface CursorContext {
  module?: ModuleCall;
  provider?: RequiredProvider;
  variable?: VariableDecl;
  /** Name of the attribute under the cursor (for a provider entry: `source` / `version` inside the object, or `version` for the legacy form). */
  attribute?: string;
  /** The attribute's value, when there is one. */
  value?: ValueInfo;
  /** The cursor is in the value part (after `=`), not on the name. */
  inValue: boolean;
  /** The cursor is inside the quotes of a string value. */
  inString: boolean;
}

function inContent(v: ValueInfo | undefined, line: number, character: number): boolean {
  return !!v?.contentRange && rangeContains(v.contentRange, line, character);
}

/** The attribute of a body under the cursor: on its name, or anywhere on its line(s) after the name. */
function attributeAt(items: BodyItem[], line: number, character: number): Attribute | undefined {
  for (const item of items) {
    if (item.kind !== 'attribute') continue;
    const r = item.range;
    if (rangeContains(r, line, character)) return item;
    // `version = ` with nothing typed yet: the cursor sits past the (empty) value on the same line.
    if (item.expr.kind === 'invalid' && r.end.line === line && character >= r.end.character) return item;
  }
  return undefined;
}

function attrContext(attr: Attribute | undefined, text: string | undefined, line: number, character: number): Pick<CursorContext, 'attribute' | 'value' | 'inValue' | 'inString'> {
  if (!attr) return { inValue: false, inString: false };
  const value = valueInfo(attr.expr, text ?? '');
  const n = attr.nameRange.end;
  const inValue = cmp(line, character, n.line, n.character) > 0;
  return { attribute: attr.name, value, inValue, inString: inContent(value, line, character) };
}

/**
 * What the cursor is on: the module call / required provider / variable whose block contains it,
 * and the attribute and whether the cursor is in its value or inside its string quotes.
 * `text` (the file's text) is used only to fill `value.text`.
 */
export function locateCursor(summary: FileSummary, line: number, character: number, text?: string): CursorContext {
  const m = summary.modules[search(summary.modules, line, character)];
  if (m) return { module: m, ...attrContext(attributeAt(m.block.body.items, line, character), text, line, character) };
  const v = summary.variables[search(summary.variables, line, character)];
  if (v) return { variable: v, ...attrContext(attributeAt(v.block.body.items, line, character), text, line, character) };
  for (const p of summary.requiredProviders) {
    const onLine = p.range.end.line === line && character >= p.range.end.character && !p.version && !p.source;
    if (!rangeContains(p.range, line, character) && !onLine) continue;
    const ctx: CursorContext = { provider: p, inValue: cmp(line, character, p.nameRange.end.line, p.nameRange.end.character) > 0, inString: false };
    if (p.legacy) {
      ctx.attribute = 'version';
      ctx.value = p.version ?? undefined;
      ctx.inString = inContent(p.version ?? undefined, line, character);
      return ctx;
    }
    const e = p.attribute.expr;
    if (e.kind === 'object') {
      for (const item of e.items) {
        if (!rangeContains(item.range, line, character) && !(item.value.kind === 'invalid' && item.range.end.line === line && character >= item.range.end.character)) continue;
        ctx.attribute = item.key.kind === 'literal' && typeof item.key.value === 'string' ? item.key.value : undefined;
        ctx.value = valueInfo(item.value, text ?? '');
        ctx.inValue = cmp(line, character, item.key.range.end.line, item.key.range.end.character) > 0;
        ctx.inString = inContent(ctx.value, line, character);
        break;
      }
    }
    return ctx;
  }
  return { inValue: false, inString: false };
}

