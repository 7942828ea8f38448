// How many requests the module mirror has in flight, counted on the test registry: concurrency 1
// is one request at a time, version lists included (the benchmark's sequential baseline; the
// lists ran 16 at a time even then); above it, version lists get more room than packages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mirrorModules } from '../../../src/engine/modmirror';
import { countInFlight, InFlight } from '../../support/in-flight';
import { ModuleOrigin, startModuleOrigin } from '../../support/module-origin';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
let ws: string;
/** Requests in flight on the registry (held 30 ms each so that requests sent at once overlap). */
let inFlight: InFlight;

before(async () => {
  o = await startModuleOrigin();
  const h = o.reg.host;
  ws = o.workspace('c', {
    'main.tf': [
      `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "~> 1.0"\n}`,
      `module "vpc" {\n  source = "${h}/acme/multi/aws//vpc"\n}`,
      `module "leaf" {\n  source  = "${h}/acme/leaf/aws"\n  version = "0.1.0"\n}`,
    ].join('\n\n') + '\n',
  });
  inFlight = countInFlight(o.reg.server);
});
after(async () => { await o.stop(); });

async function mirrorWith(concurrency: number): Promise<void> {
  inFlight.reset();
  const r = await mirrorModules({ engine: o.engine({ cacheDir: tempDir('modmirror-cache-') }), dirs: [ws], out: join(tempDir('modmirror-out-'), 'site'), concurrency, fetch: {} });
  assert.deepEqual(r.failed, []);
  assert.equal(r.mirrored.length, 4, 'app, its base, multi and leaf');
}

test('module mirror, concurrency 1: one request at a time, version lists included', async () => {
  await mirrorWith(1);
  assert.equal(inFlight.maxTotal, 1);
});

test('module mirror, concurrency 2: version lists of different modules at once', async () => {
  await mirrorWith(2);
  assert.ok(inFlight.maxTotal > 1, `requests at once: ${inFlight.maxTotal}`);
});
