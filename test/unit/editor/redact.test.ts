// "Show log" hygiene: request lines keep host, path and timing but never a credential.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { redactUrls } from '../../../src/editor/logic/redact';

describe('redactUrls (log lines)', () => {
  it('strips pre-signed signatures and tokens from query strings, keeps the rest', () => {
    const line = 'GET https://bucket.s3.amazonaws.com/p/terraform-provider-x_1.0.0_linux_amd64.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20240101&X-Amz-Signature=deadbeef&response-content-type=application%2Fzip → 200 (12 ms)';
    const out = redactUrls(line);
    assert.ok(!out.includes('deadbeef') && !out.includes('AKIAEXAMPLE'), out);
    assert.match(out, /^GET https:\/\/bucket\.s3\.amazonaws\.com\/p\/terraform-provider-x_1\.0\.0_linux_amd64\.zip\?/);
    assert.match(out, /X-Amz-Signature=\*\*\*/);
    assert.match(out, /response-content-type=application%2Fzip/);
    assert.match(out, /→ 200 \(12 ms\)$/);
    assert.equal(redactUrls('GET https://h.example/dl?token=sekrit&ref=v1 → 302 (3 ms)'), 'GET https://h.example/dl?token=***&ref=v1 → 302 (3 ms)');
    assert.equal(redactUrls('see https://x.example/a?sig=abc.'), 'see https://x.example/a?sig=***.');
  });

  it('strips user:password from the authority', () => {
    const out = redactUrls('GET https://user:s3cret@git.example.com/org/repo.git → 401 (5 ms)');
    assert.ok(!out.includes('s3cret') && !out.includes('user:'), out);
    assert.match(out, /https:\/\/\*\*\*@git\.example\.com\/org\/repo\.git → 401/);
  });

  it('leaves ordinary registry URLs and text untouched', () => {
    for (const s of [
      'GET https://registry.example.com/v1/modules/corp/net/aws/versions → 200 (41 ms) [with credentials]',
      'GET https://registry.example.com/.well-known/terraform.json → 200 (9 ms)',
      'registry registry.example.com unreachable: connect ECONNREFUSED 127.0.0.1:443',
      'GET https://h.example/archive.tar.gz?archive=tar.gz → 200 (1 ms)',
    ]) assert.equal(redactUrls(s), s);
  });
});
