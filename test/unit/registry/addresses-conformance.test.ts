// Conformance tables: cases from OpenTofu's internal/addrs/module_source_test.go and
// opentofu/registry-address (module_test.go, provider_test.go), written as data here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseModuleRegistryAddress, parseModuleSource, parseProviderSource } from '../../../src/engine/addresses';

// TestParseModuleSource: [input, kind, subdir]
const MODULE_SOURCES: Array<[string, string, string?]> = [
  ['./child', 'local'], ['./nope/../child', 'local'], ['../sibling', 'local'], ['./nope/../../sibling', 'local'],
  ['.\\child', 'local'], ['.\\nope\\..\\child', 'local'], ['..\\sibling', 'local'], ['.\\nope\\..\\..\\sibling', 'local'],
  ['hashicorp/subnets/cidr', 'registry'], ['hashicorp/subnets/cidr//examples/foo', 'registry', 'examples/foo'],
  ['example.com/awesomecorp/network/happycloud', 'registry'], ['example.com/awesomecorp/network/happycloud//examples/foo', 'registry', 'examples/foo'],
  ['github.com/hashicorp/terraform-cidr-subnets', 'github'], ['github.com/hashicorp/terraform-cidr-subnets//example/foo', 'github', 'example/foo'],
  ['git://example.com/code/baz.git', 'git'], ['git://example.com/code/baz.git//bleep/bloop', 'git', 'bleep/bloop'],
  ['git::https://example.com/code/baz.git', 'git'], ['git::https://example.com/code/baz.git//bleep/bloop', 'git', 'bleep/bloop'],
  ['git::https://example.com/code/baz.git//bleep/bloop?otherthing=blah', 'git', 'bleep/bloop'],
  ['git::ssh://git@example.com/code/baz.git', 'git'], ['git::ssh://git@example.com/code/baz.git//bleep/bloop', 'git', 'bleep/bloop'],
  ['git::git@example.com:code/baz.git', 'git'], ['git::git@example.com:code/baz.git//bleep/bloop', 'git', 'bleep/bloop'],
  ['www.googleapis.com/storage/v1/BUCKET_NAME/PATH_TO_MODULE', 'gcs'], ['gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH_TO_MODULE', 'gcs'],
  ['www.googleapis.com/storage/v1/BUCKET_NAME/PATH/TO/module.zip', 'gcs'], ['gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH/TO/module.zip', 'gcs'],
  ['s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip', 's3'], ['s3::https://s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip', 's3'],
  ['http://example.com/module', 'http'], ['https://example.com/module', 'http'], ['https://example.com/module.zip', 'http'],
  ['https://example.com/module?archive=tar', 'http'], ['https://example.com/module?archive=tar&checksum=blah', 'http'],
  ['hashicorp/subnets/cidr//a/../b', 'registry', 'b'], // path.Clean: only escaping ".." is an error
  // absolute filesystem paths: not local (no ./ or ../), copied like a remote package (file://)
  ['/tmp/foo/example', 'file'], ['/tmp/foo//example', 'file', 'example'],
];

// registry-address TestParseModuleSource + OpenTofu TestParseModuleSourceRegistry: [input, display address + subdir | error]
const MODULE_REGISTRY: Array<[string, string | RegExp]> = [
  ['hashicorp/consul/aws', 'hashicorp/consul/aws'], ['hashicorp/consul/aws//foo', 'hashicorp/consul/aws//foo'],
  ['registry.opentofu.org/hashicorp/consul/aws', 'hashicorp/consul/aws'], ['HashiCorp/Consul/aws', 'HashiCorp/Consul/aws'],
  ['Example.com:1234/HashiCorp/Consul/aws', 'example.com:1234/HashiCorp/Consul/aws'],
  ['Испытание.com/HashiCorp/Consul/aws', 'испытание.com/HashiCorp/Consul/aws'],
  ['Испытание.com:1234/HashiCorp/Consul/aws//Foo', 'испытание.com:1234/HashiCorp/Consul/aws//Foo'],
  ['---.com/HashiCorp/Consul/aws', /^invalid module registry hostname "---.com"; internationalized domain names must be given as direct unicode characters, not in punycode$/],
  ['foo/var/baz/qux', /^invalid module registry hostname: must contain at least one dot$/],
  ['foo/var/no-no-no', /^invalid target system "no-no-no": must be between one and 64 ASCII letters or digits$/],
  [`foo/var/${'a'.repeat(120)}h`, /^invalid target system "a+h": must be between one and 64 ASCII letters or digits$/],
  ['boop!/var/baz', /^invalid namespace "boop!": must be between one and 64 characters, including ASCII letters, digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix$/],
  ['foo/var/baz?otherthing', /^module registry addresses may not include a query string portion$/],
  ['github.com/HashiCorp/Consul/aws', /^can't use "github.com" as a module registry host, because it's reserved for installing directly from version control repositories$/],
  ['bitbucket.org/HashiCorp/Consul/aws', /^can't use "bitbucket.org" as a module registry host/],
  ['./boop', /./], ['../boop', /./], ['boop/bloop', /either three or four slash-separated components/],
  ['hashicorp/subnets/cidr//../nope', /^subdirectory path "..\/nope" leads outside of the module package$/],
];

test('conformance: module source classification (OpenTofu addrs.ParseModuleSource)', () => {
  for (const [src, kind, subdir] of MODULE_SOURCES) {
    const got = parseModuleSource(src);
    assert.equal(got.kind, kind, src);
    if (got.kind !== 'local') assert.equal((got as { subdir?: string }).subdir, subdir, `${src} subdir`);
  }
  const bare = parseModuleSource('boop/bloop');
  assert.equal(bare.kind, 'unknown');
  assert.match((bare as { error: string }).error, /OpenTofu cannot detect a supported external module source type for boop\/bloop/);
  assert.match((parseModuleSource('hashicorp/subnets/cidr//../nope') as { error: string }).error, /leads outside of the module package/);
  // "subdir escaping out of package" (a filesystem path as the placeholder package)
  const escaping = parseModuleSource('/tmp/foo//example/../../invalid');
  assert.equal(escaping.kind, 'unknown');
  assert.equal((escaping as { error: string }).error, 'subdirectory path "../invalid" leads outside of the module package');
});

test('conformance: module registry addresses and their errors (registry-address)', () => {
  for (const [src, want] of MODULE_REGISTRY) {
    const got = parseModuleRegistryAddress(src);
    if (typeof want === 'string') {
      assert.ok(!('error' in got), `${src}: ${'error' in got ? got.error : ''}`);
      if ('error' in got) continue;
      assert.equal(got.address + (got.subdir ? `//${got.subdir}` : ''), want, src);
    } else {
      assert.ok('error' in got, `${src} should be refused`);
      if ('error' in got) assert.match(got.error, want, src);
    }
  }
});

// registry-address TestParseProviderSource + TestParseProviderPart: [input, address | error]
const PROVIDERS: Array<[string, string | RegExp]> = [
  ['registry.opentofu.org/hashicorp/aws', 'registry.opentofu.org/hashicorp/aws'],
  ['registry.OpenTofu.org/HashiCorp/AWS', 'registry.opentofu.org/hashicorp/aws'],
  ['opentofu.org/builtin/opentofu', 'opentofu.org/builtin/opentofu'],
  ['terraform.io/builtin/terraform', 'terraform.io/builtin/terraform'],
  ['opentofu', 'registry.opentofu.org/hashicorp/opentofu'], ['hashicorp/aws', 'registry.opentofu.org/hashicorp/aws'],
  ['HashiCorp/AWS', 'registry.opentofu.org/hashicorp/aws'], ['aws', 'registry.opentofu.org/hashicorp/aws'], ['AWS', 'registry.opentofu.org/hashicorp/aws'],
  ['example.com/foo-bar/baz-boop', 'example.com/foo-bar/baz-boop'], ['foo-bar/baz-boop', 'registry.opentofu.org/foo-bar/baz-boop'],
  ['localhost:8080/foo/bar', 'localhost:8080/foo/bar'],
  ['example.com/too/many/parts/here', /must be \[hostname\/\]namespace\/type/], ['/too///many//slashes', /must be/], ['///', /must be/],
  ['/ / /', /./], ['badhost!/hashicorp/aws', /invalid hostname/], ['example.com/badnamespace!/aws', /must contain only letters/],
  ['example.com/bad--namespace/aws', /cannot use multiple consecutive dashes/], ['example.com/-badnamespace/aws', /leading or trailing dashes/],
  ['example.com/badnamespace-/aws', /leading or trailing dashes/], ['example.com/bad.namespace/aws', /dots are not allowed/],
  ['example.com/hashicorp/badtype!', /must contain only letters/], ['example.com/hashicorp/bad--type', /multiple consecutive dashes/],
  ['example.com/hashicorp/-badtype', /leading or trailing/], ['example.com/hashicorp/badtype-', /leading or trailing/],
  ['example.com/hashicorp/bad.type', /dots are not allowed/],
  ['example.com/opentffoundation/terraform-provider-bad', /did you mean "example.com\/opentffoundation\/bad"/],
  ['example.com/opentffoundation/terraform-bad', /"terraform-" prefix is redundant/],
  ['acme/opentofu-provider-widget', /did you mean "acme\/widget"/], ['acme/opentofu-widget', /"opentofu-" prefix is redundant/],
  ['-/aws', 'registry.opentofu.org/-/aws'], ['example.com/-/aws', /legacy provider namespace "-" can be used only with hostname registry.opentofu.org/],
  ['Испытание/münchen', 'registry.opentofu.org/испытание/münchen'], ['xn--80akhbyknj4f/aws', /multiple consecutive dashes/],
  ['acme/abc_123', 'registry.opentofu.org/acme/abc_123'], ['acme/abc__123', /multiple consecutive underscores/], ['acme/_abc', /underscores may not be used as a prefix or suffix/],
];

test('conformance: provider source addresses (registry-address ParseProviderSource)', () => {
  for (const [src, want] of PROVIDERS) {
    if (typeof want === 'string') assert.equal(parseProviderSource(src).address, want, src);
    else assert.throws(() => parseProviderSource(src), want, src);
  }
  // precomposed and decomposed "ü" are the same provider (NFC, as IDNA mapping does)
  assert.equal(parseProviderSource('acme/mu\u0308nchen').type, 'm\u00fcnchen');
});

export const PORTED = { modules: MODULE_SOURCES.length + MODULE_REGISTRY.length + 3, providers: PROVIDERS.length + 1 };
