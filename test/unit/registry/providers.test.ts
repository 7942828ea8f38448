import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RegistryError } from '../../../src/engine/net/errors';
import { sendJson } from '../../support/https-server';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, testEngine, withRegistry } from '../../support/registry-helpers';

const isErr = (code: string, re: RegExp) => (e: unknown) => e instanceof RegistryError && e.code === code && re.test(e.message);

test('providers: versions with protocols and platforms, newest first', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const list = await engine.listProviderVersions(`${reg.host}/acme/widget`);
  assert.equal(list.address, `${reg.host}/acme/widget`);
  assert.deepEqual(list.versions.map((v) => v.version), ['2.0.0', '2.0.0-alpha1', '1.1.0', '1.0.0']);
  assert.deepEqual(list.versions[2], { version: '1.1.0', protocols: ['5.0'], platforms: [
    { os: 'linux', arch: 'amd64' }, { os: 'darwin', arch: 'arm64' }, { os: 'windows', arch: 'amd64' }] });
  await assert.rejects(engine.listProviderVersions(`${reg.host}/acme/nope`), isErr('not-found', new RegExp(`^provider ${reg.host}/acme/nope not found on ${reg.host} \\(404`)));
  await engine.dispose();
}));

test('providers: package metadata with URLs resolved against the final response URL', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const meta = await engine.getProviderPackage(`${reg.host}/acme/widget`, '1.0.0', 'darwin', 'arm64');
  const dir = `${reg.origin}/files/acme/widget/1.0.0`;
  assert.equal(meta.filename, 'terraform-provider-widget_1.0.0_darwin_arm64.zip');
  assert.equal(meta.downloadUrl, `${dir}/terraform-provider-widget_1.0.0_darwin_arm64.zip`);
  assert.equal(meta.shasumsUrl, `${dir}/terraform-provider-widget_1.0.0_SHA256SUMS`);
  assert.equal(meta.shasumsSignatureUrl, `${dir}/terraform-provider-widget_1.0.0_SHA256SUMS.sig`);
  assert.match(meta.shasum, /^[0-9a-f]{64}$/);
  assert.deepEqual(meta.protocols, ['5.0']);
  assert.equal(meta.signingKeys[0].keyId, '0123456789ABCDEF');
  assert.match(meta.signingKeys[0].asciiArmor, /BEGIN PGP PUBLIC KEY BLOCK/);
  reg.setFault('/v1/providers/acme/widget/2.0.0/download/', 'redirect-second-host');
  const moved = await engine.getProviderPackage(`${reg.host}/acme/widget`, '2.0.0', 'linux', 'amd64');
  assert.equal(moved.downloadUrl, `${reg.secondOrigin}/files/acme/widget/2.0.0/terraform-provider-widget_2.0.0_linux_amd64.zip`);
  await assert.rejects(engine.getProviderPackage(`${reg.host}/acme/widget`, '1.0.0', 'windows', 'amd64'),
    isErr('not-found', new RegExp(`^provider ${reg.host}/acme/widget 1\\.0\\.0 is not available for windows_amd64 on ${reg.host}`)));
  await engine.dispose();
}));

test('providers: invalid package metadata is refused (shasum, filename, URLs)', () => withRegistry({}, async (reg) => {
  const base = { protocols: ['5.0'], os: 'linux', arch: 'amd64', filename: 'p.zip', download_url: 'p.zip', shasums_url: 'S', shasums_signature_url: 'S.sig',
    shasum: 'a'.repeat(64), signing_keys: { gpg_public_keys: [] } };
  const docs: Record<string, unknown> = {
    short: { ...base, shasum: 'abc' },
    unsafe: { ...base, filename: '../../etc/passwd' },
    nourl: { ...base, download_url: undefined },
    scheme: { ...base, download_url: 'file:///etc/passwd' },
  };
  reg.server.route('/v1/providers/bad/', (_q, res, url) => {
    const kind = url.pathname.split('/')[4];
    if (url.pathname.endsWith('/versions')) return sendJson(res, 200, { versions: [] });
    sendJson(res, 200, docs[kind]);
  });
  const engine = testEngine(reg);
  await assert.rejects(engine.getProviderPackage(`${reg.host}/bad/short`, '1.0.0', 'linux', 'amd64'), isErr('protocol', /"shasum" must be 64 hexadecimal characters, got "abc"/));
  await assert.rejects(engine.getProviderPackage(`${reg.host}/bad/unsafe`, '1.0.0', 'linux', 'amd64'), isErr('protocol', /unsafe filename/));
  await assert.rejects(engine.getProviderPackage(`${reg.host}/bad/nourl`, '1.0.0', 'linux', 'amd64'), isErr('protocol', /missing "download_url"/));
  await assert.rejects(engine.getProviderPackage(`${reg.host}/bad/scheme`, '1.0.0', 'linux', 'amd64'), isErr('protocol', /"download_url" is not a valid URL/));
  await assert.rejects(engine.getProviderPackage(`${reg.host}/bad/short`, 'v1.0.0', 'linux', 'amd64'), isErr('invalid-version', /"v" prefix/));
  await assert.rejects(engine.getProviderPackage(`${reg.host}/bad/short`, '1.0.0', '../x', 'amd64'), isErr('invalid-address', /invalid platform/));
  await engine.dispose();
}));

test('downloads: streamed, size-capped, status checked, no credentials', () => withRegistry({ token: 'tok' }, async (reg) => {
  reg.addFile('/files/big.bin', Buffer.alloc(5000, 1));
  const dir = tempDir();
  const rc = join(dir.path, 'tofurc');
  writeFileSync(rc, `credentials "${reg.host}" {\n  token = "tok"\n}\n`);
  const engine = testEngine(reg, { cliConfigFile: rc });
  // the token is configured for exactly this host: API requests carry it, downloads never do
  await engine.listModuleVersions(`${reg.host}/acme/network/aws`);
  assert.ok(reg.server.requests.filter((r) => r.path.startsWith('/v1/')).every((r) => r.authorization === 'Bearer tok'));
  const ok = await engine.http.download(`${reg.origin}/files/big.bin`, { maxBytes: 10_000 });
  let n = 0;
  for await (const c of ok.body) n += (c as Buffer).length;
  assert.equal(n, 5000);
  await assert.rejects(engine.http.download(`${reg.origin}/files/big.bin`, { maxBytes: 100 }), isErr('too-large', /is larger than the 100 bytes limit/));
  await assert.rejects(engine.http.download(`${reg.origin}/files/missing.bin`, { maxBytes: 100 }), isErr('not-found', /404 Not Found/));
  reg.setFault('/files/huge', 'huge-body');
  const huge = await engine.http.download(`${reg.origin}/files/huge`, { maxBytes: 1024 * 1024 });
  await assert.rejects((async () => { for await (const _ of huge.body) { /* drain */ } })(), isErr('too-large', /larger than the 1 MiB limit/));
  const downloads = reg.server.requests.filter((r) => r.path.startsWith('/files/'));
  assert.equal(downloads.length, 4);
  assert.ok(downloads.every((r) => r.authorization === undefined));
  await engine.dispose();
  dir.remove();
}));
