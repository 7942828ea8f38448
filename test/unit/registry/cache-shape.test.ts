// The on-disk cache (discovery, module and provider version lists) with files that are valid JSON
// of the wrong shape (hand-edited, written by an older version) or not JSON at all: the entry is
// ignored and removed, and the answer is fetched again — exactly one request, no TypeError.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CachedLookup } from '../../../src/engine/discovery/cache';
import { isDiscoveryValue, isModuleVersionList, isProviderVersionList } from '../../../src/engine/discovery/shapes';
import { tempDir, testEngine, withRegistry } from '../../support/registry-helpers';

const temps: Array<{ remove: () => void }> = [];
after(() => temps.forEach((t) => t.remove()));
function freshDir(): string {
  const t = tempDir('tofu-registry-cache-shape-');
  temps.push(t);
  return t.path;
}

/** The single cache file of one kind, and its parsed content. */
function onlyFile(dir: string): { path: string; doc: { key: string; v: number; expires: number; value: unknown } } {
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  assert.equal(names.length, 1, names.join(', '));
  const path = join(dir, names[0]);
  return { path, doc: JSON.parse(readFileSync(path, 'utf8')) };
}

test('disk cache: a version list of the wrong shape is ignored, removed and fetched again (one request each)', () => withRegistry({}, async (reg) => {
  const cacheDir = freshDir();
  const mod = `${reg.host}/acme/network/aws`;
  const prov = `${reg.host}/acme/widget`;
  const first = testEngine(reg, { cacheDir });
  const m1 = await first.listModuleVersions(mod);
  const p1 = await first.listProviderVersions(prov);
  await first.dispose();
  const modFile = onlyFile(join(cacheDir, 'module-versions'));
  const provFile = onlyFile(join(cacheDir, 'provider-versions'));

  // Each corruption keeps the envelope (key, version, expiry) valid: only the value is wrong.
  const badModules: unknown[] = [
    { versions: '1.0.0' }, // hand-edited
    ['1.2.3', '1.0.0'], // an older layout: the bare list
    { ...m1, versions: [1, 2] },
    null,
  ];
  const badProviders: unknown[] = [
    { ...p1, versions: ['1.0.0'] }, // strings instead of {version, protocols, platforms}
    { ...p1, versions: [{ version: '1.0.0', protocols: [], platforms: [{ os: 'linux' }] }] },
    { ...p1, sources: 'direct' },
  ];
  const { cached: _m, ...mWant } = m1;
  const { cached: _p, ...pWant } = p1;
  for (const [file, bads, path, read, want] of [
    [modFile, badModules, `/v1/modules/acme/network/aws/versions`, (e: ReturnType<typeof testEngine>) => e.listModuleVersions(mod), mWant],
    [provFile, badProviders, `/v1/providers/acme/widget/versions`, (e: ReturnType<typeof testEngine>) => e.listProviderVersions(prov), pWant],
  ] as const) {
    for (const bad of bads) {
      writeFileSync(file.path, JSON.stringify({ ...file.doc, value: bad }));
      const before = reg.server.count(path);
      const engine = testEngine(reg, { cacheDir });
      const got = await read(engine);
      await engine.dispose();
      const { cached, ...rest } = got;
      assert.equal(cached, false, JSON.stringify(bad));
      assert.deepEqual(rest, want, JSON.stringify(bad));
      assert.equal(reg.server.count(path) - before, 1, `exactly one request after ${JSON.stringify(bad)}`);
      // the bad entry was replaced by a good one: the next engine answers from disk
      assert.deepEqual(onlyFile(join(file.path, '..')).doc.value, want);
      const warm = testEngine(reg, { cacheDir });
      assert.equal((await read(warm)).cached, true);
      await warm.dispose();
      assert.equal(reg.server.count(path) - before, 1);
    }
  }
}));

test('disk cache: a corrupted discovery entry or a file that is not JSON is refetched once', () => withRegistry({}, async (reg) => {
  const cacheDir = freshDir();
  const first = testEngine(reg, { cacheDir });
  const d1 = await first.discoverServices(reg.host);
  await first.dispose();
  const file = onlyFile(join(cacheDir, 'discovery'));
  for (const bad of [
    JSON.stringify({ ...file.doc, value: { ...file.doc.value as object, services: null } }),
    JSON.stringify({ ...file.doc, value: { ...file.doc.value as object, services: { 'modules.v1': 42 } } }),
    JSON.stringify({ ...file.doc, expires: 'tomorrow' }),
    JSON.stringify([file.doc]),
    '{"key": "trunc',
  ]) {
    writeFileSync(file.path, bad);
    const before = reg.server.count('/.well-known/terraform.json');
    const engine = testEngine(reg, { cacheDir });
    const d = await engine.discoverServices(reg.host);
    await engine.dispose();
    assert.deepEqual(d, { ...d1, cached: false }, bad);
    assert.equal(reg.server.count('/.well-known/terraform.json') - before, 1, bad);
    assert.ok(isDiscoveryValue(onlyFile(join(cacheDir, 'discovery')).doc.value));
  }
}));

test('CachedLookup: an invalid entry is removed from disk even when loading again fails', async () => {
  const dir = freshDir();
  const writer = new CachedLookup<{ n: number }>({ diskDir: dir, ttlMs: 60_000 });
  await writer.get('k', async () => ({ n: 1 }));
  const { path, doc } = onlyFile(dir);
  writeFileSync(path, JSON.stringify({ ...doc, value: { n: 'one' } }));
  const validate = (v: unknown) => typeof (v as { n?: unknown })?.n === 'number';
  const reader = new CachedLookup<{ n: number }>({ diskDir: dir, ttlMs: 60_000, validate });
  await assert.rejects(reader.get('k', async () => { throw new Error('offline'); }), /offline/);
  assert.equal(existsSync(path), false, 'the invalid entry is removed');
  // a valid entry is read as before, without loading
  const again = new CachedLookup<{ n: number }>({ diskDir: dir, ttlMs: 60_000, validate });
  await again.get('k', async () => ({ n: 2 }));
  const fresh = new CachedLookup<{ n: number }>({ diskDir: dir, ttlMs: 60_000, validate });
  assert.deepEqual(await fresh.get('k', async () => { throw new Error('must not load'); }), { value: { n: 2 }, cached: true });
});

test('cache shapes: what the engine writes passes, typical corruptions do not', () => {
  const mod = { address: 'a/b/c', host: 'h', versions: ['1.0.0'], invalid: [], url: 'https://h/v' };
  assert.equal(isModuleVersionList(mod), true);
  assert.equal(isModuleVersionList({ ...mod, invalid: undefined }), false);
  const prov = { address: 'h/a/b', host: 'h', versions: [{ version: '1.0.0', protocols: ['5.0'], platforms: [{ os: 'linux', arch: 'amd64' }] }], invalid: [], url: 'u' };
  assert.equal(isProviderVersionList(prov), true);
  assert.equal(isProviderVersionList({ ...prov, sources: [{ method: 'direct', location: 'h' }] }), true);
  assert.equal(isProviderVersionList({ ...prov, url: 5 }), false);
  assert.equal(isDiscoveryValue({ host: 'h', discoveryUrl: 'u', finalUrl: 'u', services: {} }), true);
  assert.equal(isDiscoveryValue({ host: 'h', discoveryUrl: 'u', finalUrl: 'u', services: [] }), false);
  assert.equal(isDiscoveryValue({ host: 'h', discoveryUrl: 'u', finalUrl: 'u', services: {}, objectServices: { 'login.v1': { client: 'c' } } }), true);
  assert.equal(isDiscoveryValue({ host: 'h', discoveryUrl: 'u', finalUrl: 'u', services: {}, objectServices: [] }), false);
});

test('disk cache: clear() while lookups are still writing their entries neither fails nor keeps a pre-clear entry', async () => {
  // Reproduces the CI failure "ENOTEMPTY: directory not empty, rmdir …/module-locations": a
  // recursive rm of the directory raced a write that landed in it meanwhile.
  const dir = join(freshDir(), 'kind');
  for (let round = 0; round < 40; round++) {
    const cache = new CachedLookup<string>({ diskDir: dir, ttlMs: 60_000 });
    const writes = Array.from({ length: 64 }, (_, i) => cache.get(`k${round}-${i}`, async () => `v${i}`));
    // clear at a different moment of the 64 writes (disk read, mkdir, tmp write, rename) each round
    for (let tick = 0; tick < round; tick++) await new Promise((r) => setImmediate(r));
    await cache.clear();
    const values = await Promise.all(writes);
    assert.equal(values.length, 64);
    const left = existsSync(dir) ? readdirSync(dir) : [];
    assert.deepEqual(left, [], `round ${round}: entries written before the clear stay gone`);
    const siblings = readdirSync(join(dir, '..')).filter((n) => n !== 'kind');
    assert.deepEqual(siblings, [], 'the directory moved aside is removed');
  }
});
