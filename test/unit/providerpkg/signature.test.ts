import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as openpgp from 'openpgp';
import { checkSha256Sums, parseSha256Sums, verifyDetachedSignature } from '../../../src/engine/providerpkg/signature';
import { makeSigningKey, signDetached } from '../../support/provider-packages';

const doc = Buffer.from(
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  terraform-provider-x_1.0.0_linux_amd64.zip\n' +
  'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB  terraform-provider-x_1.0.0_darwin_arm64.zip\n');

test('SHA256SUMS: parse lines, find the filename, compare case-insensitively', () => {
  const m = parseSha256Sums(doc.toString());
  assert.equal(m.size, 2);
  assert.equal(checkSha256Sums(doc.toString(), 'terraform-provider-x_1.0.0_linux_amd64.zip', 'a'.repeat(64)), null);
  assert.equal(checkSha256Sums(doc.toString(), 'terraform-provider-x_1.0.0_darwin_arm64.zip', 'b'.repeat(64)), null);
  assert.match(checkSha256Sums(doc.toString(), 'terraform-provider-x_1.0.0_windows_amd64.zip', 'a'.repeat(64))!, /no SHA-256 hash for "terraform-provider-x_1.0.0_windows_amd64.zip"/);
  assert.match(checkSha256Sums(doc.toString(), 'terraform-provider-x_1.0.0_linux_amd64.zip', 'c'.repeat(64))!, /expected c{64}/);
});

test('detached signature: good key verifies, unknown key and tampered document are rejected', async () => {
  const [signer, other] = await Promise.all([makeSigningKey('signer'), makeSigningKey('other')]);
  const sig = await signDetached(doc, signer);

  const ok = await verifyDetachedSignature(doc, sig, [{ asciiArmor: other.publicArmored }, { asciiArmor: signer.publicArmored }]);
  assert.deepEqual(ok, { ok: true, keyId: signer.keyId });

  const armored = Buffer.from(await openpgp.sign({
    message: await openpgp.createMessage({ binary: doc }), signingKeys: signer.privateKey, detached: true,
  }) as string);
  assert.equal((await verifyDetachedSignature(doc, armored, [{ asciiArmor: signer.publicArmored }])).ok, true);

  const unknown = await verifyDetachedSignature(doc, sig, [{ asciiArmor: other.publicArmored }]);
  assert.equal(unknown.ok, false);
  assert.equal(!unknown.ok && unknown.reason, 'unknown-key');
  assert.match(!unknown.ok ? unknown.message : '', new RegExp(signer.keyId));

  const tampered = Buffer.from(doc);
  tampered[0] = 0x62;
  const bad = await verifyDetachedSignature(tampered, sig, [{ asciiArmor: signer.publicArmored }]);
  assert.equal(!bad.ok && bad.reason, 'bad-signature');

  const garbage = await verifyDetachedSignature(doc, Buffer.from('not a signature'), [{ asciiArmor: signer.publicArmored }]);
  assert.equal(!garbage.ok && garbage.reason, 'malformed');

  const none = await verifyDetachedSignature(doc, sig, []);
  assert.equal(!none.ok && none.reason, 'no-keys');
});
