// Module inputs against a local module: diagnostics, completions, hovers, variable checks, and
// `tofu-registry types check|convert` end to end over real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFile } from '../../../src/engine/config/files';
import { ModuleResolver } from '../../../src/engine/modules/resolve';
import { checkFile } from '../../../src/engine/modules/check';
import { inputCursor, moduleInputCompletions, variableMarkdown } from '../../../src/engine/modules/inputs';
import { main } from '../../../src/cli';

const FIXTURE = join(__dirname, '../../../../test/fixtures/types/project');

function slice(text: string, r: { start: { offset: number }; end: { offset: number } }) {
  return text.slice(r.start.offset, r.end.offset);
}

async function run(args: string[], cwd = process.cwd()) {
  let stdout = '', stderr = '';
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: {}, cwd });
  return { code, stdout, stderr };
}

test('module call checks against a local module: every rule, on the right range', async () => {
  const f = await loadFile(join(FIXTURE, 'root/main.tf'));
  const r = await checkFile({ path: f.path, text: f.text, syntax: 'hcl', summary: f.summary }, new ModuleResolver({}));
  const found = r.diagnostics.map((d) => ({ at: slice(f.text, d.range), message: d.message, severity: d.severity }));
  const has = (at: string, re: RegExp) => assert.ok(found.some((d) => d.at === at && re.test(d.message) && d.severity === 'error'),
    `expected ${re} at ${JSON.stringify(at)} in\n${found.map((d) => `${JSON.stringify(d.at)}: ${d.message}`).join('\n')}`);
  // module "good" has no problems at all
  const goodEnd = f.text.indexOf('module "bad"');
  assert.deepEqual(r.diagnostics.filter((d) => d.range.start.offset < goodEnd), []);
  has('[]', /Invalid value for input variable "cidrs".*element 0: string required, but got tuple/);
  has('["a", "b"]', /"tags".*attribute "team": string required, but got tuple/);
  has('{\n    enabled = "yes"\n  }', /"settings".*attribute "owner" is required by object type/);
  has('nmae', /Unsupported argument.*"nmae".*Did you mean "name"\?/);
  has('"bad"', /Missing required argument: the argument "name" is required by module "bad"/);
  assert.ok(!found.some((d) => d.at === 'count'), 'count is a meta-argument');
  // variables of the root file
  has('["eu"]', /Invalid default value for variable.*string required, but got tuple/);
  has('"x"', /Invalid default value for variable.*attribute "large": a number is required, but got "x"/);
  has('"string"', /Invalid quoted type constraint.*write string/);
  has('null', /null default value is not valid when nullable=false/);
  assert.deepEqual(r.variables, [
    { name: 'region', type: 'string' }, { name: 'sizes', type: 'map(number)' },
    { name: 'legacy', type: 'any' }, { name: 'strict', type: 'string' },
  ]);
});

test('completions list unset inputs, required first, with type and description; hover text', async () => {
  const f = await loadFile(join(FIXTURE, 'root/main.tf'));
  const mod = await new ModuleResolver({}).resolve({ callerDir: join(FIXTURE, 'root'), name: 'bad', source: '../modules/net' });
  const bad = f.summary.modules.find((m) => m.name === 'bad')!;
  const items = moduleInputCompletions(bad, mod.iface);
  assert.deepEqual(items.map((i) => i.name), ['name', 'anything', 'mode']);
  assert.equal(items[0].required, true);
  assert.equal(items[0].type, 'string');
  assert.equal(items[0].description, 'Name prefix for every resource.');
  assert.match(items[0].detail, /^required · string$/);
  assert.match(items[2].detail, /^optional · string = "fast"$/);
  const settings = mod.iface.variables.find((v) => v.name === 'settings')!;
  assert.equal(settings.typeText, 'object({enabled=optional(bool,true),owner=string,ports=optional(list(number),[])})');
  const md = variableMarkdown(settings);
  assert.match(md, /enabled = optional\(bool, true\)/);
  assert.match(md, /\*\*Optional\*\*, default `null`/);
  // cursor classification: on an argument name, in a value, on an empty line of the body
  const pos = (needle: string, delta = 0) => {
    const off = f.text.indexOf(needle) + delta;
    const before = f.text.slice(0, off);
    return { line: before.split('\n').length - 1, character: off - before.lastIndexOf('\n') - 1 };
  };
  assert.equal(inputCursor(f.summary.modules, pos('nmae', 2), f.text)?.kind, 'argument-name');
  assert.equal(inputCursor(f.summary.modules, pos('"typo"', 1), f.text)?.kind, 'argument-value');
  assert.equal(inputCursor(f.summary.modules, pos('variable "region"'), f.text), undefined);
});

test('modules installed by tofu init are found through .terraform/modules/modules.json', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'types-installed-'));
  try {
    mkdirSync(join(dir, '.terraform/modules/vpc'), { recursive: true });
    writeFileSync(join(dir, '.terraform/modules/vpc/variables.tf'), 'variable "cidr" {\n  type = string\n}\n');
    writeFileSync(join(dir, '.terraform/modules/modules.json'), JSON.stringify({
      Modules: [{ Key: '', Source: '', Dir: '.' }, { Key: 'vpc', Source: 'registry.opentofu.org/acme/vpc/aws', Version: '1.2.0', Dir: '.terraform/modules/vpc' }],
    }));
    writeFileSync(join(dir, 'main.tf'), 'module "vpc" {\n  source  = "acme/vpc/aws"\n  version = "~> 1.0"\n  cidr    = ["x"]\n}\n');
    const f = await loadFile(join(dir, 'main.tf'));
    const r = await checkFile({ path: f.path, text: f.text, syntax: 'hcl', summary: f.summary }, new ModuleResolver({}));
    assert.deepEqual(r.diagnostics.map((d) => [slice(f.text, d.range), d.message]), [
      ['["x"]', 'Invalid value for input variable "cidr": the given value is not suitable for type string: string required, but got tuple.'],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: types check prints path:line:col lines and exits 1 on errors; --json has the documented shape', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'types-cli-'));
  try {
    cpSync(FIXTURE, dir, { recursive: true });
    const text = await run(['types', 'check', '--offline', 'root'], dir);
    assert.equal(text.code, 1);
    const lines = text.stdout.trim().split('\n');
    assert.ok(lines.includes('root/main.tf:20:3: error: Unsupported argument: an argument named "nmae" is not expected here; module "bad" has no variable "nmae". Did you mean "name"?'), text.stdout);
    assert.ok(lines.every((l) => /^root\/main\.tf:\d+:\d+: (error|warning): /.test(l)), text.stdout);
    const j = await run(['types', 'check', '--json', '--offline', join(dir, 'modules')], dir);
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout);
    assert.deepEqual(doc.diagnostics, []);
    assert.deepEqual(doc.variables.map((v: { path: string; name: string; type: string }) => `${v.path} ${v.name} ${v.type}`), [
      'modules/net/variables.tf name string',
      'modules/net/variables.tf cidrs list(string)',
      'modules/net/variables.tf tags map(string)',
      'modules/net/variables.tf settings object({enabled=optional(bool,true),owner=string,ports=optional(list(number),[])})',
      'modules/net/variables.tf mode string',
      'modules/net/variables.tf anything any',
    ]);
    const bad = JSON.parse((await run(['types', 'check', '--json', '--offline', 'root'], dir)).stdout);
    const d = bad.diagnostics.find((x: { message: string }) => x.message.includes('"nmae"'));
    assert.deepEqual(d, {
      path: 'root/main.tf', severity: 'error', message: d.message,
      range: { start: { line: 19, character: 2 }, end: { line: 19, character: 6 } },
    });
    const missing = await run(['types', 'check', join(dir, 'nope')], dir);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /is not a directory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: types convert prints console notation, or the error with exit code 1', async () => {
  const ok = await run(['types', 'convert', '--type', 'list(string)', '--value', '["a", 15, true]']);
  assert.equal(ok.code, 0);
  assert.equal(ok.stdout, 'tolist([\n  "a",\n  "15",\n  "true",\n])\n');
  const j = await run(['types', 'convert', '--json', '--type', 'set(number)', '--value', '[2, "1", 2]']);
  assert.deepEqual(JSON.parse(j.stdout), { type: 'set(number)', value: 'toset([\n  1,\n  2,\n])' });
  const bad = await run(['types', 'convert', '--type', 'map(string)', '--value', '{name = ["Kristy", "Claudia"], age = 12}', '--json']);
  assert.equal(bad.code, 1);
  assert.deepEqual(JSON.parse(bad.stdout), {
    type: 'map(string)', error: { message: 'attribute "name": string required, but got tuple', path: ['name'], kind: 'conversion' },
  });
  assert.match(bad.stderr, /conversion failed: attribute "name": string required, but got tuple/);
  const badType = await run(['types', 'convert', '--type', 'list(strin)', '--value', '[]']);
  assert.equal(badType.code, 1);
  assert.match(badType.stderr, /invalid type: .*"strin" is not a valid type specification/);
  const usage = await run(['types', 'convert', '--type', 'string']);
  assert.equal(usage.code, 2);
  assert.ok(readFileSync(join(FIXTURE, 'root/main.tf'), 'utf8').includes('nmae'));
});

test('JSON syntax: variable types are type expressions in strings; defaults are checked the same way', async () => {
  const { parseJsonConfig } = await import('../../../src/engine/config/json');
  const { extractFile } = await import('../../../src/engine/config/extract');
  const { analyzeVariable } = await import('../../../src/engine/modules/variables');
  const text = '{"variable": {"a": {"type": "list(string)", "default": [1, "x"]}, "b": {"type": "map(number)", "default": {"k": "v"}}}}';
  const vars = extractFile(parseJsonConfig(text), text).variables.map((v) => analyzeVariable(v, text, 'v.tf.json', 'json'));
  assert.equal(vars[0].variable.typeText, 'list(string)');
  assert.deepEqual(vars[0].diagnostics, []);
  assert.equal(vars[1].variable.typeText, 'map(number)');
  assert.equal(vars[1].diagnostics.length, 1);
  assert.match(vars[1].diagnostics[0].message, /attribute "k": a number is required, but got "v"/);
  assert.equal(slice(text, vars[1].diagnostics[0].range), '"v"');
});
