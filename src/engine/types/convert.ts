// Conversion of a value to a type constraint, following go-cty's cty/convert (unsafe mode, as
// OpenTofu uses for input variables) and hcl's ext/typeexpr Defaults (optional attribute defaults
// applied top-down before conversion). Unknown values never fail by themselves.
import {
  ANY, ObjectType, Type, attribute, compareStrings, friendlyConstraintName, hasAny, hasDefaults,
  isPrimitive, mapOf, objectOf, typeEquals, withoutOptional,
} from './model';
import {
  NamedValue, PathStep, Value, compareValues, getAttr, normalizeNumber, typeOf,
} from './value';

export interface ConversionError {
  /** Where in the given value the rule failed (attribute names / element indexes). */
  path: PathStep[];
  /** The failed rule, without the path: "string required, but got tuple". */
  rule: string;
  /** Path and rule: `element 0: attribute "name" is required by object type`. */
  message: string;
}

export type ConversionResult = { ok: true; value: Value } | { ok: false; error: ConversionError };

class Fail extends Error {
  constructor(readonly path: PathStep[], readonly rule: string) { super(rule); }
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
    if (e instanceof Fail) return { ok: false, error: { path: e.path, rule: e.rule, message: formatError(e.path, e.rule) } };
    throw e;
  }
}

export function formatPath(path: PathStep[]): string {
  return path.map((s) => (typeof s === 'number' ? `element ${s}` : `attribute ${JSON.stringify(s)}`)).join(': ');
}

function formatError(path: PathStep[], rule: string): string {
  return path.length ? `${formatPath(path)}: ${rule}` : rule;
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

function conv(v: Value, t: Type, path: PathStep[]): Value {
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
      if (v.kind !== 'tuple' && v.kind !== 'list') throw new Fail(path, `tuple required, but got ${kindName(v)}`);
      if (v.elements.length !== t.elements.length) {
        throw new Fail(path, `a ${v.kind} of exactly ${t.elements.length} element${t.elements.length === 1 ? '' : 's'} is required by the tuple type, but got ${v.elements.length}`);
      }
      return { kind: 'tuple', elements: v.elements.map((e, i) => conv(e, t.elements[i], [...path, i])) };
    }
  }
}

function convSequence(v: Value, t: { kind: 'list' | 'set'; element: Type }, path: PathStep[]): Value {
  if (v.kind !== 'tuple' && v.kind !== 'list' && v.kind !== 'set') {
    throw new Fail(path, `${friendlyConstraintName(t)} required, but got ${kindName(v)}`);
  }
  let ety = t.element;
  if (ety.kind === 'any') {
    if (v.kind !== 'tuple') ety = v.elementType;
    else if (v.elements.length) {
      const u = unify(v.elements.map(typeOf));
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

function convMap(v: Value, t: { kind: 'map'; element: Type }, path: PathStep[]): Value {
  if (v.kind !== 'object' && v.kind !== 'map') {
    throw new Fail(path, `${friendlyConstraintName(t)} required, but got ${kindName(v)}`);
  }
  const src = v.kind === 'object' ? v.attributes : v.entries;
  let ety = t.element;
  if (ety.kind === 'any') {
    if (v.kind === 'map') ety = v.elementType;
    else if (src.length) {
      const u = unify(src.map((a) => typeOf(a.value)));
      if (!u) throw new Fail(path, `all map elements must have the same type (${describeTypes(src.map((a) => a.value))})`);
      ety = u;
    }
  }
  let entries = src.map((a) => ({ name: a.name, value: conv(a.value, ety, [...path, a.name]) }));
  let elementType = withoutOptional(ety);
  if (hasAny(ety) && entries.length) {
    const u = unify(entries.map((e) => typeOf(e.value)));
    if (!u) throw new Fail(path, `all map elements must have the same type (${describeTypes(entries.map((e) => e.value))})`);
    entries = entries.map((e) => ({ name: e.name, value: conv(e.value, u, [...path, e.name]) }));
    elementType = u;
  }
  return { kind: 'map', elementType, entries };
}

function convObject(v: Value, t: ObjectType, path: PathStep[]): Value {
  if (v.kind !== 'object' && v.kind !== 'map') throw new Fail(path, `object required, but got ${kindName(v)}`);
  const src = v.kind === 'object' ? v.attributes : v.entries;
  const has = new Map(src.map((a) => [a.name, a.value]));
  const missing = t.attributes.filter((a) => !a.optional && !has.has(a.name)).map((a) => JSON.stringify(a.name));
  if (missing.length === 1) throw new Fail(path, `attribute ${missing[0]} is required by object type`);
  if (missing.length > 1) throw new Fail(path, `attributes ${missing.join(', ')} are required by object type`);
  const attrs: NamedValue[] = t.attributes.map((a) => {
    const given = has.get(a.name);
    return { name: a.name, value: given === undefined ? { kind: 'null', type: withoutOptional(a.type) } : conv(given, a.type, [...path, a.name]) };
  });
  return { kind: 'object', attributes: attrs };
}

function describeTypes(values: Value[]): string {
  const names: string[] = [];
  for (const v of values) {
    const n = v.kind === 'null' || v.kind === 'unknown' ? undefined : friendlyConstraintName(typeOf(v));
    if (n && !names.includes(n)) names.push(n);
  }
  return names.length > 1 ? `no single type fits ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : 'no single type fits them all';
}

// ---------------------------------------------------------------------------------------------
// Type-level conversion availability (cty getConversion, unsafe) and unification (cty unify).

export function canConvert(from: Type, to: Type): boolean {
  if (typeEquals(from, to) || to.kind === 'any' || from.kind === 'any') return true;
  if (isPrimitive(from) && isPrimitive(to)) return to.kind === 'string' || from.kind === 'string';
  switch (to.kind) {
    case 'object':
      if (from.kind === 'object') {
        return to.attributes.every((a) => {
          const f = attribute(from, a.name);
          return f ? canConvert(f.type, a.type) : a.optional;
        });
      }
      if (from.kind === 'map') return to.attributes.every((a) => canConvert(from.element, a.type));
      return false;
    case 'tuple':
      if (from.kind === 'tuple') return from.elements.length === to.elements.length && from.elements.every((e, i) => canConvert(e, to.elements[i]));
      if (from.kind === 'list') return to.elements.every((e) => canConvert(from.element, e));
      return false;
    case 'list': case 'set':
      if (from.kind === 'list' || from.kind === 'set') return canConvert(from.element, to.element);
      if (from.kind === 'tuple') return elementsConvert(from.elements, to.element);
      return false;
    case 'map':
      if (from.kind === 'map') return canConvert(from.element, to.element);
      if (from.kind === 'object') return elementsConvert(from.attributes.map((a) => a.type), to.element);
      return false;
    default:
      return false;
  }
}

function elementsConvert(types: Type[], ety: Type): boolean {
  if (!types.length) return true;
  if (ety.kind === 'any') return unify(types) !== undefined;
  return types.every((t) => canConvert(t, ety));
}

/** A single type all the given types convert to, or undefined (cty's unify, unsafe mode). */
export function unify(types: Type[]): Type | undefined {
  if (!types.length) return ANY;
  let maps = 0, lists = 0, sets = 0, objects = 0, tuples = 0, dyn = 0;
  for (const t of types) {
    if (t.kind === 'map') maps++;
    else if (t.kind === 'list') lists++;
    else if (t.kind === 'set') sets++;
    else if (t.kind === 'object') objects++;
    else if (t.kind === 'tuple') tuples++;
    else if (t.kind === 'any') dyn++;
  }
  const n = types.length;
  if (maps > 0 && maps + dyn === n) return unifyCollections('map', types, dyn > 0);
  if (maps > 0 && maps + objects + dyn === n) {
    const r = unifyMixed(types, 'object', 'map');
    if (r) return r;
  } else if (lists > 0 && lists + dyn === n) return unifyCollections('list', types, dyn > 0);
  else if (lists > 0 && lists + tuples + dyn === n) {
    const r = unifyMixed(types, 'tuple', 'list');
    if (r) return r;
  } else if (sets > 0 && sets + dyn === n) return unifyCollections('set', types, dyn > 0);
  else if (objects > 0 && objects + dyn === n) return dyn ? ANY : unifyObjects(types as ObjectType[]);
  else if (tuples > 0 && tuples + dyn === n) return dyn ? ANY : unifyTuples(types as Extract<Type, { kind: 'tuple' }>[]);
  else if (objects > 0 && tuples > 0) return undefined;

  for (const i of sortTypes(types)) {
    const want = types[i];
    if (types.every((t, j) => j === i || canConvert(t, want))) return want;
  }
  return undefined;
}

function unifyCollections(kind: 'list' | 'set' | 'map', types: Type[], hasDyn: boolean): Type | undefined {
  if (hasDyn) return ANY;
  const ety = unify(types.map((t) => (t as Extract<Type, { element: Type }>).element));
  return ety && { kind, element: ety };
}

/** Objects next to maps (or tuples next to lists): unify the structural ones as the collection. */
function unifyMixed(types: Type[], structural: 'object' | 'tuple', collection: 'map' | 'list'): Type | undefined {
  const parts = types.filter((t) => t.kind === structural);
  const asColl = structural === 'object'
    ? unifyObjectsToMap(parts as ObjectType[])
    : unifyTuplesToList(parts as Extract<Type, { kind: 'tuple' }>[]);
  if (!asColl || asColl.kind !== collection) return undefined;
  const r = unify(types.map((t) => (t.kind === structural ? asColl : t)));
  return r && r.kind === collection ? r : undefined;
}

function unifyObjects(types: ObjectType[]): Type | undefined {
  const first = types[0].attributes.map((a) => a.name);
  const same = types.every((t) => t.attributes.length === first.length && t.attributes.every((a, i) => a.name === first[i]));
  if (!same) return unifyObjectsToMap(types);
  const attrs = [];
  for (let i = 0; i < first.length; i++) {
    const u = unify(types.map((t) => t.attributes[i].type));
    if (!u) return undefined;
    attrs.push({ name: first[i], type: u, optional: false });
  }
  return objectOf(attrs);
}

function unifyObjectsToMap(types: ObjectType[]): Type | undefined {
  const ety = unify(types.flatMap((t) => t.attributes.map((a) => a.type)));
  return ety && mapOf(ety);
}

function unifyTuples(types: Extract<Type, { kind: 'tuple' }>[]): Type | undefined {
  const len = types[0].elements.length;
  if (!types.every((t) => t.elements.length === len)) return unifyTuplesToList(types);
  const elems: Type[] = [];
  for (let i = 0; i < len; i++) {
    const u = unify(types.map((t) => t.elements[i]));
    if (!u) return undefined;
    elems.push(u);
  }
  return { kind: 'tuple', elements: elems };
}

function unifyTuplesToList(types: Extract<Type, { kind: 'tuple' }>[]): Type | undefined {
  const ety = unify(types.flatMap((t) => t.elements));
  return ety && { kind: 'list', element: ety };
}

/** cty sortTypes: a preference order, most general first (string before number/bool, any last). */
function sortTypes(types: Type[]): number[] {
  const n = types.length;
  const edges: number[][] = types.map(() => []);
  for (let i = 0; i < n - 1; i++) {
    for (let j = i + 1; j < n; j++) {
      const c = compareTypes(types[i], types[j]);
      if (c < 0) edges[i].push(j);
      else if (c > 0) edges[j].push(i);
    }
  }
  const inDeg = new Array<number>(n).fill(0);
  for (const outs of edges) for (const j of outs) inDeg[j]++;
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (inDeg[i] === 0) queue.push(i);
  for (let q = 0; q < queue.length; q++) {
    for (const j of edges[queue[q]]) if (--inDeg[j] === 0) queue.push(j);
  }
  return queue;
}

function compareTypes(a: Type, b: Type): number {
  if (a.kind === 'any' || b.kind === 'any') {
    if (a.kind !== 'any') return -1;
    if (b.kind !== 'any') return 1;
    return 0;
  }
  if (isPrimitive(a) && isPrimitive(b)) {
    if (a.kind === 'string' || b.kind === 'string') {
      if (a.kind !== 'string') return 1;
      if (b.kind !== 'string') return -1;
    }
    return 0;
  }
  if ((a.kind === 'list' || a.kind === 'set' || a.kind === 'map') && a.kind === b.kind) {
    return compareTypes(a.element, (b as typeof a).element);
  }
  let swap = 1;
  if ((a.kind === 'tuple' && b.kind === 'list') || (a.kind === 'object' && b.kind === 'map') ||
      (a.kind === 'set' && (b.kind === 'tuple' || b.kind === 'list'))) {
    [a, b] = [b, a];
    swap = -1;
  }
  if (b.kind === 'set' && (a.kind === 'tuple' || a.kind === 'list')) return -1 * swap;
  if (a.kind === 'list' && b.kind === 'tuple') return -1 * swap;
  if (a.kind === 'map' && b.kind === 'object') return -1 * swap;
  if (a.kind === 'object' && b.kind === 'object') {
    if (a.attributes.length !== b.attributes.length) return 0;
    let aSuper = false, bSuper = false;
    for (const x of a.attributes) {
      const y = attribute(b, x.name);
      if (!y) return 0;
      const c = compareTypes(x.type, y.type);
      if (c < 0) aSuper = true; else if (c > 0) bSuper = true;
    }
    return aSuper && bSuper ? 0 : aSuper ? -1 * swap : bSuper ? swap : 0;
  }
  if (a.kind === 'tuple' && b.kind === 'tuple') {
    if (a.elements.length !== b.elements.length) return 0;
    let aSuper = false, bSuper = false;
    a.elements.forEach((x, i) => {
      const c = compareTypes(x, b.elements[i]);
      if (c < 0) aSuper = true; else if (c > 0) bSuper = true;
    });
    return aSuper && bSuper ? 0 : aSuper ? -1 * swap : bSuper ? swap : 0;
  }
  return 0;
}

/** Missing attribute of an object value (for callers that want to look one up). */
export function objectAttr(v: Value, name: string): Value | undefined {
  return v.kind === 'object' ? getAttr(v, name) : undefined;
}
