// Type constraint expressions → Type, following hcl ext/typeexpr (TypeConstraintWithDefaults) and
// OpenTofu's decodeVariableType (legacy quoted forms, bare `list`/`map` shorthands). Every error
// OpenTofu reports becomes a Diagnostic with the range OpenTofu would highlight.
import type { CallExpr, Diagnostic, Expression, Range } from '../config/ast';
import { ANY, BOOL, NUMBER, ObjectAttribute, STRING, Type, objectOf } from './model';
import { Value, valueFromExpression, isKnown } from './value';
import { convertNoDefaults } from './convert';

export interface TypeParseResult {
  type: Type;
  diagnostics: Diagnostic[];
}

export interface TypeParseOptions {
  /** The file text: number literals in defaults keep their exact digits. */
  text?: string;
  /** Report quoted legacy forms (`"string"`) as such: native syntax only (default true). */
  legacyQuoted?: boolean;
}

const SUMMARY = 'Invalid type specification';

/**
 * Parse the `type` argument of a variable block. Never throws; on any error the type (or the
 * broken part of it) is `any`, so later checks do not pile up follow-on errors.
 */
export function parseTypeConstraint(expr: Expression, opts: TypeParseOptions = {}): TypeParseResult {
  const diagnostics: Diagnostic[] = [];
  const legacy = opts.legacyQuoted === false ? undefined : legacyQuoted(expr, diagnostics);
  if (legacy) return { type: legacy, diagnostics };
  const kw = keyword(expr);
  // OpenTofu's shorthands for the pre-0.12 forms: bare list/map mean list(any)/map(any).
  if (kw === 'list' || kw === 'map') return { type: { kind: kw, element: ANY }, diagnostics };
  // Deliberate deviation (the product's spec lists it): bare `set` is accepted as set(any). OpenTofu
  // itself rejects it ("The set type constructor requires one argument"), so say so as a warning.
  if (kw === 'set') {
    diagnostics.push({
      message: 'Bare "set" is read as set(any) here, but OpenTofu rejects it: the set type constructor requires one argument specifying the element type. Write set(any) or, better, the exact element type.',
      range: expr.range, severity: 'warning',
    });
    return { type: { kind: 'set', element: ANY }, diagnostics };
  }
  const type = getType(expr, diagnostics, opts);
  return { type, diagnostics };
}

function err(diags: Diagnostic[], range: Range, detail: string, summary = SUMMARY): Type {
  diags.push({ message: `${summary}: ${detail}`, range, severity: 'error' });
  return ANY;
}

function legacyQuoted(expr: Expression, diags: Diagnostic[]): Type | undefined {
  if (expr.kind !== 'literal' || typeof expr.value !== 'string') return undefined;
  const s = expr.value;
  // OpenTofu's decodeVariableType, word for word.
  const summary = 'Invalid quoted type constraints';
  const lead = 'OpenTofu 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of OpenTofu.';
  if (s === 'string') err(diags, expr.range, `${lead} Remove the quotes around "string".`, summary);
  else if (s === 'list') err(diags, expr.range, `${lead} Remove the quotes around "list" and write list(string) instead to explicitly indicate that the list elements are strings.`, summary);
  else if (s === 'map') err(diags, expr.range, `${lead} Remove the quotes around "map" and write map(string) instead to explicitly indicate that the map elements are strings.`, summary);
  else err(diags, expr.range, 'To provide a full type expression, remove the surrounding quotes and give the type expression directly.', 'Invalid legacy variable type hint');
  return ANY;
}

function unparen(expr: Expression): Expression {
  while (expr.kind === 'paren') expr = expr.expr;
  return expr;
}

/** hcl.ExprAsKeyword: a lone root name, else undefined. */
function keyword(expr: Expression): string | undefined {
  expr = unparen(expr);
  return expr.kind === 'variable' ? expr.name : undefined;
}

function argsRange(call: CallExpr): Range {
  return { start: call.nameRange.end, end: call.range.end };
}

function between(a: Range, b: Range): Range {
  return { start: a.start, end: b.end };
}

function getType(expr: Expression, diags: Diagnostic[], opts: TypeParseOptions): Type {
  const kw = keyword(expr);
  switch (kw) {
    case 'bool': return BOOL;
    case 'string': return STRING;
    case 'number': return NUMBER;
    case 'any': return ANY;
    case 'list': case 'map': case 'set':
      return err(diags, expr.range, `The ${kw} type constructor requires one argument specifying the element type.`);
    case 'object':
      return err(diags, expr.range, 'The object type constructor requires one argument specifying the attribute types and values as a map.');
    case 'tuple':
      return err(diags, expr.range, 'The tuple type constructor requires one argument specifying the element types as a list.');
    case undefined:
      break;
    default:
      return err(diags, expr.range, `The keyword ${JSON.stringify(kw)} is not a valid type specification.`);
  }
  const call = unparen(expr);
  if (call.kind !== 'call' || call.expandFinal) {
    return err(diags, expr.range, 'A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).');
  }
  switch (call.name) {
    case 'bool': case 'string': case 'number':
      return err(diags, argsRange(call), `Primitive type keyword ${JSON.stringify(call.name)} does not expect arguments.`);
    case 'any':
      return err(diags, argsRange(call), `Type constraint keyword ${JSON.stringify(call.name)} does not expect arguments.`);
  }
  if (call.args.length !== 1 && ['list', 'set', 'map', 'object', 'tuple'].includes(call.name)) {
    const subject = call.args.length > 1 ? between(call.args[1].range, call.args[call.args.length - 1].range) : argsRange(call);
    const detail = call.name === 'object'
      ? 'The object type constructor requires one argument specifying the attribute types and values as a map.'
      : call.name === 'tuple'
        ? 'The tuple type constructor requires one argument specifying the element types as a list.'
        : `The ${call.name} type constructor requires one argument specifying the element type.`;
    return err(diags, subject, detail);
  }
  switch (call.name) {
    case 'list': case 'set': case 'map':
      return { kind: call.name, element: getType(call.args[0], diags, opts) };
    case 'tuple': {
      const arg = unparen(call.args[0]);
      if (arg.kind !== 'tuple') return err(diags, call.args[0].range, 'Tuple type constructor requires a list of element types.');
      return { kind: 'tuple', elements: arg.items.map((e) => getType(e, diags, opts)) };
    }
    case 'object':
      return objectType(call, diags, opts);
    case 'optional':
      return err(diags, call.nameRange, 'Keyword "optional" is valid only as a modifier for object type attributes.');
    default:
      return err(diags, expr.range, `Keyword ${JSON.stringify(call.name)} is not a valid type constructor.`);
  }
}

function objectType(call: CallExpr, diags: Diagnostic[], opts: TypeParseOptions): Type {
  const arg = unparen(call.args[0]);
  if (arg.kind !== 'object') {
    return err(diags, call.args[0].range, 'Object type constructor requires a map whose keys are attribute names and whose values are the corresponding attribute types.');
  }
  const attrs = new Map<string, ObjectAttribute>();
  for (const item of arg.items) {
    const name = item.keyIsBare ? keyword(item.key) ?? bareLiteralKey(item.key) : undefined;
    if (name === undefined) {
      err(diags, item.key.range, 'Object constructor map keys must be attribute names.');
      continue;
    }
    let typeExpr = item.value;
    let optional = false;
    let defaultExpr: Expression | undefined;
    let defaultRaw: Value | undefined;
    const inner = unparen(typeExpr);
    if (inner.kind === 'call' && inner.name === 'optional') {
      if (inner.args.length < 1) {
        err(diags, argsRange(inner), 'Optional attribute modifier requires the attribute type as its argument.');
        continue;
      }
      if (inner.args.length > 2) {
        err(diags, argsRange(inner), 'Optional attribute modifier expects at most two arguments: the attribute type, and a default value.');
      } else {
        optional = true;
        if (inner.args.length === 2) {
          defaultExpr = inner.args[1];
          defaultRaw = valueFromExpression(defaultExpr, opts.text);
          if (!isKnown(defaultRaw)) {
            // OpenTofu evaluates the default without any context: references and function calls
            // fail, constant expressions (`1 + 1`, `"a-${"b"}"`) are fine but not evaluated here,
            // so the attribute is optional with a default we cannot know.
            const needs = contextNeeded(defaultExpr);
            if (needs) {
              err(diags, needs.range, `${needs.kind === 'call' ? 'Function calls' : 'Variables'} are not allowed here: the default value of an optional attribute is evaluated without any context.`, 'Invalid default value for optional attribute');
            }
            defaultRaw = undefined;
            defaultExpr = undefined;
          }
        }
      }
      typeExpr = inner.args[0];
    }
    const type = getType(typeExpr, diags, opts);
    const attr: ObjectAttribute = { name, type, optional, range: item.range };
    if (defaultRaw && defaultExpr) {
      const converted = convertNoDefaults(defaultRaw, type);
      if (!converted.ok) {
        err(diags, defaultExpr.range, `This default value is not compatible with the attribute's type constraint: ${converted.error.message}.`, 'Invalid default value for optional attribute');
      } else {
        attr.default = converted.value;
        attr.defaultRaw = defaultRaw;
      }
    }
    if (attrs.has(name)) {
      diags.push({ message: `Duplicate attribute ${JSON.stringify(name)} in object type: the later definition wins.`, range: item.key.range, severity: 'warning' });
    }
    attrs.set(name, attr);
  }
  return objectOf([...attrs.values()]);
}

/** A bare key the parser kept as a literal (e.g. a keyword-like name such as `null` or `true`). */
function bareLiteralKey(key: Expression): string | undefined {
  return key.kind === 'literal' && key.value !== null && typeof key.value !== 'number' ? String(key.value) : undefined;
}

/** The first reference or function call inside a default expression (which OpenTofu rejects). */
function contextNeeded(expr: Expression): { kind: 'call' | 'variable'; range: Range } | undefined {
  let found: { kind: 'call' | 'variable'; range: Range } | undefined;
  const bound = new Set<string>();
  const visit = (e: unknown): void => {
    if (found || !e || typeof e !== 'object') return;
    if (Array.isArray(e)) { for (const x of e) visit(x); return; }
    const node = e as { kind?: string; name?: string; range?: Range; keyVar?: string; valueVar?: string; keyIsBare?: boolean; value?: unknown };
    if (node.keyIsBare === true) { visit(node.value); return; } // `{ name = … }`: a bare key is no reference
    if (node.kind === 'call' && node.range) { found = { kind: 'call', range: node.range }; return; }
    if (node.kind === 'variable' && node.range && node.name !== undefined && !bound.has(node.name)) {
      found = { kind: 'variable', range: node.range };
      return;
    }
    if (node.kind === 'for') {
      // for-expression iteration variables are not references
      if (node.keyVar) bound.add(node.keyVar);
      if (node.valueVar) bound.add(node.valueVar);
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'range' && k !== 'nameRange') visit(v);
    // `var.x[0]`: report the whole traversal, not just its root name
    const f = found as { kind: 'call' | 'variable'; range: Range } | undefined; // assigned in nested calls
    if (f?.kind === 'variable' && node.range && (node.kind === 'getattr' || node.kind === 'index' || node.kind === 'splat') &&
        f.range.start.offset === node.range.start.offset) {
      found = { kind: 'variable', range: node.range };
    }
  };
  visit(expr);
  return found;
}
