// A directory where one provider locks fine and another fails (its `packages` contradict the
// signed SHA256SUMS, or its archive answers 404): the lock file is left byte for byte (and not
// created when there was none), the directory reports `changed: false`, and `failed` names exactly
// the failing provider, per platform, with its step — from the engine and from `lock --json`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { lockProviders, LockFailure } from '../../../src/engine/lock';
import { correctPackages, LockFixture, snapshot, startLockFixture } from './fixture';

let fx: LockFixture;
let H: string;
const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'windows_amd64'];
const WRONG = '0'.repeat(64);
const lockPath = (dir: string) => join(dir, '.terraform.lock.hcl');
const config = (...names: string[]) => fx.config({
  'main.tf': `terraform {\n  required_providers {\n${names.map((n) => `    ${n} = {\n      source = "${H}/acme/${n}"\n    }\n`).join('')}  }\n}\n`,
});
const who = (f: LockFailure[]) => f.map((x) => [x.dir, x.provider, x.version, x.platform, x.step]);

before(async () => {
  fx = await startLockFixture();
  H = fx.reg.host;
  // alpha: correct `packages`; delta: `packages` whose darwin_arm64 zh: contradicts SHA256SUMS;
  // epsilon: no `packages`, and its linux_amd64 archive is gone (404).
  await fx.servePackages(await fx.addProvider('acme', 'alpha', ['1.0.0'], PLATFORMS), correctPackages);
  await fx.servePackages(await fx.addProvider('acme', 'delta', ['2.0.0'], PLATFORMS), async (rel) => {
    const p = await correctPackages(rel);
    p.darwin_arm64.hashes = p.darwin_arm64.hashes.map((h) => (h.startsWith('zh:') ? `zh:${WRONG}` : h));
    return p;
  });
  await fx.addProvider('acme', 'epsilon', ['0.1.0'], PLATFORMS);
  fx.files.fault('terraform-provider-epsilon_0.1.0_linux_amd64.zip', { kind: 'status', status: 404 });
});
after(async () => { await fx.stop(); });

test('packages contradicting SHA256SUMS for one provider: no lock file is created, only that provider fails (step packages)', async () => {
  const dir = config('alpha', 'delta');
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64', 'windows_amd64'] });
  assert.deepEqual(who(r.failed), [[dir, `${H}/acme/delta`, '2.0.0', 'linux_amd64', 'packages'], [dir, `${H}/acme/delta`, '2.0.0', 'windows_amd64', 'packages']]);
  for (const f of r.failed) assert.match(f.message, new RegExp(`"packages" gives zh:${WRONG} for darwin_arm64, but the signed SHA256SUMS lists zh:[0-9a-f]{64}`));
  assert.deepEqual(r.lockFiles, [{ dir, path: lockPath(dir), changed: false, providers: [] }]);
  assert.equal(existsSync(lockPath(dir)), false);
  assert.deepEqual(readdirSync(dir), ['main.tf'], 'no temp file either');
});

test('an archive 404 for one provider: the existing lock file is left byte for byte, only that provider fails (step download)', async () => {
  const dir = config('alpha', 'epsilon');
  writeFileSync(lockPath(dir), `# kept as it is\nprovider "${H}/acme/alpha" {\n  version = "1.0.0"\n}\n`);
  const before = snapshot(lockPath(dir));
  fx.reg.server.resetLog();
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'] });
  assert.deepEqual(who(r.failed), [[dir, `${H}/acme/epsilon`, '0.1.0', 'linux_amd64', 'download']]);
  assert.match(r.failed[0].message, /answered 404 Not Found for https:\/\/\S+\/terraform-provider-epsilon_0\.1\.0_linux_amd64\.zip$/);
  assert.deepEqual(r.lockFiles, [{ dir, path: lockPath(dir), changed: false, providers: [] }]);
  assert.deepEqual(snapshot(lockPath(dir)), before);
  assert.ok(fx.archiveRequests().some((p) => p.endsWith('epsilon_0.1.0_darwin_arm64.zip')), 'the other package of the failing provider was fetched');
});

test('lock --json with one provider failing: exit 1, changed false, failed names exactly that provider; the file untouched', async () => {
  const run = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await main([...args, '--ca-file', fx.reg.caCertPath, '--no-cache'], {
      stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { HOME: '/nonexistent' }, cwd: fx.root,
    });
    return { code, doc: JSON.parse(stdout), stderr };
  };
  const fresh = config('alpha', 'delta');
  const a = await run(['lock', '--json', '--platform', 'linux_amd64', fresh]);
  assert.equal(a.code, 1, a.stderr);
  assert.deepEqual(a.doc.lockFiles, [{ dir: fresh, path: lockPath(fresh), changed: false, providers: [] }]);
  assert.deepEqual(a.doc.failed.map((f: LockFailure) => ({ ...f, message: '' })),
    [{ dir: fresh, provider: `${H}/acme/delta`, version: '2.0.0', platform: 'linux_amd64', step: 'packages', message: '' }]);
  assert.match(a.doc.failed[0].message, /"packages" gives zh:0{64} for darwin_arm64/);
  assert.equal(existsSync(lockPath(fresh)), false);

  const locked = config('alpha', 'epsilon');
  writeFileSync(lockPath(locked), `provider "${H}/acme/epsilon" {\n  version = "0.1.0"\n}\n`);
  const before = snapshot(lockPath(locked));
  const b = await run(['lock', '--json', '--platform', 'linux_amd64', '--platform', 'windows_amd64', locked]);
  assert.equal(b.code, 1, b.stderr);
  assert.deepEqual(b.doc.lockFiles, [{ dir: locked, path: lockPath(locked), changed: false, providers: [] }]);
  assert.deepEqual(b.doc.failed.map((f: LockFailure) => [f.dir, f.provider, f.version, f.platform, f.step]), [[locked, `${H}/acme/epsilon`, '0.1.0', 'linux_amd64', 'download']]);
  assert.deepEqual(snapshot(lockPath(locked)), before);
});
