// Hostile registry, minor: versions whose file names in OUT collide. Module version "1.0.0-x.tar.gz"
// keeps its `download` in the directory "1.0.0-x.tar.gz/", which is version "1.0.0-x"'s archive
// (a collision on every file system); "1.0.0-RC1" and "1.0.0-rc1" are one file on macOS and
// Windows. Each such version is refused with a message naming the other; the rest is mirrored
// and the output stays valid.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRelease, makeSigningKey, PackageFiles, providerDefinition } from '../../support/provider-packages';
import { readSite } from '../../support/module-site';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';
import { tarGz } from '../types/archives';
import { assertNoCrash, providerConfig, runCli } from '../../support/hostile-archives';

let reg: TestRegistry;
let root: string;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  root = tempDir('hostile-names-');
  for (const [name, versions] of [['tgz', ['1.0.0-x', '1.0.0-x.tar.gz']], ['case', ['1.0.0-RC1', '1.0.0-rc1']]] as const) {
    reg.addModule({ namespace: 'evil', name, system: 'aws', versions: [...versions], location: (v) => ({ kind: 'json', location: `${reg.origin}/archives/${name}/${v}.tgz` }) });
    for (const v of versions) reg.addFile(`/archives/${name}/${v}.tgz`, tarGz([{ name: 'main.tf', data: `# ${name} ${v}\n` }]), 'application/gzip');
  }
  const files = new PackageFiles(reg.server);
  const key = await makeSigningKey('hostile registry');
  const releases = [];
  for (const version of ['1.0.0-RC1', '1.0.0-rc1']) {
    releases.push(await buildRelease(join(root, 'packages'), { namespace: 'evil', type: 'case', version, platforms: ['linux_amd64'] }, key));
  }
  for (const r of releases) files.add(r);
  reg.addProvider(providerDefinition(files, releases, [key]));
});
after(async () => { await reg.stop(); });

test('mirror-modules: of two versions whose site files collide, one is mirrored and the other refused with the reason', { timeout: 60_000 }, async () => {
  const ws = join(root, 'ws');
  mkdirSync(ws, { recursive: true });
  const call = (label: string, name: string, version: string) => `module "${label}" {\n  source  = "${reg.host}/evil/${name}/aws"\n  version = "${version}"\n}\n`;
  writeFileSync(join(ws, 'main.tf'), call('a', 'tgz', '1.0.0-x') + call('b', 'tgz', '1.0.0-x.tar.gz') + call('c', 'case', '1.0.0-RC1') + call('d', 'case', '1.0.0-rc1'));
  const out = join(tempDir('hostile-names-out-'), 'site');
  const run = await runCli(['mirror-modules', '--json', '--no-cache', '--ca-file', reg.caCertPath, '--out', out, ws]);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout);
  for (const [name, versions] of [['tgz', ['1.0.0-x', '1.0.0-x.tar.gz']], ['case', ['1.0.0-RC1', '1.0.0-rc1']]] as const) {
    const module = `${reg.host}/evil/${name}/aws`;
    const mirrored = report.mirrored.filter((m: { module: string }) => m.module === module).map((m: { version: string }) => m.version);
    const failed = report.failed.filter((f: { module: string }) => f.module === module);
    assert.equal(mirrored.length, 1, `${name}: one version mirrored`);
    assert.equal(failed.length, 1, `${name}: one version refused`);
    const [other] = versions.filter((v: string) => v !== failed[0].version);
    assert.deepEqual(mirrored, [other]);
    assert.equal(failed[0].step, 'path');
    assert.match(failed[0].message, new RegExp(`collide with those of version ${other.replace(/[.+]/g, '\\$&')} \\(compared ignoring case`));
  }
  assert.deepEqual((await readSite(out)).problems, []);
});

test('mirror: of two provider versions whose archive names differ only in case, one is mirrored and the other refused', { timeout: 60_000 }, async () => {
  const one = providerConfig(root, 'upper', `${reg.host}/evil/case`, '1.0.0-RC1');
  const two = providerConfig(root, 'lower', `${reg.host}/evil/case`, '1.0.0-rc1');
  const out = join(tempDir('hostile-names-out-'), 'mirror');
  const run = await runCli(['mirror', '--json', '--platform', 'linux_amd64', '--no-cache', '--ca-file', reg.caCertPath, '--out', out, one, two]);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.mirrored.length, 1);
  assert.equal(report.failed.length, 1);
  assert.equal(report.failed[0].step, 'path');
  assert.match(report.failed[0].message, new RegExp(`terraform-provider-case_${report.failed[0].version}_linux_amd64\\.zip\\) collide with those of version ${report.mirrored[0].version} \\(compared ignoring case`));
});
