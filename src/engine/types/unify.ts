// Type-level conversion availability (cty getConversion, unsafe mode) and unification (cty unify,
// sortTypes, compareTypes): which single type a set of element types can all convert to.
import { ANY, ObjectType, Type, attribute, isPrimitive, mapOf, objectOf, typeEquals } from './model';


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
