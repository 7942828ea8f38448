// `git::` module sources: cloned with the user's git from a local bare repository (file://),
// with their own deadline, a size cap and no user information in any message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HttpClient } from '../../../src/engine/net/http';
import { fetchModule, ModuleFetchError } from '../../../src/engine/modulepkg/fetch';
import { tempDir } from '../../support/temp';

let work: string;
let repoUrl: string;
const http = new HttpClient({ env: {} });
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' });

before(() => {
  work = tempDir('git-fetch-');
  const src = join(work, 'src');
  mkdirSync(join(src, 'sub'), { recursive: true });
  git(work, 'init', '-q', src);
  writeFileSync(join(src, 'variables.tf'), 'variable "v1" {\n  type = string\n}\n');
  git(src, 'add', '.');
  git(src, 'commit', '-q', '-m', 'v1');
  git(src, 'tag', 'v1.0.0');
  writeFileSync(join(src, 'variables.tf'), 'variable "v2" {\n  type = string\n}\n');
  writeFileSync(join(src, 'big.bin'), Buffer.alloc(300_000, 7));
  writeFileSync(join(src, 'sub', 'main.tf'), 'variable "inner" {}\n');
  symlinkSync('/etc/hostname', join(src, 'escape.tf'));
  git(src, 'add', '.');
  git(src, 'commit', '-q', '-m', 'v2');
  git(work, 'clone', '-q', '--bare', src, join(work, 'repo.git'));
  repoUrl = pathToFileURL(join(work, 'repo.git')).href;
});

after(async () => {
  await http.dispose();
  rmSync(work, { recursive: true, force: true });
});

const opts = (cache: string, extra: Partial<Parameters<typeof fetchModule>[2]> = {}) =>
  ({ http, cacheDir: join(work, cache), gitProtocols: 'file', ...extra });

test('git:: source: ?ref= selects the tag, //subdir applies, .git removed, a 1 ms request timeout does not kill the clone', async () => {
  const dir = await fetchModule(`git::${repoUrl}?ref=v1.0.0`, 'tagged', opts('c1', { timeoutMs: 1 }));
  assert.equal(readFileSync(join(dir, 'variables.tf'), 'utf8'), 'variable "v1" {\n  type = string\n}\n');
  assert.ok(!existsSync(join(dir, '.git')));
  assert.ok(!existsSync(join(dir, 'big.bin')));
  const sub = await fetchModule(`git::${repoUrl}//sub`, 'head', opts('c2', { timeoutMs: 1 }));
  assert.equal(readFileSync(join(sub, 'main.tf'), 'utf8'), 'variable "inner" {}\n');
  // a symbolic link in the repository is checked out as a plain file holding the link text
  const link = join(sub, '..', 'escape.tf');
  assert.ok(lstatSync(link).isFile());
  assert.equal(readFileSync(link, 'utf8'), '/etc/hostname');
});

test('git:: source: the clone has its own deadline (gitTimeoutMs), and a file:// repository is refused by default', async () => {
  await assert.rejects(fetchModule(`git::${repoUrl}`, 'slow', opts('c3', { gitTimeoutMs: 1 })),
    (e: unknown) => e instanceof ModuleFetchError && /^git clone of file:\/\/.*repo\.git failed: it did not finish within 0\.001 s$/.test(e.message));
  assert.deepEqual(readdirSync(join(work, 'c3', 'modules')), [], 'nothing stays in the cache');
  await assert.rejects(fetchModule(`git::${repoUrl}`, 'file', { http, cacheDir: join(work, 'c4') }),
    (e: unknown) => e instanceof ModuleFetchError && /git clone of file:.* failed: .*transport 'file' not allowed/.test(e.message));
});

test('git:: source: a checkout larger than maxExtractedBytes (or with too many entries) is refused and not cached', async () => {
  await assert.rejects(fetchModule(`git::${repoUrl}`, 'big', opts('c5', { maxExtractedBytes: 100_000 })),
    (e: unknown) => e instanceof ModuleFetchError && /^refusing the module package from file:.*repo\.git: more than 100000 bytes when checked out$/.test(e.message));
  assert.deepEqual(readdirSync(join(work, 'c5', 'modules')), []);
  await assert.rejects(fetchModule(`git::${repoUrl}`, 'many', opts('c6', { maxEntries: 2 })), /more than 2 entries/);
  // within the caps the same repository is fine
  const dir = await fetchModule(`git::${repoUrl}`, 'ok', opts('c7', { maxExtractedBytes: 400_000 }));
  assert.equal(readFileSync(join(dir, 'big.bin')).length, 300_000);
});

test('git:: source: a password in the URL appears in no error message', async () => {
  const secret = 'pa55w0rd-xyz';
  let caught: unknown;
  try {
    await fetchModule(`git::https://deploy:${secret}@127.0.0.1:1/org/repo.git?ref=v1`, 'secret', { http, cacheDir: join(work, 'c8') });
  } catch (err) { caught = err; }
  assert.ok(caught instanceof ModuleFetchError, String(caught));
  assert.match(caught.message, /^git clone of https:\/\/\*\*\*@127\.0\.0\.1:1\/org\/repo\.git failed: /);
  assert.ok(!caught.message.includes(secret) && !String(caught.url).includes(secret), caught.message);
  await assert.rejects(fetchModule(`git::https://deploy:${secret}@127.0.0.1:1/r.git?ref=-x`, 'bad', { http, cacheDir: join(work, 'c9') }),
    (e: unknown) => e instanceof ModuleFetchError && /invalid git source/.test(e.message) && !e.message.includes(secret));
  await assert.rejects(fetchModule(`git::https://deploy:${secret}@127.0.0.1:1/r.git//../x`, 'bad2', { http, cacheDir: join(work, 'c9') }),
    (e: unknown) => e instanceof ModuleFetchError && /invalid subdirectory/.test(e.message) && !e.message.includes(secret));
});
