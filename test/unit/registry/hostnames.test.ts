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
