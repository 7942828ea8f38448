// Type constraint parsing: every form, every error OpenTofu reports (with its range), rendering,
// and the corpus round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseHcl } from '../../../src/engine/config/parser';
import type { Block, Body } from '../../../src/engine/config/ast';
import { parseTypeConstraint } from '../../../src/engine/types/parse';
import { parseTypeText } from '../../../src/engine/types/text';
import { renderType, renderTypePretty } from '../../../src/engine/types/render';
import { typeEquals, Type } from '../../../src/engine/types/model';
import { corpusFiles, NO_CORPUS } from '../../support/corpus';

function canon(src: string): string {
  const r = parseTypeText(src);
  assert.deepEqual(r.diagnostics, [], `${src}: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  return renderType(r.type);
}

function parseErr(src: string, message: RegExp, slice?: string) {
  const r = parseTypeText(src);
  const d = r.diagnostics.find((x) => message.test(x.message));
  assert.ok(d, `${src}: expected ${message}, got ${JSON.stringify(r.diagnostics.map((x) => x.message))}`);
  assert.equal(d.severity, 'error');
  if (slice !== undefined) assert.equal(src.slice(d.range.start.offset, d.range.end.offset), slice);
  assert.equal(r.type.kind === 'any' || r.diagnostics.length > 0, true);
}

test('keywords and constructors, nested', () => {
  assert.equal(canon('string'), 'string');
  assert.equal(canon('number'), 'number');
  assert.equal(canon('bool'), 'bool');
  assert.equal(canon('any'), 'any');
  assert.equal(canon('list(string)'), 'list(string)');
  assert.equal(canon('set(number)'), 'set(number)');
  assert.equal(canon('map(bool)'), 'map(bool)');
  assert.equal(canon('list'), 'list(any)');
  assert.equal(canon('map'), 'map(any)');
  assert.equal(canon('object({ name = string, age = number })'), 'object({age=number,name=string})');
  assert.equal(canon('tuple([string, number, bool])'), 'tuple([string,number,bool])');
  assert.equal(canon('map(list(object({ a = tuple([set(string)]), b = map(any) })))'),
    'map(list(object({a=tuple([set(string)]),b=map(any)})))');
  assert.equal(canon('object({ a = optional(string), c = optional(number, 127) })'),
    'object({a=optional(string),c=optional(number,127)})');
  assert.equal(canon('object({ w = optional(object({ i = optional(string, "index.html") }), {}) })'),
    'object({w=optional(object({i=optional(string,"index.html")}),{})})');
  assert.equal(canon('object({})'), 'object({})');
  assert.equal(canon('tuple([])'), 'tuple([])');
});

test('bare set: accepted as set(any) (the issue lists it) with a warning that OpenTofu rejects it', () => {
  const r = parseTypeText('set');
  assert.equal(renderType(r.type), 'set(any)');
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0].severity, 'warning');
  assert.match(r.diagnostics[0].message, /OpenTofu rejects it.*Write set\(any\)/);
  // bare list / map are OpenTofu's own shorthands: no diagnostic
  assert.deepEqual(parseTypeText('list').diagnostics, []);
  assert.deepEqual(parseTypeText('map').diagnostics, []);
});

test('pretty rendering spells out optional attributes and defaults', () => {
  const r = parseTypeText('list(object({ name = string, enabled = optional(bool, true), website = optional(object({ index_document = optional(string, "index.html"), routing_rules = optional(string) }), {}) }))');
  assert.equal(renderTypePretty(r.type), [
    'list(object({',
    '  enabled = optional(bool, true)',
    '  name    = string',
    '  website = optional(object({',
    '    index_document = optional(string, "index.html")',
    '    routing_rules  = optional(string)',
    '  }), {})',
    '}))',
  ].join('\n'));
});

test('errors OpenTofu reports, with their ranges', () => {
  parseErr('strin', /The keyword "strin" is not a valid type specification/, 'strin');
  parseErr('lst(string)', /Keyword "lst" is not a valid type constructor/, 'lst(string)');
  parseErr('list(string, number)', /The list type constructor requires one argument/, 'number');
  parseErr('map()', /The map type constructor requires one argument/, '()');
  parseErr('object()', /object type constructor requires one argument/, '()');
  parseErr('tuple(string)', /Tuple type constructor requires a list of element types/, 'string');
  parseErr('object([string])', /Object type constructor requires a map/, '[string]');
  parseErr('object({ "a" = string })', /Object constructor map keys must be attribute names/, '"a"');
  parseErr('string()', /Primitive type keyword "string" does not expect arguments/, '()');
  parseErr('any(string)', /Type constraint keyword "any" does not expect arguments/);
  parseErr('list(list)', /The list type constructor requires one argument/, 'list');
  parseErr('list(object)', /object type constructor requires one argument/, 'object');
  parseErr('optional(string)', /"optional" is valid only as a modifier for object type attributes/, 'optional');
  parseErr('list(optional(string))', /"optional" is valid only as a modifier for object type attributes/, 'optional');
  parseErr('object({ a = list(optional(string)) })', /"optional" is valid only as a modifier/, 'optional');
  parseErr('object({ a = optional() })', /Optional attribute modifier requires the attribute type/);
  parseErr('object({ a = optional(string, "x", "y") })', /expects at most two arguments/);
  parseErr('object({ a = optional(number, "abc") })',
    /Invalid default value for optional attribute: .*a number is required, but got "abc"/, '"abc"');
  parseErr('object({ a = optional(object({ b = string }), {}) })',
    /Invalid default value for optional attribute: .*attribute "b" is required by object type/, '{}');
  parseErr('object({ a = optional(list(string), [[]]) })', /element 0: string required, but got tuple/, '[[]]');
  parseErr('object({ a = optional(string, var.x) })', /Variables are not allowed here/, 'var.x');
  parseErr('object({ a = optional(string, upper("x")) })', /Function calls are not allowed here/, 'upper("x")');
  parseErr('"x" + 1', /A type specification is either a primitive type keyword/);
  parseErr('var.x', /A type specification is either/);
});

test('quoted legacy forms are rejected as deprecated, with the replacement', () => {
  parseErr('"string"', /^Invalid quoted type constraints: OpenTofu 0\.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of OpenTofu\. Remove the quotes around "string"\.$/, '"string"');
  parseErr('"list"', /deprecated.*Remove the quotes around "list" and write list\(string\) instead/, '"list"');
  parseErr('"map"', /deprecated.*Remove the quotes around "map" and write map\(string\) instead/, '"map"');
  parseErr('"list(string)"', /remove the surrounding quotes/);
});

test('a default is converted to its attribute type when the type is parsed', () => {
  const r = parseTypeText('object({ p = optional(number, "80") })');
  assert.deepEqual(r.diagnostics, []);
  const t = r.type as Extract<Type, { kind: 'object' }>;
  assert.deepEqual(t.attributes[0].default, { kind: 'number', value: '80' });
  assert.equal(renderType(t), 'object({p=optional(number,"80")})');
});

// ---------------------------------------------------------------------------------------------


function* blocks(body: Body, type: string): Generator<Block> {
  for (const item of body.items) if (item.kind === 'block' && item.type === type) yield item;
}

test('corpus round trip: every variable type parses, and render(parse(t)) re-parses to the same type', { skip: NO_CORPUS }, () => {
  let count = 0;
  for (const file of corpusFiles()) {
    const text = readFileSync(file, 'utf8');
    const parsed = parseHcl(text);
    for (const block of blocks(parsed.body, 'variable')) {
      for (const item of block.body.items) {
        if (item.kind !== 'attribute' || item.name !== 'type') continue;
        const r = parseTypeConstraint(item.expr, { text });
        const where = `${file}:${item.range.start.line + 1} ${text.slice(item.expr.range.start.offset, item.expr.range.end.offset)}`;
        assert.deepEqual(r.diagnostics.map((d) => d.message), [], where);
        for (const rendered of [renderType(r.type), renderTypePretty(r.type)]) {
          const again = parseTypeText(rendered);
          assert.deepEqual(again.diagnostics, [], `${where}\n→ ${rendered}`);
          assert.ok(typeEquals(again.type, r.type), `${where}\n→ ${rendered}`);
          assert.equal(renderType(again.type), renderType(r.type));
        }
        count++;
      }
    }
  }
  assert.ok(count > 500, `only ${count} variable types found in the corpus`);
});
