// Kept-alive connections are reused by the request a caller sends as soon as an answer is read
// (issue 32): undici hands a connection back to its pool one setImmediate after the answer
// ended, so a request sent in the caller's continuation used to open — and TLS-handshake — a new
// connection (lock's SHA256SUMS + .sig after each download answer: ≈ 10 handshakes per run).
// Counted on a real HTTPS server by the client ports it saw.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient } from '../../../src/engine/net/http';
import { sendJson, TestHttpsServer } from '../../support/https-server';
import { testPki } from '../../support/tls';

let server: TestHttpsServer;
const ports: number[] = [];

before(async () => {
  server = await new TestHttpsServer().start();
  server.route('/doc', (req, res) => {
    ports.push(req.socket.remotePort ?? -1);
    sendJson(res, 200, { ok: true });
  });
});
after(async () => { await server.stop(); });

test('a request sent right after an answer was read reuses its connection', async () => {
  const http = new HttpClient({ env: {}, caFiles: [testPki().caCertPath], maxAttempts: 1 });
  try {
    ports.length = 0;
    await http.getJson(`${server.origin}/doc?1`);
    await http.getJson(`${server.origin}/doc?2`); // sent in the continuation of the first answer
    // two at once after an answer: one takes the freed connection, one opens a second
    const a = await http.getBuffer(`${server.origin}/doc?3`);
    assert.equal(a.status, 200);
    await Promise.all([http.getJson(`${server.origin}/doc?4`), http.getJson(`${server.origin}/doc?5`)]);
    assert.equal(ports.length, 5);
    assert.equal(ports[1], ports[0], 'the second request went over the first one\'s connection');
    assert.equal(ports[2], ports[0]);
    assert.equal(new Set(ports).size, 2, `connections opened: ${new Set(ports).size} (client ports ${ports.join(', ')})`);
  } finally {
    await http.dispose();
  }
});
