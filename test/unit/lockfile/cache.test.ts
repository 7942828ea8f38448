// The disk cache of package hashes: survives a new instance (a new CLI process), keyed by source,
// and entries are checked when read — a damaged or foreign file is ignored and removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LockHashCache, PlatformHashes } from '../../../src/engine/lock';
import { tempDir } from '../../support/temp';

const entry: PlatformHashes = { h1: ['h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='], zh: [`zh:${'a'.repeat(64)}`], size: 10, via: 'download' };

test('stored entries are read back by a new instance, per source; damaged files are dropped', async () => {
  const dir = tempDir('lock-cache-');
  const a = new LockHashCache(dir);
  await a.storePlatform('origin', 'h/ns/t', '1.0.0', 'linux_amd64', entry);
  await a.storeSums('origin', 'h/ns/t', '1.0.0', { document: `${'a'.repeat(64)}  t_1.0.0_linux_amd64.zip\n`, keyId: 'ABCD' });
  const b = new LockHashCache(dir);
  assert.deepEqual(await b.platform('origin', 'h/ns/t', '1.0.0', 'linux_amd64'), entry);
  assert.equal((await b.sums('origin', 'h/ns/t', '1.0.0'))?.keyId, 'ABCD');
  assert.equal(await b.platform('net-mirror https://m.example/', 'h/ns/t', '1.0.0', 'linux_amd64'), undefined, 'another source never answers');
  assert.equal(await b.platform('origin', 'h/ns/t', '1.0.1', 'linux_amd64'), undefined);

  // Damage the stored entry: a plausible JSON document with a hash that is not one.
  const files = readdirSync(join(dir, 'provider-hashes'));
  assert.equal(files.length, 1);
  const file = join(dir, 'provider-hashes', files[0]);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  doc.value.h1 = ['h1:not-a-hash'];
  writeFileSync(file, JSON.stringify(doc));
  const c = new LockHashCache(dir);
  assert.equal(await c.platform('origin', 'h/ns/t', '1.0.0', 'linux_amd64'), undefined);
  assert.deepEqual(readdirSync(join(dir, 'provider-hashes')), [], 'the damaged entry was removed');
  // Without a directory the cache still works, in memory, for one instance.
  const mem = new LockHashCache();
  await mem.storePlatform('origin', 'h/ns/t', '1.0.0', 'linux_amd64', entry);
  assert.deepEqual(await mem.platform('origin', 'h/ns/t', '1.0.0', 'linux_amd64'), entry);
});
