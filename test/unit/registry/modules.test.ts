import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RegistryError } from '../../../src/engine/net/errors';
import { sendJson } from '../../support/https-server';
import { tempDir, testEngine, withRegistry } from '../../support/registry-helpers';

const isErr = (code: string, re: RegExp) => (e: unknown) => e instanceof RegistryError && e.code === code && re.test(e.message);

test('modules: versions newest first, as written; invalid ones set aside', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const storage = await engine.listModuleVersions(`${reg.host}/acme/storage/azurerm`);
  assert.deepEqual(storage.versions, ['1.1.0', 'v1.0.1', 'v1.0.0', 'v0.9.0']);
  assert.equal(storage.address, `${reg.host}/acme/storage/azurerm`);
  assert.equal(storage.host, reg.host);
  assert.equal(storage.url, `${reg.origin}/v1/modules/acme/storage/azurerm/versions`);
  const legacy = await engine.listModuleVersions(`${reg.host}/legacy/app/aws`);
  assert.deepEqual(legacy.versions, ['2', '1.2.0+build.5', '1.1', '1.0']);
  assert.deepEqual(legacy.invalid, ['not-a-version']);
  await engine.dispose();
}));

test('modules: 404 names the module and the host', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  await assert.rejects(engine.listModuleVersions(`${reg.host}/acme/nothing/aws`),
    isErr('not-found', new RegExp(`^module ${reg.host}/acme/nothing/aws not found on ${reg.host} \\(404 Not Found for https://127\\.0\\.0\\.1:\\d+/v1/modules/acme/nothing/aws/versions\\)$`)));
  await assert.rejects(engine.listModuleVersions('./local'), isErr('invalid-address', /is a local path/));
  await assert.rejects(engine.listModuleVersions('git::https://example.com/x.git'), isErr('invalid-address', /not a module registry address \(it is a Git repository source\)/));
  await engine.dispose();
}));

test('modules: an empty "modules" list is an invalid response', () => withRegistry({}, async (reg) => {
  reg.server.route('/v1/modules/bad/', (_q, res) => sendJson(res, 200, { modules: [] }));
  const engine = testEngine(reg);
  await assert.rejects(engine.listModuleVersions(`${reg.host}/bad/x/aws`), isErr('protocol', /returned an invalid response for module .*: no "modules" list/));
  await engine.dispose();
}));

test('modules: download locations (JSON body, 204 header, 200 header, relative)', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const cases: Array<[string, string, string, string]> = [
    ['acme/network/aws', '1.2.3', '1.2.3', 'git::https://git.example.com/acme/terraform-aws-network.git?ref=v1.2.3'],
    ['acme/storage/azurerm', 'v1.0.1', '1.0.1', 'https://downloads.example.com/acme/storage/1.0.1.tar.gz'],
    ['platform/cluster/kubernetes', '0.3.0-beta', '0.3.0-beta', 's3::https://s3.amazonaws.com/platform-modules/cluster-0.3.0-beta.zip'],
    ['infra/vpc/google', '2.0.0', '2.0.0', `${reg.origin}/archives/infra/vpc/2.0.0.tar.gz`],
    ['infra/dns/google', '0.2.0', '0.2.0', `${reg.origin}/v1/modules/infra/dns/google/0.2.0/archive.tar.gz`],
  ];
  for (const [mod, asked, version, location] of cases) {
    const r = await engine.resolveDownloadLocation(`${reg.host}/${mod}`, asked);
    assert.deepEqual(r, { address: `${reg.host}/${mod}`, version, downloadUrl: `${reg.origin}/v1/modules/${mod}/${version}/download`, location }, mod);
  }
  await assert.rejects(engine.resolveDownloadLocation(`${reg.host}/acme/network/aws`, '9.9.9'), isErr('not-found', /version 9\.9\.9 of module .* not found/));
  await assert.rejects(engine.resolveDownloadLocation(`${reg.host}/acme/network/aws`, 'latest'), isErr('invalid-version', /invalid module version "latest"/));
  await engine.dispose();
}));

test('modules: the body wins over X-Terraform-Get; registry addresses are refused as locations', () => withRegistry({}, async (reg) => {
  reg.server.route('/v1/modules/both/', (_q, res) => sendJson(res, 200, { location: 'https://body.example/x.zip' }, { 'X-Terraform-Get': 'https://header.example/x.zip' }));
  reg.server.route('/v1/modules/loop/', (_q, res) => sendJson(res, 200, { location: 'example.com/other/module/aws' }));
  reg.server.route('/v1/modules/none/', (_q, res) => { res.writeHead(204); res.end(); });
  const engine = testEngine(reg);
  assert.equal((await engine.resolveDownloadLocation(`${reg.host}/both/x/aws`, '1.0.0')).location, 'https://body.example/x.zip');
  await assert.rejects(engine.resolveDownloadLocation(`${reg.host}/loop/x/aws`, '1.0.0'), isErr('protocol', /"example\.com\/other\/module\/aws" is another registry address/));
  await assert.rejects(engine.resolveDownloadLocation(`${reg.host}/none/x/aws`, '1.0.0'), isErr('protocol', /neither a JSON "location" nor an X-Terraform-Get header/));
  await engine.dispose();
}));

test('modules: 100 concurrent lookups → exactly 1 discovery and 1 versions request; warm peek', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const addr = `${reg.host}/acme/network/aws`;
  assert.equal(engine.peekModuleVersions(addr), undefined);
  const results = await Promise.all(Array.from({ length: 100 }, () => engine.listModuleVersions(addr)));
  assert.ok(results.every((r) => r.versions.length === 9));
  assert.equal(reg.server.count('/.well-known/'), 1);
  assert.equal(reg.server.count('/v1/modules/acme/network/aws/versions'), 1);
  assert.equal((await engine.listModuleVersions(addr)).cached, true);
  assert.deepEqual(engine.peekModuleVersions(addr)?.versions, results[0].versions);
  await engine.dispose();
}));

test('modules: version lists survive a restart through the disk cache', () => withRegistry({}, async (reg) => {
  const dir = tempDir();
  try {
    const a = testEngine(reg, { cacheDir: dir.path });
    await a.listModuleVersions(`${reg.host}/acme/network/aws`);
    await a.dispose();
    const b = testEngine(reg, { cacheDir: dir.path });
    const list = await b.listModuleVersions(`${reg.host}/acme/network/aws`);
    assert.equal(list.cached, true);
    assert.equal(list.versions[0], '3.0.0-rc.1');
    assert.equal(reg.server.count('/v1/modules/'), 1);
    await b.dispose();
  } finally {
    dir.remove();
  }
}));

test('modules: a four-part release version is listed, selected and resolved as tofu init does', () => withRegistry({}, async (reg) => {
  reg.addModule({ namespace: 'corp', name: 'legacy', system: 'aws', versions: ['1.2.3', '1.2.3.4', '1.2.3.4-rc1', '1.1.0'] });
  const engine = testEngine(reg);
  const list = await engine.listModuleVersions(`${reg.host}/corp/legacy/aws`);
  assert.deepEqual(list.versions, ['1.2.3.4', '1.2.3.4-rc1', '1.2.3', '1.1.0']);
  assert.deepEqual(list.invalid, []);
  const r = await engine.resolveDownloadLocation(`${reg.host}/corp/legacy/aws`, '1.2.3.4');
  assert.equal(r.version, '1.2.3.4');
  assert.equal(r.downloadUrl, `${reg.origin}/v1/modules/corp/legacy/aws/1.2.3.4/download`);
  await engine.dispose();
}));

test('modules: versions from a static file server (octet-stream, text/plain, no type) are read like tofu reads them; an HTML page is not', () => withRegistry({}, async (reg) => {
  const body = JSON.stringify({ modules: [{ versions: [{ version: '1.0.0' }, { version: '1.1.0' }] }] });
  const types: Record<string, string | undefined> = { octet: 'application/octet-stream', plain: 'text/plain; charset=utf-8', none: undefined, html: 'text/html' };
  for (const [ns, type] of Object.entries(types)) {
    reg.server.route(`/v1/modules/${ns}/`, (_q, res) => {
      res.writeHead(200, { ...(type ? { 'Content-Type': type } : {}), 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  }
  const engine = testEngine(reg);
  for (const ns of ['octet', 'plain', 'none']) {
    assert.deepEqual((await engine.listModuleVersions(`${reg.host}/${ns}/x/aws`)).versions, ['1.1.0', '1.0.0'], ns);
  }
  await assert.rejects(engine.listModuleVersions(`${reg.host}/html/x/aws`), isErr('protocol', /expected application\/json, got text\/html/));
  await engine.dispose();
}));

test('modules: a relative location is resolved against the download URL as requested, not where a redirect led (as tofu does)', () => withRegistry({}, async (reg) => {
  reg.server.route('/v1/modules/moved/x/aws/1.0.0/download', (_q, res) => { res.writeHead(302, { Location: '/elsewhere/deeper/download' }); res.end(); });
  reg.server.route('/elsewhere/deeper/download', (_q, res) => sendJson(res, 200, { location: '../pkg.tar.gz//sub' }));
  const engine = testEngine(reg);
  const r = await engine.resolveDownloadLocation(`${reg.host}/moved/x/aws`, '1.0.0');
  assert.equal(r.location, `${reg.origin}/v1/modules/moved/x/aws/pkg.tar.gz//sub`);
  assert.equal(r.downloadUrl, `${reg.origin}/elsewhere/deeper/download`);
  await engine.dispose();
}));
