// How a package location is fetched: go-getter's git query parameters, the GitHub/Bitbucket
// shorthands, getters tofu-registry does not run (named in the message), a commit id as `ref`,
// and go-getter's subdirectory globs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseGitSource } from '../../../src/engine/git/clone';
import { fetchModule, moduleDirectory, ModuleFetchError, packageSource } from '../../../src/engine/modulepkg/fetch';
import { HttpClient } from '../../../src/engine/net/http';
import { makeBareRepo } from '../../support/git-repo';
import { tempDir } from '../../support/temp';

test('git sources: ref and depth are read, other query parameters stay in the clone URL, ?sshkey= is refused', () => {
  assert.deepEqual(parseGitSource('https://example.com/r.git?ref=v1.2.0'), { url: 'https://example.com/r.git', ref: 'v1.2.0', depth: undefined });
  assert.deepEqual(parseGitSource('https://example.com/r.git?ref=main&depth=5&token=x'), { url: 'https://example.com/r.git?token=x', ref: 'main', depth: 5 });
  assert.deepEqual(parseGitSource('git@github.com:acme/r.git?ref=v1'), { url: 'git@github.com:acme/r.git', ref: 'v1', depth: undefined });
  assert.throws(() => parseGitSource('https://example.com/r.git?sshkey=AAAA'), (e: unknown) => e instanceof ModuleFetchError && e.unsupported && /\?sshkey=/.test(e.message));
  assert.throws(() => parseGitSource('https://example.com/r.git?depth=0'), /invalid depth "0"/);
  assert.throws(() => parseGitSource('https://example.com/r.git?ref=--upload-pack=x'), /invalid git source/);
});

test('package sources by kind: git, shorthands expanded as go-getter does, archives; other getters named and refused', () => {
  assert.deepEqual(packageSource('git::https://example.com/r.git?ref=v1'), { kind: 'git', src: 'https://example.com/r.git?ref=v1' });
  assert.deepEqual(packageSource('git@github.com:acme/r.git?ref=v1'), { kind: 'git', src: 'git@github.com:acme/r.git?ref=v1' });
  assert.deepEqual(packageSource('github.com/acme/terraform-aws-vpc?ref=v5.1.0'), { kind: 'git', src: 'https://github.com/acme/terraform-aws-vpc.git?ref=v5.1.0' });
  assert.deepEqual(packageSource('bitbucket.org/acme/mod.git'), { kind: 'git', src: 'https://bitbucket.org/acme/mod.git' });
  assert.deepEqual(packageSource('https://example.com/m.zip'), { kind: 'archive', url: 'https://example.com/m.zip' });
  assert.deepEqual(packageSource('https::https://example.com/m?archive=tgz'), { kind: 'archive', url: 'https://example.com/m?archive=tgz' });
  for (const [loc, getter] of [['s3::https://s3.amazonaws.com/b/m.zip', 's3'], ['gcs::https://www.googleapis.com/storage/v1/b/m.zip', 'gcs'],
    ['hg::https://example.com/repo', 'hg'], ['oci://example.com/repo/mod', 'oci']]) {
    assert.throws(() => packageSource(loc), (e: unknown) => e instanceof ModuleFetchError && e.unsupported && e.message.includes(`the ${getter} getter (`), loc);
  }
  assert.throws(() => packageSource('example.com/acme/mod/aws'), /is a registry address, not a module package location/);
});

test('bzip2 / xz archives are refused as unsupported before anything is downloaded', async () => {
  const http = new HttpClient({ env: {} });
  try {
    for (const loc of ['https://127.0.0.1:1/m.tar.xz', 'https://127.0.0.1:1/m.tar.bz2', 'https://127.0.0.1:1/m?archive=txz']) {
      await assert.rejects(fetchModule(loc, loc, { http, cacheDir: tempDir('modmirror-xz-') }), (e: unknown) => e instanceof ModuleFetchError && e.unsupported, loc);
    }
  } finally {
    await http.dispose();
  }
});

test('a commit id as ref: a full clone checked out at that commit', async () => {
  const root = tempDir('modmirror-sha-');
  const bare = makeBareRepo(root, 'r', { v1: { 'main.tf': '# one\n' }, v2: { 'main.tf': '# two\n' } });
  const sha = execFileSync('git', ['rev-parse', 'v1'], { cwd: bare, encoding: 'utf8' }).trim();
  const http = new HttpClient({ env: {} });
  try {
    const dir = await fetchModule(`git::${pathToFileURL(bare).href}?ref=${sha.slice(0, 12)}`, 'sha', { http, cacheDir: join(root, 'c'), gitProtocols: 'file' });
    assert.equal(readFileSync(join(dir, 'main.tf'), 'utf8'), '# one\n');
  } finally {
    await http.dispose();
  }
});

test('subdirectory globs: one match is the module directory, none or several are errors', async () => {
  const root = tempDir('modmirror-glob-');
  for (const d of ['repo-1.2.0/modules/a', 'repo-1.2.0/modules/b']) mkdirSync(join(root, d), { recursive: true });
  assert.equal(await moduleDirectory(root, '*', 'x'), join(root, 'repo-1.2.0'));
  assert.equal(await moduleDirectory(root, '*/modules/a', 'x'), join(root, 'repo-1.2.0', 'modules', 'a'));
  await assert.rejects(moduleDirectory(root, '*/modules/*', 'x'), /matches 2 directories/);
  await assert.rejects(moduleDirectory(root, 'nope', 'x'), /subdirectory "nope" does not exist/);
  await assert.rejects(moduleDirectory(root, '../x', 'x'), /escapes the module package/);
});
