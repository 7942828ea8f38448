// The HCL native-syntax parser: every construct, with exact ranges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Attribute, Block, Expression, parseExpression, parseHcl, Range, TemplatePart } from '../../../src/engine/config';

function attr(src: string): Attribute {
  const f = parseHcl(src);
  assert.deepEqual(f.diagnostics, [], `no diagnostics for ${JSON.stringify(src)}`);
  const a = f.body.items[0];
  assert.equal(a.kind, 'attribute');
  return a as Attribute;
}

function expr(src: string): Expression {
  return attr(`x = ${src}\n`).expr;
}

/** The expression tree without ranges, for compact structural assertions. */
function shape(e: unknown): unknown {
  return JSON.parse(JSON.stringify(e, (k, v) => (k === 'range' || k === 'nameRange' || k === 'contentRange' ? undefined : v)));
}

function text(src: string, r: Range): string {
  return src.slice(r.start.offset, r.end.offset);
}

test('literals: numbers, bools, null, strings with escapes', () => {
  assert.deepEqual(shape(expr('42')), { kind: 'literal', value: 42 });
  assert.deepEqual(shape(expr('1.5e3')), { kind: 'literal', value: 1500 });
  assert.deepEqual(shape(expr('true')), { kind: 'literal', value: true });
  assert.deepEqual(shape(expr('null')), { kind: 'literal', value: null });
  assert.equal((expr('"a\\n\\t\\"b\\\\ \\u00e9 $${x} %%{y}"') as { value: string }).value, 'a\n\t"b\\ é ${x} %{y}');
  assert.deepEqual(shape(expr('""')), { kind: 'literal', value: '', quoting: 'quoted' });
});

test('templates: interpolation, if/else and for directives, strip markers', () => {
  const t = expr('"a${var.b}c"');
  assert.equal(t.kind, 'template');
  const parts = (t as { parts: TemplatePart[] }).parts;
  assert.deepEqual(parts.map((p) => p.kind), ['text', 'interpolation', 'text']);
  const d = expr('"%{ if x }yes%{ else }no%{ endif }"') as { parts: TemplatePart[] };
  assert.deepEqual(shape(d.parts[0]), {
    kind: 'if', cond: { kind: 'variable', name: 'x' }, then: [{ kind: 'text', value: 'yes' }], else: [{ kind: 'text', value: 'no' }],
  });
  const f = expr('"%{ for k, v in m }${k}=${v},%{ endfor }"') as { parts: TemplatePart[] };
  assert.equal(f.parts[0].kind, 'for');
  const fp = f.parts[0] as Extract<TemplatePart, { kind: 'for' }>;
  assert.equal(fp.keyVar, 'k');
  assert.equal(fp.valueVar, 'v');
  assert.equal(fp.body.length, 4);
  const s = expr('"a  ${~ x ~}  b"') as { parts: TemplatePart[] };
  assert.deepEqual(s.parts.map((p) => (p.kind === 'text' ? p.value : p.kind)), ['a', 'interpolation', 'b']);
});

test('templates: a ${…} sequence in a quoted string may span lines, as in HCL', () => {
  const call = expr('"${join(",",\n  var.list)}-x"') as { parts: TemplatePart[] };
  assert.deepEqual(call.parts.map((p) => p.kind), ['interpolation', 'text']);
  assert.deepEqual(shape((call.parts[0] as { expr: Expression }).expr), {
    kind: 'call', name: 'join', expandFinal: false,
    args: [{ kind: 'literal', value: ',', quoting: 'quoted' }, { kind: 'getattr', name: 'list', target: { kind: 'variable', name: 'var' } }],
  });
  assert.deepEqual(shape((expr('"${\n  var.x\n}"') as { parts: TemplatePart[] }).parts), [
    { kind: 'interpolation', expr: { kind: 'getattr', name: 'x', target: { kind: 'variable', name: 'var' } } },
  ]);
  const cond = expr('"${var.a ?\n  "p" : "q"}"') as { parts: TemplatePart[] };
  assert.equal((cond.parts[0] as { expr: Expression }).expr.kind, 'conditional');
  const obj = expr('"${jsonencode({\n  a = 1\n  b = 2\n})}"') as { parts: TemplatePart[] };
  const arg = ((obj.parts[0] as { expr: Expression }).expr as { args: Expression[] }).args[0] as { items: unknown[] };
  assert.equal(arg.items.length, 2);
  assert.equal(expr('"%{ if a\n}yes%{ endif }"').kind, 'template');
  // The attribute after a multi-line sequence is parsed normally.
  const f = parseHcl('x = "${foo(1,\n  2)}"\ny = 3\n');
  assert.deepEqual(f.diagnostics, []);
  assert.deepEqual(f.body.items.map((i) => (i as Attribute).name), ['x', 'y']);
  // A newline in the literal part of a quoted string still ends it (HCL rejects it too).
  assert.match(parseHcl('x = "${a}\nb"\n').diagnostics[0].message, /Unterminated string/);
});

test('heredocs: plain and indented (<<-), with interpolation', () => {
  const src = 'x = <<EOT\nhello\n  world\nEOT\ny = 1\n';
  const f = parseHcl(src);
  assert.deepEqual(f.diagnostics, []);
  const h = (f.body.items[0] as Attribute).expr;
  assert.deepEqual(shape(h), { kind: 'literal', value: 'hello\n  world\n', quoting: 'heredoc' });
  assert.equal(text(src, h.range), '<<EOT\nhello\n  world\nEOT');
  assert.equal((f.body.items[1] as Attribute).name, 'y');
  const flush = expr('<<-EOT\n    a\n      b ${c}\n    EOT\n') as { parts: TemplatePart[] };
  assert.deepEqual(flush.parts.map((p) => (p.kind === 'text' ? p.value : p.kind)), ['a\n  b ', 'interpolation', '\n']);
});

test('operators: precedence, unary, conditional', () => {
  assert.deepEqual(shape(expr('1 + 2 * 3')), {
    kind: 'binary', op: '+', left: { kind: 'literal', value: 1 },
    right: { kind: 'binary', op: '*', left: { kind: 'literal', value: 2 }, right: { kind: 'literal', value: 3 } },
  });
  const c = expr('!a && b || c == d ? -1 : 2');
  assert.equal(c.kind, 'conditional');
  const cond = (c as { cond: Expression }).cond as { op: string; left: { op: string; left: { kind: string } } };
  assert.equal(cond.op, '||');
  assert.equal(cond.left.op, '&&');
  assert.equal(cond.left.left.kind, 'unary');
});

test('traversals, legacy index, splats, calls, provider functions', () => {
  assert.deepEqual(shape(expr('a.b[0]["k"]')), {
    kind: 'index', legacy: false, key: { kind: 'literal', value: 'k', quoting: 'quoted' },
    target: { kind: 'index', legacy: false, key: { kind: 'literal', value: 0 }, target: { kind: 'getattr', name: 'b', target: { kind: 'variable', name: 'a' } } },
  });
  assert.deepEqual(shape(expr('a.0.1')), {
    kind: 'index', legacy: true, key: { kind: 'literal', value: 1 },
    target: { kind: 'index', legacy: true, key: { kind: 'literal', value: 0 }, target: { kind: 'variable', name: 'a' } },
  });
  const s = expr('aws_instance.x[*].tags["n"]') as { kind: string; full: boolean; each: Expression };
  assert.equal(s.kind, 'splat');
  assert.equal(s.full, true);
  assert.equal(s.each.kind, 'index');
  const a = expr('a.*.id') as { kind: string; full: boolean };
  assert.equal(a.kind, 'splat');
  assert.equal(a.full, false);
  assert.deepEqual(shape(expr('merge(a, b...)')), {
    kind: 'call', name: 'merge', expandFinal: true, args: [{ kind: 'variable', name: 'a' }, { kind: 'variable', name: 'b' }],
  });
  const p = expr('provider::aws::arn_parse(x)') as { kind: string; name: string };
  assert.equal(p.kind, 'call');
  assert.equal(p.name, 'provider::aws::arn_parse');
});

test('collections and for expressions, newlines inside brackets', () => {
  assert.deepEqual(shape(expr('[\n  1,\n  "a",\n]')), { kind: 'tuple', items: [{ kind: 'literal', value: 1 }, { kind: 'literal', value: 'a', quoting: 'quoted' }] });
  const o = expr('{\n  a = 1\n  "b": 2, c = [3]\n  (d) = 4\n}') as { items: { keyIsBare: boolean }[] };
  assert.equal(o.items.length, 4);
  assert.deepEqual(o.items.map((i) => i.keyIsBare), [true, false, true, false]);
  assert.deepEqual(shape(expr('[for i, s in xs : upper(s) if i > 0]')), {
    kind: 'for', keyVar: 'i', valueVar: 's', grouping: false,
    collection: { kind: 'variable', name: 'xs' },
    valueExpr: { kind: 'call', name: 'upper', expandFinal: false, args: [{ kind: 'variable', name: 's' }] },
    cond: { kind: 'binary', op: '>', left: { kind: 'variable', name: 'i' }, right: { kind: 'literal', value: 0 } },
  });
  const fo = expr('{\n  for k, v in m : k => v...\n  if v != null\n}') as { kind: string; grouping: boolean; keyExpr: Expression; cond: Expression };
  assert.equal(fo.kind, 'for');
  assert.equal(fo.grouping, true);
  assert.ok(fo.keyExpr && fo.cond);
  assert.equal(expr('(\n  a\n  + b\n)').kind, 'paren');
});

test('comments of all three styles are skipped', () => {
  const src = '# hash\n// slashes\n/* block\n comment */ a = 1 # trailing\nb = /* inline */ 2 // end\n';
  const f = parseHcl(src);
  assert.deepEqual(f.diagnostics, []);
  assert.deepEqual(f.body.items.map((i) => (i as Attribute).name), ['a', 'b']);
});

test('blocks: labels (quoted and bare), nesting, single-line and empty bodies, ranges', () => {
  const src = 'resource "aws_s3_bucket" b {\n  lifecycle { prevent_destroy = true }\n  versioning {}\n}\n';
  const f = parseHcl(src);
  assert.deepEqual(f.diagnostics, []);
  const b = f.body.items[0] as Block;
  assert.equal(b.type, 'resource');
  assert.deepEqual(b.labels.map((l) => l.value), ['aws_s3_bucket', 'b']);
  assert.equal(text(src, b.labels[0].range), '"aws_s3_bucket"');
  assert.equal(b.closed, true);
  assert.equal(text(src, b.range), src.trimEnd());
  const inner = b.body.items as Block[];
  assert.deepEqual(inner.map((i) => i.type), ['lifecycle', 'versioning']);
  assert.equal((inner[0].body.items[0] as Attribute).name, 'prevent_destroy');
});

test('ranges are 0-based lines and UTF-16 characters, with offsets', () => {
  const src = 'locals {\n  s = "😀é" # comment\n  t = var.x\n}\n';
  const f = parseHcl(src);
  const items = (f.body.items[0] as Block).body.items as Attribute[];
  const t = items[1];
  assert.deepEqual(t.nameRange.start, { line: 2, character: 2, offset: src.indexOf('t =') });
  assert.equal(text(src, t.expr.range), 'var.x');
  assert.deepEqual({ line: items[0].expr.range.end.line, character: items[0].expr.range.end.character }, { line: 1, character: 11 }); // 😀 is two UTF-16 code units
  assert.equal(text(src, items[0].range), 's = "😀é"');
});

test('parseExpression: type expressions and values', () => {
  const r = parseExpression('map(object({ a = string, b = optional(list(number), []) }))');
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.expr.kind, 'call');
  const v = parseExpression('["a", 15, { k = true }]');
  assert.deepEqual(v.diagnostics, []);
  assert.equal((v.expr as { items: unknown[] }).items.length, 3);
  const bad = parseExpression('list(string');
  assert.ok(bad.diagnostics.length > 0);
  const trailing = parseExpression('a b');
  assert.ok(trailing.diagnostics.some((d) => /after the expression/.test(d.message)));
});

test('never throws on pathological input and stays linear', () => {
  const deep = '['.repeat(5000);
  const f = parseHcl(`x = ${deep}\n`);
  assert.ok(f.diagnostics.length > 0);
  assert.ok(!f.diagnostics.some((d) => d.message.startsWith('Internal')), 'handled by the parser, not by the last-resort catch');
  const blocks = parseHcl('a {\n'.repeat(3000));
  assert.ok(!blocks.diagnostics.some((d) => d.message.startsWith('Internal')));
  // Many unterminated heredocs / comments: each search is cached, so this stays fast.
  const many = parseHcl('x = <<EOT\n/* c\n'.repeat(20000));
  assert.ok(many.diagnostics.length > 0);
  const big = 'locals {\n' + '  a = "x"\n'.repeat(20000) + '}\n';
  const g = parseHcl(big);
  assert.equal((g.body.items[0] as Block).body.items.length, 20000);
  for (const s of ['', '\n', '"', '${', '}}}}', '<<', '<<EOT', '= = =', '\u0000\uffff', 'a.', 'a[', '%{', '~}']) {
    parseHcl(s);
    parseExpression(s);
  }
});
