// A private registry that needs a token: the token goes to its API (discovery, versions, download
// metadata) and nowhere else — never with archive, SHA256SUMS or signature downloads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mirrorProviders } from '../../../src/engine/mirror';
import { Fixture, startFixture, validateMirror, writeConfig } from './fixture';
import { tempDir } from '../../support/temp';

const TOKEN = 'mirror-T0KEN-42';
let fx: Fixture;

before(async () => {
  fx = await startFixture({ token: TOKEN });
  await fx.addProvider('priv', 'thing', ['1.0.0'], ['linux_amd64', 'darwin_arm64']);
});
after(async () => { await fx.stop(); });

test('credentials: the token reaches only the registry API, never archive or SHA256SUMS downloads', async () => {
  const rc = join(fx.root, 'creds.tfrc');
  writeFileSync(rc, `credentials "${fx.reg.host}" { token = "${TOKEN}" }\n`);
  const logged: string[] = [];
  const engine = fx.engine({ cliConfigFile: rc, log: (e) => logged.push(JSON.stringify(e)) });
  const out = tempDir('mirror-cred-');
  const dir = writeConfig(fx.root, { thing: { source: `${fx.reg.host}/priv/thing` } });
  fx.reg.server.resetLog();
  const r = await mirrorProviders({ engine, dirs: [dir], out, platforms: ['linux_amd64', 'darwin_arm64'] });
  assert.deepEqual(r.failed, []);
  assert.equal(r.mirrored.length, 2);
  const reqs = fx.reg.server.requests;
  const api = reqs.filter((q) => q.path.startsWith('/v1/') || q.path.startsWith('/.well-known/'));
  const files = reqs.filter((q) => q.path.startsWith('/files/'));
  assert.ok(api.length >= 3 && api.every((q) => q.authorization === `Bearer ${TOKEN}`), 'the API got the token');
  assert.equal(files.length, 4, 'two archives, SHA256SUMS and its signature');
  assert.deepEqual(files.map((q) => q.authorization ?? null), [null, null, null, null]);
  assert.ok(!logged.some((l) => l.includes(TOKEN)), 'the token is never logged');
  assert.equal(await validateMirror(out), 2);
});
