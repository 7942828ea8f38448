// The SBOM's identities and time, without servers: package URLs as docs/sbom.md describes them
// (the proposed `terraform` type with the provisional choices, `oci` by digest), the timestamp from
// SOURCE_DATE_EPOCH, and git/forced-getter locations as URLs a reader's tools accept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modulePurlOf, ociPurlOf, printable, providerPurlOf, referenceUrl, sbomTimestamp, spdxId } from '../../../src/engine/sbom';

test('purls: registry module (system qualifier, subdir as subpath), provider, repository_url except for registry.terraform.io, oci by digest', () => {
  const m = { host: 'registry.opentofu.org', namespace: 'terraform-aws-modules', name: 'vpc', system: 'aws' };
  assert.equal(modulePurlOf(m, '5.1.0'), 'pkg:terraform/terraform-aws-modules/vpc@5.1.0?repository_url=https://registry.opentofu.org&system=aws');
  assert.equal(modulePurlOf({ ...m, host: 'registry.terraform.io', subdir: 'modules/vpc-endpoints' }, '5.1.0'),
    'pkg:terraform/terraform-aws-modules/vpc@5.1.0?system=aws#modules/vpc-endpoints');
  assert.equal(providerPurlOf({ host: 'registry.terraform.io', namespace: 'hashicorp', type: 'aws' }, '5.31.0'), 'pkg:terraform/hashicorp/aws@5.31.0');
  assert.equal(providerPurlOf({ host: 'registry.example.com:8443', namespace: 'acme', type: 'cloud' }, null), 'pkg:terraform/acme/cloud?repository_url=https://registry.example.com:8443');
  const digest = `sha256:${'a'.repeat(64)}`;
  assert.equal(ociPurlOf({ registry: 'oci.example.com', repository: 'modules/vpc', tag: '1.1.0', manifestDigest: digest }),
    `pkg:oci/vpc@sha256%3A${'a'.repeat(64)}?repository_url=oci.example.com/modules/vpc&tag=1.1.0`);
  // a version with build metadata and a namespace needing no escape; '+' is percent-encoded
  assert.equal(modulePurlOf({ ...m, host: 'registry.terraform.io' }, '1.0.0+build.1'), 'pkg:terraform/terraform-aws-modules/vpc@1.0.0%2Bbuild.1?system=aws');
});

test('sbomTimestamp: SOURCE_DATE_EPOCH when set (whole seconds, UTC), else now without fractions; garbage refused', () => {
  assert.equal(sbomTimestamp({ SOURCE_DATE_EPOCH: '0' }), '1970-01-01T00:00:00Z');
  assert.equal(sbomTimestamp({ SOURCE_DATE_EPOCH: '1767225600' }), '2026-01-01T00:00:00Z');
  assert.equal(sbomTimestamp({}, new Date('2026-03-04T05:06:07.891Z')), '2026-03-04T05:06:07Z');
  assert.throws(() => sbomTimestamp({ SOURCE_DATE_EPOCH: '-5' }), /SOURCE_DATE_EPOCH must be a number/);
  assert.throws(() => sbomTimestamp({ SOURCE_DATE_EPOCH: '1e9' }), /SOURCE_DATE_EPOCH must be a number/);
});

test('referenceUrl: go-getter forced getters and scp-like git addresses become URLs; spdxId is a valid, stable SPDX identifier', () => {
  assert.equal(referenceUrl('git::https://git.example.com/net.git'), 'git+https://git.example.com/net.git');
  assert.equal(referenceUrl('git::git@github.com:acme/net.git'), 'git+ssh://git@github.com/acme/net.git');
  assert.equal(referenceUrl('https://example.com/a.tar.gz?sig=***'), 'https://example.com/a.tar.gz?sig=***');
  const id = spdxId('module:registry.example.com/acme/net/aws@1.0.0//modules/sub');
  assert.match(id, /^SPDXRef-module-[0-9a-f]{16}$/);
  assert.equal(spdxId('module:registry.example.com/acme/net/aws@1.0.0//modules/sub'), id);
  assert.notEqual(spdxId('module:registry.example.com/acme/net/aws@1.0.1'), id);
});

test('printable: control characters of a hostile message or source become visible escapes (notes go to a terminal)', () => {
  assert.equal(printable('module \u001b[31mred\u0007 x\u009b'), 'module \\u001b[31mred\\u0007 x\\u009b');
  assert.equal(printable('plain: ünïcode ok'), 'plain: ünïcode ok');
});
