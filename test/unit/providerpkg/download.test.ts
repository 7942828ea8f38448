// downloadToFile (the mirror's archive download) against the HTTPS test registry: statuses,
// truncation and size cap, with messages that name the URL once and never its user information.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { downloadToFile, DownloadTooLargeError, DownloadTruncatedError, withoutUrl } from '../../../src/engine/providerpkg/download';
import { RegistryError } from '../../../src/engine/net/errors';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { testEngine } from '../../support/registry-helpers';
import { tempDir } from '../../support/temp';
import { createLimiter } from '../../../src/engine/fstree';

let reg: TestRegistry;
let work: string;
before(async () => {
  reg = await startTestRegistry();
  work = tempDir('mirror-dl-');
  reg.addFile('/files/ok.zip', Buffer.alloc(5000, 3));
});
after(async () => {
  await reg.stop();
  rmSync(work, { recursive: true, force: true });
});

const secretUrl = (path: string) => `https://deploy:pa55w0rd@${reg.host}${path}`;
const shown = (path: string) => `https://***@${reg.host}${path}`;

test('downloadToFile: a 200 is streamed and hashed; other statuses reject with the registry error and leave no file', async () => {
  const engine = testEngine(reg, { maxAttempts: 1 });
  try {
    const dest = join(work, 'ok');
    const got = await downloadToFile(engine.http, `${reg.origin}/files/ok.zip`, dest, { maxBytes: 10_000 });
    assert.equal(got.size, 5000);
    assert.equal(readFileSync(dest).length, 5000);
    reg.setFault('/files/gone', '404');
    await assert.rejects(downloadToFile(engine.http, secretUrl('/files/gone.zip'), join(work, 'gone'), { maxBytes: 100 }),
      (e: unknown) => e instanceof RegistryError && e.code === 'not-found' && e.url === shown('/files/gone.zip') && !e.message.includes('pa55w0rd'));
    assert.ok(!existsSync(join(work, 'gone')));
  } finally {
    await engine.dispose();
  }
});

test('downloadToFile: truncated body and size cap name the URL once, without user information', async () => {
  const engine = testEngine(reg, { maxAttempts: 1 });
  try {
    reg.setFault('/files/cut', 'truncated'); // Content-Length 4096, then the connection is closed
    let caught: unknown;
    try { await downloadToFile(engine.http, secretUrl('/files/cut.zip'), join(work, 'cut'), { maxBytes: 10_000 }); } catch (err) { caught = err; }
    assert.ok(caught instanceof DownloadTruncatedError, String(caught));
    assert.match(caught.message, /^https:\/\/\*\*\*@127\.0\.0\.1:\d+\/files\/cut\.zip ended after \d+ of 4096 bytes: response was truncated: 127\.0\.0\.1:\d+ closed the connection before the body was complete$/);
    assert.equal(caught.message.split('/files/cut.zip').length, 2, 'the URL appears once');
    assert.ok(!existsSync(join(work, 'cut')));
    await assert.rejects(downloadToFile(engine.http, secretUrl('/files/ok.zip'), join(work, 'big'), { maxBytes: 100 }),
      (e: unknown) => e instanceof RegistryError && e.code === 'too-large' && !e.message.includes('pa55w0rd'));
    // the stream cap (no Content-Length announced) says the URL without its user information too
    const fake = { download: async () => ({ url: '', status: 200, headers: {}, body: (await import('node:stream')).Readable.from([Buffer.alloc(80), Buffer.alloc(80)]) }) };
    await assert.rejects(downloadToFile(fake, secretUrl('/x.zip'), join(work, 'fake'), { maxBytes: 100 }),
      (e: unknown) => e instanceof DownloadTooLargeError && e.message === `${shown('/x.zip')} is over the 100-byte limit`);
  } finally {
    await engine.dispose();
  }
});

test('withoutUrl: the URL and the words pointing at it are taken out of a cause', () => {
  const u = 'https://h/x.zip';
  assert.equal(withoutUrl(`request to ${u} timed out after 15 s (no complete answer from h)`, [u]), 'request timed out after 15 s (no complete answer from h)');
  assert.equal(withoutUrl(`connection to h was reset (${u})`, [u]), 'connection to h was reset');
  assert.equal(withoutUrl(`download of ${u} did not finish within 30 min (h is too slow)`, [u]), 'download did not finish within 30 min (h is too slow)');
  assert.equal(withoutUrl('socket hang up', [u]), 'socket hang up');
});

/** A one-slot transfer limiter that counts how many bodies it lets through at once. */
function countedSlot(): { slot: <R>(fn: () => Promise<R>) => Promise<R>; max: () => number; release: () => void } {
  const slot = createLimiter(1);
  let active = 0;
  let max = 0;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((r) => { open = r; });
  return {
    slot: (fn) => slot(async () => {
      await gate; // held closed until release(): the requests must have been sent before any slot
      active++;
      max = Math.max(max, active);
      try { return await fn(); } finally { active--; }
    }),
    max: () => max,
    release: () => open(),
  };
}

test('downloadToFile with a transfer slot: every request is sent before a slot is free, the bodies are read one slot at a time', async () => {
  const engine = testEngine(reg, { maxAttempts: 1 });
  try {
    reg.server.resetLog();
    const t = countedSlot();
    const runs = [1, 2, 3].map((i) => downloadToFile(engine.http, `${reg.origin}/files/ok.zip`, join(work, `ahead-${i}`), { maxBytes: 10_000, transfer: t.slot }));
    // all three requests reach the server while the slot is still closed
    for (let i = 0; i < 200 && reg.server.requests.filter((r) => r.path === '/files/ok.zip').length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(reg.server.requests.filter((r) => r.path === '/files/ok.zip').length, 3);
    t.release();
    const got = await Promise.all(runs);
    assert.deepEqual(got.map((g) => g.size), [5000, 5000, 5000]);
    assert.equal(t.max(), 1);
    for (const i of [1, 2, 3]) assert.equal(readFileSync(join(work, `ahead-${i}`)).length, 5000);
  } finally {
    await engine.dispose();
  }
});

test('downloadToFile: an answer that waited too long for its slot is asked for again, one that failed meanwhile too (no unheard error)', async () => {
  const engine = testEngine(reg, { maxAttempts: 1 });
  try {
    const slowSlot = <R>(fn: () => Promise<R>) => new Promise<void>((r) => setTimeout(r, 120)).then(fn);
    reg.server.resetLog();
    const got = await downloadToFile(engine.http, `${reg.origin}/files/ok.zip`, join(work, 'reask'), { maxBytes: 10_000, transfer: slowSlot, reaskAfterMs: 20 });
    assert.equal(got.size, 5000);
    assert.equal(reg.server.requests.filter((r) => r.path === '/files/ok.zip').length, 2, 'asked again after the wait');
    // the body breaks off while it waits: the error is kept, the archive asked for again, and its
    // (again truncated) answer fails the download the usual way
    reg.setFault('/files/cut2', 'truncated');
    reg.server.resetLog();
    await assert.rejects(downloadToFile(engine.http, `${reg.origin}/files/cut2.zip`, join(work, 'cut2'), { maxBytes: 10_000, transfer: slowSlot }),
      (e: unknown) => e instanceof DownloadTruncatedError);
    assert.equal(reg.server.requests.filter((r) => r.path === '/files/cut2.zip').length, 2);
    assert.ok(!existsSync(join(work, 'cut2')));
  } finally {
    reg.setFault('/files/cut2', null);
    await engine.dispose();
  }
});
