// The overview's skim (engine/config/skim.ts): wherever it reads a file whole, the overview equals
// the scoped parse's (no diagnostics included); it reads the real-world corpus and the fixtures;
// it gives up on everything the parser reports, and on mutated files never answers differently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { overviewOf, parseHcl } from '../../../src/engine/config';
import { parsedOverview, skimmedOverview } from '../../../src/engine/config/overview';
import { WARM_UP_SAMPLES } from '../../../src/engine/config/warmup';
import { NO_CORPUS, corpusFiles } from '../../support/corpus';
import { BROKEN } from './cases';

const ROOT = path.resolve(__dirname, '../../../..');

function tfFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'node_modules') tfFiles(p, out); } else if (/\.(tf|tofu)$/.test(e.name)) out.push(p);
  }
  return out;
}
const FIXTURES = ['test/fixtures', 'examples'].map((d) => path.join(ROOT, d)).filter(existsSync).flatMap((d) => tfFiles(d)).map((f) => readFileSync(f, 'utf8'));

/** When the skim answers, its overview is the parse's, which then has no diagnostics. Returns whether it answered. */
function agrees(text: string, what: string): boolean {
  const skimmed = skimmedOverview(text);
  if (!skimmed) return false;
  const parsed = parsedOverview(text, 'x.tf');
  assert.deepEqual(parsed.diagnostics, [], `${what}: the skim read a file with diagnostics:\n${text}`);
  assert.deepEqual(skimmed, parsed, `${what}: the skimmed overview`);
  return true;
}

test('the skim reads the warm-up sample and the fixtures, with the same overview as the parse', () => {
  assert.ok(agrees(WARM_UP_SAMPLES.skim, 'skim sample'));
  assert.ok(agrees(WARM_UP_SAMPLES.skim.replace(/\n/g, '\r\n'), 'skim sample, CRLF'));
  const read = FIXTURES.filter((t, i) => agrees(t, `fixture ${i}`)).length;
  const clean = FIXTURES.filter((t) => !parseHcl(t).diagnostics.length && !/%\{|::|[^\x00-\x7f]/.test(t)).length;
  assert.ok(read >= clean * 0.9, `read ${read} of ${clean} clean fixtures`);
});

test('the skim reads nearly all of the real-world corpus, with the same overview as the parse', { skip: NO_CORPUS }, () => {
  const files = corpusFiles();
  const read = files.filter((f) => agrees(readFileSync(f, 'utf8'), f)).length;
  assert.ok(read >= files.length * 0.95, `read ${read} of ${files.length}`);
});

test('the skim gives up on every broken snippet, in and out of scope', () => {
  for (const [what, snippet] of BROKEN) {
    const body = snippet.replace(/^/gm, '  ');
    for (const text of [snippet, `resource "r" "x" {\n${body}\n}\n`, `module "m" {\n  source = "a"\n${body}\n}\n`, `locals {\n  x = [\n${body}\n  ]\n}\n`]) {
      if (parsedOverview(text, 'x.tf').diagnostics.length) assert.equal(skimmedOverview(text), undefined, `${what}: ${text}`);
    }
  }
});

/** Values the parser reports (each inside `locals { x = … }`): the skim must give up on every one. */
const BAD_VALUES = [
  '1 +', 'a ? b', 'a ? b : c : d', '[1 2]', '[,]', '[1,,]', 'f(1 2)', 'f(,)', 'f(a..., b)', '(1', '(1))', '{ a }', '{ a = 1 b = 2 }',
  '{ a = }', '{ = 1 }', 'a.', 'a.[0]', 'a[*].*', 'a[', 'a[]', '1.', '.5', '!', '- ', 'a !b', 'a = b', 'a => b', '[for x in y]',
  '[for x in y : x if]', '[for x, in y : x]', '[for x y : x]', '{ for k, v in m : k }', '{ for k, v in m : k => v... ... }', '[for x in y : x...]',
  '"${}"', '"${a"', '"${a b}"', '"\\', 'a << b', 'a & b', 'a | b', 'a ~ b', '~', '@', 'a\n.b', '1 2',
  'a ?\nb : c', 'a\n? b : c', '{ a =\n1 }', '{ a\n= 1 }', 'f\n(1)', '"a', '<<EOT\nno end\n', '<<EOT x\nEOT', '{ a = 1, , b = 2 }',
  'a[*][*].*', 'x.*[*].*', '[a ? b : c ? d]', 'a ? b : c ? d', '(a ? b)', '{ (a) b }', 'a.1e5', '1a',
  '"x" y', 'a.b c', '{} x', '[] []', '1.5.', 'a[0] b', '["a" "b"]', 'a["k"', '0x1F', 'a = = 1',
];
/** Valid values the skim gives up on all the same (the parse reads them). */
const UNSUPPORTED_VALUES = ['"%{ if a }b%{ endif }"', 'provider::x::y(1)', '"${a +\n b}"', '"é${a}" + é', '<<EOT\n%{ for x in y }${x}%{ endfor }\nEOT'];
/** Valid values the skim must read (and agree on). */
const GOOD_VALUES = [
  '1 + 2 * 3 - -4 / 5 % 6', 'a ? b : c', 'a ? b ? c : d : e', 'a ? b : c ? d : e', '[1, 2,]', '[\n  1,\n  2\n]', 'f()', 'f(a, b,)', 'f(a, [b]...)',
  '(1)', '{ a = 1, b = 2 }', '{\n  a = 1\n  "b" = 2\n  (c) = 3\n  d: 4\n}', 'a.b[0].c["d"]', 'a[*].b[0]', 'a.*.b', 'a.0.1', 'x.*[0]',
  '!a && !b || c == d != e < f <= g > h >= i', '"${a}-${~ b ~}"', '"a $${b} %%{c} \\"d\\" \\\\"', '<<EOT\nx ${a}\nEOT', '<<-EOT\n  y\n  EOT',
  '[for x in y : x if x != null]', '{ for k, v in m : k => v... if v }', '[for x in y :\n  x\n]', '[\n  for x in y : x\n]', 'a-b.c-d', '1.5e-3',
  'a["k"].b', '[a.b, "c", 1.5,]', '{}', 'x # c', 'x // c', 'a-b', '"é"',
  '{ a = [\n  1\n] }', '{ for = 1 }', '[for]', 'x /* c */ + 1', '"${ {a = 1}.a }"', 'a[0][1]', 'true ? null : false', '-1', '[{ a = 1 }, { b = 2 }]',
];

test('the skim gives up on what the parser reports, and reads what it does not', () => {
  for (const v of BAD_VALUES) {
    const text = `locals {\n  x = ${v}\n}\n`;
    assert.notDeepEqual(parsedOverview(text, 'x.tf').diagnostics, [], `the parser reports ${JSON.stringify(v)}`);
    assert.equal(skimmedOverview(text), undefined, `the skim gives up on ${JSON.stringify(v)}`);
  }
  for (const v of UNSUPPORTED_VALUES) {
    const text = `locals {\n  x = ${v}\n}\n`;
    assert.deepEqual(parsedOverview(text, 'x.tf').diagnostics, [], `the parser reads ${JSON.stringify(v)}`);
    assert.equal(skimmedOverview(text), undefined, `the skim gives up on ${JSON.stringify(v)}`);
    assert.deepEqual(overviewOf(text, 'x.tf'), parsedOverview(text, 'x.tf'));
  }
  for (const v of GOOD_VALUES) {
    for (const text of [`locals {\n  x = ${v}\n}\n`, `module "m" {\n  source = ${v}\n  version = ${v}\n}\nvariable "v" {\n  type = ${v}\n}\n`]) {
      assert.ok(agrees(text, JSON.stringify(v)), `the skim reads ${JSON.stringify(v)}`);
    }
  }
});

test('mutated files: wherever the skim answers, it agrees with the parse (property)', () => {
  const sources = [WARM_UP_SAMPLES.skim, ...FIXTURES.filter((t) => t.length > 200 && t.length < 20000 && skimmedOverview(t))];
  const pieces = [
    '"', '{', '}', '[', ']', '(', ')', '=', '==', '=>', '${', '~}', '%{', '$${', '\\', '<<EOT\n', '<<-EOT\n', '\nEOT\n', '\n', '/*', '*/', '#', ',', '.', '?', ':',
    '...', '[*]', '.*', 'for ', ' in ', ' if ', '!', '-', '+', '*', '/', '<', '>', '&&', '||', '1', '1.5', '1e', 'a', 'f(', ' ', '~', '@', '\r', '\t',
    'module "m" {', 'source = ', 'type = ', 'version = ', 'x = 1\n', '}\n', ...BAD_VALUES.slice(0, 20),
  ];
  let answered = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: sources.length - 1 }),
      fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), del: fc.integer({ min: 0, max: 6 }), text: fc.constantFrom(...pieces) }), { minLength: 1, maxLength: 3 }),
      (i, edits) => {
        let t = sources[i];
        for (const e of edits) {
          const at = Math.floor(e.at * (t.length + 1));
          t = t.slice(0, at) + e.text + t.slice(at + e.del);
        }
        if (agrees(t, 'mutated')) answered++;
        // overviewOf is the skim or the parse: always the parse's answer.
        assert.deepEqual(overviewOf(t, 'x.tf'), parsedOverview(t, 'x.tf'));
      },
    ),
    { numRuns: Number(process.env.SKIM_FUZZ_RUNS) || 1500, seed: 32 },
  );
  assert.ok(answered > 50, `the skim answered ${answered} mutated files`);
});

test('generated expressions with line breaks and blanks anywhere: wherever the skim answers, it agrees with the parse (property)', () => {
  const gap = fc.constantFrom('', ' ', '\n', ' \n  ', '  ', '/* c */', '# c\n');
  const join = (parts: string[], gaps: string[]) => parts.reduce((a, p, i) => a + gaps[i % gaps.length] + p, '');
  const { expr } = fc.letrec<{ expr: string; atom: string }>((tie) => ({
    atom: fc.oneof(
      fc.constantFrom('a', 'b.c', 'var.x[0]', '1', '2.5e3', 'true', 'null', '"s"', '"${a}"', '"x${ b.c }y"', '<<EOT\nt ${a}\nEOT\n', 'a[*].b', 'a.*.b', 'for', 'in', 'if'),
    ),
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('atom'),
      fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '==', '&&', '?', ':', '=', '=>', ',', '...', '.', '!'), tie('expr'), fc.array(gap, { minLength: 2, maxLength: 2 }))
        .map(([l, op, r, g]) => join([l, op, r], g)),
      fc.tuple(tie('expr'), tie('expr'), tie('expr'), fc.array(gap, { minLength: 4, maxLength: 4 })).map(([c, t, e, g]) => join([c, '?', t, ':', e], g)),
      fc.tuple(fc.constantFrom('[', '(', '{', 'f(', 'x['), fc.array(tie('expr'), { maxLength: 3 }), fc.constantFrom(',', ', ', '\n', ',\n'), fc.constantFrom(']', ')', '}'), fc.array(gap, { minLength: 2, maxLength: 2 }))
        .map(([o, items, sep, c, g]) => o + g[0] + items.join(sep) + g[1] + c),
      fc.tuple(tie('expr'), tie('expr'), fc.constantFrom('=', ':'), fc.array(gap, { minLength: 3, maxLength: 3 })).map(([k, v, s, g]) => `{${g[0]}${k}${g[1]}${s}${v}${g[2]}}`),
      fc.tuple(tie('expr'), tie('expr'), fc.boolean(), fc.array(gap, { minLength: 3, maxLength: 3 }))
        .map(([c, v, obj, g]) => (obj ? `{for k, v in ${c}${g[0]}:${g[1]}k => ${v}${g[2]}}` : `[for x in ${c}${g[0]}:${g[1]}${v}${g[2]}]`)),
    ),
  }));
  let answered = 0;
  fc.assert(
    fc.property(expr, fc.constantFrom('locals', 'module "m"', 'variable "v"'), fc.constantFrom('x', 'source', 'type'), (e, block, name) => {
      const text = `${block} {\n  ${name} = ${e}\n  y = 1\n}\n`;
      if (agrees(text, 'generated')) answered++;
    }),
    { numRuns: Number(process.env.SKIM_FUZZ_RUNS) || 1500, seed: 33 },
  );
  assert.ok(answered > 50, `the skim answered ${answered} generated files`);
});
