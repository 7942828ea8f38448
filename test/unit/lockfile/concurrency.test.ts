// How many requests a lock run has in flight, counted on the server: concurrency 1 is one request
// at a time (the benchmark's sequential baseline); concurrency N downloads at most N archives at
// once, while version lists, download answers and SHA256SUMS get more room.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { countInFlight, InFlight } from '../../support/in-flight';
import { lockProviders } from '../../../src/engine/lock';
import { LockFixture, startLockFixture } from './fixture';

const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'linux_arm64', 'windows_amd64'];
const TYPES = ['alpha', 'beta', 'gamma'];
let fx: LockFixture;
/** Requests in flight on the server, archives and the rest apart (held 30 ms each so that they overlap). */
let inFlight: InFlight;

before(async () => {
  fx = await startLockFixture();
  for (const type of TYPES) await fx.addProvider('acme', type, ['1.0.0'], PLATFORMS);
  inFlight = countInFlight(fx.reg.server);
});
after(async () => { await fx.stop(); });

async function lockWith(concurrency: number): Promise<void> {
  inFlight.reset();
  const dir = fx.config({ 'main.tf': `terraform {\n  required_providers {\n${TYPES.map((t) => `    ${t} = { source = "${fx.reg.host}/acme/${t}" }\n`).join('')}  }\n}\n` });
  fx.reg.server.resetLog();
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: PLATFORMS, concurrency });
  assert.deepEqual(r.failed, []);
  assert.equal(r.lockFiles[0].providers.length, 3);
  assert.ok(r.lockFiles[0].providers.every((p) => p.platforms.length === PLATFORMS.length));
  assert.equal(fx.archiveRequests().length, 12, 'every archive downloaded (no packages, fresh cache)');
}

test('lock, concurrency 1: one request at a time, SHA256SUMS and download answers included', async () => {
  await lockWith(1);
  assert.equal(inFlight.maxTotal, 1);
});

test('lock, concurrency 2: 2 archive downloads at once and the next 2 requests sent ahead, small requests get more room', async () => {
  await lockWith(2);
  assert.equal(inFlight.maxArchives, 4);
  assert.ok(inFlight.maxSmall > 2, `small requests at once: ${inFlight.maxSmall}`);
});
