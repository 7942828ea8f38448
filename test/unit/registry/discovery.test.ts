import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RegistryError } from '../../../src/engine/net/errors';
import { tempDir, testEngine, withRegistry } from '../../support/registry-helpers';
import { sendJson } from '../../support/https-server';

const rejectsWith = (code: string, re: RegExp) => (e: unknown) => {
  assert.ok(e instanceof RegistryError, String(e));
  assert.equal(e.code, code, e.message);
  assert.match(e.message, re);
  return true;
};

test('discovery: services resolved against the discovery URL, modules.v1 gets a trailing slash', () => withRegistry({}, async (reg) => {
  reg.setDiscovery({ 'modules.v1': '/v1/modules', 'providers.v1': 'https://127.0.0.1:1/abs/providers', 'login.v1': { client: 'x' }, 'state.v2': 'state/' });
  const engine = testEngine(reg);
  const d = await engine.discoverServices(reg.host);
  assert.deepEqual(d, {
    host: reg.host,
    discoveryUrl: `${reg.origin}/.well-known/terraform.json`,
    finalUrl: `${reg.origin}/.well-known/terraform.json`,
    services: {
      'modules.v1': `${reg.origin}/v1/modules/`,
      'providers.v1': 'https://127.0.0.1:1/abs/providers',
      'state.v2': `${reg.origin}/.well-known/state/`,
    },
    objectServices: { 'login.v1': { client: 'x' } },
    cached: false,
  });
  await engine.dispose();
}));

test('discovery: follows a redirect and resolves relative URLs against the final URL', () => withRegistry({}, async (reg) => {
  reg.setFault('/.well-known/', 'redirect-second-host');
  const engine = testEngine(reg);
  const d = await engine.discoverServices(reg.host);
  assert.equal(d.finalUrl, `${reg.secondOrigin}/.well-known/terraform.json`);
  assert.equal(d.services['modules.v1'], `${reg.secondOrigin}/v1/modules/`);
  assert.equal(reg.second.count('/.well-known/'), 1);
  await engine.dispose();
}));

test('discovery: 404 means the host offers no services', () => withRegistry({}, async (reg) => {
  reg.setDiscovery(null);
  const engine = testEngine(reg);
  await assert.rejects(engine.discoverServices(reg.host),
    rejectsWith('no-services', new RegExp(`^${reg.host.replace(/\./g, '\\.')} does not offer any OpenTofu services \\(404 Not Found for https://`)));
  await assert.rejects(engine.listModuleVersions(`${reg.host}/acme/network/aws`), rejectsWith('no-services', /does not offer any OpenTofu services/));
  await engine.dispose();
}));

test('discovery: a JSON document that is not an object, or a wrong media type, is refused', () => withRegistry({}, async (reg) => {
  reg.server.route('/.well-known/terraform.json', (_req, res) => sendJson(res, 200, ['modules.v1']));
  const engine = testEngine(reg);
  await assert.rejects(engine.discoverServices(reg.host), rejectsWith('protocol', /terraform\.json is not a JSON object/));
  await engine.clearCache();
  reg.setFault('/.well-known/', 'wrong-type');
  await assert.rejects(engine.discoverServices(reg.host), rejectsWith('protocol', /expected application\/json, got text\/html/));
  await engine.dispose();
}));

test('discovery: missing service is named', () => withRegistry({}, async (reg) => {
  reg.setDiscovery({ 'providers.v1': '/v1/providers/' });
  const engine = testEngine(reg);
  await assert.rejects(engine.listModuleVersions(`${reg.host}/acme/network/aws`),
    rejectsWith('no-services', new RegExp(`does not offer a module registry \\(no "modules.v1" in ${reg.origin.replace(/\./g, '\\.')}/.well-known/terraform.json\\)`)));
  await engine.dispose();
}));

test('discovery: cached per host (any spelling), single-flight, TTL and clearCache', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg, { cacheTtlMs: 300 });
  const all = await Promise.all(Array.from({ length: 25 }, () => engine.discoverServices(reg.host)));
  assert.equal(reg.server.count('/.well-known/'), 1, 'concurrent lookups share one request');
  assert.ok(all.every((d) => d.services['modules.v1'] === `${reg.origin}/v1/modules/`));
  const again = await engine.discoverServices(`${reg.host}`);
  assert.equal(again.cached, true);
  assert.equal(reg.server.count('/.well-known/'), 1);
  await new Promise((r) => setTimeout(r, 350));
  assert.equal((await engine.discoverServices(reg.host)).cached, false, 'expired after the TTL');
  assert.equal(reg.server.count('/.well-known/'), 2);
  await engine.clearCache();
  await engine.discoverServices(reg.host);
  assert.equal(reg.server.count('/.well-known/'), 3);
  await engine.dispose();
}));

test('discovery: on-disk cache answers a restarted engine without a request', () => withRegistry({}, async (reg) => {
  const dir = tempDir();
  try {
    const first = testEngine(reg, { cacheDir: dir.path });
    await first.discoverServices(reg.host);
    await first.dispose();
    const second = testEngine(reg, { cacheDir: dir.path });
    const d = await second.discoverServices(reg.host);
    assert.equal(d.cached, true);
    assert.equal(d.services['modules.v1'], `${reg.origin}/v1/modules/`);
    assert.equal(reg.server.count('/.well-known/'), 1);
    await second.clearCache();
    const third = testEngine(reg, { cacheDir: dir.path });
    assert.equal((await third.discoverServices(reg.host)).cached, false, 'clearCache removes the disk copy');
    await Promise.all([second.dispose(), third.dispose()]);
  } finally {
    dir.remove();
  }
}));

test('discovery: failures are cached briefly, never forever', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg, { failureTtlMs: 250 });
  reg.setFault('/.well-known/', '500');
  await assert.rejects(engine.discoverServices(reg.host), rejectsWith('server-error', /answered 500 Internal Server Error/));
  reg.setFault('/.well-known/', null);
  await assert.rejects(engine.discoverServices(reg.host), rejectsWith('server-error', /500/));
  assert.equal(reg.server.count('/.well-known/'), 1, 'the failure was remembered');
  await new Promise((r) => setTimeout(r, 300));
  const d = await engine.discoverServices(reg.host);
  assert.equal(d.cached, false);
  assert.equal(reg.server.count('/.well-known/'), 2);
  await engine.dispose();
}));

test('discovery: no request at all when the network is disabled', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg, { networkAllowed: () => false });
  await assert.rejects(engine.discoverServices(reg.host), rejectsWith('network-disabled', /network access is disabled/));
  await assert.rejects(engine.listModuleVersions(`${reg.host}/acme/network/aws`), rejectsWith('network-disabled', /disabled/));
  assert.equal(reg.server.count(), 0);
  await engine.dispose();
}));

test('discovery: invalid host names are refused before any request', async () => {
  const { Engine } = await import('../../../src/engine/engine');
  const engine = new Engine({ env: {} });
  await assert.rejects(engine.discoverServices('bad host:xx'), rejectsWith('invalid-address', /invalid hostname/));
  await engine.dispose();
});
