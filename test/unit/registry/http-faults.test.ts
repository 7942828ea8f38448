// Every fault switch of the test registry: exact user-facing message, nothing hangs past the timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RegistryError } from '../../../src/engine/net/errors';
import { Engine } from '../../../src/engine/engine';
import { startConnectProxy } from '../../support/connect-proxy';
import { testEngine, withRegistry, tempDir } from '../../support/registry-helpers';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Fault } from '../../support/registry-server';

const MOD = 'acme/network/aws';
const PATH = `/v1/modules/${MOD}/versions`;

async function failure(engine: Engine, address: string): Promise<{ err: RegistryError; ms: number }> {
  const started = Date.now();
  try {
    await engine.listModuleVersions(address);
  } catch (err) {
    assert.ok(err instanceof RegistryError, String(err));
    return { err, ms: Date.now() - started };
  }
  assert.fail('expected a failure');
}

const cases: Array<{ fault: Fault; code: string; message: (url: string, host: string) => string; status?: number }> = [
  { fault: '500', code: 'server-error', status: 500, message: (u, h) => `${h} answered 500 Internal Server Error for ${u}` },
  { fault: 'hang', code: 'timeout', message: (u, h) => `request to ${u} timed out after 1 s (no complete answer from ${h})` },
  { fault: 'slow-body', code: 'timeout', message: (u, h) => `request to ${u} timed out after 1 s (no complete answer from ${h})` },
  { fault: 'truncated', code: 'network', message: (u, h) => `response from ${u} was truncated: ${h} closed the connection before the body was complete` },
  { fault: 'invalid-json', code: 'protocol', message: (u) => `invalid JSON from ${u}: ` },
  { fault: 'wrong-type', code: 'protocol', message: (u) => `unexpected response from ${u}: expected application/json, got text/html` },
  { fault: 'redirect-loop', code: 'too-many-redirects', message: (u) => `redirect loop at ${u} (starting from ${u})` },
  { fault: 'huge-body', code: 'too-large', message: (u) => `response from ${u} is larger than the 4 MiB limit` },
  { fault: '401', code: 'unauthorized', status: 401, message: (u, h) => `${h} requires authentication (401 Unauthorized) for ${u}; set a token with a credentials "${h}" block in your CLI configuration` },
  { fault: '403', code: 'forbidden', status: 403, message: (u, h) => `${h} refused access (403 Forbidden) to ${u}; no token was sent, and ${h} may require one` },
  { fault: '404', code: 'not-found', status: 404, message: (u, h) => `module ${h}/${MOD} not found on ${h} (404 Not Found for ${u})` },
  { fault: '429', code: 'rate-limited', status: 429, message: (u, h) => `${h} is rate limiting requests (429 Too Many Requests) for ${u}; retry after 1 s` },
];

for (const c of cases) {
  test(`fault ${c.fault}: ${c.code} with an exact message, within the timeout`, () => withRegistry({}, async (reg) => {
    const engine = testEngine(reg, { timeoutMs: 1_000, maxAttempts: 2 });
    reg.setFault(PATH, c.fault);
    const url = `${reg.origin}${PATH}`;
    const { err, ms } = await failure(engine, `${reg.host}/${MOD}`);
    assert.equal(err.code, c.code);
    if (c.fault === 'invalid-json') assert.ok(err.message.startsWith(c.message(url, reg.host)), err.message);
    else assert.equal(err.message, c.message(url, reg.host));
    assert.equal(err.host, reg.host);
    assert.ok(err.url?.startsWith(url), err.url);
    if (c.status) assert.equal(err.status, c.status);
    assert.ok(ms < 3_500, `took ${ms} ms`);
    if (c.fault === '429') assert.equal(reg.server.count(PATH), 2, 'retried once (maxAttempts 2)');
    if (c.fault === '500') assert.equal(reg.server.count(PATH), 1, '500 is not retried');
    await engine.dispose();
  }));
}

test('fault 429 once: retried after Retry-After, then succeeds', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  reg.setFault(PATH, { kind: '429', times: 1, retryAfter: 1 });
  const started = Date.now();
  const list = await engine.listModuleVersions(`${reg.host}/${MOD}`);
  const ms = Date.now() - started;
  assert.equal(list.versions[0], '3.0.0-rc.1');
  assert.equal(reg.server.count(PATH), 2);
  assert.ok(ms >= 900, `waited for Retry-After (${ms} ms)`);
  await engine.dispose();
}));

test('fault redirect-second-host: the other host never receives the token', () => withRegistry({ token: 's3cr3t-token' }, async (reg) => {
  const dir = tempDir();
  try {
    const rc = join(dir.path, 'tofurc');
    writeFileSync(rc, `credentials "${reg.host}" {\n  token = "s3cr3t-token"\n}\n`);
    const engine = testEngine(reg, { cliConfigFile: rc });
    reg.setFault(PATH, 'redirect-second-host');
    const list = await engine.listModuleVersions(`${reg.host}/${MOD}`);
    assert.equal(list.url, `${reg.secondOrigin}${PATH}`);
    assert.ok(reg.server.requests.filter((r) => r.path.startsWith('/v1/')).every((r) => r.authorization === 'Bearer s3cr3t-token'));
    assert.equal(reg.second.requests.length, 1);
    assert.equal(reg.second.requests[0].authorization, undefined);
    assert.ok(engine.logs.every((l) => !l.message.includes('s3cr3t-token')), 'token never logged');
    await engine.dispose();
  } finally {
    dir.remove();
  }
}));

test('TLS: an untrusted certificate is named, and NODE_EXTRA_CA_CERTS is honoured', () => withRegistry({}, async (reg) => {
  const untrusting = new Engine({ env: {}, timeoutMs: 2_000 });
  await assert.rejects(untrusting.discoverServices(reg.host), (e: unknown) => e instanceof RegistryError && e.code === 'tls'
    && e.message === `service discovery for ${reg.host} failed: TLS certificate of ${reg.host} is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE): ${reg.origin}/.well-known/terraform.json; pass the CA with --ca-file or NODE_EXTRA_CA_CERTS`);
  const viaEnv = new Engine({ env: { NODE_EXTRA_CA_CERTS: reg.caCertPath } });
  assert.equal((await viaEnv.discoverServices(reg.host)).host, reg.host);
  const missing = new Engine({ env: {}, caFiles: ['/nonexistent/ca.pem'] });
  await assert.rejects(missing.discoverServices(reg.host), /cannot read CA certificate file \/nonexistent\/ca\.pem/);
  await Promise.all([untrusting.dispose(), viaEnv.dispose(), missing.dispose()]);
}));

test('connection refused names the host', async () => {
  const engine = new Engine({ env: {}, timeoutMs: 2_000 });
  await assert.rejects(engine.discoverServices('127.0.0.1:9'), (e: unknown) => e instanceof RegistryError && e.code === 'network'
    && /cannot connect to 127\.0\.0\.1:9: connection refused \(https:\/\/127\.0\.0\.1:9\/\.well-known\/terraform\.json\)/.test(e.message));
  await engine.dispose();
});

test('User-Agent identifies the tool', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  await engine.discoverServices(reg.host);
  assert.match(String(reg.server.requests[0].headers['user-agent']), /^tofu-registry\/\d+\.\d+\.\d+ /);
  await engine.dispose();
}));

test('proxy: HTTPS_PROXY tunnels registry requests (CONNECT), NO_PROXY bypasses it', () => withRegistry({}, async (reg) => {
  const proxy = await startConnectProxy();
  const { connects, url: proxyUrl } = proxy;
  try {
    const viaEnv = testEngine(reg, { env: { HOME: '/nonexistent', HTTPS_PROXY: proxyUrl } });
    assert.equal((await viaEnv.listModuleVersions(`${reg.host}/acme/network/aws`)).versions.length, 9);
    assert.ok(connects.includes(reg.host), `proxy saw ${connects.join(', ')}`);
    await viaEnv.dispose();

    connects.length = 0;
    const explicit = testEngine(reg, { proxy: proxyUrl });
    await explicit.discoverServices(reg.host);
    assert.deepEqual(connects, [reg.host]);
    await explicit.dispose();

    connects.length = 0;
    const bypass = testEngine(reg, { env: { HOME: '/nonexistent', HTTPS_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    await bypass.discoverServices(reg.host);
    assert.deepEqual(connects, []);
    await bypass.dispose();
  } finally {
    await proxy.close();
  }
}));

test('redirects: bounded chain, no downgrade to plain HTTP', () => withRegistry({}, async (reg) => {
  reg.server.route('/chain/', (_q, res, url) => {
    const n = Number(url.pathname.split('/')[2]);
    res.writeHead(302, { Location: `/chain/${n + 1}` });
    res.end();
  });
  reg.server.route('/downgrade', (_q, res) => { res.writeHead(301, { Location: 'http://127.0.0.1:9/x' }); res.end(); });
  const engine = testEngine(reg);
  await assert.rejects(engine.http.getJson(`${reg.origin}/chain/0`), (e: unknown) => e instanceof RegistryError && e.code === 'too-many-redirects'
    && e.message === `too many redirects (more than 5) starting from ${reg.origin}/chain/0`);
  assert.equal(reg.server.count('/chain/'), 6);
  await assert.rejects(engine.http.getJson(`${reg.origin}/downgrade`), (e: unknown) => e instanceof RegistryError && e.code === 'protocol'
    && e.message === `refusing to follow a redirect from HTTPS to HTTP (${reg.origin}/downgrade → http://127.0.0.1:9/x)`);
  await engine.dispose();
}));

test('downloads: a body trickling in slower than the deadline fails with a timeout, not never', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg, { timeoutMs: 5_000 });
  reg.setFault('/files/slow', 'slow-body'); // a byte every 100 ms: never idle for timeoutMs
  const started = Date.now();
  const res = await engine.http.download(`${reg.origin}/files/slow`, { maxBytes: 1024 * 1024, deadlineMs: 800 });
  await assert.rejects((async () => { for await (const _ of res.body) { /* drain */ } })(), (e: unknown) => e instanceof RegistryError
    && e.code === 'timeout' && e.message === `download of ${reg.origin}/files/slow did not finish within 0.8 s (${reg.host} is too slow)`);
  const ms = Date.now() - started;
  assert.ok(ms >= 700 && ms < 2_500, `took ${ms} ms`);
  // the deadline also covers a server that never answers
  reg.setFault('/files/hang', 'hang');
  await assert.rejects(engine.http.download(`${reg.origin}/files/hang`, { maxBytes: 100, deadlineMs: 500 }),
    (e: unknown) => e instanceof RegistryError && e.code === 'timeout' && /did not finish within 0\.5 s/.test(e.message));
  await engine.dispose();
}));

test('URLs with user information: the secret never appears in messages, error objects or logs', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  reg.setFault('/files/private', '401');
  const secretUrl = `https://deploy:pa55w0rd@${reg.host}/files/private.zip`;
  let caught: unknown;
  try { await engine.http.download(secretUrl, { maxBytes: 100 }); } catch (err) { caught = err; }
  assert.ok(caught instanceof RegistryError && caught.code === 'unauthorized', String(caught));
  assert.equal(caught.url, `https://***@${reg.host}/files/private.zip`);
  assert.match(caught.message, /\(401 Unauthorized\) for https:\/\/\*\*\*@127\.0\.0\.1:\d+\/files\/private\.zip/);
  assert.equal(reg.server.requests.at(-1)?.authorization, undefined, 'user information is not sent either');
  reg.setFault('/files/private', 'wrong-type');
  await assert.rejects(engine.http.getJson(secretUrl), (e: unknown) => e instanceof RegistryError && !e.message.includes('pa55w0rd') && !String(e.url).includes('pa55w0rd'));
  assert.ok(engine.logs.length > 0 && engine.logs.every((l) => !l.message.includes('pa55w0rd')), 'never logged');
  await engine.dispose();
}));
