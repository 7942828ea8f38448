// Hashing on worker threads (providerpkg/hash-pool.ts behind the unchanged h1OfZip / hashPackage /
// sha256File): the same known answers as in this thread, errors and cancellation carried across,
// the in-thread fallback when no worker can start, and the worker built for the bundles
// (dist/hash-worker.js, started by dist/cli.js) working on its own.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configureHashing, h1OfZip, hashingStats, hashPackage, sha256File } from '../../../src/engine/providerpkg/hash';
import { h1OfZipHere } from '../../../src/engine/providerpkg/hash-core';
import { tempDir } from '../../support/temp';
import { writeZip } from '../../support/zip-writer';

const dir = tempDir('hash-workers-');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const DIST = join(__dirname, '..', '..', '..', '..', 'dist');
after(() => configureHashing({}));

/** A 3 MiB package: a stored binary, a deflated file, a directory entry; and its h1 by hand. */
async function bigPackage(name: string): Promise<{ path: string; h1: string; zh: string }> {
  const path = join(dir, name);
  const bin = Buffer.alloc(3 << 20);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 31 + (i >> 11)) & 0xff;
  const readme = Buffer.from('# provider\n'.repeat(1000));
  await writeZip(path, [
    { name: 'terraform-provider-big_v1.0.0', data: bin, method: 0 },
    { name: 'docs/', data: Buffer.alloc(0) },
    { name: 'README.md', data: readme, method: 8 },
  ]);
  const lines = [[readme, 'README.md'], [Buffer.alloc(0), 'docs/'], [bin, 'terraform-provider-big_v1.0.0']] as const;
  const text = lines.map(([content, n]) => `${sha(content)}  ${n}\n`).join('');
  return { path, h1: 'h1:' + createHash('sha256').update(text).digest('base64'), zh: 'zh:' + sha(readFileSync(path)) };
}

test('hash workers: large files are hashed on worker threads, with the known answers', async () => {
  await configureHashing({ size: 2 });
  const pkg = await bigPackage('big.zip');
  const before = hashingStats().completed;
  const [h1, both, file] = await Promise.all([h1OfZip(pkg.path), hashPackage(pkg.path), sha256File(pkg.path)]);
  assert.equal(h1, pkg.h1);
  assert.deepEqual(both, { h1: pkg.h1, zh: pkg.zh, size: readFileSync(pkg.path).length });
  assert.equal('zh:' + file.sha256, pkg.zh);
  const stats = hashingStats();
  assert.equal(stats.completed - before, 3, 'all three ran on workers');
  assert.ok(stats.workers >= 1 && stats.workers <= 2);
  assert.equal(await h1OfZipHere(pkg.path), pkg.h1, 'the in-thread implementation agrees');
});

test('hash workers: errors come back as the in-thread error; a cancelled task stops its worker', async () => {
  await configureHashing({ size: 1 });
  const junk = join(dir, 'junk.zip');
  writeFileSync(junk, Buffer.alloc(2 << 20, 1));
  const here = await h1OfZipHere(junk).then(() => 'no error', (e: Error) => e.message);
  await assert.rejects(h1OfZip(junk), (e: Error) => e.message === here);
  await assert.rejects(h1OfZip(junk, undefined, 1000), /./);

  const pkg = await bigPackage('cancel.zip');
  const ac = new AbortController();
  const pending = h1OfZip(pkg.path, ac.signal);
  ac.abort();
  await assert.rejects(pending, (e: Error) => e.name === 'AbortError');
  assert.equal(await h1OfZip(pkg.path), pkg.h1, 'a new worker takes the next task');
});

test('hash workers: when no worker can start, the same answers come from this thread', async () => {
  await configureHashing({ workerFile: join(dir, 'no-such-worker.js') });
  const pkg = await bigPackage('fallback.zip');
  assert.deepEqual(await hashPackage(pkg.path), { h1: pkg.h1, zh: pkg.zh, size: readFileSync(pkg.path).length });
  assert.equal(hashingStats().unavailable, true);
  assert.equal(await h1OfZip(pkg.path), pkg.h1);
  await configureHashing({ size: 0 }); // TOFU_REGISTRY_HASH_WORKERS=0 does the same
  assert.equal(await h1OfZip(pkg.path), pkg.h1);
  assert.equal(hashingStats().completed, 0);
});

test('hash workers: the bundles\' worker (dist/hash-worker.js) serves the pool, and dist/cli.js hash uses it and exits',
  async () => {
    assert.ok(existsSync(join(DIST, 'hash-worker.js')), 'dist/ is not built: run npm run build (npm test and npm run test:unit do)');
    await configureHashing({ workerFile: join(DIST, 'hash-worker.js') });
    const pkg = await bigPackage('dist.zip');
    assert.deepEqual(await hashPackage(pkg.path), { h1: pkg.h1, zh: pkg.zh, size: readFileSync(pkg.path).length });
    assert.equal(hashingStats().completed, 1);
    const cli = spawnSync(process.execPath, [join(DIST, 'cli.js'), 'hash', '--json', pkg.path], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), [{ path: pkg.path, h1: pkg.h1, zh: pkg.zh }]);
  });
