// Conformance with the reference implementation's own test tables (hcl ext/typeexpr get_type and
// defaults tests, go-cty convert/mismatch-message tests, OpenTofu's repl format tests), restated
// as source-text cases in our style. Where our wording deliberately says more than cty (", but got
// tuple", "by object type", the exact tuple length), the table says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertText, parseTypeText } from '../../../src/engine/types/text';
import { convertValue } from '../../../src/engine/types/convert';
import { formatValue, renderType } from '../../../src/engine/types/render';
import { NUMBER, STRING, Type, listOf, mapOf, objectOf, setOf } from '../../../src/engine/types/model';
import { Value, num, str } from '../../../src/engine/types/value';

type ParseCase = [source: string, canonical: string, error?: string];

// hcl ext/typeexpr TestGetType (constraint mode) and TestGetTypeDefaults: the type each source
// yields (with `any` for the broken part) and the diagnostic detail OpenTofu reports.
const PARSE: ParseCase[] = [
  ['bool', 'bool'], ['number', 'number'], ['string', 'string'], ['any', 'any'],
  ['object', 'any', 'The object type constructor requires one argument specifying the attribute types and values as a map.'],
  ['tuple', 'any', 'The tuple type constructor requires one argument specifying the element types as a list.'],
  ['bool()', 'any', 'Primitive type keyword "bool" does not expect arguments.'],
  ['number()', 'any', 'Primitive type keyword "number" does not expect arguments.'],
  ['string()', 'any', 'Primitive type keyword "string" does not expect arguments.'],
  ['any()', 'any', 'Type constraint keyword "any" does not expect arguments.'],
  ['list(string)', 'list(string)'], ['set(string)', 'set(string)'], ['map(string)', 'map(string)'],
  ['list()', 'any', 'The list type constructor requires one argument specifying the element type.'],
  ['list(string, string)', 'any', 'The list type constructor requires one argument specifying the element type.'],
  ['list(any)', 'list(any)'],
  ['object({})', 'object({})'],
  ['object({name=string})', 'object({name=string})'],
  ['object({"name"=string})', 'object({})', 'Object constructor map keys must be attribute names.'],
  ['object({name=nope})', 'object({name=any})', 'The keyword "nope" is not a valid type specification.'],
  ['object()', 'any', 'The object type constructor requires one argument specifying the attribute types and values as a map.'],
  ['object(string)', 'any', 'Object type constructor requires a map whose keys are attribute names and whose values are the corresponding attribute types.'],
  ['tuple([])', 'tuple([])'],
  ['tuple([string, bool])', 'tuple([string,bool])'],
  ['tuple([nope])', 'tuple([any])', 'The keyword "nope" is not a valid type specification.'],
  ['tuple()', 'any', 'The tuple type constructor requires one argument specifying the element types as a list.'],
  ['tuple(string)', 'any', 'Tuple type constructor requires a list of element types.'],
  ['shwoop(string)', 'any', 'Keyword "shwoop" is not a valid type constructor.'],
  ['list("string")', 'list(any)', 'A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).'],
  ['list(object({}))', 'list(object({}))'],
  ['list(map(tuple([])))', 'list(map(tuple([])))'],
  ['object({name=string,age=optional(number)})', 'object({age=optional(number),name=string})'],
  ['object({name=string,meta=optional(any)})', 'object({meta=optional(any),name=string})'],
  ['object({name=string,meta=optional()})', 'object({name=string})', 'Optional attribute modifier requires the attribute type as its argument.'],
  ['optional(string)', 'any', 'Keyword "optional" is valid only as a modifier for object type attributes.'],
  ['optional', 'any', 'The keyword "optional" is not a valid type specification.'],
  // TestGetTypeDefaults
  ['map(list(object({ a = string, b = optional(number) })))', 'map(list(object({a=string,b=optional(number)})))'],
  ['object({ a = string, b = optional(number, 5) })', 'object({a=string,b=optional(number,5)})'],
  ['object({ a = optional(object({ b = optional(number, 5) }), {}) })', 'object({a=optional(object({b=optional(number,5)}),{})})'],
  ['tuple([string, bool, object({ a = string, b = optional(number, 5) })])', 'tuple([string,bool,object({a=string,b=optional(number,5)})])'],
  ['object({ a = optional(string, "hello"), b = optional(number, true) })', 'object({a=optional(string,"hello"),b=optional(number)})',
    "This default value is not compatible with the attribute's type constraint: number required, but got bool."],
  ['object({name=string,meta=optional(string, "hello", "world")})', 'object({meta=string,name=string})',
    'Optional attribute modifier expects at most two arguments: the attribute type, and a default value.'],
  // OpenTofu decodeVariableType: shorthands and quoted legacy forms
  ['list', 'list(any)'], ['map', 'map(any)'],
  ['"string"', 'any', 'OpenTofu 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of OpenTofu. Remove the quotes around "string".'],
  ['"list"', 'any', 'OpenTofu 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of OpenTofu. Remove the quotes around "list" and write list(string) instead to explicitly indicate that the list elements are strings.'],
  ['"map"', 'any', 'OpenTofu 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of OpenTofu. Remove the quotes around "map" and write map(string) instead to explicitly indicate that the map elements are strings.'],
  ['"list(string)"', 'any', 'To provide a full type expression, remove the surrounding quotes and give the type expression directly.'],
  // the default is evaluated without context: constant expressions are fine, references are not
  ['object({ a = optional(number, 1 + 1) })', 'object({a=optional(number)})'],
  ['object({ a = optional(list(string), [for s in ["x"] : s]) })', 'object({a=optional(list(string))})'],
  ['object({ a = optional(number, -1) })', 'object({a=optional(number,-1)})'],
  ['object({ a = optional(string, var.x) })', 'object({a=optional(string)})', 'Variables are not allowed here: the default value of an optional attribute is evaluated without any context.'],
];

test(`reference parse table (${PARSE.length} cases): type, and the diagnostic OpenTofu reports`, () => {
  for (const [source, canonical, error] of PARSE) {
    const r = parseTypeText(source);
    assert.equal(renderType(r.type), canonical, source);
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message.replace(/^[^:]*: /, ''));
    if (error === undefined) assert.deepEqual(errors, [], source);
    else assert.ok(errors.includes(error), `${source}: expected ${JSON.stringify(error)}, got ${JSON.stringify(errors)}`);
  }
});

type ConvCase = [type: string, value: string, expected: string | { error: string }];

// go-cty TestConvert / TestMismatchMessage, restated with HCL literals (a literal list is a tuple,
// a literal map is an object), printed in `tofu console` notation.
const CONVERT: ConvCase[] = [
  // primitives
  ['string', '"hello"', '"hello"'],
  ['number', '"1"', '1'],
  ['number', '"1.5"', '1.5'],
  ['number', '"hello"', { error: 'a number is required, but got "hello"' }],
  ['bool', '"true"', 'true'], ['bool', '"1"', 'true'], ['bool', '"false"', 'false'], ['bool', '"0"', 'false'],
  ['bool', '"hello"', { error: 'a bool is required, but got "hello"' }],
  ['bool', '"yes"', { error: 'a bool is required, but got "yes"' }],
  ['bool', '"True"', { error: 'a bool is required; to convert from string, use lowercase "true"' }],
  ['bool', '"FALSE"', { error: 'a bool is required; to convert from string, use lowercase "false"' }],
  ['string', '4', '"4"'], ['string', '3.14159265359', '"3.14159265359"'],
  ['string', 'true', '"true"'], ['string', 'false', '"false"'],
  ['number', 'true', { error: 'number required, but got bool' }],
  ['bool', '1', { error: 'bool required, but got number' }],
  // number formats: cty.ParseNumberVal is big.Float parsing in base 10, no trimming, no prefixes
  ['number', '"1e3"', '1000'], ['number', '"1E2"', '100'], ['number', '".5"', '0.5'], ['number', '"5."', '5'],
  ['number', '"+5"', '5'], ['number', '"-0.50"', '-0.5'],
  ['number', '" 1"', { error: 'a number is required, but got " 1"' }],
  ['number', '"1 "', { error: 'a number is required, but got "1 "' }],
  ['number', '"0x10"', { error: 'a number is required, but got "0x10"' }],
  ['number', '"1_000"', { error: 'a number is required, but got "1_000"' }],
  ['number', '""', { error: 'a number is required, but got ""' }],
  ['number', '"98765432109876543210.5"', '98765432109876543210.5'],
  ['string', '1e3', '"1000"'], ['number', '1.0e-2', '0.01'],
  // any passes values through
  ['any', '"hello"', '"hello"'], ['any', 'null', 'null'],
  // tuple → list / set
  ['list(string)', '[5, "hello"]', 'tolist([\n  "5",\n  "hello",\n])'],
  ['list(number)', '[5, "12"]', 'tolist([\n  5,\n  12,\n])'],
  ['list(any)', '[5, 10]', 'tolist([\n  5,\n  10,\n])'],
  ['list(any)', '[5, "hello"]', 'tolist([\n  "5",\n  "hello",\n])'],
  ['set(any)', '[5, "hello"]', 'toset([\n  "5",\n  "hello",\n])'],
  ['set(string)', '[5, 10, 10]', 'toset([\n  "10",\n  "5",\n])'],
  ['set(string)', '[]', 'toset([])'],
  ['list(any)', '["a", 9, null]', 'tolist([\n  "a",\n  "9",\n  tostring(null),\n])'],
  ['set(any)', '[null, null, null]', 'toset([\n  null,\n])'],
  ['list(any)', '[null, null, null]', 'tolist([\n  null,\n  null,\n  null,\n])'],
  // terraform#24377: a null next to values of incompatible types does not make `any` fit them
  ['list(any)', '[["a"], "b", null]', { error: 'all list elements must have the same type (no single type fits tuple and string)' }],
  ['set(any)', '[["a"], "b", null]', { error: 'all set elements must have the same type (no single type fits tuple and string)' }],
  ['list(any)', '[["a"], "b"]', { error: 'all list elements must have the same type (no single type fits tuple and string)' }],
  ['map(any)', '{a = ["x"], b = "y", c = null}', { error: 'all map elements must have the same type (no single type fits tuple and string)' }],
  ['list(any)', '[{type = "ingress", cidr = ["0.0.0.0/0"]}, {type = "ingress", source_sg = "sg-abc123"}]',
    { error: 'all list elements must have the same type (no single type fits them all)' }],
  // unknown values never fail by themselves, even next to a tuple
  ['list(any)', '[["a"], var.x]', 'tolist([\n  [\n    "a",\n  ],\n  (known after apply),\n])'],
  // object → map
  ['map(string)', '{num = 5, str = "hello"}', 'tomap({\n  "num" = "5"\n  "str" = "hello"\n})'],
  ['map(number)', '{num = 5, str = "12"}', 'tomap({\n  "num" = 5\n  "str" = 12\n})'],
  ['map(any)', '{num1 = 5, num2 = 10}', 'tomap({\n  "num1" = 5\n  "num2" = 10\n})'],
  ['map(any)', '{num = 5, str = "hello"}', 'tomap({\n  "num" = "5"\n  "str" = "hello"\n})'],
  ['map(any)', '{num = 5, bool = true}', { error: 'all map elements must have the same type (no single type fits bool and number)' }],
  ['map(string)', '{boop = ["x"]}', { error: 'element "boop": string required, but got tuple' }],
  // object → object: extra attributes dropped, missing ones named like cty (sorted, English list)
  ['object({foo = string})', '{foo = "foo value", bar = "bar value"}', '{\n  "foo" = "foo value"\n}'],
  ['object({foo = string})', '{foo = true}', '{\n  "foo" = "true"\n}'],
  ['object({foo = string})', '{foo = var.x}', '{\n  "foo" = (known after apply)\n}'],
  ['object({foo = string})', '{foo = null}', '{\n  "foo" = tostring(null)\n}'],
  ['object({foo = any})', '{foo = true}', '{\n  "foo" = true\n}'],
  ['object({foo = string})', '{bar = "bar value"}', { error: 'attribute "foo" is required by object type' }],
  ['object({foo = string, baz = string})', '{bar = "bar value"}', { error: 'attributes "baz" and "foo" are required by object type' }],
  ['object({foo = string, bar = string, baz = string})', '{}', { error: 'attributes "bar", "baz", and "foo" are required by object type' }],
  ['object({foo = optional(string), bar = string})', '{bar = "bar value"}', '{\n  "bar" = "bar value"\n  "foo" = tostring(null)\n}'],
  ['object({foo = optional(string), bar = string})', '{}', { error: 'attribute "bar" is required by object type' }],
  ['object({foo = number})', '{foo = true}', { error: 'attribute "foo": number required, but got bool' }],
  ['object({foo = optional(string), bar = string})', 'null', 'null /* object */'],
  ['list(object({foo = optional(string), bar = string}))', '[null, {bar = "bar value"}]',
    'tolist([\n  null /* object */,\n  {\n    "bar" = "bar value"\n    "foo" = tostring(null)\n  },\n])'],
  // tuple → tuple: exactly the same length (cty says just "tuple required")
  ['tuple([string])', '["hello"]', '[\n  "hello",\n]'],
  ['tuple([string])', '[true]', '[\n  "true",\n]'],
  ['tuple([])', '[true]', { error: 'a tuple of exactly 0 elements is required by the tuple type, but got 1' }],
  ['tuple([string])', '[]', { error: 'a tuple of exactly 1 element is required by the tuple type, but got 0' }],
  // terraform#23804, #24167, #23431, #27269, #21588
  ['map(map(any))', '{a = {x = ["foo"]}, b = {x = ["bar"]}, c = {x = ["foo", "bar"]}}',
    'tomap({\n  "a" = tomap({\n    "x" = tolist([\n      "foo",\n    ])\n  })\n  "b" = tomap({\n    "x" = tolist([\n      "bar",\n    ])\n  })\n  "c" = tomap({\n    "x" = tolist([\n      "foo",\n      "bar",\n    ])\n  })\n})'],
  ['map(map(object({x = map(any)})))', '{a = {x = null}, b = {x = {c = 1, d = 2}}}',
    { error: 'element "b": element "x": attribute "x" is required by object type' }],
  ['map(map(any))', '{a = {x = "foo"}, b = {}}', 'tomap({\n  "a" = tomap({\n    "x" = "foo"\n  })\n  "b" = tomap({})\n})'],
  ['list(object({a = object({b = list(object({c = string, d = optional(string)}))})}))', '[{a = null}, {a = {b = [{c = "d"}]}}]',
    'tolist([\n  {\n    "a" = null /* object */\n  },\n  {\n    "a" = {\n      "b" = tolist([\n        {\n          "c" = "d"\n          "d" = tostring(null)\n        },\n      ])\n    }\n  },\n])'],
  ['list(object({a = any, b = string}))', '[{a = {}, b = 2}, {a = {var1 = "val1"}, b = "2"}]',
    'tolist([\n  {\n    "a" = tomap({})\n    "b" = "2"\n  },\n  {\n    "a" = tomap({\n      "var1" = "val1"\n    })\n    "b" = "2"\n  },\n])'],
  ['list(object({xs = list(object({x = optional(number)}))}))', '[{xs = [{x = 1234}]}, {xs = []}]',
    'tolist([\n  {\n    "xs" = tolist([\n      {\n        "x" = 1234\n      },\n    ])\n  },\n  {\n    "xs" = tolist([])\n  },\n])'],
  ['set(object({c = optional(object({a = string, b = optional(bool)})), d = number}))', '[{d = 10, c = {a = "foo", b = true}}, {d = 5}]',
    'toset([\n  {\n    "c" = null /* object */\n    "d" = 5\n  },\n  {\n    "c" = {\n      "a" = "foo"\n      "b" = true\n    }\n    "d" = 10\n  },\n])'],
  ['map(object({a = optional(string)}))', '{}', 'tomap({})'],
  ['map(object({a = optional(string)}))', '{object = null}', 'tomap({\n  "object" = null /* object */\n})'],
];

test(`reference conversion table (${CONVERT.length} cases): result in console notation, or the failed rule`, () => {
  for (const [type, value, expected] of CONVERT) {
    const r = convertText(type, value);
    const where = `${type} ← ${value}`;
    if (typeof expected === 'string') {
      assert.equal(r.error, undefined, `${where}: ${r.error?.message}`);
      assert.equal(r.value, expected, where);
    } else {
      assert.equal(r.error?.kind, 'conversion', `${where}: expected an error, got ${r.value}`);
      assert.equal(r.error?.message, expected.error, where);
    }
  }
});

// Values of collection types (they come from an earlier conversion, never from a literal).
const listV = (elementType: Type, elements: Value[]): Value => ({ kind: 'list', elementType, elements });
const setV = (elementType: Type, elements: Value[]): Value => ({ kind: 'set', elementType, elements });
const mapV = (elementType: Type, entries: Record<string, Value>): Value =>
  ({ kind: 'map', elementType, entries: Object.keys(entries).sort().map((name) => ({ name, value: entries[name] })) });

test('reference conversion table, typed collections: list/set/map sources', () => {
  const cases: [Value, string, string | { error: string }][] = [
    [listV(NUMBER, [num(5), num(10)]), 'list(string)', 'tolist([\n  "5",\n  "10",\n])'],
    [listV(NUMBER, [num(5), num(10)]), 'list(any)', 'tolist([\n  5,\n  10,\n])'],
    [setV(STRING, [str('10'), str('5')]), 'list(string)', 'tolist([\n  "10",\n  "5",\n])'],
    [listV(NUMBER, [num(5), num(10), num(10)]), 'set(string)', 'toset([\n  "10",\n  "5",\n])'],
    [listV(STRING, []), 'set(any)', 'toset([])'],
    [mapV(STRING, { greeting: str('Hello'), name: str('John') }), 'map(any)', 'tomap({\n  "greeting" = "Hello"\n  "name" = "John"\n})'],
    [mapV(STRING, { greeting: str('Hello'), name: str('John') }), 'object({greeting = string, name = string})', '{\n  "greeting" = "Hello"\n  "name" = "John"\n}'],
    [mapV(STRING, { greeting: str('Hello'), name: str('John') }), 'object({name = string})', '{\n  "name" = "John"\n}'],
    [mapV(STRING, { name: str('John') }), 'object({name = string, greeting = string})', { error: 'map has no element for required attribute "greeting"' }],
    [mapV(STRING, { name: str('John') }), 'object({name = string, greeting = optional(string)})', '{\n  "greeting" = tostring(null)\n  "name" = "John"\n}'],
    [mapV(NUMBER, { a: num(2), b: num(5) }), 'map(string)', 'tomap({\n  "a" = "2"\n  "b" = "5"\n})'],
    [mapV(STRING, { a: str('boop') }), 'object({a = string, b = optional(string), c = optional(object({d = string}))})',
      '{\n  "a" = "boop"\n  "b" = tostring(null)\n  "c" = null /* object */\n}'],
    [mapV(STRING, { a: str('boop'), c: str('foobar') }), 'object({a = string, b = optional(string), c = optional(object({d = string}))})',
      { error: 'attribute "c": object required, but got string' }],
    [mapV(STRING, {}), 'object({a = optional(string)})', '{\n  "a" = tostring(null)\n}'],
    [listV(NUMBER, [num(1), num(2)]), 'tuple([string, number])', '[\n  "1",\n  2,\n]'],
  ];
  for (const [value, typeText, expected] of cases) {
    const t = parseTypeText(typeText);
    assert.deepEqual(t.diagnostics, [], typeText);
    const r = convertValue(value, t.type);
    const where = `${typeText} ← ${formatValue(value)}`;
    if (typeof expected === 'string') {
      assert.ok(r.ok, `${where}: ${!r.ok && r.error.message}`);
      assert.equal(formatValue(r.value), expected, where);
    } else {
      assert.ok(!r.ok, `${where}: expected an error`);
      assert.equal(r.error.message, expected.error, where);
    }
  }
});

// hcl ext/typeexpr TestDefaults_Apply, restated as type + literal value → converted value.
const DEFAULTS: [type: string, value: string, expected: string][] = [
  // simple object: missing or null attribute gets the default, given values stay
  ['object({a = string, b = optional(bool, true)})', '{a = "foo"}', '{\n  "a" = "foo"\n  "b" = true\n}'],
  ['object({a = string, b = optional(bool, true)})', '{a = "foo", b = null}', '{\n  "a" = "foo"\n  "b" = true\n}'],
  ['object({a = string, b = optional(bool, true)})', '{a = "foo", b = false}', '{\n  "a" = "foo"\n  "b" = false\n}'],
  ['object({a = string, b = optional(bool, true)})', 'var.x', '(known after apply)'],
  // nested object, collection elements (a map given as an object literal, a list as a tuple)
  ['object({c = optional(object({a = string, b = optional(bool, false)})), d = number})', '{c = {a = "foo"}, d = 5}',
    '{\n  "c" = {\n    "a" = "foo"\n    "b" = false\n  }\n  "d" = 5\n}'],
  ['map(object({a = string, b = optional(bool, true)}))', '{f = {a = "foo"}, b = {a = "bar"}}',
    'tomap({\n  "b" = {\n    "a" = "bar"\n    "b" = true\n  }\n  "f" = {\n    "a" = "foo"\n    "b" = true\n  }\n})'],
  ['list(object({a = string, b = optional(bool, true)}))', '[{a = "foo"}, {a = "bar"}]',
    'tolist([\n  {\n    "a" = "foo"\n    "b" = true\n  },\n  {\n    "a" = "bar"\n    "b" = true\n  },\n])'],
  // tuples: a default per element type
  ['tuple([object({a = string, b = optional(bool, false)}), object({c = optional(object({a = string, b = bool}), {a = "default", b = true}), d = number})])',
    '[{a = "foo"}, {d = 5}]',
    '[\n  {\n    "a" = "foo"\n    "b" = false\n  },\n  {\n    "c" = {\n      "a" = "default"\n      "b" = true\n    }\n    "d" = 5\n  },\n]'],
  // set of nested objects: no default sub-object / empty default / overriding default / nulls in the default
  ['set(object({c = optional(object({a = optional(string), b = optional(bool, true)})), d = number}))', '[{c = {a = "foo"}, d = 5}, {d = 7}]',
    'toset([\n  {\n    "c" = null /* object */\n    "d" = 7\n  },\n  {\n    "c" = {\n      "a" = "foo"\n      "b" = true\n    }\n    "d" = 5\n  },\n])'],
  ['set(object({c = optional(object({a = optional(string), b = optional(bool, true)}), {}), d = number}))', '[{c = {a = "foo"}, d = 5}, {d = 7}]',
    'toset([\n  {\n    "c" = {\n      "a" = "foo"\n      "b" = true\n    }\n    "d" = 5\n  },\n  {\n    "c" = {\n      "a" = tostring(null)\n      "b" = true\n    }\n    "d" = 7\n  },\n])'],
  ['set(object({c = optional(object({a = optional(string), b = optional(bool, true)}), {a = "fallback", b = false}), d = number}))', '[{d = 7}]',
    'toset([\n  {\n    "c" = {\n      "a" = "fallback"\n      "b" = false\n    }\n    "d" = 7\n  },\n])'],
  ['set(object({c = optional(object({a = optional(string), b = optional(bool, true)}), {a = "fallback", b = null}), d = number}))', '[{d = 7}]',
    'toset([\n  {\n    "c" = {\n      "a" = "fallback"\n      "b" = true\n    }\n    "d" = 7\n  },\n])'],
  // a null object gets no defaults; a null or missing optional object attribute gets its default, then the nested defaults
  ['object({required = string, optional = optional(string, "optional")})', 'null', 'null /* object */'],
  ['object({required = string, optional_object = optional(object({nested_required = string, nested_optional = optional(string, "optional")}), {nested_required = "required"})})',
    '{required = "required", optional_object = null}',
    '{\n  "optional_object" = {\n    "nested_optional" = "optional"\n    "nested_required" = "required"\n  }\n  "required" = "required"\n}'],
  ['object({required = string, optional_object = optional(object({nested_required = string, nested_optional = optional(string, "optional")}), {nested_required = "required"})})',
    '{required = "required"}',
    '{\n  "optional_object" = {\n    "nested_optional" = "optional"\n    "nested_required" = "required"\n  }\n  "required" = "required"\n}'],
  ['object({settings = optional(object({setting_one = optional(string, ""), setting_two = optional(number, 0)}), {})})', '{}',
    '{\n  "settings" = {\n    "setting_one" = ""\n    "setting_two" = 0\n  }\n}'],
  ['object({settings = optional(object({setting_one = optional(string, ""), setting_two = optional(number, 0)}))})', '{}',
    '{\n  "settings" = null /* object */\n}'],
  // TestGetTypeDefaults: a list default keeps its own nested defaults
  ['object({list = optional(list(object({required = string, optional = optional(string, "optional")})), [{required = "required"}])})', '{}',
    '{\n  "list" = tolist([\n    {\n      "optional" = "optional"\n      "required" = "required"\n    },\n  ])\n}'],
  ['object({list = optional(list(object({required = string, optional = optional(string)})), [])})', '{}', '{\n  "list" = tolist([])\n}'],
];

test(`reference defaults table (${DEFAULTS.length} cases): defaults applied top-down, then converted`, () => {
  for (const [type, value, expected] of DEFAULTS) {
    const r = convertText(type, value);
    assert.equal(r.error, undefined, `${type} ← ${value}: ${r.error?.message}`);
    assert.equal(r.value, expected, `${type} ← ${value}`);
  }
});

// OpenTofu internal/repl TestFormatValue.
test('reference console notation table (tofu console FormatValue)', () => {
  const cases: [Value, string][] = [
    [{ kind: 'null', type: { kind: 'any' } }, 'null'],
    [{ kind: 'null', type: STRING }, 'tostring(null)'],
    [{ kind: 'null', type: NUMBER }, 'tonumber(null)'],
    [{ kind: 'null', type: { kind: 'bool' } }, 'tobool(null)'],
    [{ kind: 'null', type: listOf(STRING) }, 'tolist(null) /* of string */'],
    [{ kind: 'null', type: setOf(NUMBER) }, 'toset(null) /* of number */'],
    [{ kind: 'null', type: mapOf({ kind: 'bool' }) }, 'tomap(null) /* of bool */'],
    [{ kind: 'null', type: objectOf({ a: { kind: 'bool' } }) }, 'null /* object */'],
    [{ kind: 'null', type: listOf(listOf(STRING)) }, 'tolist(null) /* of list of string */'],
    [{ kind: 'unknown', type: { kind: 'any' } }, '(known after apply)'],
    [str(''), '""'], [str('hello'), '"hello"'],
    [str('hello\nworld'), '<<EOT\nhello\nworld\nEOT'],
    [str('EOR\nEOS\nEOT\nEOU'), '<<EOT_\nEOR\nEOS\nEOT\nEOU\nEOT_'],
    [{ kind: 'object', attributes: [{ name: 'foo', value: str('boop\nbeep') }] }, '{\n  "foo" = <<-EOT\n  boop\n  beep\n  EOT\n}'],
    [num(0), '0'], [num(5), '5'], [num(1234567890), '1234567890'], [num('5.2'), '5.2'], [num('123456789.0'), '123456789'],
    [num('123456789.01'), '123456789.01'],
    [{ kind: 'bool', value: false }, 'false'], [{ kind: 'bool', value: true }, 'true'],
    [{ kind: 'object', attributes: [] }, '{}'],
    [{ kind: 'object', attributes: [{ name: 'a', value: str('b') }, { name: 'c', value: str('d') }] }, '{\n  "a" = "b"\n  "c" = "d"\n}'],
    [mapV(STRING, {}), 'tomap({})'],
    [{ kind: 'tuple', elements: [] }, '[]'],
    [{ kind: 'tuple', elements: [str('b'), str('d')] }, '[\n  "b",\n  "d",\n]'],
    [listV(STRING, []), 'tolist([])'], [setV(STRING, []), 'toset([])'],
    // strconv.Quote escapes; a map key is formatted like any string (multi-line → heredoc)
    [str('tab\there "q" back\\slash \u0007 \u00ff é'), '"tab\\there \\"q\\" back\\\\slash \\a ÿ é"'],
    [mapV(STRING, { 'a\nb': str('c') }), 'tomap({\n  <<-EOT\n  a\n  b\n  EOT = "c"\n})'],
  ];
  for (const [value, expected] of cases) assert.equal(formatValue(value), expected, JSON.stringify(value));
});
