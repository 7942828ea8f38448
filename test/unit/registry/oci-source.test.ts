// `oci://` module sources as tofu init reads them (OpenTofu's internal/getmodules/oci_getter.go:
// resolveRepositoryRef + resolveManifestDescriptor, ORAS-Go's registry.Reference validation,
// go-digest's Parse, go-getter's Client.Get handling of `archive` / `checksum` and `//subdir`),
// written as data: every refusal tofu gives, with its message and the argument it is about.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { digestProblem, parseModuleSource, parseOciModuleSource, withOciSelector } from '../../../src/engine/addresses';

const D = `sha256:${'a'.repeat(64)}`;

// [source, registry, repository, tag, digest, subdir, defaultTag]
type Ok = [string, string, string, string | undefined, string | undefined, string | undefined, boolean];
const ACCEPTED: Ok[] = [
  ['oci://example.com/repository-name', 'example.com', 'repository-name', 'latest', undefined, undefined, true],
  ['oci://example.com/repository-name?tag=v1.0.0', 'example.com', 'repository-name', 'v1.0.0', undefined, undefined, false],
  [`oci://example.com/modules/vpc?digest=${D}`, 'example.com', 'modules/vpc', undefined, D, undefined, false],
  ['oci://registry.example.com:5000/a/b/c//sub/dir?tag=1.2.3', 'registry.example.com:5000', 'a/b/c', '1.2.3', undefined, 'sub/dir', false],
  ['oci://127.0.0.1:5000/mods/net//x/./y/', '127.0.0.1:5000', 'mods/net', 'latest', undefined, 'x/y', true],
  ['oci::oci://example.com/mods/net?tag=latest', 'example.com', 'mods/net', 'latest', undefined, undefined, false],
  ['OCI://example.com/mods/net', 'example.com', 'mods/net', 'latest', undefined, undefined, true], // Go lower-cases the scheme
  ['oci://user:secret@example.com/mods/net', 'example.com', 'mods/net', 'latest', undefined, undefined, true], // user information never reaches the getter
  ['oci://example.com/a__b/c-d.e/f---g', 'example.com', 'a__b/c-d.e/f---g', 'latest', undefined, undefined, true],
  ['oci://example.com/mods/net?tag=v1&archive=false', 'example.com', 'mods/net', 'v1', undefined, undefined, false], // go-getter consumes it
  ['oci://example.com/mods/net?tag=v1&archive=rar', 'example.com', 'mods/net', 'v1', undefined, undefined, false], // no such decompressor: consumed, ignored
  ['oci://example.com/mods/net?tag=v1&checksum=', 'example.com', 'mods/net', 'v1', undefined, undefined, false], // an empty one is deleted
  ['oci://example.com/mods/net?tag=v1#fragment', 'example.com', 'mods/net', 'v1', undefined, undefined, false],
  ['oci://example.com/mods/n%65t?tag=v%31', 'example.com', 'mods/net', 'v1', undefined, undefined, false], // decoded as Go does
  [`oci://example.com/m?tag=${'x'.repeat(128)}`, 'example.com', 'm', 'x'.repeat(128), undefined, undefined, false],
  [`oci://example.com/m?digest=sha512:${'0'.repeat(128)}`, 'example.com', 'm', undefined, `sha512:${'0'.repeat(128)}`, undefined, false],
];

// [source, code, message, argument?]
type Bad = [string, string, string, string?];
const REFUSED: Bad[] = [
  [`oci://example.com/m?tag=v1&digest=${D}`, 'tag-and-digest', 'cannot set both "tag" and "digest" arguments', 'digest'],
  ['oci://example.com/m?digest=sha256:abc', 'invalid-digest', 'invalid digest: invalid checksum digest length', 'digest'],
  ['oci://example.com/m?digest=abc', 'invalid-digest', 'invalid digest: invalid checksum digest format', 'digest'],
  [`oci://example.com/m?digest=md5:${'a'.repeat(32)}`, 'invalid-digest', 'invalid digest: unsupported digest algorithm', 'digest'],
  [`oci://example.com/m?digest=sha256:${'A'.repeat(64)}`, 'invalid-digest', 'invalid digest: invalid checksum digest format', 'digest'],
  ['oci://example.com/m?digest=', 'empty-argument', 'digest argument must not be empty', 'digest'],
  ['oci://example.com/m?tag=', 'empty-argument', 'tag argument must not be empty', 'tag'],
  ['oci://example.com/m?tag', 'empty-argument', 'tag argument must not be empty', 'tag'],
  ['oci://example.com/m?tag=.v1', 'invalid-tag', 'invalid reference: invalid tag ".v1"', 'tag'],
  ['oci://example.com/m?tag=v1+build', 'invalid-tag', 'invalid reference: invalid tag "v1 build"', 'tag'], // "+" is a space in a query
  [`oci://example.com/m?tag=${'x'.repeat(129)}`, 'invalid-tag', `invalid reference: invalid tag "${'x'.repeat(129)}"`, 'tag'],
  ['oci://example.com/m?tag=a&tag=b', 'repeated-argument', 'too many "tag" arguments', 'tag'],
  ['oci://example.com/m?ref=v1', 'unknown-argument', 'unsupported argument "ref"', 'ref'],
  ['oci://example.com/m?tag=v1&ref=v1&depth=1', 'unknown-argument', 'unsupported arguments: depth, ref', 'depth'],
  ['oci://example.com/m?archive=&tag=v1', 'unknown-argument', 'unsupported argument "archive"', 'archive'], // an empty one reaches the getter
  ['oci://example.com', 'invalid-repository', 'invalid reference: invalid repository ""'],
  ['oci://example.com/', 'invalid-repository', 'invalid reference: invalid repository ""'],
  ['oci://example.com//sub', 'invalid-repository', 'invalid reference: invalid repository ""'],
  ['oci://example.com/Modules/VPC', 'invalid-repository', 'invalid reference: invalid repository "Modules/VPC"'],
  ['oci://example.com/mods/-net', 'invalid-repository', 'invalid reference: invalid repository "mods/-net"'],
  ['oci:///mods/net', 'invalid-registry', 'invalid reference: invalid registry ""'],
  ['oci:example.com/mods/net', 'invalid-registry', 'invalid reference: invalid registry ""'],
  ['oci::https://example.com/mods/net', 'not-oci-scheme', 'oci source type only supports oci URL scheme'],
  ['oci://example.com/mods/net?archive=zip', 'archive-argument', 'the "archive" argument is not allowed for OCI sources, because the archive format is detected automatically from the image manifest', 'archive'],
  ['oci://example.com/mods/net.zip', 'archive-argument', 'the "archive" argument is not allowed for OCI sources, because the archive format is detected automatically from the image manifest'],
  ['oci://example.com/mods/net.tar.gz?tag=v1', 'archive-argument', 'the "archive" argument is not allowed for OCI sources, because the archive format is detected automatically from the image manifest'],
  [`oci://example.com/mods/net?checksum=sha256:${'a'.repeat(64)}`, 'checksum-argument', 'checksum cannot be specified for directory download', 'checksum'],
];

test('oci module sources: registry, repository, tag or digest and subdirectory as tofu init reads them', () => {
  for (const [src, registry, repository, tag, digest, subdir, defaultTag] of ACCEPTED) {
    assert.equal(parseModuleSource(src).kind, 'oci', src);
    const got = parseOciModuleSource(src);
    assert.ok(got, src);
    assert.equal(got.error, undefined, `${src}: ${got.error?.message}`);
    assert.deepEqual([got.registry, got.repository, got.tag, got.digest, got.subdir, got.defaultTag], [registry, repository, tag, digest, subdir, defaultTag], src);
    assert.equal(got.reference, digest ? `${registry}/${repository}@${digest}` : `${registry}/${repository}:${tag}`, src);
  }
});

test('oci module sources: each refusal of tofu init as data (code, message, argument)', () => {
  for (const [src, code, message, argument] of REFUSED) {
    const got = parseOciModuleSource(src);
    assert.ok(got, src);
    assert.deepEqual(got.error, { code, message, ...(argument !== undefined ? { argument } : {}) }, src);
  }
});

test('oci module sources: other sources are not read as OCI', () => {
  for (const src of ['./oci', 'hashicorp/consul/aws', 'https://example.com/oci://x', 'git::https://example.com/x.git', 'example.com/oci/mod/aws']) {
    assert.equal(parseOciModuleSource(src), undefined, src);
  }
});

test('oci module sources: argument offsets in the source as written, for diagnostics and edits', () => {
  const src = 'oci://example.com/m//sub?x=1&tag=v1.2';
  const got = parseOciModuleSource(src)!;
  const tag = got.args.find((a) => a.name === 'tag')!;
  assert.equal(src.slice(tag.start, tag.end), 'tag=v1.2');
  assert.equal(src.slice(tag.valueStart, tag.end), 'v1.2');
  assert.equal(got.error?.code, 'unknown-argument');
  assert.equal(withOciSelector(got, { digest: D }), `oci://example.com/m//sub?x=1&digest=${D}`);
  assert.equal(withOciSelector(parseOciModuleSource('oci://example.com/m')!, { tag: 'v2' }), 'oci://example.com/m?tag=v2');
  const pinned = withOciSelector(parseOciModuleSource('oci://example.com/m?tag=v1')!, { digest: D });
  assert.deepEqual([parseOciModuleSource(pinned)!.digest, parseOciModuleSource(pinned)!.tag], [D, undefined]);
});

test('go-digest validation', () => {
  assert.equal(digestProblem(D), undefined);
  assert.equal(digestProblem(`sha384:${'b'.repeat(96)}`), undefined);
  assert.equal(digestProblem(':abc'), 'invalid checksum digest format');
  assert.equal(digestProblem('sha256:'), 'invalid checksum digest format');
  assert.equal(digestProblem(`sha256:${'g'.repeat(64)}`), 'invalid checksum digest format');
  assert.equal(digestProblem('Sha256:abc'), 'invalid checksum digest format');
});
