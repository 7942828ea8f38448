// `lock --net-mirror URL` and `--fs-mirror DIR`, as `tofu providers lock -net-mirror/-fs-mirror`:
// the package's own h1: (as tofu init records it), plus what the mirror vouches for — checked
// against the h1: the real tofu 1.9.4 recorded for the same zip. Cache entries of one source never
// answer for another.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as yauzl from 'yauzl';
import { lockProviders, readLockFile } from '../../../src/engine/lock';
import { mirrorProviders } from '../../../src/engine/mirror';
import { tempDir } from '../../support/temp';
import { serveStatic } from '../mirror/fixture';
import { KNOWN, LockFixture, startLockFixture } from './fixture';

let fx: LockFixture;
let out: string;
let site: Awaited<ReturnType<typeof serveStatic>>;
// What tofu 1.9.4 recorded for example/fake 1.1.0 on linux_amd64 (one-platform/expected).
const TOFU_H1 = 'h1:oAFNKhxQ1qN7nnRNn40p8R/8R4D2QS2RU1nJo+7riC8=';
const ZH = 'zh:8afb60b3798e30ccb06d66273c5361ba6f6db8014e143d1c1ab55871f8987632';
const config = () => fx.config({ 'main.tf': readFileSync(join(KNOWN, 'one-platform', 'main.tf'), 'utf8') });
const hashesOf = (dir: string) => readLockFile(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).providers[0].hashes;

before(async () => {
  fx = await startLockFixture();
  await fx.serveKnownAnswers();
  out = tempDir('lock-src-mirror-');
  const m = await mirrorProviders({ engine: fx.engine(), dirs: [config()], out, platforms: ['linux_amd64'] });
  assert.deepEqual(m.failed, []);
  site = await serveStatic(out);
});
after(async () => {
  await site.server.stop();
  await fx.stop();
});

test('--net-mirror: the package\'s h1: plus the mirror\'s hashes it matched; nothing from the origin registry', async () => {
  const dir = config();
  const cacheDir = tempDir('lock-src-cache-');
  fx.reg.server.resetLog();
  const r = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [dir], platforms: ['linux_amd64'], source: { kind: 'net-mirror', url: site.url } });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(hashesOf(dir), [TOFU_H1, ZH]);
  assert.deepEqual(r.lockFiles[0].providers[0].platforms, ['linux_amd64']);
  assert.equal(fx.reg.server.requests.length, 0, 'the origin registry is not asked');
  assert.ok(site.server.requests.some((x) => x.path.endsWith('linux_amd64.zip')));

  // The same cache, now from the origin: the mirror's entry does not answer for it (all zh: of SHA256SUMS appear).
  const origin = config();
  const o = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [origin], platforms: ['linux_amd64'] });
  assert.deepEqual(o.failed, []);
  assert.equal(hashesOf(origin).filter((h) => h.startsWith('zh:')).length, 3);
  assert.equal(o.archivesDownloaded, 1);
});

test('--fs-mirror: packed and unpacked layouts record the h1: tofu records, and nothing else', async () => {
  const packed = config();
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [packed], platforms: ['linux_amd64'], source: { kind: 'fs-mirror', dir: out } });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(hashesOf(packed), [TOFU_H1]);

  // The unpacked layout: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ with the zip's files.
  const fsMirror = tempDir('lock-src-fs-');
  const target = join(fsMirror, fx.reg.host, 'example', 'fake', '1.1.0', 'linux_amd64');
  mkdirSync(target, { recursive: true });
  const zip = await yauzl.openPromise(join(KNOWN, 'providers/example/fake/1.1.0/terraform-provider-fake_1.1.0_linux_amd64.zip'), { lazyEntries: true });
  for await (const e of zip.eachEntry()) await pipeline(await zip.openReadStreamPromise(e), createWriteStream(join(target, e.fileName)));
  zip.close();
  const unpacked = config();
  const u = await lockProviders({ engine: fx.lockEngine(), dirs: [unpacked], platforms: ['linux_amd64'], source: { kind: 'fs-mirror', dir: fsMirror } });
  assert.deepEqual(u.failed, []);
  assert.deepEqual(hashesOf(unpacked), [TOFU_H1]);

  const missing = await lockProviders({ engine: fx.lockEngine(), dirs: [config()], platforms: ['darwin_arm64'], source: { kind: 'fs-mirror', dir: fsMirror } });
  assert.deepEqual(missing.failed.map((f) => f.step), ['metadata']);
  assert.match(missing.failed[0].message, /has no darwin_arm64 package of .*example\/fake 1\.1\.0/);
});
