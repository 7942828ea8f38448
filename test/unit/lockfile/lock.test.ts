// lockProviders against the HTTPS test registry: the lock files the real `tofu providers lock`
// wrote (byte for byte, the registry's host substituted), with and without OpenTofu 1.12's
// `packages`, several providers across modules, pins, --upgrade, contradictions, re-runs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockProviders, LockReport, readLockFile } from '../../../src/engine/lock';
import type { BuiltRelease } from '../../support/provider-packages';
import { correctPackages, KNOWN, LockFixture, snapshot, startLockFixture } from './fixture';

let fx: LockFixture;
let known: BuiltRelease[];
const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'windows_amd64'];
const expected = (name: string) => fx.here(readFileSync(join(KNOWN, name, 'expected.terraform.lock.hcl'), 'utf8'));
const knownConfig = (name: string) => {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(KNOWN, name, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.tf')) files[r] = readFileSync(join(KNOWN, name, r), 'utf8');
    }
  };
  walk('');
  return fx.config(files);
};
const lockText = (dir: string) => readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8');
const noFailures = (r: LockReport) => assert.deepEqual(r.failed, [], JSON.stringify(r.failed, null, 1));

before(async () => {
  fx = await startLockFixture();
  known = await fx.serveKnownAnswers();
  await fx.addProvider('acme', 'alpha', ['1.0.0', '1.1.0', '1.2.0', '2.0.0'], PLATFORMS);
  await fx.addProvider('acme', 'beta', ['0.3.0', '0.4.0'], PLATFORMS);
  await fx.addProvider('other', 'gamma', ['3.2.1', '3.3.0'], PLATFORMS);
});
after(async () => { await fx.stop(); });

test('known answers: the lock files tofu 1.9.4 wrote, byte for byte (one platform, child module, existing lock)', async () => {
  await fx.servePackages(known); // no `packages`: archives are downloaded and hashed
  const one = knownConfig('one-platform');
  const child = knownConfig('child-module');
  const existing = knownConfig('existing-lock');
  writeFileSync(join(existing, '.terraform.lock.hcl'), fx.here(readFileSync(join(KNOWN, 'existing-lock', 'lock-before.hcl'), 'utf8')));
  const engine = fx.lockEngine();
  for (const [dir, platforms, name] of [[one, ['linux_amd64'], 'one-platform'], [child, PLATFORMS, 'child-module'], [existing, ['darwin_arm64'], 'existing-lock']] as const) {
    const r = await lockProviders({ engine, dirs: [dir], platforms: [...platforms] });
    noFailures(r);
    assert.equal(lockText(dir), expected(name), name);
    assert.equal(r.lockFiles[0].changed, true);
  }
  // What the report says is what the file holds; platforms are those whose h1: it carries.
  const r = await lockProviders({ engine, dirs: [child], platforms: PLATFORMS });
  assert.deepEqual(r.lockFiles[0], {
    dir: child, path: join(child, '.terraform.lock.hcl'), changed: false,
    providers: [{
      provider: `${fx.reg.host}/example/fake`, version: '1.1.0', constraints: '>= 1.0.0, ~> 1.1, < 2.0.0',
      hashes: readLockFile(lockText(child)).providers[0].hashes, platforms: PLATFORMS,
      previousVersion: '1.1.0', previousPlatforms: PLATFORMS,
    }],
  });
});

test('packages (OpenTofu ≥ 1.12): every platform\'s hashes from one answer, checked against SHA256SUMS, no archive downloaded', async () => {
  await fx.servePackages(known, correctPackages);
  try {
    const dir = knownConfig('one-platform');
    fx.reg.server.resetLog();
    const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64'] });
    noFailures(r);
    assert.deepEqual(fx.archiveRequests(), []);
    assert.equal(r.archivesDownloaded, 0);
    // One platform asked for, all three recorded: the same hashes tofu computed from the three
    // archives (child-module locked all three platforms of 1.1.0), under this directory's constraint.
    assert.equal(lockText(dir), expected('child-module').replace('>= 1.0.0, ~> 1.1, < 2.0.0', '~> 1.0'));
    assert.deepEqual(r.lockFiles[0].providers[0].platforms, PLATFORMS);
    assert.equal(fx.reg.server.count('/v1/providers/example/fake/1.1.0/download/'), 1, 'one download answer for the version');
  } finally {
    await fx.servePackages(known);
  }
});

test('several providers across modules: constraints merged, a pin kept, --upgrade moves it, stale entries kept', async () => {
  const h = fx.reg.host;
  const dir = fx.config({
    'main.tf': `terraform {\n  required_providers {\n    alpha = {\n      source  = "${h}/acme/alpha"\n      version = "~> 1.0"\n    }\n    beta = {\n      source = "${h}/acme/beta"\n    }\n  }\n}\n\nmodule "net" {\n  source = "./modules/net"\n}\n`,
    'modules/net/main.tf': `terraform {\n  required_providers {\n    alpha = {\n      source  = "${h}/acme/alpha"\n      version = ">= 1.0.1, < 1.2.0"\n    }\n    gamma = {\n      source  = "${h}/other/gamma"\n      version = ">= 3.0"\n    }\n  }\n}\n`,
  });
  const engine = fx.lockEngine();
  const pinned = await lockProviders({ engine, dirs: [dir], platforms: ['linux_amd64'] });
  noFailures(pinned);
  const first = readLockFile(lockText(dir)).providers;
  assert.deepEqual(first.map((p) => [p.address, p.version, p.constraints]), [
    [`${h}/acme/alpha`, '1.1.0', '~> 1.0, >= 1.0.1, < 1.2.0'],
    [`${h}/acme/beta`, '0.4.0', null],
    [`${h}/other/gamma`, '3.3.0', '>= 3.0.0'],
  ]);
  // Pin beta to the older 0.3.0 and add an entry the configuration does not require.
  const stale = `\nprovider "${h}/acme/old" {\n  version = "9.0.0"\n  hashes = [\n    "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",\n  ]\n}\n`;
  writeFileSync(join(dir, '.terraform.lock.hcl'), lockText(dir).replace(/provider "[^"]*acme\/beta" \{[^}]*\}\n/, `provider "${h}/acme/beta" {\n  version = "0.3.0"\n}\n`) + stale);
  const kept = await lockProviders({ engine, dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'] });
  noFailures(kept);
  const beta = kept.lockFiles[0].providers.find((p) => p.provider.endsWith('/beta'))!;
  assert.equal(beta.version, '0.3.0');
  assert.deepEqual(beta.platforms, ['darwin_arm64', 'linux_amd64']);
  assert.ok(lockText(dir).includes(`provider "${h}/acme/old" {\n  version = "9.0.0"`), 'a lock entry no longer required is kept, like tofu providers lock');
  assert.ok(kept.notes.some((n) => n.includes(`kept ${h}/acme/old 9.0.0`)));
  const upgraded = await lockProviders({ engine, dirs: [dir], platforms: ['linux_amd64'], upgrade: true });
  noFailures(upgraded);
  assert.deepEqual(upgraded.lockFiles[0].providers.map((p) => [p.provider.split('/').pop(), p.previousVersion, p.version]),
    [['alpha', '1.1.0', '1.1.0'], ['beta', '0.3.0', '0.4.0'], ['gamma', '3.3.0', '3.3.0']]);
  // A new version starts a fresh hash set: beta 0.4.0 has only what this run learned.
  const beta4 = readLockFile(lockText(dir)).providers.find((p) => p.address.endsWith('/beta'))!;
  assert.equal(beta4.hashes.filter((x) => x.startsWith('h1:')).length, 1);
});

test('a lock that contradicts the configuration fails like tofu init, and the file is left alone', async () => {
  const h = fx.reg.host;
  const dir = fx.config({ 'main.tf': `terraform {\n  required_providers {\n    alpha = {\n      source  = "${h}/acme/alpha"\n      version = "~> 1.0"\n    }\n  }\n}\n` });
  writeFileSync(join(dir, '.terraform.lock.hcl'), `# hand-made\nprovider "${h}/acme/alpha" {\n  version = "2.0.0"\n}\n`);
  const before = snapshot(join(dir, '.terraform.lock.hcl'));
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64'] });
  assert.equal(r.failed.length, 1);
  assert.equal(r.failed[0].step, 'resolve');
  assert.match(r.failed[0].message, /locked provider .*acme\/alpha 2\.0\.0 does not match configured version constraint ~> 1\.0; must use tofu init -upgrade/);
  assert.deepEqual(snapshot(join(dir, '.terraform.lock.hcl')), before);
  assert.equal(r.lockFiles[0].changed, false);
  // --upgrade for that provider resolves it.
  const fixed = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64'], upgrade: [`${h}/acme/alpha`] });
  noFailures(fixed);
  assert.equal(fixed.lockFiles[0].providers[0].version, '1.2.0');
});

test('packages that contradict the signed SHA256SUMS: refused for that provider, file untouched, nothing downloaded', async () => {
  const alpha = fx.releases.get('acme/alpha')!;
  const wrong = '0'.repeat(64);
  await fx.servePackages(alpha, async (rel) => {
    const p = await correctPackages(rel);
    p.windows_amd64.hashes = p.windows_amd64.hashes.map((x) => (x.startsWith('zh:') ? `zh:${wrong}` : x));
    return p;
  });
  try {
    const dir = fx.config({ 'main.tf': `terraform {\n  required_providers {\n    alpha = {\n      source = "${fx.reg.host}/acme/alpha"\n    }\n  }\n}\n` });
    writeFileSync(join(dir, '.terraform.lock.hcl'), '# before\n');
    const before = snapshot(join(dir, '.terraform.lock.hcl'));
    fx.reg.server.resetLog();
    const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'] });
    assert.deepEqual(r.failed.map((f) => [f.platform, f.step]), [['darwin_arm64', 'packages'], ['linux_amd64', 'packages']]);
    assert.match(r.failed[0].message, new RegExp(`"packages" gives zh:${wrong} for windows_amd64, but the signed SHA256SUMS lists zh:[0-9a-f]{64}`));
    assert.deepEqual(snapshot(join(dir, '.terraform.lock.hcl')), before);
    assert.deepEqual(fx.archiveRequests(), []);
  } finally {
    await fx.servePackages(alpha);
  }
});

test('an unchanged re-run (new engine, same cache) downloads nothing and does not rewrite the file', async () => {
  const dir = fx.config({ 'main.tf': `terraform {\n  required_providers {\n    gamma = {\n      source = "${fx.reg.host}/other/gamma"\n    }\n  }\n}\n` });
  const cacheDir = join(fx.root, 'rerun-cache');
  const first = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [dir], platforms: PLATFORMS });
  noFailures(first);
  assert.equal(first.archivesDownloaded, 3);
  const before = snapshot(join(dir, '.terraform.lock.hcl'));
  fx.reg.server.resetLog();
  const again = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [dir], platforms: PLATFORMS });
  noFailures(again);
  assert.equal(again.lockFiles[0].changed, false);
  assert.deepEqual(fx.archiveRequests(), []);
  assert.equal(fx.reg.server.requests.length, 0, `no request at all: ${fx.reg.server.requests.map((r) => r.path).join(', ')}`);
  assert.deepEqual(snapshot(join(dir, '.terraform.lock.hcl')), before);
  assert.deepEqual(again.lockFiles[0].providers, first.lockFiles[0].providers.map((p) => ({ ...p, previousVersion: p.version, previousPlatforms: PLATFORMS })));
});

test('two directories sharing providers: each archive is fetched once', async () => {
  const cfg = `terraform {\n  required_providers {\n    alpha = {\n      source  = "${fx.reg.host}/acme/alpha"\n      version = "1.0.0"\n    }\n  }\n}\n`;
  const a = fx.config({ 'main.tf': cfg });
  const b = fx.config({ 'main.tf': cfg, 'extra.tf': `terraform {\n  required_providers {\n    beta = {\n      source  = "${fx.reg.host}/acme/beta"\n      version = "0.3.0"\n    }\n  }\n}\n` });
  // A token for the registry host: API requests carry it, archive and SHA256SUMS downloads never do.
  const rc = join(fx.root, 'tofurc-token');
  writeFileSync(rc, `credentials "${fx.reg.host}" {\n  token = "s3cret"\n}\n`);
  fx.reg.server.resetLog();
  const engine = fx.engine({ cacheDir: join(fx.root, 'cache-token'), cliConfigFile: rc });
  const r = await lockProviders({ engine, dirs: [a, b], platforms: ['linux_amd64', 'windows_amd64'], concurrency: 4 });
  noFailures(r);
  const zips = fx.archiveRequests();
  assert.equal(zips.length, 4, zips.join('\n'));
  assert.equal(new Set(zips).size, 4, 'no archive twice');
  assert.deepEqual(r.lockFiles.map((f) => [f.changed, f.providers.length]), [[true, 1], [true, 2]]);
  const alphaA = readLockFile(lockText(a)).providers[0];
  assert.deepEqual(readLockFile(lockText(b)).providers[0].hashes, alphaA.hashes);
  assert.equal(fx.reg.server.count('/files/acme/alpha/1.0.0/terraform-provider-alpha_1.0.0_SHA256SUMS.sig'), 1);
  const api = fx.reg.server.requests.filter((x) => x.path.startsWith('/v1/'));
  assert.ok(api.length && api.every((x) => x.authorization === 'Bearer s3cret'), 'the registry API gets the token');
  assert.ok(fx.reg.server.requests.filter((x) => x.path.startsWith('/files/')).every((x) => !x.authorization), 'no credentials to archive URLs');
});

test('cancelled while an archive hangs: nothing is written', async () => {
  const dir = fx.config({ 'main.tf': `terraform {\n  required_providers {\n    beta = {\n      source  = "${fx.reg.host}/acme/beta"\n      version = "0.4.0"\n    }\n  }\n}\n` });
  writeFileSync(join(dir, '.terraform.lock.hcl'), '# before\n');
  const before = snapshot(join(dir, '.terraform.lock.hcl'));
  fx.files.fault('terraform-provider-beta_0.4.0_linux_amd64.zip', { kind: 'hang' });
  try {
    const ac = new AbortController();
    fx.reg.server.resetLog();
    const run = lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64'], signal: ac.signal });
    while (!fx.archiveRequests().length) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const r = await run;
    assert.deepEqual(r.failed.map((f) => f.step), ['cancelled']);
    assert.deepEqual(snapshot(join(dir, '.terraform.lock.hcl')), before);
    assert.deepEqual(readdirSync(dir).sort(), ['.terraform.lock.hcl', 'main.tf']);
  } finally {
    fx.files.fault('terraform-provider-beta_0.4.0_linux_amd64.zip', undefined);
  }
});

test('built-in providers are skipped; a directory without providers gets no lock file', async () => {
  const dir = fx.config({ 'main.tf': 'data "terraform_remote_state" "x" {\n  backend = "local"\n}\n' });
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64'] });
  noFailures(r);
  assert.equal(existsSync(join(dir, '.terraform.lock.hcl')), false);
  assert.ok(r.notes.some((n) => n.includes('terraform.io/builtin/terraform')));
});
