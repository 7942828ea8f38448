import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostnameToASCII, normalizeHostname, sameHost, tryNormalizeHostname } from '../../../src/engine/addresses';
import { RegistryError } from '../../../src/engine/net/errors';

test('hostnames: case folding and UTS-46 mapping', () => {
  const table: Array<[string, string]> = [
    ['registry.opentofu.org', 'registry.opentofu.org'],
    ['Registry.OpenTofu.ORG', 'registry.opentofu.org'],
    ['ＥＸＡＭＰＬＥ.com', 'example.com'], // full-width letters map to ASCII
    ['Bücher.Example', 'bücher.example'],
    ['xn--bcher-kva.example', 'bücher.example'], // punycode input → Unicode form
    ['XN--BCHER-KVA.EXAMPLE', 'bücher.example'],
    ['straße.de', 'straße.de'], // non-transitional: ß kept
    ['example.com:443', 'example.com'], // default port dropped
    ['example.com:8443', 'example.com:8443'],
    ['127.0.0.1:61234', '127.0.0.1:61234'],
    ['localhost:8080', 'localhost:8080'],
  ];
  for (const [given, want] of table) assert.equal(normalizeHostname(given), want, given);
});

test('hostnames: invalid input is rejected with a message naming it', () => {
  for (const bad of ['', 'example.com:abc', 'exa mple.com', 'example.com/path', 'user@example.com', 'example.com:0', 'example.com:70000', 'a_b.example']) {
    const r = tryNormalizeHostname(bad);
    assert.equal(typeof r, 'object', `${JSON.stringify(bad)} should be invalid`);
    assert.match((r as { error: string }).error, /invalid hostname/);
  }
  assert.throws(() => normalizeHostname('example.com:abc'), (e: unknown) => e instanceof RegistryError && e.code === 'invalid-address' && /port must be a decimal number/.test(e.message));
});

test('hostnames: comparison includes the port; ASCII form for URLs', () => {
  assert.ok(sameHost('Bücher.example', 'xn--bcher-kva.example'));
  assert.ok(sameHost('example.com', 'EXAMPLE.com:443'));
  assert.ok(!sameHost('example.com:8443', 'example.com'));
  assert.ok(!sameHost('127.0.0.1:1000', '127.0.0.1:1001'));
  assert.equal(hostnameToASCII('bücher.example:8443'), 'xn--bcher-kva.example:8443');
  assert.equal(hostnameToASCII('127.0.0.1:9'), '127.0.0.1:9');
});

test('hostnames: the plain-ASCII fast path agrees with the full UTS-46 mapping', async () => {
  // normalizeHostname skips tr46 for letter-digit-hyphen hosts; it must give what tr46 gives.
  const tr46 = await import('tr46');
  const opts = { checkBidi: true, checkJoiners: true, checkHyphens: false, useSTD3ASCIIRules: true, transitionalProcessing: false };
  const viaTr46 = (h: string) => tr46.toUnicode(tr46.toASCII(h, { ...opts, verifyDNSLength: false }) ?? '', opts).domain;
  const alphabet = 'abcXYZ019-.';
  let seed = 7;
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
  const hosts = ['Registry.Example.COM', 'a-b.c-d', 'my-registry.corp.internal', '127.0.0.1', 'x.y.z.q'];
  for (let i = 0; i < 2000; i++) {
    const len = 1 + rnd(20);
    let h = '';
    for (let j = 0; j < len; j++) h += alphabet[rnd(alphabet.length)];
    hosts.push(h);
  }
  let compared = 0;
  for (const h of hosts) {
    const ours = tryNormalizeHostname(h);
    if (typeof ours !== 'string') continue; // invalid either way is covered by the table above
    assert.equal(ours, viaTr46(h), h);
    compared++;
  }
  assert.ok(compared > 500, `compared ${compared} hostnames`);
});
