import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { impliedProvider, isBuiltInProvider, parseModuleSource, parseProviderSource } from '../../../src/engine/addresses';
import { RegistryError } from '../../../src/engine/net/errors';
import { corpusFiles, NO_CORPUS } from '../../support/corpus';

test('module sources: registry addresses', () => {
  const table: Array<[string, { host: string; namespace: string; name: string; system: string; address: string; subdir?: string }]> = [
    ['hashicorp/consul/aws', { host: 'registry.opentofu.org', namespace: 'hashicorp', name: 'consul', system: 'aws', address: 'hashicorp/consul/aws' }],
    ['registry.opentofu.org/hashicorp/consul/aws', { host: 'registry.opentofu.org', namespace: 'hashicorp', name: 'consul', system: 'aws', address: 'hashicorp/consul/aws' }],
    ['app.terraform.io/acme/network/aws', { host: 'app.terraform.io', namespace: 'acme', name: 'network', system: 'aws', address: 'app.terraform.io/acme/network/aws' }],
    ['Example.COM/acme/net/aws', { host: 'example.com', namespace: 'acme', name: 'net', system: 'aws', address: 'example.com/acme/net/aws' }],
    ['127.0.0.1:8443/acme/net/aws', { host: '127.0.0.1:8443', namespace: 'acme', name: 'net', system: 'aws', address: '127.0.0.1:8443/acme/net/aws' }],
    ['xn--bcher-kva.example/acme/net/aws', { host: 'bücher.example', namespace: 'acme', name: 'net', system: 'aws', address: 'bücher.example/acme/net/aws' }],
    ['terraform-aws-modules/vpc/aws//modules/vpc-endpoints', { host: 'registry.opentofu.org', namespace: 'terraform-aws-modules', name: 'vpc', system: 'aws', address: 'terraform-aws-modules/vpc/aws', subdir: 'modules/vpc-endpoints' }],
    ['example.com/a_b/c-d/gcp2//x/./y/', { host: 'example.com', namespace: 'a_b', name: 'c-d', system: 'gcp2', address: 'example.com/a_b/c-d/gcp2', subdir: 'x/y' }],
  ];
  for (const [src, want] of table) {
    const got = parseModuleSource(src);
    assert.equal(got.kind, 'registry', src);
    if (got.kind !== 'registry') continue;
    assert.equal(got.host, want.host, src);
    assert.equal(got.namespace, want.namespace, src);
    assert.equal(got.name, want.name, src);
    assert.equal(got.system, want.system, src);
    assert.equal(got.address, want.address, src);
    assert.equal(got.subdir, want.subdir, src);
    assert.equal(got.fullAddress, `${want.host}/${want.namespace}/${want.name}/${want.system}`);
  }
});

test('module sources: local and non-registry sources are recognised and named', () => {
  const table: Array<[string, string]> = [
    ['./modules/vpc', 'local'],
    ['../shared', 'local'],
    ['.\\windows\\path', 'local'],
    ['github.com/hashicorp/example', 'github'],
    ['github.com/hashicorp/example/sub', 'github'], // four parts but github.com is never a registry host
    ['bitbucket.org/hashicorp/terraform-consul-aws', 'bitbucket'],
    ['bitbucket.org/a/b/c', 'bitbucket'],
    ['git::https://example.com/vpc.git?ref=v1.2.0', 'git'],
    ['git::ssh://username@example.com/storage.git', 'git'],
    ['git@github.com:hashicorp/example.git', 'git'],
    ['hg::http://example.com/vpc.hg?ref=v1.2.0', 'hg'],
    ['https://example.com/vpc-module.zip', 'http'],
    ['http://example.com/vpc-module?archive=zip', 'http'],
    ['s3::https://s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip', 's3'],
    ['examplecorp-terraform-modules.s3-eu-west-1.amazonaws.com/vpc.zip', 's3'],
    ['gcs::https://www.googleapis.com/storage/v1/modules/foomodule.zip', 'gcs'],
    ['www.googleapis.com/storage/v1/modules/foomodule.zip', 'gcs'],
    ['oci://registry.example.com/modules/vpc', 'oci'],
    ['oci::oci://registry.example.com/modules/vpc', 'oci'],
    ['oci::registry.example.com/modules/vpc', 'unknown'], // no detector knows the rest: tofu init refuses it
    ['hashicorp/consul/aws?ref=v1', 'unknown'], // a query string is never a registry address
    ['hashicorp/consul', 'unknown'],
    ['localhost/acme/net/aws', 'unknown'], // explicit hostname must contain a dot
    ['/abs/path/module', 'file'], // absolute: copied like a remote package, not an error
    ['C:\\modules\\vpc', 'file'],
    ['hashicorp/consul/aws//../escape', 'unknown'],
    ['svn::https://example.com/x', 'unknown'],
  ];
  for (const [src, kind] of table) {
    const got = parseModuleSource(src);
    assert.equal(got.kind, kind, src);
    if (got.kind !== 'local' && got.kind !== 'registry') {
      assert.equal(got.source, src);
      assert.ok(got.description.length > 0);
      if (kind === 'unknown') assert.ok(got.error && got.error.length > 0, `${src} needs an error`);
    }
  }
  const localhost = parseModuleSource('localhost/acme/net/aws');
  assert.match((localhost as { error: string }).error, /must contain at least one dot/);
  const gh = parseModuleSource('github.com/hashicorp/example//modules/x?ref=v1');
  assert.equal(gh.kind, 'github');
  assert.equal((gh as { subdir?: string }).subdir, 'modules/x');
});

test('module sources: absolute paths are "file" sources with a cleaned //subdir, never local', () => {
  assert.deepEqual(parseModuleSource('/abs/path/module'),
    { kind: 'file', source: '/abs/path/module', description: 'absolute path, copied like a remote package by tofu init', package: 'file:///abs/path/module' });
  assert.deepEqual(parseModuleSource('/srv/modules//net/./vpc/'),
    { kind: 'file', source: '/srv/modules//net/./vpc/', description: 'absolute path, copied like a remote package by tofu init', package: 'file:///srv/modules', subdir: 'net/vpc' });
  assert.equal((parseModuleSource('/srv/modules//') as { subdir?: string }).subdir, undefined);
  assert.match((parseModuleSource('/srv/modules//../x') as { error?: string }).error ?? '', /leads outside of the module package/);
  assert.equal(parseModuleSource('./abs').kind, 'local');
});

test('providers: built-in providers (terraform.io/builtin/TYPE) and the implied "terraform"', () => {
  for (const addr of ['terraform.io/builtin/terraform', 'Terraform.IO/BuiltIn/Terraform', 'terraform.io:443/builtin/terraform', 'terraform.io/builtin/other']) {
    assert.equal(isBuiltInProvider(addr), true, addr);
    assert.equal(isBuiltInProvider(parseProviderSource(addr)), true, addr);
  }
  for (const addr of ['hashicorp/terraform', 'terraform', 'registry.terraform.io/builtin/terraform', 'terraform.io/hashicorp/terraform',
    'terraform.io:8443/builtin/terraform', 'example.com/builtin/terraform', 'not a source!']) {
    assert.equal(isBuiltInProvider(addr), false, addr);
  }
  // addrs.ImpliedProviderForUnqualifiedType: "terraform" is built in, every other name hashicorp/NAME
  assert.deepEqual(impliedProvider('terraform'), { host: 'terraform.io', namespace: 'builtin', type: 'terraform',
    address: 'terraform.io/builtin/terraform', display: 'terraform.io/builtin/terraform' });
  assert.equal(impliedProvider('AWS').address, 'registry.opentofu.org/hashicorp/aws');
  assert.equal(isBuiltInProvider(impliedProvider('random')), false);
  assert.throws(() => impliedProvider('bad--name'), (e: unknown) => e instanceof RegistryError && e.code === 'invalid-address');
});

test('module sources: every module call in the real-world corpus is local or registry', { skip: NO_CORPUS }, () => {
  const files = corpusFiles();
  let registry = 0;
  let local = 0;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^module\s+"[^"]+"\s*\{[^]*?^\s*source\s*=\s*"([^"]+)"/gm)) {
      const got = parseModuleSource(m[1]);
      assert.ok(got.kind === 'registry' || got.kind === 'local', `${f}: ${m[1]} → ${got.kind}`);
      if (got.kind === 'registry') registry++;
      else local++;
    }
  }
  assert.ok(registry > 20 && local > 20, `registry=${registry} local=${local}`);
});

test('provider sources', () => {
  const table: Array<[string, string, string]> = [
    ['aws', 'registry.opentofu.org/hashicorp/aws', 'hashicorp/aws'],
    ['hashicorp/aws', 'registry.opentofu.org/hashicorp/aws', 'hashicorp/aws'],
    ['HashiCorp/AWS', 'registry.opentofu.org/hashicorp/aws', 'hashicorp/aws'],
    ['kreuzwerker/docker', 'registry.opentofu.org/kreuzwerker/docker', 'kreuzwerker/docker'],
    ['registry.terraform.io/hashicorp/aws', 'registry.terraform.io/hashicorp/aws', 'registry.terraform.io/hashicorp/aws'],
    ['Example.com:8443/acme/widget', 'example.com:8443/acme/widget', 'example.com:8443/acme/widget'],
    ['xn--bcher-kva.example/acme/widget', 'bücher.example/acme/widget', 'bücher.example/acme/widget'],
  ];
  for (const [src, address, display] of table) {
    const p = parseProviderSource(src);
    assert.equal(p.address, address, src);
    assert.equal(p.display, display, src);
  }
  const bad: Array<[string, RegExp]> = [
    ['a/b/c/d', /must be \[hostname\/\]namespace\/type/],
    ['hashicorp/', /must be/],
    ['hashicorp/-aws', /leading or trailing dashes/],
    ['hashicorp/terraform-provider-aws', /did you mean "hashicorp\/aws"/],
    ['bad host/acme/x', /invalid hostname/],
  ];
  for (const [src, re] of bad) {
    assert.throws(() => parseProviderSource(src), (e: unknown) => e instanceof RegistryError && e.code === 'invalid-address' && re.test(e.message), src);
  }
});
