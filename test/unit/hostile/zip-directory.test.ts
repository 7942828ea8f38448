// Hostile registry, class 2: zips with huge central directories and entries that share their data.
// A provider zip whose central directory lists a million entries (54 MB, every record naming the
// same local entry), correctly signed by the registry, fails `mirror` and `lock` at once with a
// clear error and a small peak RSS (the old code walked and kept every entry: minutes and
// gigabytes); the same directory as a module package fails `types check`; a provider zip whose
// entries overlap is refused rather than hashed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeSigningKey, PackageFiles } from '../../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';
import { assertNoCrash, mb, providerConfig, runCli, serveHostileProvider, writeZipDirectoryBomb } from '../../support/hostile-archives';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';

const RSS_LIMIT = 300 * 1024 * 1024;
const PLATFORM = 'linux_amd64';
let reg: TestRegistry;
let root: string;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  root = tempDir('hostile-zip-');
  const files = new PackageFiles(reg.server);
  const key = await makeSigningKey('hostile registry');
  const million = join(root, 'million.zip');
  await writeZipDirectoryBomb(million, { entries: 1_000_000, shared: true });
  await serveHostileProvider(reg, files, key, { namespace: 'evil', type: 'million', version: '1.0.0', platform: PLATFORM, zipPath: million });
  // 64 entries sharing one deflated 16 MiB of zeros: 1 GiB declared from a 16 KB zip
  const overlap = join(root, 'overlap.zip');
  await writeZipDirectoryBomb(overlap, { entries: 64, shared: true, sharedZeros: 16 * 1024 * 1024 });
  await serveHostileProvider(reg, files, key, { namespace: 'evil', type: 'overlap', version: '1.0.0', platform: PLATFORM, zipPath: overlap });
  reg.addModule({ namespace: 'evil', name: 'million', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/dl/million?archive=zip` }) });
  reg.addFile('/dl/million', readFileSync(million), 'application/zip');
});
after(async () => { await reg.stop(); });

const network = () => ['--no-cache', '--ca-file', reg.caCertPath];

test('mirror: a signed provider zip listing 1,000,000 entries fails at once with a clear error; peak RSS < 300 MB; nothing placed', { timeout: 120_000 }, async (t) => {
  const dir = providerConfig(root, 'mirror-million', `${reg.host}/evil/million`, '1.0.0');
  const out = join(tempDir('hostile-zip-out-'), 'mirror');
  const run = await runCli(['mirror', '--json', '--platform', PLATFORM, '--out', out, ...network(), dir]);
  t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.mirrored, []);
  assert.equal(report.failed.length, 1);
  assert.match(report.failed[0].message, /has more than 1024 entries \(its central directory lists 1000000\); refusing to hash it/);
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
  assert.ok(run.ms < 30_000, `took ${run.ms} ms`);
  assert.deepEqual(readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.zip')), [], 'no archive placed');
});

test('lock: the same provider fails with the reason; peak RSS < 300 MB; the lock file is not written', { timeout: 120_000 }, async (t) => {
  const dir = providerConfig(root, 'lock-million', `${reg.host}/evil/million`, '1.0.0');
  const run = await runCli(['lock', '--json', '--platform', PLATFORM, ...network(), dir]);
  t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
  assert.equal(assertNoCrash(run), undefined);
  assert.notEqual(run.code, 0);
  assert.match(run.stdout + run.stderr, /has more than 1024 entries \(its central directory lists 1000000\); refusing to hash it/);
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
  assert.ok(run.ms < 30_000, `took ${run.ms} ms`);
  assert.ok(!existsSync(join(dir, '.terraform.lock.hcl')));
});

test('types check: a module zip listing 1,000,000 entries is refused before its entries are read; peak RSS < 300 MB', { timeout: 120_000 }, async (t) => {
  const ws = join(root, 'ws-million');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'main.tf'), `module "m" {\n  source  = "${reg.host}/evil/million/aws"\n  version = "1.0.0"\n}\n`);
  const run = await runCli(['types', 'check', '--ca-file', reg.caCertPath, '--cache-dir', join(root, 'cache-million'), ws]);
  t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
  assert.equal(assertNoCrash(run), undefined);
  assert.match(run.stdout, /warning: Cannot check the inputs of module "m": refusing to extract the module package from https:\/\/127\.0\.0\.1:\d+\/dl\/million: it has more than 20000 entries \(its central directory lists 1000000\)/);
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
  assert.ok(run.ms < 30_000, `took ${run.ms} ms`);
});

test('mirror: a signed provider zip whose entries share one compressed stream is refused, not hashed', { timeout: 120_000 }, async (t) => {
  const dir = providerConfig(root, 'mirror-overlap', `${reg.host}/evil/overlap`, '1.0.0');
  const out = join(tempDir('hostile-zip-out-'), 'mirror');
  const run = await runCli(['mirror', '--json', '--platform', PLATFORM, '--out', out, ...network(), dir]);
  t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.mirrored, []);
  assert.match(report.failed[0].message, /has overlapping entries \(two entries share the data at offset 0\); refusing to hash it/);
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
});
