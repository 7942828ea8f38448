// Module inputs against a local module: diagnostics, completions, hovers, variable checks, and
// `tofu-registry types check|convert` end to end over real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFile } from '../../../src/engine/config/files';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { checkFile } from '../../../src/engine/modules/check';
import { variableReferenceAt, variablesOfDirectory } from '../../../src/engine/modulepkg/variables';
import { extractFile, parseHcl } from '../../../src/engine/config';
import { inputCursor, moduleInputCompletions, variableMarkdown } from '../../../src/engine/modules/inputs';
import { main } from '../../../src/cli';
import { tempDir } from '../../support/temp';

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
  has('["a", "b"]', /"tags".*element "team": string required, but got tuple/);
  has('{\n    enabled = "yes"\n  }', /"settings".*attribute "owner" is required by object type/);
  has('nmae', /Unsupported argument.*"nmae".*Did you mean "name"\?/);
  has('"bad"', /Missing required argument: the argument "name" is required by module "bad"/);
  assert.ok(!found.some((d) => d.at === 'count'), 'count is a meta-argument');
  // variables of the root file
  has('["eu"]', /Invalid default value for variable.*string required, but got tuple/);
  has('"x"', /Invalid default value for variable.*element "large": a number is required, but got "x"/);
  has('"string"', /Invalid quoted type constraints.*deprecated.*Remove the quotes around "string"\./);
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
  const dir = tempDir('types-installed-');
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

test('absolute-path module sources: variables read from that directory, honouring //subdir', async () => {
  const dir = tempDir('types-abs-');
  try {
    // a package of modules elsewhere on disk, and a caller that uses it by absolute path
    mkdirSync(join(dir, 'pkg/net/vpc'), { recursive: true });
    writeFileSync(join(dir, 'pkg/net/vpc/variables.tf'), 'variable "cidr" {\n  type = string\n}\n');
    writeFileSync(join(dir, 'pkg/variables.tf'), 'variable "root_only" {\n  type = number\n}\n');
    mkdirSync(join(dir, 'caller'));
    const pkg = join(dir, 'pkg');
    writeFileSync(join(dir, 'caller/main.tf'), `module "vpc" {\n  source = "${pkg}//net/vpc"\n  cidr   = ["x"]\n}\n` +
      `module "whole" {\n  source    = "${pkg}"\n  root_only = "many"\n}\n`);
    const resolver = new ModuleResolver({}); // no engine, no cache dir, no network: read in place
    const vpc = await resolver.resolve({ callerDir: join(dir, 'caller'), name: 'vpc', source: `${pkg}//net/vpc` });
    assert.equal(vpc.dir, join(pkg, 'net/vpc'));
    assert.deepEqual(vpc.iface.variables.map((v) => v.name), ['cidr']);
    const f = await loadFile(join(dir, 'caller/main.tf'));
    const r = await checkFile({ path: f.path, text: f.text, syntax: 'hcl', summary: f.summary }, resolver);
    assert.deepEqual(r.diagnostics.map((d) => [slice(f.text, d.range), d.message]), [
      ['["x"]', 'Invalid value for input variable "cidr": the given value is not suitable for type string: string required, but got tuple.'],
      ['"many"', 'Invalid value for input variable "root_only": the given value is not suitable for type number: a number is required, but got "many".'],
    ]);
    await assert.rejects(resolver.resolve({ callerDir: join(dir, 'caller'), name: 'gone', source: `${pkg}//nope` }),
      /module directory .*\/\/nope does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: types check prints path:line:col lines and exits 1 on errors; --json has the documented shape', async () => {
  const dir = tempDir('types-cli-');
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
    type: 'map(string)', error: { message: 'element "name": string required, but got tuple', path: ['name'], kind: 'conversion' },
  });
  assert.match(bad.stderr, /conversion failed: element "name": string required, but got tuple/);
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
  const { analyzeVariable } = await import('../../../src/engine/modulepkg/variables');
  const text = '{"variable": {"a": {"type": "list(string)", "default": [1, "x"]}, "b": {"type": "map(number)", "default": {"k": "v"}}}}';
  const vars = extractFile(parseJsonConfig(text), text).variables.map((v) => analyzeVariable(v, text, 'v.tf.json', 'json'));
  assert.equal(vars[0].variable.typeText, 'list(string)');
  assert.deepEqual(vars[0].diagnostics, []);
  assert.equal(vars[1].variable.typeText, 'map(number)');
  assert.equal(vars[1].diagnostics.length, 1);
  assert.match(vars[1].diagnostics[0].message, /element "k": a number is required, but got "v"/);
  assert.equal(slice(text, vars[1].diagnostics[0].range), '"v"');
});

test('override files: merged argument by argument, the default re-converted to the overridden type', async () => {
  const dir = tempDir('types-override-');
  try {
    const mod = join(dir, 'mod');
    mkdirSync(mod);
    writeFileSync(join(mod, 'variables.tf'), [
      'variable "port" {\n  type        = string\n  default     = "8080"\n  description = "Listen port."\n  sensitive   = false\n}',
      'variable "name" {\n  type = string\n  default = "web"\n}',
      'variable "size" {\n  type = number\n}',
    ].join('\n'));
    writeFileSync(join(mod, 'override.tf'), [
      // type only: the base default "8080" is converted to the new type
      'variable "port" {\n  type      = number\n  sensitive = true\n}',
      // type only, and the base default "web" does not convert: an error on the override
      'variable "name" {\n  type = number\n}',
      // default only: the variable stops being required; the type stays
      'variable "size" {\n  default = 3\n}',
      'variable "ghost" {\n  default = 1\n}',
    ].join('\n'));
    const r = await new ModuleResolver({}).resolve({ callerDir: dir, name: 'm', source: './mod' });
    const v = Object.fromEntries(r.iface.variables.map((x) => [x.name, x]));
    assert.deepEqual(Object.keys(v).sort(), ['name', 'port', 'size'], 'an override cannot declare a new variable');
    assert.equal(v.port.typeText, 'number');
    assert.deepEqual(v.port.default, { kind: 'number', value: '8080' });
    assert.equal(v.port.description, 'Listen port.', 'arguments the override does not set are kept');
    assert.equal(v.port.sensitive, true);
    assert.equal(v.size.required, false);
    assert.equal(v.size.typeText, 'number');
    assert.deepEqual(v.size.default, { kind: 'number', value: '3' });
    const merge = r.iface.overrideDiagnostics.map((d) => d.diagnostic.message);
    assert.equal(merge.length, 2, merge.join('\n'));
    assert.match(merge[0], /overridden default value is not compatible with the variable's type constraint number: a number is required/);
    assert.match(merge[1], /Missing base variable declaration to override: there is no variable named "ghost"/);
    // types check reports the merge errors on the override file
    writeFileSync(join(dir, 'main.tf'), 'module "m" {\n  source = "./mod"\n}\n');
    const out = await run(['types', 'check', '--json', 'mod'], dir);
    assert.equal(out.code, 1);
    const diags = (JSON.parse(out.stdout) as { diagnostics: { path: string; message: string }[] }).diagnostics;
    assert.deepEqual(diags.map((d) => [d.path, /not compatible|Missing base/.exec(d.message)?.[0]]), [
      [join('mod', 'override.tf'), 'not compatible'], [join('mod', 'override.tf'), 'Missing base'],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('var.NAME references: found under the cursor, resolved against the directory with unsaved text in place', async () => {
  const dir = tempDir('types-refs-');
  try {
    writeFileSync(join(dir, 'variables.tf'), 'variable "region" {\n  type        = string\n  default     = "eu-west-1"\n  description = "Where."\n}\n');
    writeFileSync(join(dir, 'variables_override.tf'), 'variable "region" {\n  nullable = false\n}\n');
    writeFileSync(join(dir, 'main.tf'), 'old on disk\n');
    const text = 'locals {\n  r = "${var.region}-x"\n  t = var.tags.team\n  n = local.r\n}\nvariable "tags" {\n  type = map(string)\n}\n';
    const file = parseHcl(text);
    const at = (needle: string, delta = 0) => {
      const off = text.indexOf(needle) + delta;
      const line = text.slice(0, off).split('\n').length - 1;
      return { line, character: off - text.lastIndexOf('\n', off - 1) - 1 };
    };
    const r1 = variableReferenceAt(file, at('var.region', 5).line, at('var.region', 5).character);
    assert.equal(r1?.name, 'region');
    assert.equal(text.slice(r1!.range.start.offset, r1!.range.end.offset), 'var.region');
    const r2 = variableReferenceAt(file, at('var.tags', 1).line, at('var.tags', 1).character);
    assert.equal(r2?.name, 'tags');
    assert.equal(variableReferenceAt(file, at('local.r', 2).line, at('local.r', 2).character), undefined);
    const iface = await variablesOfDirectory({ path: join(dir, 'main.tf'), text, file, summary: extractFile(file, text), override: false });
    const region = iface.variables.find((v) => v.name === 'region')!;
    assert.equal(region.typeText, 'string');
    assert.equal(region.description, 'Where.');
    assert.equal(region.nullable, false, 'the override file is merged');
    assert.equal(iface.variables.find((v) => v.name === 'tags')?.typeText, 'map(string)', 'the unsaved text is used, not the file on disk');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
