// go-getter source forms classified as `tofu init` classifies them: the package address and
// subdirectory OpenTofu derives (addrs.ParseModuleSource → getmodules.NormalizePackageAddress →
// go-getter Detect with OpenTofu's detectors), compared with the cases of OpenTofu's
// internal/addrs/module_source_test.go and of go-getter's detector tests (detect_test.go,
// detect_github_test.go, detect_git_test.go, detect_s3_test.go, detect_gcs_test.go,
// detect_bitbucket_test.go) — written as data here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseModuleSource } from '../../../src/engine/addresses';
import { detectPackage } from '../../../src/engine/addresses/go-getter';

// [input, kind, package, subdir?]
type Row = [string, string, string, string?];

// OpenTofu TestParseModuleSource (remote cases) and TestParseModuleSourceRemote.
const OPENTOFU: Row[] = [
  ['github.com/hashicorp/terraform-cidr-subnets', 'github', 'git::https://github.com/hashicorp/terraform-cidr-subnets.git'],
  ['github.com/hashicorp/terraform-cidr-subnets//example/foo', 'github', 'git::https://github.com/hashicorp/terraform-cidr-subnets.git', 'example/foo'],
  ['git://example.com/code/baz.git', 'git', 'git://example.com/code/baz.git'],
  ['git://example.com/code/baz.git//bleep/bloop', 'git', 'git://example.com/code/baz.git', 'bleep/bloop'],
  ['git::https://example.com/code/baz.git', 'git', 'git::https://example.com/code/baz.git'],
  ['git::https://example.com/code/baz.git//bleep/bloop', 'git', 'git::https://example.com/code/baz.git', 'bleep/bloop'],
  ['git::https://example.com/code/baz.git//bleep/bloop?otherthing=blah', 'git', 'git::https://example.com/code/baz.git?otherthing=blah', 'bleep/bloop'],
  ['git::https://example.com/code/baz.git?otherthing=blah', 'git', 'git::https://example.com/code/baz.git?otherthing=blah'],
  ['git::ssh://git@example.com/code/baz.git', 'git', 'git::ssh://git@example.com/code/baz.git'],
  ['git::ssh://git@example.com/code/baz.git//bleep/bloop', 'git', 'git::ssh://git@example.com/code/baz.git', 'bleep/bloop'],
  ['git::git@example.com:code/baz.git', 'git', 'git::ssh://git@example.com/code/baz.git'],
  ['git::git@example.com:code/baz.git//bleep/bloop', 'git', 'git::ssh://git@example.com/code/baz.git', 'bleep/bloop'],
  ['www.googleapis.com/storage/v1/BUCKET_NAME/PATH_TO_MODULE', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH_TO_MODULE'],
  ['gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH_TO_MODULE', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH_TO_MODULE'],
  ['www.googleapis.com/storage/v1/BUCKET_NAME/PATH/TO/module.zip', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH/TO/module.zip'],
  ['gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH/TO/module.zip', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/BUCKET_NAME/PATH/TO/module.zip'],
  ['s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip', 's3', 's3::https://s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip'],
  ['s3::https://s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip', 's3', 's3::https://s3-eu-west-1.amazonaws.com/examplecorp-terraform-modules/vpc.zip'],
  ['http://example.com/module', 'http', 'http://example.com/module'],
  ['https://example.com/module', 'http', 'https://example.com/module'],
  ['https://example.com/module.zip', 'http', 'https://example.com/module.zip'],
  ['https://example.com/module?archive=tar', 'http', 'https://example.com/module?archive=tar'],
  ['https://example.com/module?archive=tar&checksum=blah', 'http', 'https://example.com/module?archive=tar&checksum=blah'],
  ['/tmp/foo/example', 'file', 'file:///tmp/foo/example'],
  ['/tmp/foo//example', 'file', 'file:///tmp/foo', 'example'],
];

// go-getter's detector tests (v1: the forced getter is part of the result).
const GO_GETTER: Row[] = [
  // detect_github_test.go (OpenTofu sets the query string aside around this detector)
  ['github.com/hashicorp/foo', 'github', 'git::https://github.com/hashicorp/foo.git'],
  ['github.com/hashicorp/foo.git', 'github', 'git::https://github.com/hashicorp/foo.git'],
  ['github.com/hashicorp/foo/bar', 'github', 'git::https://github.com/hashicorp/foo.git', 'bar'],
  ['github.com/hashicorp/foo?foo=bar', 'github', 'git::https://github.com/hashicorp/foo.git?foo=bar'],
  ['github.com/hashicorp/foo.git?foo=bar', 'github', 'git::https://github.com/hashicorp/foo.git?foo=bar'],
  ['github.com/org/repo//modules/vpc?ref=v1.2.0', 'github', 'git::https://github.com/org/repo.git?ref=v1.2.0', 'modules/vpc'],
  // detect_git_test.go
  ['git@github.com:hashicorp/foo.git', 'git', 'git::ssh://git@github.com/hashicorp/foo.git'],
  ['git@github.com:org/project.git?ref=test-branch', 'git', 'git::ssh://git@github.com/org/project.git?ref=test-branch'],
  ['git@github.com:hashicorp/foo.git//bar', 'git', 'git::ssh://git@github.com/hashicorp/foo.git', 'bar'],
  ['git@github.com:hashicorp/foo.git?foo=bar', 'git', 'git::ssh://git@github.com/hashicorp/foo.git?foo=bar'],
  ['git@github.xyz.com:org/project.git', 'git', 'git::ssh://git@github.xyz.com/org/project.git'],
  ['git@github.xyz.com:org/project.git?ref=test-branch', 'git', 'git::ssh://git@github.xyz.com/org/project.git?ref=test-branch'],
  ['git@github.xyz.com:org/project.git//module/a', 'git', 'git::ssh://git@github.xyz.com/org/project.git', 'module/a'],
  ['git@github.xyz.com:org/project.git//module/a?ref=test-branch', 'git', 'git::ssh://git@github.xyz.com/org/project.git?ref=test-branch', 'module/a'],
  ['git::ssh://git@git.example.com:2222/hashicorp/foo.git', 'git', 'git::ssh://git@git.example.com:2222/hashicorp/foo.git'],
  // detect_test.go (pwd "")
  ['git::github.com/hashicorp/foo', 'git', 'git::https://github.com/hashicorp/foo.git'],
  ['git::github.com/hashicorp/foo//bar', 'git', 'git::https://github.com/hashicorp/foo.git', 'bar'],
  ['git::https://github.com/hashicorp/consul.git', 'git', 'git::https://github.com/hashicorp/consul.git'],
  ['git::https://person@someothergit.com/foo/bar', 'git', 'git::https://person@someothergit.com/foo/bar'],
  ['git::ssh://git@my.custom.git/dir1/dir2', 'git', 'git::ssh://git@my.custom.git/dir1/dir2'],
  ['git::git@my.custom.git:dir1/dir2', 'git', 'git::ssh://git@my.custom.git/dir1/dir2'],
  // detect_bitbucket_test.go (git repositories; Bitbucket no longer hosts Mercurial)
  ['bitbucket.org/hashicorp/tf-test-git', 'bitbucket', 'git::https://bitbucket.org/hashicorp/tf-test-git.git'],
  ['bitbucket.org/hashicorp/tf-test-git.git', 'bitbucket', 'git::https://bitbucket.org/hashicorp/tf-test-git.git'],
  // detect_s3_test.go
  ['bucket.s3.amazonaws.com/foo', 's3', 's3::https://s3.amazonaws.com/bucket/foo'],
  ['bucket.s3.amazonaws.com/foo/bar', 's3', 's3::https://s3.amazonaws.com/bucket/foo/bar'],
  ['bucket.s3.amazonaws.com/foo/bar.baz', 's3', 's3::https://s3.amazonaws.com/bucket/foo/bar.baz'],
  ['bucket.s3-eu-west-1.amazonaws.com/foo', 's3', 's3::https://s3-eu-west-1.amazonaws.com/bucket/foo'],
  ['bucket.s3-eu-west-1.amazonaws.com/foo/bar.baz', 's3', 's3::https://s3-eu-west-1.amazonaws.com/bucket/foo/bar.baz'],
  ['s3.amazonaws.com/bucket/foo', 's3', 's3::https://s3.amazonaws.com/bucket/foo'],
  ['s3.amazonaws.com/bucket/foo/bar.baz', 's3', 's3::https://s3.amazonaws.com/bucket/foo/bar.baz'],
  ['s3-eu-west-1.amazonaws.com/bucket/foo', 's3', 's3::https://s3-eu-west-1.amazonaws.com/bucket/foo'],
  ['s3-eu-west-1.amazonaws.com/bucket/foo/bar.baz?version=1234', 's3', 's3::https://s3-eu-west-1.amazonaws.com/bucket/foo/bar.baz?version=1234'],
  // (the 5-part virtual-hosted form as go-getter v1's detectNewVhostStyle writes it)
  ['bucket.s3.eu-west-1.amazonaws.com/foo/bar.baz', 's3', 's3::https://s3.eu-west-1.amazonaws.com/bucket/foo/bar.baz'],
  // detect_gcs_test.go
  ['www.googleapis.com/storage/v1/bucket/foo', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/bucket/foo'],
  ['www.googleapis.com/storage/v1/bucket/foo/bar', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/bucket/foo/bar'],
  ['www.googleapis.com/storage/v1/foo/bar.baz', 'gcs', 'gcs::https://www.googleapis.com/storage/v1/foo/bar.baz'],
  // forced getters and other forms from OpenTofu's module source documentation
  ['hg::http://example.com/vpc.hg?ref=v1.2.0', 'hg', 'hg::http://example.com/vpc.hg?ref=v1.2.0'],
  ['http::example.com/vpc.zip', 'unknown', ''], // a forced getter does not make a host a URL: no detector knows it
  ['https::https://example.com/vpc-module?archive=zip', 'http', 'https::https://example.com/vpc-module?archive=zip'],
  ['file::/srv/modules/vpc', 'file', 'file::file:///srv/modules/vpc'],
  ['oci://registry.example.com/modules/vpc?tag=1.0.0', 'oci', 'oci://registry.example.com/modules/vpc?tag=1.0.0'],
  ['s3::https://s3.amazonaws.com/bucket/vpc.zip?archive=zip', 's3', 's3::https://s3.amazonaws.com/bucket/vpc.zip?archive=zip'],
];

test('go-getter forms: package address and subdirectory as tofu init derives them (OpenTofu and go-getter cases)', () => {
  for (const [input, kind, pkg, subdir] of [...OPENTOFU, ...GO_GETTER]) {
    const got = parseModuleSource(input);
    assert.equal(got.kind, kind, input);
    if (got.kind === 'local' || got.kind === 'registry') continue;
    if (kind === 'unknown') { assert.ok(got.error, `${input}: an error`); continue; }
    assert.equal(got.package, pkg, input);
    assert.equal(got.subdir, subdir, `${input} subdir`);
    assert.equal(got.error, undefined, input);
  }
});

test('go-getter forms: what tofu init refuses, with its reason', () => {
  const refused: Array<[string, RegExp]> = [
    ['boop/bloop', /^OpenTofu cannot detect a supported external module source type for boop\/bloop$/],
    ['/tmp/foo//example/../../invalid', /^subdirectory path "\.\.\/invalid" leads outside of the module package$/],
    // go-getter accepts any scheme at parse time; tofu init then has no getter for it
    ['dfgdfgsd:dgfhdfghdfghdfg/dfghdfghdfg', /no getter for "dfgdfgsd"/],
    ['ssh://git@example.com/storage.git', /no getter for "ssh"/], // must be written git::ssh://…
    ['svn::https://example.com/x', /no getter for "svn"/],
    ['GIT::https://example.com/x.git', /no getter for "GIT"/], // forced getters are looked up as written
    ['github.com/hashicorp', /^GitHub URLs should be github\.com\/username\/repo$/],
    ['storage.googleapis.com/bucket/x.zip', /^URL is not a valid GCS URL$/],
    ['a.b.c.d.e.f.amazonaws.com/x', /^URL is not a valid S3 URL$/],
    ['git@github.com:org/repo.git?ref=a;b', /error parsing GitHub SSH URL/],
    ['localhost/acme/net/aws', /^invalid module registry address: invalid module registry hostname: must contain at least one dot$/],
  ];
  for (const [input, why] of refused) {
    const got = parseModuleSource(input);
    assert.equal(got.kind, 'unknown', input);
    if (got.kind === 'unknown') assert.match(got.error ?? '', why, input);
  }
  // the scp form's query is re-encoded as Go's url.Values.Encode does (keys sorted)
  assert.deepEqual(detectPackage('git@host.example:r.git?sshkey=a%2Bb&depth=1'), { package: 'git::ssh://git@host.example/r.git?depth=1&sshkey=a%2Bb', detector: 'git' });
});
