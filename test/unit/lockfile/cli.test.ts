// tofu-registry lock: the exact JSON shape (a public contract), exit codes, progress on stderr, the
// disk cache across runs, --upgrade, the default platform, and a run killed half-way (the lock file
// is left byte for byte; its temp directory is removed unless the kill was SIGKILL).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { main } from '../../../src/cli';
import { h1OfZip } from '../../../src/engine/providerpkg/hash';
import { HOST_PLATFORM } from '../../support/platform';
import { tempDir } from '../../support/temp';
import { KNOWN, LockFixture, snapshot, startLockFixture } from './fixture';

let fx: LockFixture;
const HERE = HOST_PLATFORM;

before(async () => {
  fx = await startLockFixture();
  await fx.serveKnownAnswers();
  // A provider published for this machine's platform and others, whatever the machine.
  await fx.addProvider('acme', 'here', ['1.0.0'], [...new Set([HERE, 'darwin_arm64', 'linux_amd64', 'windows_amd64'])]);
});
after(async () => { await fx.stop(); });

async function run(args: string[], cacheHome = join(fx.root, `xdg-${Math.random().toString(36).slice(2)}`)) {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, '--ca-file', fx.reg.caCertPath], {
    stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { HOME: '/nonexistent', XDG_CACHE_HOME: cacheHome }, cwd: fx.root,
  });
  return { code, stdout, stderr };
}

const oneProvider = () => fx.config({ 'main.tf': readFileSync(join(KNOWN, 'one-platform', 'main.tf'), 'utf8') });

test('lock --json: the documented shape, the file tofu wrote, then an unchanged re-run', async () => {
  const dir = oneProvider();
  const cache = join(fx.root, 'cli-cache');
  const r = await run(['lock', '--json', '--platform', 'linux_amd64', dir], cache);
  assert.equal(r.code, 0, r.stderr);
  const expected = fx.here(readFileSync(join(KNOWN, 'one-platform', 'expected.terraform.lock.hcl'), 'utf8'));
  assert.equal(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8'), expected);
  const hashes = expected.split('\n').filter((l) => l.startsWith('    "')).map((l) => l.trim().slice(1, -2));
  assert.deepEqual(JSON.parse(r.stdout), {
    lockFiles: [{
      dir, path: join(dir, '.terraform.lock.hcl'), changed: true,
      providers: [{ provider: `${fx.reg.host}/example/fake`, version: '1.1.0', constraints: '~> 1.0', hashes, platforms: ['linux_amd64'] }],
    }],
    failed: [],
  });
  assert.match(r.stderr, /^downloaded +127\.0\.0\.1:\d+\/example\/fake 1\.1\.0 linux_amd64$/m);
  assert.match(r.stderr, /^written +\S+\.terraform\.lock\.hcl$/m);

  fx.reg.server.resetLog();
  const again = await run(['lock', '--json', '--platform', 'linux_amd64', dir], cache);
  assert.equal(again.code, 0);
  assert.equal(JSON.parse(again.stdout).lockFiles[0].changed, false);
  assert.deepEqual(fx.archiveRequests(), []);
  assert.match(again.stderr, /^cached +\S+ 1\.1\.0 linux_amd64$/m);

  const human = await run(['lock', '--platform', 'linux_amd64', '--platform', 'darwin_arm64', dir], cache);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /\.terraform\.lock\.hcl: updated\n {2}127\.0\.0\.1:\d+\/example\/fake 1\.1\.0 \(~> 1\.0\): h1: for darwin_arm64, linux_amd64 \(added darwin_arm64\)\n/);
});

test('lock --upgrade: a pinned older version is kept without it, and moves to the newest matching with it', async () => {
  const dir = oneProvider();
  const lockFile = join(dir, '.terraform.lock.hcl');
  writeFileSync(lockFile, fx.here(readFileSync(join(KNOWN, 'existing-lock', 'lock-before.hcl'), 'utf8')));
  const kept = await run(['lock', '--json', '--platform', 'linux_amd64', dir]);
  assert.equal(kept.code, 0, kept.stderr);
  assert.deepEqual(JSON.parse(kept.stdout).lockFiles[0].providers.map((p: { version: string }) => p.version), ['1.0.0']);
  const up = await run(['lock', '--json', '--upgrade', '--platform', 'linux_amd64', dir]);
  assert.equal(up.code, 0, up.stderr);
  const doc = JSON.parse(up.stdout);
  assert.equal(doc.lockFiles[0].changed, true);
  assert.deepEqual(doc.lockFiles[0].providers.map((p: { version: string; platforms: string[] }) => [p.version, p.platforms]), [['1.1.0', ['linux_amd64']]]);
  // The bytes tofu 1.9.4 wrote for 1.1.0 on linux_amd64: the 1.0.0 hashes are gone with the old version.
  assert.equal(readFileSync(lockFile, 'utf8'), fx.here(readFileSync(join(KNOWN, 'one-platform', 'expected.terraform.lock.hcl'), 'utf8')));
});

test('lock without --platform: the current platform only, as tofu providers lock', async () => {
  const dir = fx.config({ 'main.tf': `terraform {\n  required_providers {\n    here = {\n      source = "${fx.reg.host}/acme/here"\n    }\n  }\n}\n` });
  const r = await run(['lock', '--json', dir]);
  assert.equal(r.code, 0, r.stderr);
  const [p] = JSON.parse(r.stdout).lockFiles[0].providers;
  assert.deepEqual(p.platforms, [HERE]);
  assert.deepEqual(p.hashes.filter((h: string) => h.startsWith('h1:')), [await h1OfZip(fx.pkg('acme', 'here', '1.0.0', HERE).path)]);
  assert.match(r.stderr, new RegExp(`^downloaded +\\S+/acme/here 1\\.0\\.0 ${HERE}$`, 'm'));
  assert.equal(fx.archiveRequests().filter((x) => x.includes('/acme/here/')).length, 1, 'one archive: this platform\'s');
});

test('lock: usage errors exit 2 with one line; failures exit 1 and name the step', async () => {
  const dir = oneProvider();
  for (const args of [
    ['lock', '--platform', 'linux', dir],
    ['lock', '--net-mirror', 'https://m.example/', '--fs-mirror', dir, dir],
    ['lock', '--net-mirror', 'http://m.example/', dir],
    ['lock', '--concurrency', '0', dir],
    ['lock', fx.root],
    ['lock', join(fx.root, 'nope')],
    ['lock', '--bogus', dir],
  ]) {
    const r = await run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  writeFileSync(join(dir, '.terraform.lock.hcl'), '# mine\n');
  const r = await run(['lock', '--json', '--platform', 'solaris_sparc', dir]);
  assert.equal(r.code, 1);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.failed.map((f: { platform: string; step: string; dir: string }) => [f.dir, f.platform, f.step]), [[dir, 'solaris_sparc', 'metadata']]);
  assert.match(doc.failed[0].message, /is not available for solaris_sparc/);
  assert.equal(doc.lockFiles[0].changed, false);
  assert.equal(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8'), '# mine\n');
  // the human output names the failure live on stderr and gives its reason once, on stdout
  const human = await run(['lock', '--platform', 'solaris_sparc', dir]);
  assert.equal(human.code, 1);
  assert.match(human.stderr, /^failed +\S+\/example\/fake \S+ solaris_sparc \(reason below\)$/m);
  assert.ok(!human.stderr.includes('is not available for solaris_sparc'), human.stderr);
  assert.equal(human.stdout.match(/is not available for solaris_sparc/g)?.length, 1, human.stdout);
});

/** Starts `tofu-registry lock` in a process of its own, with its own TMPDIR, once it is downloading the (hanging) archive. */
async function lockProcessAtDownload(dir: string) {
  const childTmp = tempDir('lock-child-tmp-');
  const cli = resolve(__dirname, '../../../src/cli.js');
  const child = spawn(process.execPath, [cli, 'lock', '--platform', 'windows_amd64', '--ca-file', fx.reg.caCertPath, '--no-cache', dir],
    { env: { HOME: '/nonexistent', PATH: process.env.PATH, TMPDIR: childTmp }, stdio: 'ignore' });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const t0 = Date.now();
  while (!fx.archiveRequests().length && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 20));
  assert.equal(fx.archiveRequests().length, 1, 'the child reached the archive download');
  assert.equal(readdirSync(childTmp).filter((n) => n.startsWith('tofu-registry-lock-')).length, 1, 'the run has its temp directory');
  return { child, exited, childTmp };
}

for (const signal of ['SIGKILL', 'SIGINT', 'SIGTERM'] as const) {
  test(`a lock run ended by ${signal} while an archive downloads leaves the lock file byte for byte${signal === 'SIGKILL' ? '' : ', and no temp directory'}`, async () => {
    const dir = oneProvider();
    const lockFile = join(dir, '.terraform.lock.hcl');
    writeFileSync(lockFile, fx.here(readFileSync(join(KNOWN, 'existing-lock', 'lock-before.hcl'), 'utf8')));
    const before = snapshot(lockFile);
    fx.files.fault('terraform-provider-fake_1.0.0_windows_amd64.zip', { kind: 'hang' });
    try {
      fx.reg.server.resetLog();
      const { child, exited, childTmp } = await lockProcessAtDownload(dir);
      child.kill(signal);
      const code = await exited;
      assert.deepEqual(snapshot(lockFile), before);
      assert.deepEqual(readdirSync(dir).sort(), ['.terraform.lock.hcl', 'main.tf'], 'no temp file beside it');
      if (signal === 'SIGKILL') {
        // Nothing can run on SIGKILL: its temp directory stays (in the TMPDIR this test removes).
        assert.equal(code, null);
      } else {
        assert.equal(code, 1, 'cancelled: the run stops cleanly and says so');
        assert.deepEqual(readdirSync(childTmp), [], 'the temp directory of the run is gone');
      }
    } finally {
      fx.files.fault('terraform-provider-fake_1.0.0_windows_amd64.zip', undefined);
    }
  });
}
