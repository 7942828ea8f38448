// The bundles' undici (dist/vendor/undici.js, built from scripts/undici-engine.cjs: only the parts
// the engine uses) does what the engine asks of it: a request through an Agent with the test CA,
// through an EnvHttpProxyAgent tunnelling (CONNECT) or bypassing the proxy, and no request without
// the engine's own dispatcher. The engine's unit tests run the compiled sources with undici's full
// package; the CLI and the extension load this file instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect as netConnect, AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withRegistry } from '../../support/registry-helpers';

const VENDOR = join(__dirname, '..', '..', '..', '..', 'dist', 'vendor', 'undici.js');

test('dist/vendor/undici.js: Agent, EnvHttpProxyAgent (CONNECT, NO_PROXY) and request() with the engine\'s dispatcher only',
  { skip: existsSync(VENDOR) ? false : 'dist/ is not built (npm run build)' }, () => withRegistry({}, async (reg) => {
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

    const connects: string[] = [];
    const proxy = createServer((_req, res) => { res.writeHead(405); res.end(); });
    proxy.on('connect', (req, client, head) => {
      connects.push(String(req.url));
      const [host, port] = String(req.url).split(':');
      const upstream = netConnect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      for (const noProxy of ['', '127.0.0.1']) {
        connects.length = 0;
        const viaProxy = new u.EnvHttpProxyAgent({ httpsProxy: proxyUrl, httpProxy: proxyUrl, noProxy, connect: { ca }, requestTls: { ca } });
        assert.ok((await body(viaProxy))['providers.v1']);
        assert.deepEqual(connects, noProxy ? [] : [reg.host], `NO_PROXY=${noProxy}`);
        await viaProxy.close();
      }
    } finally {
      proxy.closeAllConnections?.();
      await new Promise<void>((r) => proxy.close(() => r()));
    }

    // Never a process-global dispatcher (it would carry none of the engine's CAs, proxy or timeouts).
    assert.throws(() => u.request(url, {}), /own dispatcher/);
  }));
