// The bundles' undici (dist/vendor/undici.js, built from scripts/undici-engine.cjs: only the parts
// the engine uses) does what the engine asks of it: a request through an Agent with the test CA,
// through an EnvHttpProxyAgent tunnelling (CONNECT) or bypassing the proxy, and no request without
// the engine's own dispatcher. The engine's unit tests run the compiled sources with undici's full
// package; the CLI and the extension load this file instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startConnectProxy } from '../../support/connect-proxy';
import { withRegistry } from '../../support/registry-helpers';

const VENDOR = join(__dirname, '..', '..', '..', '..', 'dist', 'vendor', 'undici.js');

test('dist/vendor/undici.js: Agent, EnvHttpProxyAgent (CONNECT, NO_PROXY) and request() with the engine\'s dispatcher only',
  () => withRegistry({}, async (reg) => {
    assert.ok(existsSync(VENDOR), 'dist/ is not built: run npm run build (npm test and npm run test:unit do)');
    const u = require(VENDOR) as typeof import('undici');
    const ca = readFileSync(reg.caCertPath, 'utf8');
    const url = `https://${reg.host}/.well-known/terraform.json`;
    const body = async (d: import('undici').Dispatcher) => {
      const res = await u.request(url, { dispatcher: d, headersTimeout: 10_000, bodyTimeout: 10_000 });
      assert.equal(res.statusCode, 200);
      return await res.body.json() as Record<string, string>;
    };

    const agent = new u.Agent({ connect: { ca, timeout: 10_000 } });
    assert.ok((await body(agent))['providers.v1'], 'discovery document through the Agent');
    await agent.close();

    const proxy = await startConnectProxy();
    const { connects, url: proxyUrl } = proxy;
    try {
      for (const noProxy of ['', '127.0.0.1']) {
        connects.length = 0;
        const viaProxy = new u.EnvHttpProxyAgent({ httpsProxy: proxyUrl, httpProxy: proxyUrl, noProxy, connect: { ca }, requestTls: { ca } });
        assert.ok((await body(viaProxy))['providers.v1']);
        assert.deepEqual(connects, noProxy ? [] : [reg.host], `NO_PROXY=${noProxy}`);
        await viaProxy.close();
      }
    } finally {
      await proxy.close();
    }

    // Never a process-global dispatcher (it would carry none of the engine's CAs, proxy or timeouts).
    assert.throws(() => u.request(url, {}), /own dispatcher/);
  }));
