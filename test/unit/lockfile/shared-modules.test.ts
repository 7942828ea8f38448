// Many root modules calling the same remote module, none installed yet (a platform repository
// before `tofu init`): the lock engine reads their module trees in parallel, so the module must be
// fetched once — before, each directory raced the others on the module cache directory and most
// failed ("ENOTEMPTY … rename").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { lockProviders, readLockFile } from '../../../src/engine/lock';
import { tarGz } from '../types/archives';
import { LockFixture, startLockFixture } from './fixture';

let fx: LockFixture;
before(async () => {
  fx = await startLockFixture();
  await fx.addProvider('acme', 'alpha', ['1.0.0', '1.1.0'], ['linux_amd64']);
  fx.reg.addModule({ namespace: 'acme', name: 'net', system: 'aws', versions: ['1.0.0', '1.2.0'] });
  fx.reg.addFile('/archives/acme/net/aws/1.2.0.tar.gz', tarGz([{
    name: 'versions.tf', data: `terraform {\n  required_providers {\n    alpha = {\n      source  = "${fx.reg.host}/acme/alpha"\n      version = "~> 1.0"\n    }\n  }\n}\n`,
  }]), 'application/gzip');
});
after(async () => { await fx.stop(); });

test('20 root modules calling one remote module: each directory locked, the module resolved and fetched once', async () => {
  const dirs = Array.from({ length: 20 }, () => fx.config({ 'main.tf': `module "net" {\n  source  = "${fx.reg.host}/acme/net/aws"\n  version = "~> 1.0"\n}\n` }));
  fx.reg.server.resetLog();
  const r = await lockProviders({ engine: fx.lockEngine(), dirs, platforms: ['linux_amd64'] });
  assert.deepEqual(r.failed, []);
  assert.equal(r.lockFiles.filter((f) => f.changed).length, 20);
  for (const f of r.lockFiles) assert.deepEqual(f.providers.map((p) => [p.provider, p.version]), [[`${fx.reg.host}/acme/alpha`, '1.1.0']]);
  assert.equal(readLockFile(readFileSync(r.lockFiles[0].path, 'utf8')).providers[0].constraints, '~> 1.0');
  assert.equal(fx.reg.server.count('/archives/acme/net/aws/'), 1);
  assert.equal(fx.reg.server.requests.filter((x) => x.path.startsWith('/v1/modules/acme/net/aws/') && x.path.endsWith('/download')).length, 1);
});
