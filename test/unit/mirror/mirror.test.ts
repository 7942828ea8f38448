// The mirror engine against the HTTPS test registry with real, signed provider packages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mirrorProviders, STEP_LABEL } from '../../../src/engine/mirror';
import { NetworkMirrorClient } from '../../../src/engine/registry/network-mirror';
import { parseProviderSource } from '../../../src/engine/addresses';
import { Fixture, lockBlock, serveStatic, startFixture, validateMirror, writeConfig } from './fixture';
import { tempDir } from '../../support/temp';

const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'windows_amd64'];
let fx: Fixture;
let host: string;
const outDir = () => tempDir('mirror-out-');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

before(async () => {
  fx = await startFixture();
  host = fx.reg.host;
  await fx.addProvider('acme', 'alpha', ['1.0.0', '1.1.0', '2.0.0'], PLATFORMS);
  await fx.addProvider('acme', 'beta', ['0.3.0'], PLATFORMS);
  await fx.addProvider('other', 'gamma', ['3.2.1', '3.3.0-beta.1'], PLATFORMS);
});
after(async () => { await fx.stop(); });

function threeProviders(lock?: string): string {
  return writeConfig(fx.root, {
    alpha: { source: `${host}/acme/alpha`, version: '~> 1.0' },
    beta: { source: `${host}/acme/beta` },
    gamma: { source: `${host}/other/gamma`, version: '>= 3.0' },
  }, lock);
}

test('happy path: 3 providers × 3 platforms, layout, conformance walk, and a second run downloads nothing', async () => {
  const out = outDir();
  const dir = threeProviders();
  const engine = fx.engine();
  fx.reg.server.resetLog();
  const report = await mirrorProviders({ engine, dirs: [dir], out, platforms: PLATFORMS, concurrency: 4 });
  assert.deepEqual(report.failed, []);
  assert.equal(report.mirrored.length, 9);
  assert.deepEqual([...new Set(report.mirrored.map((m) => `${m.provider} ${m.version}`))], [
    `${host}/acme/alpha 1.1.0`, `${host}/acme/beta 0.3.0`, `${host}/other/gamma 3.2.1`,
  ]);
  // Exact layout and hashes (zh: from the bytes the test built).
  const alphaDir = join(out, host, 'acme', 'alpha');
  assert.deepEqual(JSON.parse(readFileSync(join(alphaDir, 'index.json'), 'utf8')), { versions: { '1.1.0': {} } });
  const vdoc = JSON.parse(readFileSync(join(alphaDir, '1.1.0.json'), 'utf8'));
  assert.deepEqual(Object.keys(vdoc.archives), PLATFORMS);
  const p = fx.pkg('acme', 'alpha', '1.1.0', 'linux_amd64');
  assert.equal(vdoc.archives.linux_amd64.url, 'terraform-provider-alpha_1.1.0_linux_amd64.zip');
  assert.equal(vdoc.archives.linux_amd64.hashes[1], `zh:${p.sha256}`);
  assert.match(vdoc.archives.linux_amd64.hashes[0], /^h1:[A-Za-z0-9+/]{43}=$/);
  assert.deepEqual(readFileSync(join(alphaDir, 'terraform-provider-alpha_1.1.0_linux_amd64.zip')), readFileSync(p.path));
  assert.equal(await validateMirror(out), 9);
  // Archives were fetched without credentials; SHA256SUMS once per version (not per platform).
  assert.equal(fx.reg.server.requests.filter((r) => r.path.startsWith('/files/') && r.authorization).length, 0);
  assert.equal(fx.reg.server.count('/files/acme/alpha/1.1.0/terraform-provider-alpha_1.1.0_SHA256SUMS.sig'), 1);

  // Conformance: serve OUT as a static site and walk it like `tofu init` does.
  const site = await serveStatic(out);
  try {
    const client = new NetworkMirrorClient(site.url, engine.http);
    for (const m of report.mirrored) {
      const [h, ns, type] = m.provider.split('/');
      const ref = { host: h, namespace: ns, type };
      assert.ok((await client.listVersions(ref)).includes(m.version));
      const archives = await client.listArchives(ref, m.version);
      const a = archives[m.platform];
      assert.equal(a.url, `${site.url}${host}/${ns}/${type}/terraform-provider-${type}_${m.version}_${m.platform}.zip`);
      const dest = join(tempDir('walk-'), 'a.zip');
      const got = await client.fetchArchive(a, dest, { maxBytes: 1 << 24 });
      assert.equal(got.verified, true);
      assert.deepEqual([got.h1, got.zh], m.hashes);
    }
    assert.ok(site.server.requests.every((r) => !r.authorization));
  } finally {
    await site.server.stop();
  }

  // Second run, fresh engine: everything up to date, no archive or signature requested again;
  // leftovers of a killed run are swept even though nothing in that directory is downloaded.
  writeFileSync(join(alphaDir, '.1.1.0.json.0123456789ab.tmp'), '{"arch');
  writeFileSync(join(alphaDir, '.terraform-provider-alpha_1.1.0_linux_amd64.zip.0123456789ab.part'), 'PK');
  fx.reg.server.resetLog();
  const again = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: PLATFORMS });
  assert.equal(again.mirrored.length, 0);
  assert.equal(again.upToDate.length, 9);
  assert.deepEqual(again.failed, []);
  assert.equal(fx.reg.server.count('/files/'), 0);
  assert.equal(fx.reg.server.count('/v1/providers/acme/alpha/1.1.0/download'), 0);
  assert.deepEqual(readdirSync(alphaDir).filter((f) => f.startsWith('.')), []);
  assert.equal(await validateMirror(out), 9);
});

test('merge: a second configuration adds to an existing mirror and drops nothing', async () => {
  const out = outDir();
  const first = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha`, version: '~> 2.0' } });
  const r1 = await mirrorProviders({ engine: fx.engine(), dirs: [first], out, platforms: ['linux_amd64'] });
  assert.equal(r1.mirrored.length, 1);
  const second = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha`, version: '1.0.0' }, beta: { source: `${host}/acme/beta` } });
  const r2 = await mirrorProviders({ engine: fx.engine(), dirs: [second], out, platforms: ['linux_amd64', 'darwin_arm64'] });
  assert.deepEqual(r2.failed, []);
  assert.equal(r2.mirrored.length, 4);
  const alphaDir = join(out, host, 'acme', 'alpha');
  assert.deepEqual(JSON.parse(readFileSync(join(alphaDir, 'index.json'), 'utf8')), { versions: { '1.0.0': {}, '2.0.0': {} } });
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(alphaDir, '2.0.0.json'), 'utf8')).archives), ['linux_amd64']);
  // The first platform of 1.0.0 is there too, and a third run with only one platform keeps both.
  await mirrorProviders({ engine: fx.engine(), dirs: [second], out, platforms: ['linux_amd64'] });
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(alphaDir, '1.0.0.json'), 'utf8')).archives), ['darwin_arm64', 'linux_amd64']);
  assert.equal(await validateMirror(out), 5);
});

test('lock file: the locked version is mirrored and must match the lock hashes', async () => {
  const out = outDir();
  const good = fx.pkg('acme', 'alpha', '1.0.0', 'linux_amd64');
  const dir = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha`, version: '~> 1.0' } },
    lockBlock(`${host}/acme/alpha`, '1.0.0', [`zh:${good.sha256}`]));
  const r = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: ['linux_amd64'] });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(r.mirrored.map((m) => m.version), ['1.0.0']); // not 1.1.0, the newest match
  assert.ok(r.notes.some((n) => n.includes('pinned by')));

  const out2 = outDir();
  const bad = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha` } },
    lockBlock(`${host}/acme/alpha`, '1.0.0', ['h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', `zh:${'0'.repeat(64)}`]));
  const r2 = await mirrorProviders({ engine: fx.engine(), dirs: [bad], out: out2, platforms: ['linux_amd64', 'darwin_arm64'] });
  assert.equal(r2.mirrored.length, 0);
  assert.deepEqual(r2.failed.map((f) => [f.version, f.platform, f.step]), [['1.0.0', 'darwin_arm64', 'lock-hash'], ['1.0.0', 'linux_amd64', 'lock-hash']]);
  assert.match(r2.failed[0].message, /acme\/alpha 1\.0\.0 darwin_arm64: lock file hash check failed: package h1:\S+ zh:[0-9a-f]{64} matches none/);
  assert.ok(!existsSync(join(out2, host, 'acme', 'alpha', 'terraform-provider-alpha_1.0.0_linux_amd64.zip')));
  assert.equal(await validateMirror(out2), 0);

  // Two configurations lock the same version: the package must satisfy both lock files.
  const zhLock = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha` } }, lockBlock(`${host}/acme/alpha`, '1.0.0', [`zh:${good.sha256}`]));
  const h1Lock = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha` } }, lockBlock(`${host}/acme/alpha`, '1.0.0', [r.mirrored[0].hashes[0]]));
  const both = await mirrorProviders({ engine: fx.engine(), dirs: [zhLock, h1Lock], out: outDir(), platforms: ['linux_amd64'] });
  assert.deepEqual(both.failed, []);
  assert.equal(both.mirrored.length, 1);
  const conflict = await mirrorProviders({ engine: fx.engine(), dirs: [bad, zhLock], out: outDir(), platforms: ['linux_amd64'] });
  assert.deepEqual(conflict.failed.map((f) => f.step), ['lock-hash']);
  assert.ok(conflict.failed[0].message.includes(join(bad, '.terraform.lock.hcl')), conflict.failed[0].message);
});

test('lock file contradicting the configured constraint fails at step resolve (like tofu init), nothing mirrored', async () => {
  const lock = lockBlock(`${host}/acme/alpha`, '1.0.0', []);
  const dir = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha`, version: '~> 2.0' } }, lock);
  const events: string[] = [];
  const out = outDir();
  fx.reg.server.resetLog();
  const r = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: ['linux_amd64', 'darwin_arm64'],
    onProgress: (e) => { if (e.kind === 'failed') events.push(...e.failures.map((f) => f.platform)); } });
  assert.deepEqual(r.mirrored, []);
  assert.deepEqual(r.failed.map((f) => [f.version, f.platform, f.step]), [['1.0.0', 'linux_amd64', 'resolve'], ['1.0.0', 'darwin_arm64', 'resolve']]);
  assert.equal(r.failed[0].message, `${host}/acme/alpha 1.0.0 linux_amd64: choosing the version failed: ${join(dir, '.terraform.lock.hcl')}: `
    + `locked provider ${host}/acme/alpha 1.0.0 does not match configured version constraint ~> 2.0; must use tofu init -upgrade to allow selection of new versions`);
  assert.deepEqual(events.sort(), ['darwin_arm64', 'linux_amd64'], 'reported live through onProgress');
  assert.equal(fx.reg.server.count('/files/'), 0, 'nothing downloaded');
  // a lock file within the constraint is still used as the pin
  const ok = writeConfig(fx.root, { alpha: { source: `${host}/acme/alpha`, version: '>= 1.0, < 2.0' } }, lock);
  const r2 = await mirrorProviders({ engine: fx.engine(), dirs: [ok], out: outDir(), platforms: ['linux_amd64'] });
  assert.deepEqual([r2.failed, r2.mirrored.map((m) => m.version)], [[], ['1.0.0']]);
});

test('SHA256SUMS and its signature have a short deadline (4× the request timeout): a trickling server fails fast, naming the step', async () => {
  await fx.addProvider('acme', 'trickle', ['1.0.0', '2.0.0'], ['linux_amd64']);
  const slow = (path: string) => fx.reg.server.route(path, (req, res, url) => {
    if (url.pathname !== path) return false;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '50000' }); // under both size caps
    const timer = setInterval(() => { if (!res.destroyed) res.write(' '); }, 50); // never idle for the request timeout
    res.on('close', () => clearInterval(timer));
    req.socket.on('close', () => clearInterval(timer));
    return undefined;
  });
  const base = `/files/acme/trickle`;
  slow(`${base}/1.0.0/terraform-provider-trickle_1.0.0_SHA256SUMS`);
  slow(`${base}/2.0.0/terraform-provider-trickle_2.0.0_SHA256SUMS.sig`);
  const engine = fx.engine({ timeoutMs: 250 });
  const started = Date.now();
  const [one, two] = await Promise.all(['1.0.0', '2.0.0'].map((version) => mirrorProviders({
    engine, dirs: [], out: outDir(), platforms: ['linux_amd64'],
    requirements: [{ address: parseProviderSource(`${host}/acme/trickle`), constraints: [version], dir: fx.root }],
  })));
  const ms = Date.now() - started;
  assert.ok(ms < 5_000, `took ${ms} ms`);
  assert.deepEqual(one.failed.map((f) => f.step), ['sha256sums']);
  assert.match(one.failed[0].message, /SHA256SUMS check failed: could not fetch SHA256SUMS: download of https:\/\/\S+_SHA256SUMS did not finish within 1 s \(\S+ is too slow\)$/);
  assert.deepEqual(two.failed.map((f) => f.step), ['signature']);
  assert.match(two.failed[0].message, /signature check failed: could not fetch SHA256SUMS\.sig: download of https:\/\/\S+_SHA256SUMS\.sig did not finish within 1 s/);
});

test('each verification failure rejects exactly that archive, naming provider, version, platform and step', async () => {
  const platforms = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64', 'freebsd_amd64'];
  const rel = 'acme/delta/1.0.0';
  const otherDoc = Buffer.from(`${'1'.repeat(64)}  something-else.zip\n`);
  const { signDetached } = await import('../../support/provider-packages');
  const sumsWithoutFile = fx.files.addBody(`${rel}/alt_SHA256SUMS`, otherDoc);
  const sumsWithoutFileSig = fx.files.addBody(`${rel}/alt_SHA256SUMS.sig`, await signDetached(otherDoc, fx.key));
  const wrongSig = fx.files.addBody(`${rel}/wrong.sig`, await signDetached(otherDoc, fx.key));
  await fx.addProvider('acme', 'delta', ['1.0.0'], platforms, (p) => {
    switch (p.platform) {
      case 'linux_arm64': return { shasum: 'f'.repeat(64) };
      case 'darwin_amd64': return { shasums_url: sumsWithoutFile, shasums_signature_url: sumsWithoutFileSig };
      case 'darwin_arm64': return { shasums_signature_url: wrongSig };
      case 'windows_amd64': return { signing_keys: { gpg_public_keys: [{ key_id: fx.other.keyId, ascii_armor: fx.other.publicArmored }] } };
      default: return undefined;
    }
  });
  fx.files.fault('terraform-provider-delta_1.0.0_freebsd_amd64.zip', { kind: 'truncate', bytes: 100 });
  const out = outDir();
  const dir = writeConfig(fx.root, { delta: { source: `${host}/acme/delta` } });
  const r = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms });
  assert.deepEqual(r.mirrored.map((m) => m.platform), ['linux_amd64']);
  assert.deepEqual(r.failed.map((f) => [f.platform, f.step]), [
    ['darwin_amd64', 'sha256sums'], ['darwin_arm64', 'signature'], ['freebsd_amd64', 'size'],
    ['linux_arm64', 'shasum'], ['windows_amd64', 'signature'],
  ]);
  for (const f of r.failed) {
    assert.equal(f.provider, `${host}/acme/delta`);
    assert.equal(f.version, '1.0.0');
    // The message stands alone: provider, version, platform and the step, in words.
    assert.ok(f.message.startsWith(`${host}/acme/delta 1.0.0 ${f.platform}: ${STEP_LABEL[f.step]}: `), f.message);
  }
  assert.match(r.failed.find((f) => f.platform === 'windows_amd64')!.message, /not one of the registry's signing keys/);
  assert.match(r.failed.find((f) => f.platform === 'darwin_arm64')!.message, /does not verify/);
  assert.match(r.failed.find((f) => f.platform === 'darwin_amd64')!.message, /no SHA-256 hash for "terraform-provider-delta_1\.0\.0_darwin_amd64\.zip"/);
  // Nothing unverified under a final name, no temp files.
  const files = readdirSync(join(out, host, 'acme', 'delta'));
  assert.deepEqual(files.filter((f) => f.endsWith('.zip')), ['terraform-provider-delta_1.0.0_linux_amd64.zip']);
  assert.equal(await validateMirror(out), 1);
});

test('path traversal from the network is refused: hostile version and filename', async () => {
  // OUT inside a parent of its own: other test processes create temp dirs beside tmpdir() entries.
  const parent = tempDir('mirror-traversal-');
  const out = join(parent, 'out');
  mkdirSync(out);
  await fx.addProvider('acme', 'evil', ['1.0.0'], ['linux_amd64', 'darwin_arm64'], (p) =>
    p.platform === 'darwin_arm64' ? { filename: '../../evil.zip' } : undefined);
  // A lock file pinning a hostile version; the registry offering a hostile filename.
  const dir = writeConfig(fx.root, { evil: { source: `${host}/acme/evil` }, alpha: { source: `${host}/acme/alpha` } },
    lockBlock(`${host}/acme/alpha`, '../../x', []));
  const before = readdirSync(parent).length;
  const r = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: ['linux_amd64', 'darwin_arm64'] });
  const byKey = Object.fromEntries(r.failed.map((f) => [`${f.provider.split('/').pop()} ${f.version} ${f.platform}`, f.step]));
  assert.equal(byKey['alpha ../../x linux_amd64'], 'path');
  assert.equal(byKey['evil 1.0.0 darwin_arm64'], 'path');
  assert.deepEqual(r.mirrored.map((m) => `${m.provider.split('/').pop()} ${m.platform}`), ['evil linux_amd64']);
  assert.equal(readdirSync(parent).length, before, 'nothing created next to OUT');
  assert.ok(!existsSync(join(out, 'x')) && !existsSync(join(parent, 'x')));
  assert.equal(await validateMirror(out), 1);
});

test('chained mirrors: --from-mirror takes archives from an existing mirror, verified by its hashes', async () => {
  const upstream = outDir();
  const dir = writeConfig(fx.root, { beta: { source: `${host}/acme/beta` } });
  await mirrorProviders({ engine: fx.engine(), dirs: [dir], out: upstream, platforms: ['linux_amd64', 'darwin_arm64'] });
  const site = await serveStatic(upstream);
  try {
    const out = outDir();
    fx.reg.server.resetLog();
    const r = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: ['linux_amd64', 'darwin_arm64'], fromMirror: site.url });
    assert.deepEqual(r.failed, []);
    assert.equal(r.mirrored.length, 2);
    assert.equal(fx.reg.server.count('/'), 0, 'the origin registry was not contacted');
    assert.deepEqual(readFileSync(join(out, host, 'acme', 'beta', '0.3.0.json'), 'utf8'), readFileSync(join(upstream, host, 'acme', 'beta', '0.3.0.json'), 'utf8'));
    // A tampered upstream archive is rejected at the mirror-hash step.
    const zip = join(upstream, host, 'acme', 'beta', 'terraform-provider-beta_0.3.0_linux_amd64.zip');
    const original = readFileSync(zip);
    writeFileSync(zip, Buffer.concat([original, Buffer.from('tampered')]));
    const out2 = outDir();
    const r2 = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out: out2, platforms: ['linux_amd64'], fromMirror: site.url });
    assert.deepEqual(r2.failed.map((f) => f.step), ['mirror-hash']);
    // The network-mirror client (what `tofu init` does) refuses it too and removes the download.
    const client = new NetworkMirrorClient(site.url, fx.engine().http);
    const a = (await client.listArchives({ host, namespace: 'acme', type: 'beta' }, '0.3.0')).linux_amd64;
    const dest = join(outDir(), 'a.zip');
    await assert.rejects(client.fetchArchive(a, dest, { maxBytes: 1 << 24 }), /does not match any of the mirror's hashes/);
    assert.ok(!existsSync(dest));
    writeFileSync(zip, original);
    assert.equal(sha256(readFileSync(zip)), fx.pkg('acme', 'beta', '0.3.0', 'linux_amd64').sha256);
  } finally {
    await site.server.stop();
  }
});

test('an archive left under its final name by an interrupted run is verified and listed, not downloaded again', async () => {
  const out = outDir();
  const p = fx.pkg('acme', 'beta', '0.3.0', 'linux_amd64');
  const dir = join(out, host, 'acme', 'beta');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, p.filename), readFileSync(p.path));
  writeFileSync(join(dir, `.${p.filename}.abcdef.part`), 'half');
  const cfg = writeConfig(fx.root, { beta: { source: `${host}/acme/beta` } });
  fx.reg.server.resetLog();
  const r = await mirrorProviders({ engine: fx.engine(), dirs: [cfg], out, platforms: ['linux_amd64'] });
  assert.deepEqual(r.failed, []);
  assert.equal(r.mirrored.length, 1);
  assert.equal(fx.reg.server.count(`/files/acme/beta/0.3.0/${p.filename}`), 0);
  assert.equal(r.bytesDownloaded, 0);
  assert.equal(await validateMirror(out), 1);
});

test('built-in providers (terraform.io/builtin/terraform) are skipped with a note, never asked for', async () => {
  // Route terraform.io to the test registry: were the built-in provider asked for, the server would see it.
  const cliConfig = join(fx.root, 'builtin.tofurc');
  writeFileSync(cliConfig, `host "terraform.io" {\n  services = { "providers.v1" = "${fx.reg.origin}/v1/providers/" }\n}\n`);
  const engine = () => fx.engine({ cliConfigFile: cliConfig });
  const dir = writeConfig(fx.root, { terraform: { source: 'terraform.io/builtin/terraform' } });
  writeFileSync(join(dir, 'state.tf'), 'data "terraform_remote_state" "net" {\n  backend = "local"\n}\n');
  const implied = writeConfig(fx.root, { terraform: '>= 1.0' }); // no source: the implied provider is the built-in one
  fx.reg.server.resetLog();
  const r = await mirrorProviders({ engine: engine(), dirs: [dir, implied], out: outDir(), platforms: ['linux_amd64'] });
  assert.deepEqual([r.mirrored, r.failed], [[], []]);
  assert.equal(fx.reg.server.requests.length, 0, fx.reg.server.requests.map((q) => q.path).join(', '));
  assert.deepEqual(r.notes.filter((n) => n.includes('not mirrored (built into')), [
    `${dir}: not mirrored (built into OpenTofu, never installed from a registry): terraform.io/builtin/terraform`,
    `${implied}: not mirrored (built into OpenTofu, never installed from a registry): terraform.io/builtin/terraform`,
  ]);
  assert.ok(!r.notes.some((n) => n.includes('hashicorp/terraform')), r.notes.join('\n')); // terraform_remote_state implies no registry provider
  assert.ok(r.notes.includes('nothing to mirror: the selected configurations require only providers built into OpenTofu'), r.notes.join('\n'));

  // next to a real provider, and given directly as a requirement: still no request for it
  const both = writeConfig(fx.root, { terraform: { source: 'terraform.io/builtin/terraform' }, beta: { source: `${host}/acme/beta` } });
  const r2 = await mirrorProviders({
    engine: engine(), dirs: [both], out: outDir(), platforms: ['linux_amd64'],
    requirements: [{ address: parseProviderSource('terraform.io/builtin/terraform'), constraints: [], dir: both }],
  });
  assert.deepEqual(r2.failed, []);
  assert.deepEqual(r2.mirrored.map((m) => m.provider), [`${host}/acme/beta`]);
  assert.ok(r2.notes.includes('terraform.io/builtin/terraform: skipped, built into OpenTofu (never installed from a registry)'), r2.notes.join('\n'));
  assert.equal(fx.reg.server.count('/v1/providers/builtin/'), 0);
});
