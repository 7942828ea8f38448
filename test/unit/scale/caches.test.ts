// Issue 23: the facts a monorepo run asks for again and again are kept once — a module version's
// download location (memory and disk, like version lists; a stale one asked again once), the CA
// bundle git is given (once per engine) — and a configuration walk that stops at its cap says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { scanConfigDirs } from '../../../src/engine/mirror/requirements';
import { engineCaCertificates } from '../../../src/engine/modulepkg/fetch';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';
import { tarGz } from '../types/archives';

let reg: TestRegistry;
let work: string;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  work = tempDir('tofu-registry-scale-caches-');
});
after(async () => { await reg.stop(); });

test('download locations: asked once per (module, version) across engines sharing a disk cache; a cached one that no longer downloads is asked again once', async () => {
  let where = 'first';
  reg.addModule({ namespace: 'acme', name: 'moved', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/${where}/moved.tar.gz` }) });
  reg.addFile('/archives/first/moved.tar.gz', tarGz([{ name: 'main.tf', data: 'variable "a" {}\n' }]), 'application/gzip');
  const cacheDir = join(work, 'cache');
  const addr = `${reg.host}/acme/moved/aws`;
  const one = new Engine({ env: {}, caFiles: [reg.caCertPath], cacheDir });
  reg.server.resetLog();
  for (let i = 0; i < 3; i++) assert.match((await one.resolveDownloadLocation(addr, '1.0.0')).location, /\/first\//);
  await one.dispose();
  const two = new Engine({ env: {}, caFiles: [reg.caCertPath], cacheDir });
  assert.match((await two.resolveDownloadLocation(addr, '1.0.0')).location, /\/first\//, 'from the disk cache');
  assert.equal(reg.server.count('/v1/modules/acme/moved/aws/1.0.0/download'), 1, 'one request for both engines');
  // The registry moved the package (a signed URL expired): the cached location fails, a fresh one is asked for.
  where = 'second';
  reg.addFile('/archives/second/moved.tar.gz', tarGz([{ name: 'main.tf', data: 'variable "b" {}\n' }]), 'application/gzip');
  rmSync(join(cacheDir, 'modules'), { recursive: true, force: true });
  reg.addFile('/archives/first/moved.tar.gz', Buffer.from('gone'), 'text/plain');
  reg.server.resetLog();
  const resolved = await new ModuleResolver({ engine: two, cacheDir }).resolve({ callerDir: work, name: 'm', source: addr, version: '1.0.0' });
  assert.deepEqual(resolved.iface.variables.map((v) => v.name), ['b']);
  // (the pin is selected from the version list, as tofu init selects it; the location comes from the disk cache)
  assert.deepEqual(reg.server.requests.map((r) => r.path), ['/v1/modules/acme/moved/aws/versions', '/archives/first/moved.tar.gz', '/v1/modules/acme/moved/aws/1.0.0/download', '/archives/second/moved.tar.gz']);
  await two.dispose();
});

test('a module version is resolved once whatever the callers and constraints that select it', async () => {
  reg.addModule({ namespace: 'acme', name: 'shared', system: 'aws', versions: ['1.0.0', '1.2.0', '2.0.0'] });
  reg.addFile('/archives/acme/shared/aws/1.2.0.tar.gz', tarGz([{ name: 'main.tf', data: 'variable "x" {}\n' }]), 'application/gzip');
  const engine = new Engine({ env: {}, caFiles: [reg.caCertPath] });
  const resolver = new ModuleResolver({ engine, cacheDir: join(work, 'cache-shared') });
  const source = `${reg.host}/acme/shared/aws`;
  reg.server.resetLog();
  const results = await Promise.all(['~> 1.0', '>= 1.0, < 2.0', '1.2.0', '= 1.2.0', '~> 1.1'].flatMap((version, i) =>
    [0, 1, 2].map((j) => resolver.resolve({ callerDir: join(work, `caller-${i}-${j}`), name: `call${j}`, source, version }))));
  assert.equal(new Set(results.map((r) => r.dir)).size, 1);
  assert.equal(new Set(results.map((r) => r.iface)).size, 1, 'one loaded interface');
  assert.equal(reg.server.count('/v1/modules/acme/shared/aws/1.2.0/download'), 1);
  assert.equal(reg.server.count('/archives/acme/shared/aws/1.2.0.tar.gz'), 1);
  assert.equal(reg.server.count('/v1/modules/acme/shared/aws/versions'), 1);
  await engine.dispose();
});

test('the CA bundle given to git is read once per engine', async () => {
  const ca = join(work, 'ca.pem');
  copyFileSync(reg.caCertPath, ca);
  const engine = new Engine({ env: {}, caFiles: [ca] });
  const first = engineCaCertificates(engine);
  rmSync(ca);
  assert.equal(engineCaCertificates(engine), first, 'not read again (the file is gone)');
  assert.throws(() => engineCaCertificates(new Engine({ env: {}, caFiles: [ca] })), /cannot read CA certificate file/);
  await engine.dispose();
});

test('scanConfigDirs: a walk past maxDirs stops and says so (and how to raise it); under it, nothing is said', async () => {
  const root = join(work, 'walk');
  for (let i = 0; i < 7; i++) {
    mkdirSync(join(root, `d${i}`), { recursive: true });
    writeFileSync(join(root, `d${i}`, 'main.tf'), '');
  }
  const capped = await scanConfigDirs([root], { maxDirs: 3 });
  assert.equal(capped.dirs.length, 3);
  assert.equal(capped.truncated, true);
  assert.deepEqual(capped.warnings, [`${root}: stopped after 3 configuration directories (the limit set by --max-dirs / tofuRegistry.maxConfigDirs); directories past it were not read`]);
  const whole = await scanConfigDirs([root], { maxDirs: 7 });
  assert.deepEqual({ n: whole.dirs.length, truncated: whole.truncated, warnings: whole.warnings }, { n: 7, truncated: false, warnings: [] });
  // deeper than 12 levels: not searched, and said
  let deep = root;
  for (let i = 0; i < 14; i++) deep = join(deep, `l${i}`);
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(deep, 'main.tf'), '');
  const tooDeep = await scanConfigDirs([root]);
  assert.equal(tooDeep.truncated, false);
  assert.match(tooDeep.warnings.join('\n'), /1 directory more than 12 levels deep not searched/);
  assert.ok(existsSync(deep));
});
