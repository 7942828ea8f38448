// How many requests the mirror has in flight, counted on the server: concurrency 1 is one request
// at a time (as tofu providers mirror works: the benchmark's sequential baseline), concurrency N
// downloads at most N archives at once while small requests (version lists, download answers,
// SHA256SUMS) get more room.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { countInFlight, InFlight } from '../../support/in-flight';
import { mirrorProviders } from '../../../src/engine/mirror';
import { Fixture, startFixture, validateMirror, writeConfig } from './fixture';
import { tempDir } from '../../support/temp';

const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'linux_arm64', 'windows_amd64'];
let fx: Fixture;
let dir: string;
/** Requests in flight on the server, archives and the rest apart (held 30 ms each so that they overlap). */
let inFlight: InFlight;

before(async () => {
  fx = await startFixture();
  const host = fx.reg.host;
  for (const type of ['alpha', 'beta', 'gamma']) await fx.addProvider('acme', type, ['1.0.0'], PLATFORMS);
  dir = writeConfig(fx.root, Object.fromEntries(['alpha', 'beta', 'gamma'].map((t) => [t, { source: `${host}/acme/${t}` }])));
  inFlight = countInFlight(fx.reg.server);
});
after(async () => { await fx.stop(); });

async function mirrorWith(concurrency: number): Promise<void> {
  inFlight.reset();
  const out = tempDir('mirror-conc-');
  const report = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: PLATFORMS, concurrency });
  assert.deepEqual(report.failed, []);
  assert.equal(report.mirrored.length, 12);
  assert.equal(await validateMirror(out), 12);
}

test('concurrency 1: one request at a time, version lists and download answers included', async () => {
  await mirrorWith(1);
  assert.equal(inFlight.maxTotal, 1);
});

test('concurrency 2: 2 archive downloads at once and the next 2 requests sent ahead, small requests get more room', async () => {
  await mirrorWith(2);
  // 2 bodies read at once (download.test.ts counts the transfer slots), 2 more asked for while
  // they transfer, so that their answers' latency overlaps the transfers
  assert.equal(inFlight.maxArchives, 4);
  assert.ok(inFlight.maxSmall > 2, `small requests at once: ${inFlight.maxSmall}`);
});
