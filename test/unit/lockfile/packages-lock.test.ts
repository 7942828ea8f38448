// lockProviders with OpenTofu 1.12's `packages` in every download answer: the issue's scenarios
// (several providers, child modules with overlapping constraints, a pinned older version kept,
// --upgrade, an unchanged re-run, two directories sharing providers) — each with no archive
// downloaded, and the h1: and zh: of every platform the registry lists recorded, whatever the
// platforms asked for.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockProviders, LockReport, readLockFile } from '../../../src/engine/lock';
import { h1OfZip } from '../../../src/engine/providerpkg/hash';
import { correctPackages, LockFixture, snapshot, startLockFixture } from './fixture';

let fx: LockFixture;
let H: string;
const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'windows_amd64'];
const lockPath = (dir: string) => join(dir, '.terraform.lock.hcl');
const lockText = (dir: string) => readFileSync(lockPath(dir), 'utf8');
const entries = (dir: string) => readLockFile(lockText(dir)).providers;
const noFailures = (r: LockReport) => assert.deepEqual(r.failed, [], JSON.stringify(r.failed, null, 1));
const required = (providers: Record<string, string | undefined>) => `terraform {\n  required_providers {\n${Object.entries(providers).map(([name, version]) =>
  `    ${name} = {\n      source  = "${H}/${name === 'gamma' ? 'other' : 'acme'}/${name}"\n${version ? `      version = "${version}"\n` : ''}    }\n`).join('')}  }\n}\n`;

/** Every h1: and zh: of a release's platforms (computed here from the zips), in Go's byte order. */
async function allHashes(provider: string, version: string): Promise<string[]> {
  const rel = fx.releases.get(provider)!.find((r) => r.version === version)!;
  const out = new Set<string>();
  for (const p of rel.packages) out.add(await h1OfZip(p.path)).add(`zh:${p.sha256}`);
  return [...out].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** No archive was requested, and each entry carries every listed platform's hashes and no other. */
async function assertFromPackages(r: LockReport, dir: string) {
  assert.deepEqual(fx.archiveRequests(), [], 'no archive requested');
  assert.equal(r.archivesDownloaded, 0);
  const report = r.lockFiles.find((f) => f.dir === dir)!;
  for (const e of entries(dir)) {
    const provider = e.address.split('/').slice(1).join('/');
    assert.deepEqual(e.hashes, await allHashes(provider, e.version!), `${provider} ${e.version}: h1: and zh: of ${PLATFORMS.join(', ')}`);
    assert.deepEqual(report.providers.find((p) => p.provider === e.address)?.platforms, PLATFORMS, provider);
  }
}

before(async () => {
  fx = await startLockFixture();
  H = fx.reg.host;
  for (const [ns, type, versions] of [['acme', 'alpha', ['1.0.0', '1.1.0', '1.2.0', '2.0.0']], ['acme', 'beta', ['0.3.0', '0.4.0']], ['other', 'gamma', ['3.2.1', '3.3.0']]] as const) {
    await fx.servePackages(await fx.addProvider(ns, type, [...versions], PLATFORMS), correctPackages);
  }
});
after(async () => { await fx.stop(); });

test('packages: several providers across child modules, overlapping constraints merged, every listed platform from one answer', async () => {
  const dir = fx.config({
    'main.tf': `${required({ alpha: '~> 1.0', beta: undefined })}\nmodule "net" {\n  source = "./modules/net"\n}\n\nmodule "edge" {\n  source = "./modules/edge"\n}\n`,
    'modules/net/main.tf': `${required({ alpha: '>= 1.0.1, < 1.2.0', gamma: '>= 3.0' })}\nmodule "deep" {\n  source = "../deep"\n}\n`,
    'modules/edge/main.tf': required({ alpha: '~> 1.0', gamma: '~> 3.2' }),
    'modules/deep/main.tf': required({ gamma: '!= 3.2.1' }),
  });
  fx.reg.server.resetLog();
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: ['linux_amd64'] });
  noFailures(r);
  assert.deepEqual(entries(dir).map((p) => [p.address, p.version, p.constraints]), [
    [`${H}/acme/alpha`, '1.1.0', '~> 1.0, >= 1.0.1, < 1.2.0'],
    [`${H}/acme/beta`, '0.4.0', null],
    [`${H}/other/gamma`, '3.3.0', '>= 3.0.0, ~> 3.2, != 3.2.1'],
  ]);
  await assertFromPackages(r, dir);
  // One download answer per provider version tells every platform.
  for (const path of ['acme/alpha/1.1.0', 'acme/beta/0.4.0', 'other/gamma/3.3.0']) assert.equal(fx.reg.server.count(`/v1/providers/${path}/download/`), 1, path);
});

test('packages: a pinned older version is kept (its hashes merged), --upgrade moves to the newest matching, a re-run sends no request', async () => {
  const dir = fx.config({ 'main.tf': required({ alpha: '~> 1.0', beta: undefined }) });
  // Pins from an earlier `tofu init` on one machine: alpha 1.0.0 with its linux_amd64 h1: and a
  // hash the registry does not list (kept, as OpenTofu merges), beta 0.3.0 without hashes.
  const linux = await h1OfZip(fx.pkg('acme', 'alpha', '1.0.0', 'linux_amd64').path);
  const foreign = 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';
  writeFileSync(lockPath(dir), `provider "${H}/acme/alpha" {\n  version = "1.0.0"\n  hashes = [\n    "${linux}",\n    "${foreign}",\n  ]\n}\n\nprovider "${H}/acme/beta" {\n  version = "0.3.0"\n}\n`);
  const cacheDir = join(fx.root, 'packages-pin-cache');
  fx.reg.server.resetLog();
  const kept = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [dir], platforms: ['linux_amd64'] });
  noFailures(kept);
  assert.deepEqual(entries(dir).map((p) => [p.address.split('/').pop(), p.version]), [['alpha', '1.0.0'], ['beta', '0.3.0']]);
  assert.deepEqual(fx.archiveRequests(), []);
  assert.equal(kept.archivesDownloaded, 0);
  const alpha = entries(dir)[0].hashes;
  assert.deepEqual(alpha, [...await allHashes('acme/alpha', '1.0.0'), foreign].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  assert.deepEqual(entries(dir)[1].hashes, await allHashes('acme/beta', '0.3.0'));
  assert.deepEqual(kept.lockFiles[0].providers.map((p) => [p.previousPlatforms, p.platforms]), [[['linux_amd64'], PLATFORMS], [[], PLATFORMS]]);
  assert.equal(fx.reg.server.count('/v1/providers/acme/alpha/versions'), 0, 'a kept pin needs no version list');

  fx.reg.server.resetLog();
  const upgraded = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [dir], platforms: ['linux_amd64'], upgrade: true });
  noFailures(upgraded);
  assert.deepEqual(upgraded.lockFiles[0].providers.map((p) => [p.provider.split('/').pop(), p.previousVersion, p.version]), [['alpha', '1.0.0', '1.2.0'], ['beta', '0.3.0', '0.4.0']]);
  await assertFromPackages(upgraded, dir); // a new version starts a fresh hash set: the foreign h1: is gone

  // An unchanged re-run (new engine, same cache): no request at all, the file not rewritten.
  const before = snapshot(lockPath(dir));
  fx.reg.server.resetLog();
  const again = await lockProviders({ engine: fx.lockEngine(cacheDir), dirs: [dir], platforms: ['linux_amd64'] });
  noFailures(again);
  assert.equal(again.lockFiles[0].changed, false);
  assert.equal(fx.reg.server.requests.length, 0, `no request at all: ${fx.reg.server.requests.map((x) => x.path).join(', ')}`);
  assert.equal(again.archivesDownloaded, 0);
  assert.deepEqual(again.lockFiles[0].providers.map((p) => p.platforms), [PLATFORMS, PLATFORMS]);
  assert.deepEqual(snapshot(lockPath(dir)), before);
});

test('packages: two directories sharing providers, several platforms asked — one answer per version, nothing downloaded', async () => {
  const a = fx.config({ 'main.tf': required({ alpha: '1.0.0', gamma: '3.2.1' }) });
  const b = fx.config({ 'main.tf': required({ alpha: '1.0.0', beta: '0.3.0' }) });
  fx.reg.server.resetLog();
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [a, b], platforms: ['linux_amd64', 'windows_amd64'], concurrency: 4 });
  noFailures(r);
  assert.deepEqual(r.lockFiles.map((f) => [f.changed, f.providers.map((p) => `${p.provider.split('/').pop()} ${p.version}`)]),
    [[true, ['alpha 1.0.0', 'gamma 3.2.1']], [true, ['alpha 1.0.0', 'beta 0.3.0']]]);
  await assertFromPackages(r, a);
  await assertFromPackages(r, b);
  assert.equal(fx.reg.server.count('/v1/providers/acme/alpha/1.0.0/download/'), 1, 'alpha 1.0.0: one download answer for both directories and platforms');
  const sums = '/files/acme/alpha/1.0.0/terraform-provider-alpha_1.0.0_SHA256SUMS';
  assert.deepEqual(fx.reg.server.requests.filter((x) => x.path.startsWith(sums)).map((x) => x.path), [sums, `${sums}.sig`], 'its SHA256SUMS fetched once');
});
