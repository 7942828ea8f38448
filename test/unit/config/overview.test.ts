// The overview (what `inspect` reports) from a scoped parse equals the same fields of a whole-tree
// parse, on fixtures, the corpus, broken files and mutated files; the scoped parse keeps the tree
// shape and the diagnostics, and really skips ranges and string values outside its scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  Block, ConfigOverview, extractFile, NO_RANGE, OVERVIEW_SCOPE, overviewOf, parseConfig,
} from '../../../src/engine/config';
import { WARM_UP_SAMPLES } from '../../../src/engine/config/warmup';
import { NO_CORPUS, corpusFiles } from '../../support/corpus';
import { BROKEN } from './cases';

const ROOT = path.resolve(__dirname, '../../../..');

/** The overview's fields, taken from a whole-tree parse and extractFile. */
function expectedOverview(text: string, name: string): ConfigOverview {
  const s = extractFile(parseConfig(text, name), text);
  return {
    modules: s.modules.map(({ name: n, nameRange, range, source, version }) => ({ name: n, nameRange, range, source, version })),
    requiredProviders: s.requiredProviders,
    variables: s.variables.map(({ name: n, nameRange, range, type }) => ({ name: n, nameRange, range, type })),
    diagnostics: s.diagnostics,
  };
}

const RANGE_KEYS = new Set(['range', 'nameRange', 'typeRange', 'contentRange']);

/** A tree without what a scoped parse leaves out of its scope: ranges, and string values of literals and template text. */
function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (RANGE_KEYS.has(k)) continue;
    if (k === 'value' && typeof v === 'string' && (o.kind === 'literal' || o.kind === 'text')) continue;
    out[k] = shape(v);
  }
  return out;
}

function checkFile(text: string, name: string): void {
  assert.deepEqual(overviewOf(text, name), expectedOverview(text, name), `${name}: the overview`);
  const whole = parseConfig(text, name);
  const scoped = parseConfig(text, name, { scope: OVERVIEW_SCOPE });
  assert.deepEqual(scoped.diagnostics, whole.diagnostics, `${name}: the diagnostics`);
  assert.deepEqual(shape(scoped.body), shape(whole.body), `${name}: the tree shape`);
}

function tfFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'node_modules') tfFiles(p, out); } else if (/\.(tf|tofu)(\.json)?$/.test(e.name)) out.push(p);
  }
  return out;
}

const FIXTURE_FILES = ['test/fixtures', 'examples'].map((d) => path.join(ROOT, d)).filter(existsSync).flatMap((d) => tfFiles(d));

test('overviewOf equals the whole-tree summary: fixtures, examples and the warm-up samples', () => {
  assert.ok(FIXTURE_FILES.length >= 10, `fixture files found: ${FIXTURE_FILES.length}`);
  for (const f of FIXTURE_FILES) checkFile(readFileSync(f, 'utf8'), f);
  checkFile(WARM_UP_SAMPLES.native, 'warm-up.tf');
  checkFile(WARM_UP_SAMPLES.json, 'warm-up.tf.json');
});

test('overviewOf equals the whole-tree summary on the real-world corpus', { skip: NO_CORPUS }, () => {
  const files = corpusFiles();
  assert.ok(files.length > 100);
  for (const f of files) checkFile(readFileSync(f, 'utf8'), f);
});

test('broken text in and out of scope: the same overview, diagnostics and tree shape (both parser passes)', () => {
  for (const [what, snippet] of BROKEN) {
    checkFile(snippet, `${what}.tf`);
    // The same breakage inside a kept attribute, a dropped attribute, a dropped block, and around them.
    const body = snippet.replace(/^/gm, '  ');
    for (const text of [
      `module "m" {\n  source = "a/b/c"\n  input = 1\n${body}\n}\nvariable "v" { type = string }\n`,
      `resource "r" "x" {\n${body}\n}\nmodule "after" {\n  source  = "x/y/z"\n  version = "~> 1.0"\n}\n`,
      `variable "v" {\n  type = list(${snippet})\n  default = 1\n}\n`,
      `terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws", version = ${JSON.stringify(snippet)} }\n${body}\n  }\n}\n`,
      `${snippet}\nmodule "m" { source = "a" }\n`,
    ]) checkFile(text, `${what} (embedded).tf`);
  }
});

test('the scoped parse computes no ranges or string values out of scope, and real ones in it', () => {
  const text = [
    'module "m" {',
    '  source  = "org/name/aws"',
    '  version = "~> 1.0"',
    '  input   = "not read"',
    '  nested { x = "deep" }',
    '}',
    'variable "v" {',
    '  type        = string',
    '  description = "not read"',
    '}',
    'terraform {',
    '  required_version = ">= 1.6"',
    '  required_providers {',
    '    aws = { source = "hashicorp/aws" }',
    '  }',
    '}',
    'resource "a" "b" { tags = { Name = "not read" } }',
    'constructor "x" { y = 1 }',
    '__proto__ {}',
    'toString = 1',
    '',
  ].join('\n');
  const file = parseConfig(text, 'main.tf', { scope: OVERVIEW_SCOPE });
  assert.deepEqual(file.diagnostics, []);
  const blocks = file.body.items.filter((i): i is Block => i.kind === 'block');
  const [mod, variable, terraform, resource, odd] = blocks;
  const attr = (b: Block, name: string) => b.body.items.find((i) => i.kind === 'attribute' && i.name === name)!;
  const literal = (b: Block, name: string) => { const a = attr(b, name); return a.kind === 'attribute' && a.expr.kind === 'literal' ? a.expr : undefined; };
  // Kept: the block itself, source, version, type, required_providers.
  assert.deepEqual(mod.range.end, { line: 5, character: 1, offset: text.indexOf('}\nvariable') + 1 });
  assert.equal(literal(mod, 'source')?.value, 'org/name/aws');
  assert.notEqual(attr(mod, 'version').range, NO_RANGE);
  assert.notEqual(attr(variable, 'type').range, NO_RANGE);
  const rp = terraform.body.items.find((i): i is Block => i.kind === 'block')!;
  assert.notEqual(rp.body.items[0].range, NO_RANGE);
  // Dropped: everything else below a top-level block.
  assert.equal(attr(mod, 'input').range, NO_RANGE);
  assert.equal(literal(mod, 'input')?.value, '');
  assert.equal((mod.body.items.find((i) => i.kind === 'block') as Block).body.items[0].range, NO_RANGE);
  assert.equal(literal(variable, 'description')?.value, '');
  assert.equal(attr(terraform, 'required_version').range, NO_RANGE);
  assert.equal(resource.body.items[0].range, NO_RANGE);
  assert.equal(resource.range, NO_RANGE, 'a top-level block out of scope, its own range included');
  assert.equal(resource.labels[0].range, NO_RANGE);
  assert.equal(resource.labels[1].value, 'b', 'labels keep their values');
  // Block types that are Object.prototype names are just other names.
  assert.equal(odd.type, 'constructor');
  assert.equal(odd.body.items[0].range, NO_RANGE);
  assert.ok(Object.isFrozen(NO_RANGE) && Object.isFrozen(NO_RANGE.start));
  checkFile(text, 'main.tf');
});

test('mutated files: the overview, diagnostics and tree shape still match the whole-tree parse (property)', () => {
  const sources = [WARM_UP_SAMPLES.native, ...FIXTURE_FILES.filter((f) => !f.endsWith('.json')).map((f) => readFileSync(f, 'utf8')).filter((t) => t.length > 200)];
  const pieces = ['"', '{', '}', '[', ']', '(', ')', '=', '${', '%{', '~}', '<<EOT\n', '\n', '/*', '#', ',', '.', '?', ':', '...', 'for ', 'module "m" {', 'source = ', 'type = ', '\u00e9'];
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: sources.length - 1 }),
      fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), del: fc.integer({ min: 0, max: 40 }), text: fc.oneof(fc.constantFrom(...pieces), fc.constantFrom(...BROKEN.map(([, s]) => s))) }), { minLength: 1, maxLength: 4 }),
      (i, edits) => {
        let t = sources[i];
        for (const e of edits) {
          const at = Math.floor(e.at * (t.length + 1));
          t = t.slice(0, at) + e.text + t.slice(at + e.del);
        }
        checkFile(t, 'mutated.tf');
      },
    ),
    { numRuns: 300, seed: 12 },
  );
});
