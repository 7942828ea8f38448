// Input nested 100,000 deep — a discovery document, a lock file, a CLI configuration — and strings of
// hundreds of kilobytes where a version belongs: no "Maximum call stack size exceeded", no stack
// trace, a clear error (or a safe result) and, for the lock file, the other directories of the run
// still locked. Long hostile strings are shortened in messages with an ellipsis and a length note.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashSigns, HostileRegistry, startHostileRegistry } from '../../support/hostile-registry';

let r: HostileRegistry;
before(async () => {
  r = await startHostileRegistry();
  r.packages.set('plain', { 'main.tf': 'variable "x" {}\n' });
});
after(async () => { await r.stop(); });

const N = 100_000;

test('mirror-modules: a discovery document with a value nested 100k deep is refused with a clear error naming the host, no crash', { timeout: 60_000 }, async () => {
  r.discoveryText = `{"modules.v1": "/v1/modules/", "deep.v1": ${'{"a":'.repeat(N)}1${'}'.repeat(N)}}`;
  try {
    const ws = r.workspace('deep-discovery', { 'main.tf': `module "p" {\n  source  = "${r.host}/hostile/plain/aws"\n  version = "1.0.0"\n}\n` });
    const run = await r.run(['mirror-modules', '--json', '--out', join(r.root, 'site-deep'), ws]);
    assert.deepEqual(crashSigns(run), [], run.stderr);
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.failed.length, 1, run.stdout);
    assert.match(report.failed[0].message, new RegExp(`service discovery for ${r.host.replace(/\./g, '\\.')} failed: invalid JSON from https://${r.host.replace(/\./g, '\\.')}/\\.well-known/terraform\\.json: JSON nested more than 512 levels deep`));
    assert.equal(typeof report.cliConfig, 'string', 'the report is complete');
  } finally {
    r.discoveryText = undefined;
  }
});

test('lock: a lock file with 100k nested blocks fails its directory with a few clear errors; the other directory of the run is locked', { timeout: 60_000 }, async () => {
  const bad = r.workspace('deep-lock', {
    'main.tf': 'terraform {\n  required_providers {\n    x = { source = "acme/x" }\n  }\n}\n',
    '.terraform.lock.hcl': `provider "registry.opentofu.org/acme/x" {\n${'b {\n'.repeat(N)}${'}\n'.repeat(N)}}\n`,
  });
  const good = r.workspace('fine-lock', { 'main.tf': 'variable "x" {}\n' });
  const run = await r.run(['lock', '--json', bad, good]);
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.ok(report.failed.length <= 11 && report.failed.length >= 1, `${report.failed.length} failures`);
  assert.ok(report.failed.every((f: { dir: string; step: string }) => f.dir === bad && f.step === 'config'));
  assert.match(report.failed[0].message, /\.terraform\.lock\.hcl:\d+: /);
  assert.match(report.failed[report.failed.length - 1].message, /\.terraform\.lock\.hcl: \d+ more errors$/);
  assert.deepEqual(report.lockFiles.map((f: { dir: string }) => f.dir).sort(), [bad, good].sort());
  assert.equal(report.lockFiles.find((f: { dir: string }) => f.dir === good).path, join(good, '.terraform.lock.hcl'), 'the other directory was locked (nothing to record: no providers)');
});

test('CLI configuration nested 100k deep (JSON and HCL forms): no crash; the command goes on', { timeout: 60_000 }, async () => {
  const dir = join(r.root, 'deep-rc');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'deep.tfrc.json');
  writeFileSync(json, `{"host": {"${r.host}": {"services": {"modules.v1": "/v1/modules/", "deep.v1": ${'['.repeat(N)}${']'.repeat(N)}}}}, "credentials": {"${r.host}": {"token": "x"}}}`);
  const hcl = join(dir, 'deep.tofurc');
  writeFileSync(hcl, `host "${r.host}" {\n  services = {\n    "deep.v1" = ${'{a = '.repeat(N)}1${'}'.repeat(N)}\n  }\n}\n`);
  for (const rc of [json, hcl]) {
    const run = await r.run(['discover', r.host, '--json'], { env: { TF_CLI_CONFIG_FILE: rc } });
    assert.deepEqual(crashSigns(run), [], `${rc}: ${run.stderr}`);
    assert.ok(run.code === 0 || /^tofu-registry: /.test(run.stderr), `${rc}: ${run.stderr}`);
  }
});

test('a version string of 400 kB is shortened in messages, with an ellipsis and how much was left out', { timeout: 60_000 }, async () => {
  const huge = `1.0.0-${'a'.repeat(400_000)}`;
  r.versions.set('plain', [huge]);
  try {
    const ws = r.workspace('long-version', { 'main.tf': `module "p" {\n  source  = "${r.host}/hostile/plain/aws"\n  version = "2.0.0"\n}\n` });
    const run = await r.run(['mirror-modules', '--json', '--out', join(r.root, 'site-long'), ws]);
    assert.deepEqual(crashSigns(run), [], run.stderr);
    const failed = JSON.parse(run.stdout).failed as Array<{ message: string }>;
    assert.equal(failed.length, 1);
    assert.ok(failed[0].message.length < 5000, `${failed[0].message.length} characters`);
    assert.match(failed[0].message, /no version matches 2\.0\.0; available: 1\.0\.0-a+… \(\d+ more characters\)$/);
    const human = await r.run(['mirror-modules', '--out', join(r.root, 'site-long'), ws]);
    assert.ok(human.stdout.length < 10_000 && human.stderr.length < 10_000, `${human.stdout.length} + ${human.stderr.length} characters`);
  } finally {
    r.versions.delete('plain');
  }
});
