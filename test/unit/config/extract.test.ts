// Extraction API, JSON syntax, cursor helpers and OpenTofu's file rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  Attribute, Block, extractFile, findConfigFiles, findNodeAt, isConfigFileName, isOverrideFile, loadConfigDir, locateCursor,
  parseConfig, parseHcl, parseJsonConfig, rangeContains,
} from '../../../src/engine/config';
import { tempDir } from '../../support/temp';

const SRC = `terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
    legacy = "~> 1.2"
    dyn = { source = local.src }
  }
}

module "vpc" {
  source   = "terraform-aws-modules/vpc/aws"
  version  = "~> 5.0"
  count    = var.n
  for_each = toset(["a"])
  providers = { aws = aws.eu }
  depends_on = [module.x]
  name     = "vpc-\${var.env}"
}

module "local" {
  source = "./modules/\${var.kind}"
}

variable "a" {
  type        = map(object({ x = string }))
  default     = { k = { x = "v" } }
  description = "Some text"
  nullable    = false
  sensitive   = true
}

variable "legacy" {
  type = "string"
}
`;

const slice = (r: { start: { offset: number }; end: { offset: number } }, s = SRC): string => s.slice(r.start.offset, r.end.offset);

test('extractFile: module calls with source, version, every other argument and ranges', () => {
  const s = extractFile(parseHcl(SRC), SRC);
  assert.deepEqual(s.diagnostics, []);
  assert.deepEqual(s.modules.map((m) => m.name), ['vpc', 'local']);
  const vpc = s.modules[0];
  assert.equal(vpc.source?.literal, 'terraform-aws-modules/vpc/aws');
  assert.equal(vpc.version?.literal, '~> 5.0');
  assert.equal(slice(vpc.version!.contentRange!), '~> 5.0');
  assert.equal(slice(vpc.version!.range), '"~> 5.0"');
  assert.equal(slice(vpc.nameRange), '"vpc"');
  assert.ok(slice(vpc.range).startsWith('module "vpc" {') && slice(vpc.range).endsWith('}'));
  assert.deepEqual(vpc.arguments.map((a) => a.name), ['count', 'for_each', 'providers', 'depends_on', 'name']);
  assert.equal(vpc.arguments[0].value.literal, null);
  assert.equal(vpc.arguments[0].value.text, 'var.n');
  assert.equal(vpc.arguments[4].value.text, '"vpc-${var.env}"');
  const local = s.modules[1];
  assert.equal(local.source?.literal, null, 'a template is not a literal');
  assert.equal(local.source?.text, '"./modules/${var.kind}"');
  assert.equal(local.version, null);
});

test('extractFile: required_providers in object and legacy string forms', () => {
  const s = extractFile(parseHcl(SRC), SRC);
  assert.deepEqual(s.requiredProviders.map((p) => [p.name, p.source?.literal ?? p.source?.text ?? null, p.version?.literal ?? null, p.legacy]), [
    ['aws', 'hashicorp/aws', '>= 5.0', false],
    ['legacy', null, '~> 1.2', true],
    ['dyn', 'local.src', null, false],
  ]);
  assert.equal(slice(s.requiredProviders[1].nameRange), 'legacy');
});

test('extractFile: variables with raw type, default, description, nullable, sensitive', () => {
  const s = extractFile(parseHcl(SRC), SRC);
  const [a, legacy] = s.variables;
  assert.equal(a.name, 'a');
  assert.equal(a.type?.literal, null);
  assert.equal(a.type?.text, 'map(object({ x = string }))');
  assert.equal(a.default?.text, '{ k = { x = "v" } }');
  assert.equal(a.description, 'Some text');
  assert.equal(a.nullable, false);
  assert.equal(a.sensitive, true);
  assert.equal(legacy.type?.literal, 'string');
  assert.equal(legacy.nullable, null);
});

test('unterminated string while typing: contentRange runs to the end of the line', () => {
  const src = 'module "m" {\n  source = "hashicorp/con\n  version = "1.0"\n}\n';
  const s = extractFile(parseHcl(src), src);
  const m = s.modules[0];
  assert.equal(m.source?.literal, 'hashicorp/con');
  assert.equal(slice(m.source!.contentRange!, src), 'hashicorp/con');
  assert.equal(m.version?.literal, '1.0', 'the next line is intact');
  assert.ok(s.diagnostics.length > 0);
});

test('locateCursor: module attribute, in value, in string; providers; variables', () => {
  const s = extractFile(parseHcl(SRC), SRC);
  const lines = SRC.split('\n');
  const at = (needle: string, delta = 0): [number, number] => {
    const line = lines.findIndex((l) => l.includes(needle));
    return [line, lines[line].indexOf(needle) + delta];
  };
  let c = locateCursor(s, ...at('~> 5.0', 2), SRC);
  assert.equal(c.module?.name, 'vpc');
  assert.equal(c.attribute, 'version');
  assert.equal(c.inValue, true);
  assert.equal(c.inString, true);
  assert.equal(c.value?.literal, '~> 5.0');
  c = locateCursor(s, ...at('count', 1), SRC);
  assert.equal(c.attribute, 'count');
  assert.equal(c.inValue, false);
  c = locateCursor(s, ...at('">= 5.0"', 1), SRC);
  assert.equal(c.provider?.name, 'aws');
  assert.equal(c.attribute, 'version');
  assert.equal(c.inString, true);
  c = locateCursor(s, ...at('"~> 1.2"', 3), SRC);
  assert.equal(c.provider?.name, 'legacy');
  assert.equal(c.attribute, 'version');
  assert.equal(c.inString, true);
  c = locateCursor(s, ...at('Some text', 0), SRC);
  assert.equal(c.variable?.name, 'a');
  assert.equal(c.attribute, 'description');
  c = locateCursor(s, 0, 0, SRC);
  assert.equal(c.module, undefined);
  assert.equal(c.provider, undefined);
});

test('locateCursor: empty value being typed (`version = `)', () => {
  const src = 'module "m" {\n  source  = "x/y/z"\n  version = \n}\n';
  const s = extractFile(parseHcl(src), src);
  const c = locateCursor(s, 2, 12, src);
  assert.equal(c.module?.name, 'm');
  assert.equal(c.attribute, 'version');
  assert.equal(c.inValue, true);
  assert.equal(c.inString, false);
});

test('findNodeAt and rangeContains', () => {
  const f = parseHcl(SRC);
  const lines = SRC.split('\n');
  const line = lines.findIndex((l) => l.includes('vpc-'));
  const path = findNodeAt(f, line, lines[line].indexOf('env'));
  assert.deepEqual(path.map((n) => n.kind), ['block', 'attribute', 'template', 'getattr']);
  assert.equal((path[0] as Block).labels[0].value, 'vpc');
  assert.equal((path[1] as Attribute).name, 'name');
  assert.ok(rangeContains(path[1].range, line, lines[line].length));
  assert.ok(!rangeContains(path[1].range, line + 1, 0));
  assert.deepEqual(findNodeAt(f, 10, 0), [], 'blank line between blocks');
});

test('JSON syntax maps onto the same shapes', () => {
  const src = JSON.stringify({
    terraform: { required_providers: { aws: { source: 'hashicorp/aws', version: '>= 5.0' }, old: '~> 1.0' } },
    module: { vpc: { source: 'terraform-aws-modules/vpc/aws', version: '~> 5.0', name: '${var.env}-vpc', count: 2 } },
    variable: { a: { type: 'list(string)', default: ['x'] }, b: [{ type: 'string' }] },
    resource: { aws_s3_bucket: { b: { bucket: 'x' } } },
    '//': 'comment',
  }, null, 2);
  const f = parseJsonConfig(src);
  assert.deepEqual(f.diagnostics, []);
  assert.equal(f.syntax, 'json');
  const s = extractFile(f, src);
  assert.deepEqual(s.modules.map((m) => [m.name, m.source?.literal, m.version?.literal]), [['vpc', 'terraform-aws-modules/vpc/aws', '~> 5.0']]);
  const name = s.modules[0].arguments.find((a) => a.name === 'name')!;
  assert.equal(name.value.expr.kind, 'template');
  assert.equal(s.modules[0].arguments.find((a) => a.name === 'count')!.value.expr.kind, 'literal');
  assert.deepEqual(s.requiredProviders.map((p) => [p.name, p.source?.literal ?? null, p.version?.literal, p.legacy]), [
    ['aws', 'hashicorp/aws', '>= 5.0', false], ['old', null, '~> 1.0', true],
  ]);
  assert.deepEqual(s.variables.map((v) => [v.name, v.type?.expr.kind, v.type?.text]), [['a', 'call', 'list(string)'], ['b', 'variable', 'string']]);
  const r = f.body.items.find((i) => i.kind === 'block' && i.type === 'resource') as Block;
  assert.deepEqual(r.labels.map((l) => l.value), ['aws_s3_bucket', 'b']);
  assert.equal(slice(s.modules[0].nameRange, src), '"vpc"');
  const broken = parseJsonConfig('{"module": {"x": {"source": "a"');
  assert.ok(broken.diagnostics.length > 0);
  assert.equal(extractFile(broken, '').modules[0].source?.literal, 'a');
});

test('file names: config extensions, overrides, parseConfig by name', () => {
  for (const n of ['main.tf', 'a.tofu', 'x.tf.json', 'x.tofu.json']) assert.ok(isConfigFileName(n), n);
  for (const n of ['main.tf.bak', 'x.json', '.hidden.tf', 'main.tf~', 'tf']) assert.ok(!isConfigFileName(n), n);
  for (const n of ['override.tf', 'db_override.tofu', 'override.tf.json', 'x_override.tofu.json']) assert.ok(isOverrideFile(n), n);
  for (const n of ['main.tf', 'overrides.tf', 'override_x.tf']) assert.ok(!isOverrideFile(n), n);
  assert.equal(parseConfig('{}', 'a.tf.json').syntax, 'json');
  assert.equal(parseConfig('a = 1', 'a.tofu').syntax, 'hcl');
});

test('loadConfigDir: .tofu precedence, overrides, not recursive; findConfigFiles walks and skips', async () => {
  const dir = tempDir('tofu-config-');
  try {
    writeFileSync(path.join(dir, 'main.tf'), 'module "from_tf" {\n  source = "a/b/c"\n}\n');
    writeFileSync(path.join(dir, 'main.tofu'), 'module "from_tofu" {\n  source = "a/b/c"\n}\n');
    writeFileSync(path.join(dir, 'vars.tf.json'), '{"variable": {"x": {"type": "string"}}}');
    writeFileSync(path.join(dir, 'vars.tofu.json'), '{"variable": {"y": {"type": "number"}}}');
    writeFileSync(path.join(dir, 'other.tf'), 'variable "z" {}\n');
    writeFileSync(path.join(dir, 'db_override.tf'), 'module "from_tofu" {\n  version = "1.0"\n}\n');
    writeFileSync(path.join(dir, 'README.md'), '# not config');
    for (const sub of ['.terraform/modules/m', '.git/x', 'node_modules/p', 'child']) {
      mkdirSync(path.join(dir, sub), { recursive: true });
      writeFileSync(path.join(dir, sub, 'main.tf'), 'variable "nested" {}\n');
    }
    const r = await loadConfigDir(dir);
    assert.deepEqual(r.files.map((f) => path.basename(f.path)), ['db_override.tf', 'main.tofu', 'other.tf', 'vars.tofu.json']);
    assert.deepEqual(r.shadowed.map((f) => path.basename(f)).sort(), ['main.tf', 'vars.tf.json']);
    assert.deepEqual(r.files.map((f) => f.override), [true, false, false, false]);
    assert.equal(r.files[1].summary.modules[0].name, 'from_tofu');
    assert.equal(r.files[3].summary.variables[0].name, 'y');
    const all = await findConfigFiles([dir]);
    assert.deepEqual(all.map((f) => path.relative(dir, f)).sort(), [
      'child/main.tf', 'db_override.tf', 'main.tf', 'main.tofu', 'other.tf', 'vars.tf.json', 'vars.tofu.json',
    ]);
    await assert.rejects(findConfigFiles([path.join(dir, 'missing')]), /cannot read .*missing/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
