// publish-provider --out: a release built here (three platforms, a throwaway OpenPGP key) published
// into a directory that a plain static HTTPS server serves with no content types but `.json`'s;
// `lock` for all three platforms from it records exactly the hashes of the zips (from `packages`,
// no download); a second version merges; re-publishing writes nothing; a changed zip under the same
// version is refused (and replaced with force); an unlisted zip, a bad signature and a wrong
// executable name are refused with nothing written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProviderSource } from '../../../src/engine/addresses/provider-source';
import { Engine } from '../../../src/engine/engine';
import { lockProviders, readLockFile } from '../../../src/engine/lock';
import { h1OfZip } from '../../../src/engine/providerpkg/hash';
import { publishProvider, ProviderPublishError } from '../../../src/engine/providerpublish';
import type { TestHttpsServer } from '../../support/https-server';
import { tempDir } from '../../support/temp';
import { testPki } from '../../support/tls';
import { buildRelease, BuiltZip, configFor, keyFiles, PLATFORMS, snapshot, startBareServer } from './fixture';

let root: string;
let site: string;
let server: TestHttpsServer;
let key: Awaited<ReturnType<typeof keyFiles>>;
let address: string;
const built = new Map<string, BuiltZip[]>();

before(async () => {
  root = tempDir('provider-publish-');
  site = join(root, 'site');
  server = await startBareServer(site);
  address = `${server.host}/acme/widget`;
  key = await keyFiles(join(root, 'keys'));
  built.set('1.0.0', await buildRelease(join(root, 'dist-1.0.0'), key, { version: '1.0.0' }));
});
after(async () => { await server.stop(); });

const engine = () => new Engine({ env: { HOME: '/nonexistent-home-for-tests' }, caFiles: [testPki().caCertPath], timeoutMs: 5_000 });

/** h1: and zh: of every zip of a version, sorted as a lock file sorts them. */
async function hashesOf(version: string): Promise<string[]> {
  const out: string[] = [];
  for (const z of built.get(version)!) out.push(await h1OfZip(z.path), `zh:${z.sha256}`);
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

async function refused(run: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof ProviderPublishError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

test('publish: the first version makes a site that lock reads for three platforms, from a server sending no content types', async () => {
  const r = await publishProvider({ dist: join(root, 'dist-1.0.0'), address: parseProviderSource(address), out: site, publicKey: readFileSync(key.publicFile, 'utf8') });
  assert.deepEqual(r.platforms, PLATFORMS);
  assert.equal(r.version, '1.0.0');
  assert.equal(r.site, site);
  assert.deepEqual(r.unchanged, []);
  const v = 'v1/providers/acme/widget/1.0.0';
  assert.deepEqual(r.written.slice(-5), [`${v}/download/darwin/arm64`, `${v}/download/linux/amd64`, `${v}/download/windows/amd64`, 'v1/providers/acme/widget/versions', '.well-known/terraform.json'], 'documents last');
  assert.deepEqual(JSON.parse(readFileSync(join(site, '.well-known/terraform.json'), 'utf8')), { 'providers.v1': '/v1/providers/' });
  const doc = JSON.parse(readFileSync(join(site, v, 'download/linux/amd64'), 'utf8'));
  assert.equal(doc.download_url, '../../terraform-provider-widget_1.0.0_linux_amd64.zip');
  assert.equal(doc.shasums_signature_url, '../../terraform-provider-widget_1.0.0_SHA256SUMS.sig');
  assert.deepEqual(doc.protocols, ['6.0']);
  assert.equal(doc.signing_keys.gpg_public_keys[0].key_id, key.keyId);

  // The engine reads the site as tofu does: the providers.v1 documents carry no Content-Type at all.
  server.resetLog();
  const e = engine();
  try {
    const versions = await e.listProviderVersions(address);
    assert.deepEqual(versions.versions.map((x) => [x.version, x.protocols, x.platforms.length]), [['1.0.0', ['6.0'], 3]]);
    const dir = configFor(join(root, 'config-1'), address);
    const lock = await lockProviders({ engine: e, dirs: [dir], platforms: PLATFORMS });
    assert.deepEqual(lock.failed, [], JSON.stringify(lock.failed));
    const [entry] = readLockFile(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).providers;
    assert.equal(entry.address, address);
    assert.equal(entry.version, '1.0.0');
    assert.deepEqual(entry.hashes, await hashesOf('1.0.0'), 'h1: and zh: of the three zips');
    assert.equal(lock.archivesDownloaded, 0, 'packages: no archive needed');
    assert.ok(server.count('/v1/providers/acme/widget/1.0.0/download/') >= 1);
  } finally {
    await e.dispose();
  }
});

test('publish: a second version (signed here with the signing key) merges; the first stays; a re-run writes nothing', async () => {
  const dist = join(root, 'dist-1.1.0');
  built.set('1.1.0', await buildRelease(dist, key, { version: '1.1.0', sign: false, protocols: ['5.0', '6.0'] }));
  const before1 = snapshot(join(site, 'v1/providers/acme/widget/1.0.0'));
  const r = await publishProvider({ dist, address: parseProviderSource(address), out: site, signingKey: key.privateArmored });
  assert.ok(r.written.includes('v1/providers/acme/widget/1.1.0/terraform-provider-widget_1.1.0_SHA256SUMS.sig'));
  assert.deepEqual(r.unchanged, ['.well-known/terraform.json']);
  assert.deepEqual(snapshot(join(site, 'v1/providers/acme/widget/1.0.0')), before1, '1.0.0 untouched');
  const versions = JSON.parse(readFileSync(join(site, 'v1/providers/acme/widget/versions'), 'utf8')).versions;
  assert.deepEqual(versions.map((x: { version: string; protocols: string[] }) => [x.version, x.protocols]), [['1.0.0', ['6.0']], ['1.1.0', ['5.0', '6.0']]]);

  const e = engine();
  try {
    const dir = configFor(join(root, 'config-2'), address, '~> 1.1');
    const lock = await lockProviders({ engine: e, dirs: [dir], platforms: PLATFORMS });
    assert.deepEqual(lock.failed, [], JSON.stringify(lock.failed));
    const [entry] = readLockFile(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).providers;
    assert.equal(entry.version, '1.1.0');
    assert.deepEqual(entry.hashes, await hashesOf('1.1.0'));
  } finally {
    await e.dispose();
  }

  // Again, both versions: nothing written (the signature made above is kept, though a new one would differ).
  const whole = snapshot(site);
  const again = await publishProvider({ dist, address: parseProviderSource(address), out: site, signingKey: key.privateArmored });
  const again1 = await publishProvider({ dist: join(root, 'dist-1.0.0'), address: parseProviderSource(address), out: site, publicKey: key.publicArmored });
  assert.deepEqual([again.written, again1.written], [[], []]);
  assert.equal(again.unchanged.length, 3 + 2 + 3 + 2);
  assert.deepEqual(snapshot(site), whole, 'no file touched');
});

test('publish: a changed zip under a published version is refused (nothing written), and replaced with force', async () => {
  const dist = join(root, 'dist-1.0.0-rebuilt');
  await buildRelease(dist, key, { version: '1.0.0', salt: 'rebuilt' });
  const whole = snapshot(site);
  await refused(publishProvider({ dist, address: parseProviderSource(address), out: site, publicKey: key.publicArmored }),
    /acme\/widget 1\.0\.0 is already published in .* with other content \(v1\/providers\/acme\/widget\/1\.0\.0\/terraform-provider-widget_1\.0\.0_darwin_arm64\.zip, .*--force/);
  assert.deepEqual(snapshot(site), whole, 'nothing written');
  const r = await publishProvider({ dist, address: parseProviderSource(address), out: site, publicKey: key.publicArmored, force: true });
  assert.ok(r.written.includes('v1/providers/acme/widget/1.0.0/terraform-provider-widget_1.0.0_linux_amd64.zip'));
  assert.ok(r.unchanged.includes('v1/providers/acme/widget/versions'), 'the same platforms and protocols');
  // back to the original for the other tests
  await publishProvider({ dist: join(root, 'dist-1.0.0'), address: parseProviderSource(address), out: site, publicKey: key.publicArmored, force: true });
});

test('publish: a zip missing from SHA256SUMS, a bad signature and a wrong executable name are refused with nothing written', async () => {
  const fresh = join(root, 'fresh-site');
  const whole = snapshot(site);
  const other = await keyFiles(join(root, 'other-keys'), 'someone else');
  const cases: Array<{ name: string; build: (dist: string) => Promise<unknown>; publicKey?: string; pattern: RegExp }> = [
    { name: 'unlisted', build: (d) => buildRelease(d, key, { version: '2.0.0', unlisted: ['linux_amd64'] }), pattern: /terraform-provider-widget_2\.0\.0_linux_amd64\.zip: SHA256SUMS has no SHA-256 hash for "terraform-provider-widget_2\.0\.0_linux_amd64\.zip"/ },
    { name: 'signed by another key', build: (d) => buildRelease(d, other, { version: '2.0.0' }), pattern: /terraform-provider-widget_2\.0\.0_SHA256SUMS\.sig does not verify with the published key .*signed by key [0-9A-F]{16}/ },
    {
      name: 'tampered sums', pattern: /SHA256SUMS\.sig does not verify with the published key \(the signature of SHA256SUMS does not verify/,
      build: async (d) => {
        await buildRelease(d, key, { version: '2.0.0' });
        const sums = join(d, 'terraform-provider-widget_2.0.0_SHA256SUMS');
        writeFileSync(sums, readFileSync(sums, 'utf8') + `${'0'.repeat(64)}  extra.txt\n`);
      },
    },
    { name: 'no executable', build: (d) => buildRelease(d, key, { version: '2.0.0', executable: (p) => (p === 'darwin_arm64' ? 'widget' : `terraform-provider-widget_v2.0.0${p.startsWith('windows') ? '.exe' : ''}`) }), pattern: /terraform-provider-widget_2\.0\.0_darwin_arm64\.zip holds no provider executable: tofu looks for a file named terraform-provider-widget.*it has LICENSE, widget/ },
    { name: 'other type', build: (d) => buildRelease(d, key, { version: '2.0.0', executable: () => 'terraform-provider-gadget_v2.0.0' }), pattern: /holds no provider executable/ },
    { name: 'windows without .exe', build: (d) => buildRelease(d, key, { version: '2.0.0', executable: () => 'terraform-provider-widget_v2.0.0' }), pattern: /windows_amd64\.zip holds terraform-provider-widget_v2\.0\.0 as the provider executable, which Windows cannot run: name it terraform-provider-widget_v2\.0\.0\.exe/ },
    { name: 'unsigned, no signing key', build: (d) => buildRelease(d, key, { version: '2.0.0', sign: false }), pattern: /has no signature .* no --signing-key to make one; tofu init refuses unsigned registry providers/ },
    { name: 'no key at all', build: (d) => buildRelease(d, key, { version: '2.0.0' }), publicKey: '', pattern: /no key to publish/ },
  ];
  for (const c of cases) {
    const dist = join(root, `dist-bad-${c.name.replace(/\W+/g, '-')}`);
    await c.build(dist);
    for (const out of [site, fresh]) {
      await refused(publishProvider({ dist, address: parseProviderSource(address), out, ...(c.publicKey === '' ? {} : { publicKey: key.publicArmored }) }), c.pattern);
    }
    assert.deepEqual(snapshot(site), whole, `${c.name}: nothing written to the site`);
    assert.ok(!existsSync(fresh), `${c.name}: not even the directory`);
  }
});

test('publish: discovery keeps the services it had (modules.v1 beside providers.v1); another providers.v1 is refused', async () => {
  const out = join(root, 'shared-host');
  const wk = join(out, '.well-known');
  mkdirSync(wk, { recursive: true });
  writeFileSync(join(wk, 'terraform.json'), JSON.stringify({ 'modules.v1': '/v1/modules/' }));
  await publishProvider({ dist: join(root, 'dist-1.0.0'), address: parseProviderSource(address), out, publicKey: key.publicArmored });
  assert.deepEqual(JSON.parse(readFileSync(join(wk, 'terraform.json'), 'utf8')), { 'modules.v1': '/v1/modules/', 'providers.v1': '/v1/providers/' });
  writeFileSync(join(wk, 'terraform.json'), JSON.stringify({ 'providers.v1': 'https://elsewhere.example/providers/' }));
  await refused(publishProvider({ dist: join(root, 'dist-1.1.0'), address: parseProviderSource(address), out, signingKey: key.privateArmored }),
    /already announces providers\.v1 = "https:\/\/elsewhere\.example\/providers\/"/);
  assert.ok(!existsSync(join(out, 'v1/providers/acme/widget/1.1.0')));
});

test('publish: behind a server that sends no content type at all, a CLI configuration host block stands in for discovery', async () => {
  const bare = await startBareServer(site, false);
  const e = new Engine({ env: { HOME: '/nonexistent-home-for-tests' }, caFiles: [testPki().caCertPath], timeoutMs: 5_000, cliConfigFile: writeRc(bare) });
  try {
    const bareAddress = `${bare.host}/acme/widget`;
    const dir = configFor(join(root, 'config-bare'), bareAddress, '1.0.0');
    const lock = await lockProviders({ engine: e, dirs: [dir], platforms: PLATFORMS });
    assert.deepEqual(lock.failed, [], JSON.stringify(lock.failed));
    assert.deepEqual(readLockFile(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).providers[0].hashes, await hashesOf('1.0.0'));
    const pkg = await e.getProviderPackage(bareAddress, '1.0.0', 'windows', 'amd64');
    assert.equal(pkg.downloadUrl, `${bare.origin}/v1/providers/acme/widget/1.0.0/terraform-provider-widget_1.0.0_windows_amd64.zip`);
    assert.equal(bare.count('/.well-known/'), 0, 'discovery answered by the host block');
    assert.ok(bare.requests.length > 0);
  } finally {
    await e.dispose();
    await bare.stop();
  }
});

function writeRc(s: TestHttpsServer): string {
  const rc = join(root, `tofurc-${s.port}`);
  writeFileSync(rc, `host "${s.host}" {\n  services = {\n    "providers.v1" = "${s.origin}/v1/providers/"\n  }\n}\n`);
  return rc;
}

test('publish: DIST with several versions needs --version; without a manifest the protocol is 5.0', async () => {
  const dist = join(root, 'dist-several');
  await buildRelease(dist, key, { version: '4.0.0' });
  await buildRelease(dist, key, { version: '4.1.0-beta.1' });
  rmSync(join(dist, 'terraform-provider-widget_4.1.0-beta.1_manifest.json'));
  const out = join(root, 'several-site');
  await refused(publishProvider({ dist, address: parseProviderSource(address), out, publicKey: key.publicArmored }),
    /holds packages of several versions \(4\.0\.0, 4\.1\.0-beta\.1\); choose one with --version/);
  await refused(publishProvider({ dist, address: parseProviderSource(address), version: '4.2.0', out, publicKey: key.publicArmored }),
    /holds no terraform-provider-widget_4\.2\.0_OS_ARCH\.zip \(versions there: 4\.0\.0, 4\.1\.0-beta\.1\)/);
  assert.ok(!existsSync(out));
  const r = await publishProvider({ dist, address: parseProviderSource(address), version: '4.1.0-beta.1', out, publicKey: key.publicArmored });
  assert.equal(r.version, '4.1.0-beta.1');
  assert.deepEqual(JSON.parse(readFileSync(join(out, 'v1/providers/acme/widget/versions'), 'utf8')).versions[0].protocols, ['5.0']);
});

test('publish: --force with fewer platforms takes the version\'s other files off the site; other versions stay', async () => {
  const out = join(root, 'force-site');
  await publishProvider({ dist: join(root, 'dist-1.1.0'), address: parseProviderSource(address), out, signingKey: key.privateArmored });
  const full = join(root, 'dist-5-full');
  await buildRelease(full, key, { version: '5.0.0' });
  await publishProvider({ dist: full, address: parseProviderSource(address), out, publicKey: key.publicArmored });
  const fewer = join(root, 'dist-5-fewer');
  await buildRelease(fewer, key, { version: '5.0.0', platforms: ['linux_amd64', 'windows_amd64'] });
  const v = 'v1/providers/acme/widget/5.0.0';
  await refused(publishProvider({ dist: fewer, address: parseProviderSource(address), out, publicKey: key.publicArmored }),
    new RegExp(`${v}/terraform-provider-widget_5\\.0\\.0_SHA256SUMS, .*${v}/terraform-provider-widget_5\\.0\\.0_darwin_arm64\\.zip`));
  const r = await publishProvider({ dist: fewer, address: parseProviderSource(address), out, publicKey: key.publicArmored, force: true });
  assert.deepEqual(r.removed, [`${v}/download/darwin/arm64`, `${v}/terraform-provider-widget_5.0.0_darwin_arm64.zip`].sort());
  assert.ok(!existsSync(join(out, v, 'download/darwin/arm64')));
  const versions = JSON.parse(readFileSync(join(out, 'v1/providers/acme/widget/versions'), 'utf8')).versions;
  assert.deepEqual(versions.map((x: { version: string; platforms: unknown[] }) => [x.version, x.platforms.length]), [['1.1.0', 3], ['5.0.0', 2]]);
});
