// `tofu-registry inspect`: the JSON contract, human output, exit codes, .tofu precedence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../../../src/cli/common';
import { runInspect, summaryToJson } from '../../../src/cli/inspect';
import { extractFile, parseConfig } from '../../../src/engine/config';
import { tempDir } from '../../support/temp';

/** Runs the command in-process the way src/cli.ts dispatches it (UsageError → exit 2). */
async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => { stdout += t; }, stderr: (t: string) => { stderr += t; }, env: {}, cwd };
  let code: number;
  try {
    code = await runInspect(args.slice(1), io);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    stderr += `tofu-registry inspect: ${err.message}\n`;
    code = 2;
  }
  return { code, stdout, stderr };
}

function fixture(): string {
  const dir = tempDir('tofu-inspect-');
  writeFileSync(path.join(dir, 'main.tf'), [
    'module "vpc" {',
    '  source  = "terraform-aws-modules/vpc/aws"',
    '  version = "~> 5.0"',
    '}',
    '',
    'module "dyn" {',
    '  source = "./m/${var.x}"',
    '}',
    '',
    'variable "a" {',
    '  type = list(string)',
    '}',
    '',
    'variable "b" {',
    '  type = "string"',
    '}',
    '',
    'variable "c" {}',
    '',
  ].join('\n'));
  writeFileSync(path.join(dir, 'versions.tf'), 'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws", version = ">= 5.0" }\n    old = "~> 1.0"\n  }\n}\n');
  writeFileSync(path.join(dir, 'broken.tf'), 'module "half" {\n  source = "hashicorp/con\n');
  writeFileSync(path.join(dir, 'twin.tf'), 'variable "from_tf" {}\n');
  writeFileSync(path.join(dir, 'twin.tofu'), 'variable "from_tofu" {}\n');
  mkdirSync(path.join(dir, '.terraform', 'modules'), { recursive: true });
  writeFileSync(path.join(dir, '.terraform', 'modules', 'x.tf'), 'module "hidden" {}\n');
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'sub', 'a.tf.json'), '{"module": {"j": {"source": "a/b/c", "version": "1.0.0"}}}');
  return dir;
}

test('inspect --json: exact shape, literals vs expressions, nulls, ranges, diagnostics, exit 0', async () => {
  const dir = fixture();
  try {
    const r = await run(['inspect', '--json', '.'], dir);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(doc), ['files']);
    assert.deepEqual(doc.files.map((f: { path: string }) => f.path), ['broken.tf', 'main.tf', path.join('sub', 'a.tf.json'), 'twin.tofu', 'versions.tf']);
    const main = doc.files[1];
    assert.deepEqual(Object.keys(main), ['path', 'modules', 'requiredProviders', 'variables', 'diagnostics']);
    assert.deepEqual(main.modules, [
      { name: 'vpc', source: 'terraform-aws-modules/vpc/aws', version: '~> 5.0', range: { start: { line: 0, character: 0 }, end: { line: 3, character: 1 } } },
      { name: 'dyn', source: { expression: '"./m/${var.x}"' }, version: null, range: { start: { line: 5, character: 0 }, end: { line: 7, character: 1 } } },
    ]);
    assert.deepEqual(main.variables, [
      { name: 'a', type: { expression: 'list(string)' } },
      { name: 'b', type: 'string' },
      { name: 'c', type: null },
    ]);
    assert.deepEqual(main.diagnostics, []);
    assert.deepEqual(doc.files[4].requiredProviders, [
      { name: 'aws', source: 'hashicorp/aws', version: '>= 5.0' },
      { name: 'old', source: null, version: '~> 1.0' },
    ]);
    const broken = doc.files[0];
    assert.equal(broken.modules[0].source, 'hashicorp/con');
    assert.ok(broken.diagnostics.length >= 1);
    assert.deepEqual(Object.keys(broken.diagnostics[0]), ['message', 'range']);
    assert.equal(doc.files[2].modules[0].version, '1.0.0');
    assert.deepEqual(doc.files[3].variables, [{ name: 'from_tofu', type: null }]);
    assert.match(r.stderr, /twin\.tf: ignored, twin\.tofu takes precedence/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inspect --json writes exactly what JSON.stringify(…, null, 2) writes of the documented objects', async () => {
  const dir = fixture();
  writeFileSync(path.join(dir, 'outputs.tf'), 'output "nothing_to_report" {\n  value = 1\n}\n'); // an object with every list empty
  // Strings JSON must escape, in every place a string is written: paths, names, literals, expressions, messages.
  writeFileSync(path.join(dir, 'tricky (q) é.tf'), [
    'module "quo\\"te" {',
    '  source  = "a\\tb\\n\\u2028\\u0001 \\\\ \\"x\\" é 😀"',
    '  version = <<-EOT',
    '    multi',
    '      line',
    '    EOT',
    '}',
    'variable "v" { type = map(object({ a = optional(string, "\\"") })) }',
    'terraform {\n  required_providers {\n    p = { source = "h/p", version = var.x }\n  }\n}',
    'module "bad" {',
    '  source = "x" "y"',
    '}',
    '',
  ].join('\n'));
  try {
    const r = await run(['inspect', '--json', '.'], dir);
    assert.equal(r.code, 0, r.stderr);
    const shown = (JSON.parse(r.stdout) as { files: { path: string }[] }).files.map((f) => f.path);
    assert.ok(shown.includes('tricky (q) é.tf'), shown.join());
    const files = shown.map((p) => {
      const text = readFileSync(path.join(dir, p), 'utf8');
      return summaryToJson(p, extractFile(parseConfig(text, p), text));
    });
    const tricky = files[shown.indexOf('tricky (q) é.tf')] as { modules: { source: string }[]; diagnostics: unknown[] };
    assert.equal(tricky.modules[0].source, 'a\tb\n\u2028\u0001 \\ "x" é 😀');
    assert.ok(tricky.diagnostics.length > 0);
    assert.equal(r.stdout, JSON.stringify({ files }, null, 2) + '\n');
    mkdirSync(path.join(dir, 'empty'));
    const empty = await run(['inspect', '--json', 'empty'], dir);
    assert.equal(empty.stdout, JSON.stringify({ files: [] }, null, 2) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inspect (human): readable summary, shadowed file noted; explicit file always inspected', async () => {
  const dir = fixture();
  try {
    const r = await run(['inspect', dir], dir);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /module "vpc"\s+source "terraform-aws-modules\/vpc\/aws"\s+version "~> 5.0"/);
    assert.match(r.stdout, /provider old .*legacy/);
    assert.match(r.stdout, /error 2:\d+ /);
    assert.match(r.stdout, /twin\.tf: ignored/);
    const explicit = await run(['inspect', '--json', 'twin.tf'], dir);
    assert.deepEqual(JSON.parse(explicit.stdout).files[0].variables, [{ name: 'from_tf', type: null }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inspect: usage errors exit 2, unreadable paths exit 1 with one line', async () => {
  const dir = fixture();
  try {
    const none = await run(['inspect'], dir);
    assert.equal(none.code, 2);
    assert.equal(none.stderr.trim().split('\n').length, 1);
    const bad = await run(['inspect', '--bogus', '.'], dir);
    assert.equal(bad.code, 2);
    const missing = await run(['inspect', '--json', 'nope'], dir);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim().split('\n').length, 1);
    assert.match(missing.stderr, /nope/);
    assert.match(JSON.parse(missing.stdout).error.message, /nope/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inspect as a real process: exit code and JSON on stdout; usage error exits 2', () => {
  const cli = path.resolve(__dirname, '../../../src/cli.js');
  const demo = path.resolve(__dirname, '../../../../examples/demo');
  const r = spawnSync(process.execPath, [cli, 'inspect', '--json', demo], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  const modules = doc.files.flatMap((f: { modules: { source: unknown }[] }) => f.modules.map((m) => m.source));
  assert.ok(modules.includes('tofu.demo.internal/platform/network/aws'));
  assert.ok(modules.includes('hashicorp/consul/aws'));
  assert.ok(doc.files.every((f: { diagnostics: unknown[] }) => f.diagnostics.length === 0));
  const usage = spawnSync(process.execPath, [cli, 'inspect'], { encoding: 'utf8' });
  assert.equal(usage.status, 2);
  const missing = spawnSync(process.execPath, [cli, 'inspect', path.join(demo, 'no-such-dir')], { encoding: 'utf8' });
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr.trim().split('\n').length, 1);
});

test('a reader that closes the pipe early (… | head) ends inspect quietly: exit 0, nothing on stderr', async () => {
  const dir = tempDir('tofu-inspect-pipe-');
  try {
    for (let i = 0; i < 400; i++) writeFileSync(path.join(dir, `f${String(i).padStart(3, '0')}.tf`), 'variable "v" { type = string }\n'.repeat(20));
    const cli = path.resolve(__dirname, '../../../src/cli.js');
    const child = spawn(process.execPath, [cli, 'inspect', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => { stderr += c; });
    child.stdout.once('data', () => child.stdout.destroy()); // what head does after its lines
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bundled CLI: each command runs from its own bundle (dist/cli-*.js) and its usage errors exit 2', () => {
  const cli = path.resolve(__dirname, '../../../../dist/cli.js');
  assert.ok(existsSync(cli), 'dist/cli.js is not built: run npm run build (npm test and npm run test:unit do)');
  for (const command of ['inspect', 'discover', 'versions', 'resolve', 'mirror', 'mirror-modules', 'hash', 'lock', 'types', 'outdated']) {
    const r = spawnSync(process.execPath, [cli, command, '--no-such-flag'], { encoding: 'utf8' });
    assert.equal(r.status, 2, `${command}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^tofu-registry ${command}: `), command);
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${command}: no stack trace`);
  }
  const unknown = spawnSync(process.execPath, [cli, 'constructor'], { encoding: 'utf8' });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command 'constructor'/);
});
