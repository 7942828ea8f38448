// providers.v1 documents are read as tofu reads them (internal/getproviders/registry_client.go
// decodes `versions` and `download/OS/ARCH` without a look at the Content-Type): what a static
// server or bucket sends for extension-less files — no type, application/octet-stream, text/plain —
// is read as JSON; a type that declares something else (a proxy's HTML page) is still refused,
// naming it; the discovery document keeps tofu's rule (application/json only: svchost's disco.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RegistryError } from '../../../src/engine/net/errors';
import { testEngine, withRegistry } from '../../support/registry-helpers';

const isErr = (code: string, re: RegExp) => (e: unknown) => e instanceof RegistryError && e.code === code && re.test(e.message);
const TYPES: Record<string, string | undefined> = { octet: 'application/octet-stream', plain: 'text/plain; charset=utf-8', none: undefined, html: 'text/html' };

test('providers.v1: versions and download answers without a JSON content type are read; text/html is not', () => withRegistry({}, async (reg) => {
  const versions = JSON.stringify({ versions: [{ version: '1.0.0', protocols: ['5.0'], platforms: [{ os: 'linux', arch: 'amd64' }] }] });
  const download = JSON.stringify({
    protocols: ['5.0'], os: 'linux', arch: 'amd64', filename: 'terraform-provider-x_1.0.0_linux_amd64.zip', download_url: '../../x.zip',
    shasums_url: '../../SHA256SUMS', shasums_signature_url: '../../SHA256SUMS.sig', shasum: 'a'.repeat(64), signing_keys: { gpg_public_keys: [] },
  });
  for (const [ns, type] of Object.entries(TYPES)) {
    reg.server.route(`/v1/providers/${ns}/`, (_q, res, url) => {
      const body = url.pathname.endsWith('/versions') ? versions : download;
      res.writeHead(200, { ...(type ? { 'Content-Type': type } : {}), 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  }
  const engine = testEngine(reg);
  try {
    for (const ns of ['octet', 'plain', 'none']) {
      assert.deepEqual((await engine.listProviderVersions(`${reg.host}/${ns}/x`)).versions.map((v) => v.version), ['1.0.0'], ns);
      const pkg = await engine.getProviderPackage(`${reg.host}/${ns}/x`, '1.0.0', 'linux', 'amd64');
      assert.equal(pkg.downloadUrl, `${reg.origin}/v1/providers/${ns}/x/1.0.0/x.zip`, ns);
    }
    await assert.rejects(engine.listProviderVersions(`${reg.host}/html/x`), isErr('protocol', /expected application\/json, got text\/html/));
    await assert.rejects(engine.getProviderPackage(`${reg.host}/html/x`, '1.0.0', 'linux', 'amd64'), isErr('protocol', /expected application\/json, got text\/html/));
  } finally {
    await engine.dispose();
  }
}));

test('discovery keeps tofu\'s rule: the document must be application/json', () => withRegistry({}, async (reg) => {
  reg.server.route('/.well-known/terraform.json', (_q, res) => {
    const body = JSON.stringify({ 'providers.v1': '/v1/providers/' });
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  const engine = testEngine(reg);
  try {
    await assert.rejects(engine.discoverServices(reg.host), isErr('protocol', /expected application\/json, got application\/octet-stream/));
  } finally {
    await engine.dispose();
  }
}));
