// VS Code's `http.noProxy` reaches the engine's proxy bypass: a registry host listed there is
// contacted directly even though a proxy is configured (here a proxy that accepts no connection).
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { describe, it } from 'node:test';
import { noProxyList } from '../../../src/features/proxy';
import { testEngine, withRegistry } from '../../support/registry-helpers';

/** A port on 127.0.0.1 where nothing listens (a dead proxy). */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('editor settings: http.noProxy', () => {
  it('becomes one comma-separated NO_PROXY list', () => {
    assert.equal(noProxyList(['localhost', ' .corp.example ', '10.0.0.1:8443', '', 'a b', 'x.example,y.example']),
      'localhost,.corp.example,10.0.0.1:8443,x.example,y.example');
    assert.equal(noProxyList(undefined), '');
    assert.equal(noProxyList([1, null]), '');
    assert.equal(noProxyList('h1.example, h2.example'), 'h1.example,h2.example');
  });

  it('hosts in it bypass the configured proxy; others still go through it', () => withRegistry({}, async (reg) => {
    const proxy = `http://127.0.0.1:${await deadPort()}`;
    const env = { HOME: '/nonexistent' };
    const bypass = testEngine(reg, { env, proxy, noProxy: noProxyList(['example.invalid', '127.0.0.1']), maxAttempts: 1 });
    try {
      assert.equal((await bypass.listModuleVersions(`${reg.host}/acme/network/aws`)).versions.length, 9);
    } finally {
      await bypass.dispose();
    }
    const proxied = testEngine(reg, { env, proxy, noProxy: noProxyList(['example.invalid']), maxAttempts: 1 });
    try {
      await assert.rejects(proxied.discoverServices(reg.host), /127\.0\.0\.1/);
    } finally {
      await proxied.dispose();
    }
  }));
});
