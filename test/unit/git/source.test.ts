// Which module sources `tofu init` fetches with git, their remote, ref, depth and subdirectory, and
// the ref rewritten in place (subdirectory and other query arguments kept). Pure: no git runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GitModuleSource, parseGitModuleSource, withGitRef } from '../../../src/engine/git';
import { gitRefOrder, newestGitTag, parseLsRemote, resolveGitRef } from '../../../src/engine/git';

test('every source form tofu init treats as git: remote, ref, depth, subdir', () => {
  const cases: Array<[string, Partial<GitModuleSource>]> = [
    ['git::https://git.example.com/infra/modules.git//vpc?ref=v1.4.2&depth=1',
      { remote: 'https://git.example.com/infra/modules.git', ref: 'v1.4.2', depth: 1, subdir: 'vpc', host: 'git.example.com' }],
    ['git::ssh://git@git.example.com/infra/modules.git?ref=main', { remote: 'ssh://git@git.example.com/infra/modules.git', ref: 'main', host: 'git.example.com' }],
    ['git@github.com:org/repo.git?ref=v2.0.0', { remote: 'ssh://git@github.com/org/repo.git', ref: 'v2.0.0', detector: 'git', host: 'github.com' }],
    ['github.com/org/repo//modules/net?ref=v1', { remote: 'https://github.com/org/repo.git', ref: 'v1', subdir: 'modules/net', detector: 'github' }],
    ['bitbucket.org/org/repo', { remote: 'https://bitbucket.org/org/repo.git', detector: 'bitbucket' }],
    ['git::https://example.com/r.git?ref=v1.0.0%2Bbuild.1', { remote: 'https://example.com/r.git', ref: 'v1.0.0+build.1' }],
    ['git::https://example.com/r.git?foo=bar&ref=v1', { remote: 'https://example.com/r.git?foo=bar', ref: 'v1' }],
  ];
  for (const [src, want] of cases) {
    const g = parseGitModuleSource(src);
    assert.ok(g, src);
    assert.equal(g.error, undefined, src);
    for (const [k, v] of Object.entries(want)) assert.deepEqual((g as unknown as Record<string, unknown>)[k], v, `${src}: ${k}`);
    if (g.ref !== undefined) assert.ok(g.refSpan && src.slice(g.refSpan.start, g.refSpan.end).length > 0, src);
  }
  for (const other of ['hashicorp/consul/aws', './local', 'oci://r.example.com/m', 's3::https://s3.amazonaws.com/b/x.zip', 'https://example.com/x.zip']) {
    assert.equal(parseGitModuleSource(other), undefined, other);
  }
});

test('refs the clone path refuses are refused here too (no option-like refs reach git)', () => {
  const escaped = parseGitModuleSource('git@github.com:org/re\u001b[2Jpo.git?ref=v1');
  assert.ok(escaped?.error && escaped.remote === '', 'a source with control characters is never run nor shown');
  for (const src of ['git::https://example.com/r.git?ref=--upload-pack=touch%20x', 'git::https://example.com/r.git?ref=a%0Ab', 'git::https://example.com/r.git?sshkey=abc']) {
    const g = parseGitModuleSource(src);
    assert.ok(g?.error, src);
  }
});

test('withGitRef replaces or adds ?ref=, keeping the subdirectory, depth and other arguments', () => {
  assert.equal(withGitRef('git::https://h/r.git//vpc?ref=v1.0.0&depth=1', 'v1.2.0'), 'git::https://h/r.git//vpc?ref=v1.2.0&depth=1');
  assert.equal(withGitRef('git::https://h/r.git//vpc?depth=1', 'v2.0.0'), 'git::https://h/r.git//vpc?depth=1&ref=v2.0.0');
  assert.equal(withGitRef('github.com/o/r//sub', 'v3'), 'github.com/o/r//sub?ref=v3');
  assert.equal(withGitRef('git::https://h/r.git?ref=main', 'v1.0.0+b.1'), 'git::https://h/r.git?ref=v1.0.0%2Bb.1');
  const rewritten = parseGitModuleSource(withGitRef('git::https://h/r.git//vpc?depth=1&ref=main', 'release/v1+x'))!;
  assert.deepEqual([rewritten.ref, rewritten.depth, rewritten.subdir], ['release/v1+x', 1, 'vpc']);
});

const SHA = (c: string) => c.repeat(40);
const LS = [
  `ref: refs/heads/main\tHEAD`, `${SHA('a')}\tHEAD`, `${SHA('a')}\trefs/heads/main`, `${SHA('b')}\trefs/heads/dev`,
  `${SHA('c')}\trefs/tags/v1.0.0`, `${SHA('d')}\trefs/tags/v1.10.0`, `${SHA('e')}\trefs/tags/v1.10.0^{}`,
  `${SHA('f')}\trefs/tags/1.2.0`, `${SHA('1')}\trefs/tags/v2.0.0-rc.1`, `${SHA('2')}\trefs/tags/stable`,
  `${SHA('3')}\trefs/tags/evil\u001b[31m`, `${SHA('4')}\trefs/tags/bidi\u202e`,
].join('\n') + '\n';

test('ls-remote output: HEAD, branches, tags peeled, names with control characters dropped; ordered as versions', () => {
  const refs = parseLsRemote(LS);
  assert.deepEqual(refs.head, { commit: SHA('a'), branch: 'main' });
  assert.equal(refs.unsafe, 2);
  assert.deepEqual(refs.tags.find((t) => t.name === 'v1.10.0'), { name: 'v1.10.0', commit: SHA('e'), object: SHA('d') });
  const order = gitRefOrder(refs, 'v1.0.0');
  assert.deepEqual(order.map((r) => `${r.kind}:${r.name}${r.prerelease ? '(pre)' : ''}${r.selected ? '*' : ''}${r.default ? '(default)' : ''}`),
    ['tag:v2.0.0-rc.1(pre)', 'tag:v1.10.0', 'tag:1.2.0', 'tag:v1.0.0*', 'tag:stable', 'branch:main(default)', 'branch:dev']);
  assert.equal(newestGitTag(refs), 'v1.10.0');
  assert.deepEqual(resolveGitRef(refs, 'v1.10.0'), { ref: 'v1.10.0', kind: 'tag', name: 'v1.10.0', commit: SHA('e') });
  assert.deepEqual(resolveGitRef(refs, 'dev'), { ref: 'dev', kind: 'branch', name: 'dev', commit: SHA('b') });
  assert.deepEqual(resolveGitRef(refs, undefined), { ref: null, kind: 'branch', name: 'main', commit: SHA('a'), defaultBranch: true });
  assert.deepEqual(resolveGitRef(refs, 'bbbbbbb'), { ref: 'bbbbbbb', kind: 'commit', name: 'bbbbbbb', commit: SHA('b') });
  assert.equal(resolveGitRef(refs, 'v9.9.9'), undefined);
});
