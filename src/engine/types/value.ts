// Values as OpenTofu sees a literal in the configuration: known primitives (numbers kept as exact
// decimal text, never as a float), null, tuples and objects from literals, the collections that
// conversion produces, and "unknown" for anything that needs evaluation (references, calls, …).
import type { Expression, Range } from '../config/ast';
import { ANY, NamedValue, Type, Value, compareStrings, objectOf, tupleOf, withoutOptional } from './model';

// The Value shape is declared beside Type (model.ts): each refers to the other.
export type { NamedValue, Value } from './model';

export const NULL: Value = { kind: 'null', type: ANY };
export const UNKNOWN: Value = { kind: 'unknown', type: ANY };

export function str(value: string): Value { return { kind: 'string', value }; }
export function num(value: string | number): Value {
  const n = normalizeNumber(String(value));
  if (n === undefined) throw new Error(`not a number: ${value}`);
  return { kind: 'number', value: n };
}
export function bool(value: boolean): Value { return { kind: 'bool', value }; }
export function tuple(elements: Value[]): Value { return { kind: 'tuple', elements }; }
export function object(attrs: Record<string, Value> | NamedValue[]): Value {
  const list = Array.isArray(attrs) ? attrs.slice() : Object.keys(attrs).map((name) => ({ name, value: attrs[name] }));
  list.sort((a, b) => compareStrings(a.name, b.name));
  return { kind: 'object', attributes: list };
}

export function getAttr(v: Extract<Value, { kind: 'object' }>, name: string): Value | undefined {
  for (const a of v.attributes) if (a.name === name) return a.value;
  return undefined;
}

/** The value's own (most specific) type; null and unknown literals are `any`. */
export function typeOf(v: Value): Type {
  switch (v.kind) {
    case 'string': case 'number': case 'bool': return { kind: v.kind };
    case 'null': case 'unknown': return withoutOptional(v.type);
    case 'tuple': return tupleOf(v.elements.map(typeOf));
    case 'object': return objectOf(v.attributes.map((a) => ({ name: a.name, type: typeOf(a.value), optional: false })));
    case 'list': case 'set': return { kind: v.kind, element: v.elementType };
    case 'map': return { kind: 'map', element: v.elementType };
  }
}

export function isKnown(v: Value): boolean {
  switch (v.kind) {
    case 'unknown': return false;
    case 'tuple': case 'list': case 'set': return v.elements.every(isKnown);
    case 'object': return v.attributes.every((a) => isKnown(a.value));
    case 'map': return v.entries.every((a) => isKnown(a.value));
    default: return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers: arbitrary precision, as exact decimal text.

const NUMBER_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Canonical decimal text of a number literal or numeric string (what cty's ParseNumberVal
 * accepts, printed like big.Float.Text('f', -1)): "1e3" → "1000", "1.50" → "1.5", "-0" → "0".
 * Undefined when the text is not a number.
 */
export function normalizeNumber(text: string): string | undefined {
  const m = NUMBER_RE.exec(text);
  if (!m) return undefined;
  const [, sign, intPart, fracPart = '', expPart] = m;
  if (!intPart && !fracPart) return undefined;
  let exp = expPart ? Number(expPart) : 0;
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 100000) return undefined;
  let digits = (intPart + fracPart).replace(/^0+/, '');
  exp -= fracPart.length;
  if (!digits) return '0';
  // digits × 10^exp
  const trailing = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trailing);
  exp += trailing;
  let out: string;
  if (exp >= 0) out = digits + '0'.repeat(exp);
  else {
    const point = digits.length + exp;
    out = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${'0'.repeat(-point)}${digits}`;
  }
  return sign === '-' ? `-${out}` : out;
}

/** Order of canonical decimal strings (for set ordering and equality). */
export function compareNumbers(a: string, b: string): number {
  const na = a.startsWith('-'), nb = b.startsWith('-');
  if (na !== nb) return na ? -1 : 1;
  const r = compareMagnitude(na ? a.slice(1) : a, nb ? b.slice(1) : b);
  return na ? -r : r;
}

function compareMagnitude(a: string, b: string): number {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const len = Math.max(af.length, bf.length);
  const pa = af.padEnd(len, '0'), pb = bf.padEnd(len, '0');
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Equality and ordering of values (set semantics).

export function valueEquals(a: Value, b: Value): boolean {
  return compareValues(a, b) === 0;
}

const KIND_ORDER = ['bool', 'number', 'string', 'null', 'unknown', 'tuple', 'list', 'set', 'object', 'map'];

/** A total order: strings lexically, numbers numerically, false < true; others structurally. */
export function compareValues(a: Value, b: Value): number {
  if (a.kind !== b.kind) return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
  switch (a.kind) {
    case 'string': return compareStrings(a.value, (b as typeof a).value);
    case 'number': return compareNumbers(a.value, (b as typeof a).value);
    case 'bool': return Number(a.value) - Number((b as typeof a).value);
    case 'null': case 'unknown': return 0;
    case 'tuple': case 'list': case 'set': return compareSeq(a.elements, (b as typeof a).elements);
    case 'object': return compareNamed(a.attributes, (b as typeof a).attributes);
    case 'map': return compareNamed(a.entries, (b as typeof a).entries);
  }
}

function compareSeq(a: Value[], b: Value[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c) return c;
  }
  return a.length - b.length;
}

function compareNamed(a: NamedValue[], b: NamedValue[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i].name, b[i].name) || compareValues(a[i].value, b[i].value);
    if (c) return c;
  }
  return a.length - b.length;
}

// ---------------------------------------------------------------------------------------------
// From the syntax tree.

/**
 * The value of a literal expression; anything that needs evaluation (references, function calls,
 * templates, operators other than a negative number, for-expressions) is unknown. `text` is the
 * file text: with it, number literals keep their exact source digits.
 */
export function valueFromExpression(expr: Expression, text?: string): Value {
  switch (expr.kind) {
    case 'literal': {
      const v = expr.value;
      if (v === null) return NULL;
      if (typeof v === 'string') return str(v);
      if (typeof v === 'boolean') return bool(v);
      const src = text !== undefined ? text.slice(expr.range.start.offset, expr.range.end.offset) : '';
      return { kind: 'number', value: normalizeNumber(src) ?? normalizeNumber(String(v)) ?? String(v) };
    }
    case 'paren':
      return valueFromExpression(expr.expr, text);
    case 'unary': {
      if (expr.op !== '-') return UNKNOWN;
      const inner = valueFromExpression(expr.operand, text);
      if (inner.kind !== 'number') return UNKNOWN;
      return { kind: 'number', value: inner.value === '0' ? '0' : inner.value.startsWith('-') ? inner.value.slice(1) : `-${inner.value}` };
    }
    case 'tuple':
      return tuple(expr.items.map((e) => valueFromExpression(e, text)));
    case 'object': {
      const attrs = new Map<string, Value>();
      for (const item of expr.items) {
        const key = objectKey(item.key, item.keyIsBare, text);
        if (key === undefined) return UNKNOWN; // a computed key makes the whole object unknown
        attrs.set(key, valueFromExpression(item.value, text));
      }
      return object([...attrs].map(([name, value]) => ({ name, value })));
    }
    default:
      return UNKNOWN;
  }
}

function objectKey(key: Expression, bare: boolean, text?: string): string | undefined {
  if (bare) {
    if (key.kind === 'variable') return key.name;
    if (key.kind === 'literal' && key.value !== null) return String(key.value);
  }
  const v = valueFromExpression(key, text);
  if (v.kind === 'string') return v.value;
  if (v.kind === 'number') return v.value;
  if (v.kind === 'bool') return String(v.value);
  return undefined;
}

/** The sub-expression a value path leads to, as far as the literal goes (for diagnostic ranges). */
export function rangeAtPath(expr: Expression, path: PathStep[]): Range {
  let cur = expr;
  for (const step of path) {
    while (cur.kind === 'paren') cur = cur.expr;
    let next: Expression | undefined;
    if (typeof step === 'number' && cur.kind === 'tuple') next = cur.items[step];
    else if (typeof step === 'string' && cur.kind === 'object') {
      for (const item of cur.items) {
        const k = objectKey(item.key, item.keyIsBare);
        if (k === step) next = item.value;
      }
    }
    if (!next) break;
    cur = next;
  }
  return cur.range;
}

/** A step into a value: attribute/map key (string) or element index (number). */
export type PathStep = string | number;
