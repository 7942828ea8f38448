// The OpenTofu type model (cty types as seen through type constraints): plain data, no classes.
// `any` is cty's DynamicPseudoType: a placeholder in a constraint, "not known yet" in a value.
// The shape of values lives here too, because the two refer to each other (an optional attribute's
// default is a value; a null or unknown value has a type); what values do is in value.ts.
import type { Range } from '../config/ast';

export type PrimitiveKind = 'string' | 'number' | 'bool';

export type Type =
  | { kind: PrimitiveKind }
  | { kind: 'any' }
  | { kind: 'list' | 'set' | 'map'; element: Type }
  | { kind: 'object'; attributes: ObjectAttribute[] }
  | { kind: 'tuple'; elements: Type[] };

export interface ObjectAttribute {
  name: string;
  type: Type;
  /** Declared with optional(…). */
  optional: boolean;
  /** optional(T, default): the default already converted to T (what OpenTofu applies). */
  default?: Value;
  /** The default as written (a literal value), for rendering. */
  defaultRaw?: Value;
  /** Where the attribute's type expression is (only for types parsed from source). */
  range?: Range;
}

/** A value as OpenTofu sees a literal in the configuration (see value.ts). */
export type Value =
  | { kind: 'string'; value: string }
  /** Canonical decimal text, e.g. "15", "-0.5", "1000" (for 1e3). */
  | { kind: 'number'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null'; type: Type }
  | { kind: 'unknown'; type: Type }
  | { kind: 'tuple'; elements: Value[] }
  /** Attributes sorted by name. */
  | { kind: 'object'; attributes: NamedValue[] }
  | { kind: 'list' | 'set'; elementType: Type; elements: Value[] }
  /** Entries sorted by key. */
  | { kind: 'map'; elementType: Type; entries: NamedValue[] };

export interface NamedValue { name: string; value: Value }

export type ObjectType = Extract<Type, { kind: 'object' }>;
export type TupleType = Extract<Type, { kind: 'tuple' }>;
export type CollectionType = Extract<Type, { kind: 'list' | 'set' | 'map' }>;

export const STRING: Type = { kind: 'string' };
export const NUMBER: Type = { kind: 'number' };
export const BOOL: Type = { kind: 'bool' };
export const ANY: Type = { kind: 'any' };

export function listOf(element: Type): Type { return { kind: 'list', element }; }
export function setOf(element: Type): Type { return { kind: 'set', element }; }
export function mapOf(element: Type): Type { return { kind: 'map', element }; }
export function tupleOf(elements: Type[]): Type { return { kind: 'tuple', elements }; }
/** Attributes are kept sorted by name (OpenTofu's canonical order). */
export function objectOf(attributes: ObjectAttribute[] | Record<string, Type>): Type {
  const attrs = Array.isArray(attributes)
    ? attributes.slice()
    : Object.keys(attributes).map((name) => ({ name, type: attributes[name], optional: false }));
  attrs.sort((a, b) => compareStrings(a.name, b.name));
  return { kind: 'object', attributes: attrs };
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function isPrimitive(t: Type): t is { kind: PrimitiveKind } {
  return t.kind === 'string' || t.kind === 'number' || t.kind === 'bool';
}
export function isCollection(t: Type): t is CollectionType {
  return t.kind === 'list' || t.kind === 'set' || t.kind === 'map';
}

export function attribute(t: ObjectType, name: string): ObjectAttribute | undefined {
  for (const a of t.attributes) if (a.name === name) return a;
  return undefined;
}

/** Structural equality; optional markers count, defaults do not (like cty.Type.Equals). */
export function typeEquals(a: Type, b: Type): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list': case 'set': case 'map':
      return typeEquals(a.element, (b as CollectionType).element);
    case 'tuple': {
      const be = (b as TupleType).elements;
      return a.elements.length === be.length && a.elements.every((e, i) => typeEquals(e, be[i]));
    }
    case 'object': {
      const ba = (b as ObjectType).attributes;
      return a.attributes.length === ba.length && a.attributes.every((x, i) =>
        x.name === ba[i].name && x.optional === ba[i].optional && typeEquals(x.type, ba[i].type));
    }
    default:
      return true;
  }
}

/** True when `any` occurs anywhere in the type. */
export function hasAny(t: Type): boolean {
  switch (t.kind) {
    case 'any': return true;
    case 'list': case 'set': case 'map': return hasAny(t.element);
    case 'tuple': return t.elements.some(hasAny);
    case 'object': return t.attributes.some((a) => hasAny(a.type));
    default: return false;
  }
}

/** True when an optional attribute default occurs anywhere in the type. */
export function hasDefaults(t: Type): boolean {
  switch (t.kind) {
    case 'list': case 'set': case 'map': return hasDefaults(t.element);
    case 'tuple': return t.elements.some(hasDefaults);
    case 'object': return t.attributes.some((a) => a.default !== undefined || hasDefaults(a.type));
    default: return false;
  }
}

/** The type with optional markers and defaults removed (the type of a converted value). */
export function withoutOptional(t: Type): Type {
  switch (t.kind) {
    case 'list': case 'set': case 'map': return { kind: t.kind, element: withoutOptional(t.element) };
    case 'tuple': return { kind: 'tuple', elements: t.elements.map(withoutOptional) };
    case 'object': return {
      kind: 'object',
      attributes: t.attributes.map((a) => ({ name: a.name, type: withoutOptional(a.type), optional: false })),
    };
    default: return t;
  }
}

/** cty's FriendlyName: "string", "list of number", "object", "tuple", "dynamic". */
export function friendlyName(t: Type): string {
  switch (t.kind) {
    case 'any': return 'dynamic';
    case 'list': case 'set': case 'map': return `${t.kind} of ${friendlyName(t.element)}`;
    default: return t.kind;
  }
}

/** cty's FriendlyNameForConstraint: like friendlyName, with `any` spelled out. */
export function friendlyConstraintName(t: Type): string {
  switch (t.kind) {
    case 'any': return 'any type';
    case 'list': case 'set': case 'map':
      return `${t.kind} of ${t.element.kind === 'any' ? 'any single type' : friendlyConstraintName(t.element)}`;
    default: return t.kind;
  }
}
