// The disk cache is keyed by everything that changes an answer, one test per dimension: the CAs
// trusted (by file content), the proxy, where a host's credentials come from, the CLI
// configuration's host block and provider_installation (also for module packages fetched from a
// registry). Each test caches an answer under one
// setting, changes only that setting, and shows a new engine over the same cache directory asks
// again (or fails as it must) instead of serving the old answer; and that the same setting reuses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineOptions } from '../../../src/engine/engine';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { RegistryError } from '../../../src/engine/net/errors';
import { startConnectProxy } from '../../support/connect-proxy';
import { sendJson } from '../../support/https-server';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import type { TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';
import { tarGz } from '../types/archives';

const MODULE = (reg: TestRegistry) => `${reg.host}/acme/network/aws`;

/** Lists the module's versions with a new engine (a new process, in real life) over `cacheDir`. */
async function listWith(reg: TestRegistry, options: EngineOptions): Promise<{ versions: string[]; cached: boolean; requests: number }> {
  const before = reg.server.requests.length;
  const engine = testEngine(reg, options);
  try {
    const list = await engine.listModuleVersions(MODULE(reg));
    return { versions: list.versions, cached: list.cached, requests: reg.server.requests.length - before };
  } finally {
    await engine.dispose();
  }
}

/** Every file below a directory, read as text. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((n) => join(dir, n)).filter((p) => statSync(p).isFile()).map((p) => readFileSync(p, 'utf8'));
}

test('cache key: the CA file by content — rewritten with another CA, the cached answer is not served and TLS fails', () => withRegistry({}, async (reg) => {
  const dir = tempDir('cache-ca-');
  const cacheDir = join(dir, 'cache');
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, readFileSync(reg.caCertPath));
  const first = await listWith(reg, { cacheDir, caFiles: [ca] });
  assert.equal(first.cached, false);
  assert.deepEqual(await listWith(reg, { cacheDir, caFiles: [ca] }), { ...first, cached: true, requests: 0 });

  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=unrelated CA', '-keyout', join(dir, 'other.key'), '-out', join(dir, 'other.pem')], { stdio: 'ignore' });
  writeFileSync(ca, readFileSync(join(dir, 'other.pem'))); // same path, another trust
  await assert.rejects(listWith(reg, { cacheDir, caFiles: [ca] }), (e: unknown) => e instanceof RegistryError && e.code === 'tls');

  writeFileSync(ca, Buffer.concat([readFileSync(reg.caCertPath), readFileSync(join(dir, 'other.pem'))]));
  const again = await listWith(reg, { cacheDir, caFiles: [ca] });
  assert.equal(again.cached, false);
  assert.ok(again.requests > 0);
}));

test('cache key: the proxy — an answer fetched directly is not served to a run through a proxy, and vice versa', () => withRegistry({}, async (reg) => {
  const cacheDir = join(tempDir('cache-proxy-'), 'cache');
  const proxy = await startConnectProxy();
  const proxyUrl = proxy.url;
  const tunnels = () => proxy.connects.length;
  try {
    assert.equal((await listWith(reg, { cacheDir })).cached, false);
    const viaProxy = await listWith(reg, { cacheDir, proxy: proxyUrl });
    assert.equal(viaProxy.cached, false);
    assert.ok(tunnels() > 0 && viaProxy.requests > 0, 'asked again, through the proxy');
    const tunnelsBefore = tunnels();
    assert.equal((await listWith(reg, { cacheDir, proxy: proxyUrl })).cached, true);
    assert.equal(tunnels(), tunnelsBefore);
    assert.equal((await listWith(reg, { cacheDir })).cached, true, 'the direct answer is still there for direct runs');
  } finally {
    await proxy.close();
  }
}));

test('cache key: credentials per host — a private answer is not served to a run without credentials; no token in any cache file', () => withRegistry({ token: 'PRIVATE-T0KEN' }, async (reg) => {
  const dir = tempDir('cache-cred-');
  const cacheDir = join(dir, 'cache');
  const rc = join(dir, 'tofurc');
  writeFileSync(rc, `credentials "${reg.host}" { token = "PRIVATE-T0KEN" }\n`);
  assert.equal((await listWith(reg, { cacheDir, cliConfigFile: rc })).cached, false);
  assert.equal((await listWith(reg, { cacheDir, cliConfigFile: rc })).cached, true);
  await assert.rejects(listWith(reg, { cacheDir, cliConfigFile: join(dir, 'missing') }), (e: unknown) => e instanceof RegistryError && e.code === 'unauthorized');
  // Credentials from elsewhere (another file: another identity, perhaps) ask again.
  const other = join(dir, 'other.tfrc');
  writeFileSync(other, readFileSync(rc));
  const fromOther = await listWith(reg, { cacheDir, cliConfigFile: other });
  assert.equal(fromOther.cached, false);
  assert.ok(fromOther.requests > 0);
  const files = allFiles(cacheDir);
  assert.ok(files.length >= 2);
  assert.ok(files.every((f) => !f.includes('PRIVATE-T0KEN')));
}));

test('cache key: the host block — other services URL, other answer; the same block reuses it', () => withRegistry({}, async (reg) => {
  const dir = tempDir('cache-hostblock-');
  const cacheDir = join(dir, 'cache');
  for (const [prefix, versions] of [['/alt/', ['2.0.0', '1.0.0']], ['/alt2/', ['3.0.0']]] as const) {
    reg.server.route(`${prefix}modules/acme/network/aws/versions`, (_req, res) => sendJson(res, 200, { modules: [{ versions: versions.map((version) => ({ version })) }] }));
  }
  const rc = join(dir, 'tofurc');
  const block = (path: string) => writeFileSync(rc, `host "${reg.host}" {\n  services = { "modules.v1" = "${reg.origin}${path}" }\n}\n`);
  const plain = await listWith(reg, { cacheDir });
  assert.equal(plain.versions.length, 9);
  block('/alt/modules/');
  assert.deepEqual(await listWith(reg, { cacheDir, cliConfigFile: rc }), { versions: ['2.0.0', '1.0.0'], cached: false, requests: 1 });
  assert.deepEqual(await listWith(reg, { cacheDir, cliConfigFile: rc }), { versions: ['2.0.0', '1.0.0'], cached: true, requests: 0 });
  block('/alt2/modules/');
  assert.deepEqual(await listWith(reg, { cacheDir, cliConfigFile: rc }), { versions: ['3.0.0'], cached: false, requests: 1 });
  assert.equal((await listWith(reg, { cacheDir })).versions.length, 9);
}));

test('cache key: a fetched module package — another host block, another package; the same block reuses it', () => withRegistry({}, async (reg) => {
  const dir = tempDir('cache-modpkg-');
  const cacheDir = join(dir, 'cache');
  const archive = (variable: string) => tarGz([{ name: 'variables.tf', data: `variable "${variable}" {}\n` }]);
  // The origin registry and another one (what a `host` block points modules.v1 at) publish the
  // same address and version with different packages.
  reg.addModule({ namespace: 'keyed', name: 'pkg', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'header', location: '/archives/keyed-origin.tar.gz' }) });
  reg.addFile('/archives/keyed-origin.tar.gz', archive('from_origin'), 'application/gzip');
  reg.addFile('/archives/keyed-alt.tar.gz', archive('from_alt'), 'application/gzip');
  reg.server.route('/alt/modules/keyed/pkg/aws/versions', (_req, res) => sendJson(res, 200, { modules: [{ versions: [{ version: '1.0.0' }] }] }));
  reg.server.route('/alt/modules/keyed/pkg/aws/1.0.0/download', (_req, res) => { res.writeHead(204, { 'X-Terraform-Get': '/archives/keyed-alt.tar.gz' }); res.end(); });
  const rc = join(dir, 'tofurc');
  writeFileSync(rc, `host "${reg.host}" {\n  services = { "modules.v1" = "${reg.origin}/alt/modules/" }\n}\n`);
  const variablesWith = async (options: EngineOptions) => {
    const engine = testEngine(reg, { cacheDir, ...options });
    try {
      const m = await new ModuleResolver({ engine, cacheDir }).resolve({ callerDir: dir, name: 'm', source: `${reg.host}/keyed/pkg/aws`, version: '1.0.0' });
      return m.iface.variables.map((v) => v.name);
    } finally {
      await engine.dispose();
    }
  };
  assert.deepEqual(await variablesWith({}), ['from_origin']);
  assert.deepEqual(await variablesWith({ cliConfigFile: rc }), ['from_alt'], 'not the package fetched from the origin');
  assert.deepEqual(await variablesWith({ cliConfigFile: rc }), ['from_alt']);
  assert.deepEqual(await variablesWith({}), ['from_origin']);
  // Each package was fetched once: the same settings reuse it from the disk cache.
  assert.equal(reg.server.count('/archives/keyed-origin.tar.gz'), 1);
  assert.equal(reg.server.count('/archives/keyed-alt.tar.gz'), 1);
}));

test('cache key: provider_installation — another network mirror, another answer', () => withRegistry({}, async (reg) => {
  const dir = tempDir('cache-install-');
  const cacheDir = join(dir, 'cache');
  for (const [prefix, version] of [['/mirror-a/', '1.1.1'], ['/mirror-b/', '2.2.2']] as const) {
    reg.server.route(prefix, (_req, res, url) => (url.pathname.endsWith('/acme/widget/index.json') ? sendJson(res, 200, { versions: { [version]: {} } }) : sendJson(res, 404, {})));
  }
  const rc = join(dir, 'tofurc');
  const mirror = (prefix: string) => writeFileSync(rc, `provider_installation {\n  network_mirror { url = "${reg.origin}${prefix}" }\n}\n`);
  const versions = async () => {
    const engine = testEngine(reg, { cacheDir, cliConfigFile: rc });
    try {
      const list = await engine.listProviderVersions(`${reg.host}/acme/widget`);
      return { versions: list.versions.map((v) => v.version), cached: list.cached };
    } finally {
      await engine.dispose();
    }
  };
  mirror('/mirror-a/');
  assert.deepEqual(await versions(), { versions: ['1.1.1'], cached: false });
  assert.deepEqual(await versions(), { versions: ['1.1.1'], cached: true });
  mirror('/mirror-b/');
  assert.deepEqual(await versions(), { versions: ['2.2.2'], cached: false });
}));
