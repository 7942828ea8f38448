// Conversion of a value to a type constraint, following go-cty's cty/convert (unsafe mode, as
// OpenTofu uses for input variables) and hcl's ext/typeexpr Defaults (optional attribute defaults
// applied top-down before conversion). Unknown values never fail by themselves.
import {
  ANY, ObjectType, Type, attribute, compareStrings, friendlyConstraintName, hasAny, hasDefaults, withoutOptional,
} from './model';
import { NamedValue, PathStep, Value, compareValues, normalizeNumber, typeOf } from './value';
import { unify } from './unify';

export { canConvert, unify } from './unify';

export interface ConversionError {
  /** Where in the given value the rule failed (attribute names / element indexes). */
  path: PathStep[];
  /** The failed rule, without the path: "string required, but got tuple". */
  rule: string;
  /** Path and rule: `element 0: attribute "name" is required by object type`. */
  message: string;
}

export type ConversionResult = { ok: true; value: Value } | { ok: false; error: ConversionError };

/** A step while converting: an attribute name or element index, or a map key (`element "k"`). */
type Step = PathStep | { mapKey: string };

class Fail extends Error {
  constructor(readonly steps: Step[], readonly rule: string) { super(rule); }
}

/**
 * Convert a value to a type constraint the way OpenTofu does for a module input or a variable
 * default: apply optional-attribute defaults (unless the value is null), then convert.
 */
export function convertValue(value: Value, type: Type): ConversionResult {
  const withDefaults = value.kind === 'null' ? value : applyDefaults(value, type);
  return convertNoDefaults(withDefaults, type);
}

/** Plain cty conversion, no defaults (what OpenTofu does for an optional() default itself). */
export function convertNoDefaults(value: Value, type: Type): ConversionResult {
  try {
    return { ok: true, value: conv(value, type, []) };
  } catch (e) {
    if (e instanceof Fail) {
      const path = e.steps.map((s) => (typeof s === 'object' ? s.mapKey : s));
      return { ok: false, error: { path, rule: e.rule, message: formatError(e.steps, e.rule) } };
    }
    throw e;
  }
}

export function formatPath(path: PathStep[]): string {
  return path.map((s) => (typeof s === 'number' ? `element ${s}` : `attribute ${JSON.stringify(s)}`)).join(': ');
}

// Like cty's MismatchMessage: `attribute "a"` for object attributes, `element 0` / `element "k"`
// for list, set, tuple and map elements.
function formatError(steps: Step[], rule: string): string {
  if (!steps.length) return rule;
  const where = steps.map((s) => (typeof s === 'object' ? `element ${JSON.stringify(s.mapKey)}` : formatPath([s])));
  return `${where.join(': ')}: ${rule}`;
}

// ---------------------------------------------------------------------------------------------
// Defaults (hcl typeexpr Defaults.apply)

export function applyDefaults(v: Value, t: Type): Value {
  if (v.kind === 'unknown' || v.kind === 'null' || !hasDefaults(t)) return v;
  switch (v.kind) {
    case 'tuple': case 'list': case 'set': {
      const elems = v.elements.map((e, i) => {
        const child = t.kind === 'tuple' ? t.elements[i] : t.kind === 'list' || t.kind === 'set' || t.kind === 'map' ? t.element : undefined;
        return child ? applyDefaults(e, child) : e;
      });
      return { kind: 'tuple', elements: elems };
    }
    case 'object': case 'map': {
      const src = v.kind === 'object' ? v.attributes : v.entries;
      const out = new Map<string, Value>();
      for (const { name, value } of src) {
        const child = t.kind === 'object' ? attribute(t, name)?.type : t.kind === 'map' ? t.element : undefined;
        out.set(name, child ? applyDefaults(value, child) : value);
      }
      if (t.kind === 'object') {
        for (const a of t.attributes) {
          if (a.default === undefined) continue;
          const cur = out.get(a.name);
          if (cur === undefined || cur.kind === 'null') out.set(a.name, applyDefaults(a.default, a.type));
        }
      }
      const attrs: NamedValue[] = [...out].map(([name, value]) => ({ name, value }));
      attrs.sort((a, b) => compareStrings(a.name, b.name));
      return { kind: 'object', attributes: attrs };
    }
    default:
      return v;
  }
}

// ---------------------------------------------------------------------------------------------
// Value conversion

function kindName(v: Value): string {
  return v.kind === 'null' ? 'null' : v.kind;
}

function conv(v: Value, t: Type, path: Step[]): Value {
  if (t.kind === 'any') return v;
  if (v.kind === 'unknown') return { kind: 'unknown', type: withoutOptional(t) };
  if (v.kind === 'null') return { kind: 'null', type: withoutOptional(t) };
  switch (t.kind) {
    case 'string':
      if (v.kind === 'string') return v;
      if (v.kind === 'number') return { kind: 'string', value: v.value };
      if (v.kind === 'bool') return { kind: 'string', value: String(v.value) };
      throw new Fail(path, `string required, but got ${kindName(v)}`);
    case 'number':
      if (v.kind === 'number') return v;
      if (v.kind === 'string') {
        const n = normalizeNumber(v.value);
        if (n === undefined) throw new Fail(path, `a number is required, but got ${JSON.stringify(v.value)}`);
        return { kind: 'number', value: n };
      }
      throw new Fail(path, `number required, but got ${kindName(v)}`);
    case 'bool':
      if (v.kind === 'bool') return v;
      if (v.kind === 'string') {
        if (v.value === 'true' || v.value === '1') return { kind: 'bool', value: true };
        if (v.value === 'false' || v.value === '0') return { kind: 'bool', value: false };
        const lower = v.value.toLowerCase();
        if (lower === 'true' || lower === 'false') {
          throw new Fail(path, `a bool is required; to convert from string, use lowercase "${lower}"`);
        }
        throw new Fail(path, `a bool is required, but got ${JSON.stringify(v.value)}`);
      }
      throw new Fail(path, `bool required, but got ${kindName(v)}`);
    case 'list': case 'set':
      return convSequence(v, t as { kind: 'list' | 'set'; element: Type }, path);
    case 'map':
      return convMap(v, t as { kind: 'map'; element: Type }, path);
    case 'object':
      return convObject(v, t, path);
    case 'tuple': {
      // cty converts a list or a set (its elements in set order) of the exact length to a tuple.
      if (v.kind !== 'tuple' && v.kind !== 'list' && v.kind !== 'set') throw new Fail(path, `tuple required, but got ${kindName(v)}`);
      if (v.elements.length !== t.elements.length) {
        throw new Fail(path, `a ${v.kind} of exactly ${t.elements.length} element${t.elements.length === 1 ? '' : 's'} is required by the tuple type, but got ${v.elements.length}`);
      }
      return { kind: 'tuple', elements: v.elements.map((e, i) => conv(e, t.elements[i], [...path, i])) };
    }
  }
}

function convSequence(v: Value, t: { kind: 'list' | 'set'; element: Type }, path: Step[]): Value {
  if (v.kind !== 'tuple' && v.kind !== 'list' && v.kind !== 'set') {
    throw new Fail(path, `${friendlyConstraintName(t)} required, but got ${kindName(v)}`);
  }
  let ety = t.element;
  if (ety.kind === 'any') {
    if (v.kind !== 'tuple') ety = v.elementType;
    else if (v.elements.length) {
      const u = unifyElements(v.elements);
      if (!u) throw new Fail(path, `all ${t.kind} elements must have the same type (${describeTypes(v.elements)})`);
      ety = u;
    }
  }
  let elems = v.elements.map((e, i) => conv(e, ety, [...path, i]));
  let elementType = withoutOptional(ety);
  if (hasAny(ety) && elems.length) {
    const u = unify(elems.map(typeOf));
    if (!u) throw new Fail(path, `all ${t.kind} elements must have the same type (${describeTypes(elems)})`);
    elems = elems.map((e, i) => conv(e, u, [...path, i]));
    elementType = u;
  }
  if (t.kind === 'set') {
    elems = elems.slice().sort(compareValues).filter((e, i, arr) => i === 0 || compareValues(arr[i - 1], e) !== 0 || e.kind === 'unknown');
  }
  return { kind: t.kind, elementType, elements: elems };
}

function convMap(v: Value, t: { kind: 'map'; element: Type }, path: Step[]): Value {
  if (v.kind !== 'object' && v.kind !== 'map') {
    throw new Fail(path, `${friendlyConstraintName(t)} required, but got ${kindName(v)}`);
  }
  const src = v.kind === 'object' ? v.attributes : v.entries;
  let ety = t.element;
  if (ety.kind === 'any') {
    if (v.kind === 'map') ety = v.elementType;
    else if (src.length) {
      const u = unifyElements(src.map((a) => a.value));
      if (!u) throw new Fail(path, `all map elements must have the same type (${describeTypes(src.map((a) => a.value))})`);
      ety = u;
    }
  }
  let entries = src.map((a) => ({ name: a.name, value: conv(a.value, ety, [...path, { mapKey: a.name }]) }));
  let elementType = withoutOptional(ety);
  if (hasAny(ety) && entries.length) {
    const u = unify(entries.map((e) => typeOf(e.value)));
    if (!u) throw new Fail(path, `all map elements must have the same type (${describeTypes(entries.map((e) => e.value))})`);
    entries = entries.map((e) => ({ name: e.name, value: conv(e.value, u, [...path, { mapKey: e.name }]) }));
    elementType = u;
  }
  return { kind: 'map', elementType, entries };
}

function convObject(v: Value, t: ObjectType, path: Step[]): Value {
  if (v.kind !== 'object' && v.kind !== 'map') throw new Fail(path, `object required, but got ${kindName(v)}`);
  const src = v.kind === 'object' ? v.attributes : v.entries;
  const has = new Map(src.map((a) => [a.name, a.value]));
  const missing = t.attributes.filter((a) => !a.optional && !has.has(a.name)).map((a) => JSON.stringify(a.name));
  if (missing.length && v.kind === 'map') throw new Fail(path, `map has no element for required attribute ${missing[0]}`);
  if (missing.length === 1) throw new Fail(path, `attribute ${missing[0]} is required by object type`);
  if (missing.length > 1) throw new Fail(path, `attributes ${englishList(missing)} are required by object type`);
  const attrs: NamedValue[] = t.attributes.map((a) => {
    const given = has.get(a.name);
    return { name: a.name, value: given === undefined ? { kind: 'null', type: withoutOptional(a.type) } : conv(given, a.type, [...path, a.name]) };
  });
  return { kind: 'object', attributes: attrs };
}

/** cty's list of names: `"a" and "b"`, `"a", "b", and "c"`. */
function englishList(names: string[]): string {
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]}`;
}

/**
 * The one element type for a tuple → list/set(any) or object → map(any) conversion (cty
 * conversionTupleToList and friends). A null literal has no type of its own (`any`) and takes the
 * others' type; when the unified type is still `any` although some element has a real type (e.g.
 * `[["a"], "b", null]`), no single element type exists. Unknown values are left out: their real
 * type is not known here, so they never make the conversion fail.
 */
function unifyElements(values: Value[]): Type | undefined {
  const known = values.filter((e) => e.kind !== 'unknown').map(typeOf);
  if (!known.length) return ANY;
  const u = unify(known);
  if (u?.kind === 'any' && known.some((k) => k.kind !== 'any')) return undefined;
  return u;
}

function describeTypes(values: Value[]): string {
  const names: string[] = [];
  for (const v of values) {
    const n = v.kind === 'null' || v.kind === 'unknown' ? undefined : friendlyConstraintName(typeOf(v));
    if (n && !names.includes(n)) names.push(n);
  }
  return names.length > 1 ? `no single type fits ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : 'no single type fits them all';
}
