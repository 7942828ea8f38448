// CachedLookup.get with callers that cancel (a hover or completion the editor no longer wants):
// a caller stops waiting at once; the shared request to the (real HTTPS) server goes on while
// anyone still waits, and is aborted — the server sees its connection closed — once nobody does.
// An aborted load is remembered nowhere: the next get asks the server again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { CachedLookup } from '../../../src/engine/discovery/cache';
import { HttpClient } from '../../../src/engine/net/http';
import { sendJson, TestHttpsServer } from '../../support/https-server';
import { tempDir } from '../../support/registry-helpers';
import { testPki } from '../../support/tls';

let server: TestHttpsServer;
let http: HttpClient;
const temps: Array<{ remove: () => void }> = [];

/** Requests to /held wait here until the test answers them; `closed` says one ended unanswered. */
const held: Array<{ res: ServerResponse; closed: Promise<number> }> = [];

before(async () => {
  server = await new TestHttpsServer().start();
  server.route('/held', (_req, res) => {
    const closed = new Promise<number>((resolve) => res.once('close', () => { if (!res.writableFinished) resolve(Date.now()); }));
    held.push({ res, closed });
  });
  http = new HttpClient({ env: {}, caFiles: [testPki().caCertPath], timeoutMs: 15_000, maxAttempts: 1 });
});
after(async () => {
  await http.dispose();
  await server.stop();
  temps.forEach((t) => t.remove());
});

async function arrived(n: number): Promise<void> {
  const t0 = Date.now();
  while (held.length < n) {
    if (Date.now() - t0 > 5000) throw new Error(`${n} requests expected at the server, ${held.length} arrived`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function lookup(diskDir?: string): CachedLookup<unknown> {
  return new CachedLookup<unknown>({ ttlMs: 60_000, failureTtlMs: 30_000, diskDir });
}

const load = (signal: AbortSignal) => http.getJson(`${server.origin}/held`, { signal }).then((r) => r.json);

test('two waiters, one cancels: it stops waiting at once, the request goes on and the other gets the answer', async () => {
  held.length = 0;
  server.resetLog();
  const cache = lookup();
  const a = new AbortController();
  const first = cache.get('k', load, a.signal);
  const second = cache.get('k', load, new AbortController().signal);
  await arrived(1);
  const t0 = Date.now();
  a.abort();
  await assert.rejects(first, (e: Error) => e.name === 'AbortError');
  assert.ok(Date.now() - t0 < 500, `the cancelled caller stopped waiting after ${Date.now() - t0} ms`);
  const closedEarly = await Promise.race([held[0].closed, new Promise((r) => setTimeout(() => r('open'), 300))]);
  assert.equal(closedEarly, 'open', 'the request must go on while the other caller waits');
  sendJson(held[0].res, 200, { answer: 42 });
  assert.deepEqual(await second, { value: { answer: 42 }, cached: false });
  assert.equal(server.count('/held'), 1, 'one request for both callers');
});

test('every waiter cancels: the HTTP request is aborted (closed at the server), nothing is cached, a later get loads afresh', async () => {
  held.length = 0;
  server.resetLog();
  const disk = tempDir('tofu-registry-cache-cancel-');
  temps.push(disk);
  const dir = join(disk.path, 'lookups');
  const cache = lookup(dir);
  const a = new AbortController();
  const b = new AbortController();
  const first = cache.get('k', load, a.signal);
  const second = cache.get('k', load, b.signal);
  await arrived(1);
  a.abort();
  await assert.rejects(first, (e: Error) => e.name === 'AbortError');
  const t0 = Date.now();
  b.abort();
  await assert.rejects(second, (e: Error) => e.name === 'AbortError');
  const closedAt = await Promise.race([held[0].closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 3000))]);
  assert.notEqual(closedAt, 'open', 'the server must see the request closed once nobody waits (request timeout is 15 s)');
  assert.ok((closedAt as number) - t0 < 1000, `closed ${(closedAt as number) - t0} ms after the last cancel`);
  assert.equal(existsSync(dir) ? readdirSync(dir).length : 0, 0, 'nothing on disk');
  // Not remembered as a failure: the next caller (without a signal) asks the server again.
  const third = cache.get('k', load);
  await arrived(2);
  sendJson(held[1].res, 200, { answer: 'fresh' });
  assert.deepEqual(await third, { value: { answer: 'fresh' }, cached: false });
  assert.equal(server.count('/held'), 2);
  await cache.clear();
});

test('a waiter without a signal keeps the request alive when the one with a signal cancels', async () => {
  held.length = 0;
  server.resetLog();
  const cache = lookup();
  const a = new AbortController();
  const cancelled = cache.get('k', load, a.signal);
  const steady = cache.get('k', load);
  await arrived(1);
  a.abort();
  await assert.rejects(cancelled, (e: Error) => e.name === 'AbortError');
  const closedEarly = await Promise.race([held[0].closed, new Promise((r) => setTimeout(() => r('open'), 300))]);
  assert.equal(closedEarly, 'open');
  sendJson(held[0].res, 200, ['kept']);
  assert.deepEqual(await steady, { value: ['kept'], cached: false });
});
