// The ref lookup against real git remotes started here: git's smart HTTP protocol (git http-backend)
// over TLS with Basic credentials that only the user's git credential helper knows; annotated and
// lightweight tags, a tag that is not a version, branches; a wrong password and no credentials (a
// clear error, no prompt), a remote that never answers (bounded by the timeout); one ls-remote per
// remote however many callers, none on a re-run within the TTL, offline answered from the cache.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { gitRefOrder, newestGitTag, parseGitModuleSource, resolveGitRef } from '../../../src/engine/git';
import { GitHttpServer, gitClientHome, makeRepo, MadeRepo, startGitHttpServer } from '../../support/git-server';
import { tempDir } from '../../support/temp';
import { startConnectProxy } from '../../support/connect-proxy';
import { TestHttpsServer } from '../../support/https-server';
import { testPki } from '../../support/tls';

const USER = 'deploy';
const PASSWORD = 'git-pw-only-the-helper-knows';
let srv: GitHttpServer;
let repo: MadeRepo;
before(async () => {
  srv = await startGitHttpServer({ users: { [USER]: PASSWORD } });
  repo = makeRepo(srv.root, 'modules', {
    tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }, { name: 'stable' }, { name: 'v1.2.0-rc.1', annotated: true }, { name: 'v1.2.0', annotated: true }],
    branches: ['develop'],
  });
});
after(async () => { await srv.stop(); });

function engine(env: NodeJS.ProcessEnv, extra: ConstructorParameters<typeof Engine>[0] = {}): Engine {
  return new Engine({ env, caFiles: [testPki().caCertPath], timeoutMs: 20_000, ...extra });
}

test('refs of a private remote through the user\'s credential helper: tags (annotated peeled), branches, HEAD; no TF_TOKEN reaches git', { timeout: 60_000 }, async () => {
  const home = gitClientHome({ username: USER, password: PASSWORD });
  // the helper writes what of OpenTofu's secrets it can see into its log
  const env = { ...home.env, TF_TOKEN_127_0_0_1: 'tofu-registry-token-never-for-git' };
  const e = engine(env);
  try {
    const src = parseGitModuleSource(`git::${srv.origin}/modules.git//vpc?ref=v1.1.0`)!;
    const list = await e.listGitRefs(src.remote);
    assert.deepEqual(list.head, { commit: repo.commits.main, branch: 'main' });
    assert.deepEqual(list.branches.map((b) => b.name).sort(), ['develop', 'main']);
    assert.equal(list.tags.find((t) => t.name === 'v1.1.0')!.commit, repo.commits['v1.1.0'], 'the annotated tag is resolved to its commit');
    assert.equal(list.tags.find((t) => t.name === 'v1.1.0')!.object, repo.tagObjects['v1.1.0']);
    assert.equal(list.tags.find((t) => t.name === 'v1.0.0')!.commit, repo.commits['v1.0.0']);
    assert.deepEqual(gitRefOrder(list, src.ref).map((r) => `${r.name}${r.selected ? '*' : ''}`), ['v1.2.0', 'v1.2.0-rc.1', 'v1.1.0*', 'v1.0.0', 'stable', 'main', 'develop']);
    assert.equal(newestGitTag(list), 'v1.2.0');
    assert.equal(resolveGitRef(list, 'no-such-ref'), undefined);
    const helperLog = readFileSync(home.helperLog, 'utf8');
    assert.ok(helperLog.includes('get'), 'the user\'s credential helper answered');
    assert.ok(!helperLog.includes('tofu-registry-token'), 'no TF_TOKEN_* in the environment git and its helper run with');
    assert.equal(e.gitRefContacts, 1);
    assert.ok(srv.server.requests.every((r) => !r.authorization || !Buffer.from(r.authorization.slice(6), 'base64').toString().includes('tofu-registry-token')));
  } finally { await e.dispose(); }
});

test('a wrong password: a clear error naming the credential helper, fast, no prompt', { timeout: 60_000 }, async () => {
  const home = gitClientHome({ username: USER, password: 'wrong' });
  const e = engine(home.env);
  const started = Date.now();
  try {
    await assert.rejects(e.listGitRefs(`${srv.origin}/modules.git`), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'unauthorized');
      assert.match(err.message, /git ls-remote of https:\/\/127\.0\.0\.1:\d+\/modules\.git failed/);
      assert.match(err.message, /credential-helper\.sh/, 'names where git looked for credentials');
      assert.ok(!err.message.includes('wrong'), 'never the password');
      return true;
    });
    assert.ok(Date.now() - started < 15_000, 'no prompt waited for');
  } finally { await e.dispose(); }
  // no credentials at all: git would ask on a terminal; it must not
  const bare = gitClientHome();
  const e2 = engine(bare.env);
  try {
    await assert.rejects(e2.listGitRefs(`${srv.origin}/modules.git`), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'unauthorized');
      assert.match(err.message, /none configured/);
      return true;
    });
  } finally { await e2.dispose(); }
});

test('a remote that never answers is bounded by the timeout', { timeout: 60_000 }, async () => {
  const home = gitClientHome({ username: USER, password: PASSWORD });
  const e = engine(home.env, { timeoutMs: 1500 });
  const started = Date.now();
  try {
    await assert.rejects(e.listGitRefs(`${srv.origin}/hang/r.git`), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'timeout');
      assert.match(err.message, /no answer within 1\.5 s/);
      return true;
    });
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  } finally { await e.dispose(); }
});

test('one ls-remote per remote for many callers, none on a re-run within the TTL (disk cache), offline from the cache', { timeout: 60_000 }, async () => {
  const home = gitClientHome({ username: USER, password: PASSWORD });
  const cacheDir = tempDir('gitrefs-cache-');
  const remote = `${srv.origin}/modules.git`;
  const before = srv.refAdvertisements('modules.git');
  const e1 = engine(home.env, { cacheDir });
  try {
    const lists = await Promise.all(Array.from({ length: 25 }, () => e1.listGitRefs(remote)));
    assert.equal(new Set(lists.map((l) => l.tags.length)).size, 1);
    assert.equal(e1.gitRefContacts, 1);
    assert.equal(srv.refAdvertisements('modules.git') - before, 1, 'one ref advertisement reached the server');
    assert.ok(e1.peekGitRefs(remote));
  } finally { await e1.dispose(); }
  const e2 = engine(home.env, { cacheDir });
  try {
    const again = await e2.listGitRefs(remote);
    assert.equal(again.cached, true);
    assert.equal(e2.gitRefContacts, 0);
    assert.equal(srv.refAdvertisements('modules.git') - before, 1, 'nothing more reached the server');
    assert.ok(!JSON.stringify(again).includes(PASSWORD));
  } finally { await e2.dispose(); }
  const offline = engine(home.env, { cacheDir, networkAllowed: () => false });
  try {
    assert.ok((await offline.listGitRefs(remote)).cached);
    await assert.rejects(offline.listGitRefs(`${srv.origin}/other.git`), (err: Error & { code?: string }) => err.code === 'network-disabled');
    assert.equal(offline.gitRefContacts, 0);
  } finally { await offline.dispose(); }
  assert.ok(existsSync(join(cacheDir, 'git-refs')), 'the refs were kept on disk');
});

test('the engine\'s proxy setting reaches git too (CONNECT through it); its NO_PROXY hosts bypass it', { timeout: 60_000 }, async () => {
  const proxy = await startConnectProxy();
  const { connects, url: proxyUrl } = proxy;
  const home = gitClientHome({ username: USER, password: PASSWORD });
  try {
    const via = engine(home.env, { proxy: proxyUrl });
    try {
      assert.ok((await via.listGitRefs(`${srv.origin}/modules.git`)).tags.length > 0);
      assert.ok(connects.includes(srv.server.host), `the proxy saw ${connects.join(', ')}`);
    } finally { await via.dispose(); }
    connects.length = 0;
    const bypass = engine(home.env, { proxy: proxyUrl, noProxy: '127.0.0.1' });
    try {
      assert.ok((await bypass.listGitRefs(`${srv.origin}/modules.git`)).tags.length > 0);
      assert.deepEqual(connects, []);
    } finally { await bypass.dispose(); }
  } finally {
    await proxy.close();
  }
});

test('a private git module the user calls is cloned with the user\'s credential helper too (reading its variables), as tofu init clones it', { timeout: 60_000 }, async () => {
  const { ModuleResolver } = await import('../../../src/engine/modulepkg/resolve');
  const home = gitClientHome({ username: USER, password: PASSWORD });
  const e = engine(home.env);
  try {
    const resolver = new ModuleResolver({ engine: e, cacheDir: tempDir('gitrefs-clone-cache-') });
    const r = await resolver.resolve({ callerDir: tempDir('gitrefs-caller-'), name: 'mods', source: `git::${srv.origin}/modules.git?ref=v1.1.0` });
    assert.equal(r.via, 'remote');
    assert.deepEqual(r.iface.variables.map((v) => v.name), ['v']);
    assert.match(readFileSync(home.helperLog, 'utf8'), /get/);
  } finally { await e.dispose(); }
});

test('credentials written in the remote URL work but never appear on git\'s command line', { timeout: 60_000 }, async () => {
  const home = gitClientHome(); // no helper: only the URL has the password
  // a git on PATH that records its arguments, then runs the real git
  const shim = tempDir('git-shim-');
  const argvLog = join(shim, 'argv.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
  writeFileSync(join(shim, 'git'), `#!/bin/sh\necho "$@" >> '${argvLog}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(shim, 'git'), 0o755);
  const e = engine({ ...home.env, PATH: `${shim}:${home.env.PATH}` });
  try {
    const list = await e.listGitRefs(`https://${USER}:${PASSWORD}@127.0.0.1:${srv.server.port}/modules.git`);
    assert.ok(list.tags.length > 0);
    assert.equal(list.remote, `https://***@127.0.0.1:${srv.server.port}/modules.git`);
    const argv = readFileSync(argvLog, 'utf8');
    assert.match(argv, /ls-remote --symref -- https:\/\/127\.0\.0\.1:\d+\/modules\.git/);
    assert.ok(!argv.includes(PASSWORD), argv);
  } finally { await e.dispose(); }
});

/**
 * A git on PATH that records its arguments and turns on GIT_TRACE, which logs the command line of
 * every process git starts (`git remote-https`, credential helpers), then runs the real git.
 */
function recordingGit(): { dir: string; argvLog: string; traceLog: string; commandLines: () => string } {
  const dir = tempDir('git-shim-');
  const argvLog = join(dir, 'argv.log');
  const traceLog = join(dir, 'trace.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
  writeFileSync(join(dir, 'git'), `#!/bin/sh\necho "$@" >> '${argvLog}'\nGIT_TRACE='${traceLog}' exec '${realGit}' "$@"\n`);
  chmodSync(join(dir, 'git'), 0o755);
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  return { dir, argvLog, traceLog, commandLines: () => `${read(argvLog)}\n${read(traceLog)}` };
}

test('a git module whose source URL carries user:password is cloned with them, never on a command line of git or its helpers, never in a message', { timeout: 60_000 }, async () => {
  const { ModuleResolver } = await import('../../../src/engine/modulepkg/resolve');
  const home = gitClientHome(); // no helper: only the URL has the password
  const shim = recordingGit();
  const e = engine({ ...home.env, PATH: `${shim.dir}:${home.env.PATH}` });
  try {
    const resolver = new ModuleResolver({ engine: e, cacheDir: tempDir('gitrefs-userinfo-cache-') });
    const r = await resolver.resolve({ callerDir: tempDir('gitrefs-caller-'), name: 'mods', source: `git::https://${USER}:${PASSWORD}@127.0.0.1:${srv.server.port}/modules.git?ref=v1.1.0` });
    assert.equal(r.via, 'remote');
    assert.deepEqual(r.iface.variables.map((v) => v.name), ['v']);
    const lines = shim.commandLines();
    assert.match(lines, /clone --quiet --depth 1 --branch v1\.1\.0 -- https:\/\/127\.0\.0\.1:\d+\/modules\.git /);
    assert.match(lines, /remote-https/, 'the trace shows the processes git started');
    assert.ok(!lines.includes(PASSWORD), lines);
    // a wrong password in the URL: refused, and the message shows none of it
    await assert.rejects(resolver.resolve({ callerDir: tempDir('gitrefs-caller-'), name: 'bad', source: `git::https://${USER}:not-the-${PASSWORD}@127.0.0.1:${srv.server.port}/modules.git?ref=v1.0.0` }),
      (err: Error) => {
        assert.match(err.message, /git clone of https:\/\/\*\*\*@127\.0\.0\.1:\d+\/modules\.git failed/);
        assert.ok(!err.message.includes(`not-the-${PASSWORD}`), err.message);
        return true;
      });
    assert.ok(!shim.commandLines().includes(`not-the-${PASSWORD}`));
  } finally { await e.dispose(); }
});

test('ls-remote of a URL with user:password: not on the command line of `git remote-https` either (a url.insteadOf rewrite would put it there)', { timeout: 60_000 }, async () => {
  const home = gitClientHome();
  const shim = recordingGit();
  const e = engine({ ...home.env, PATH: `${shim.dir}:${home.env.PATH}` });
  try {
    const list = await e.listGitRefs(`https://${USER}:${PASSWORD}@127.0.0.1:${srv.server.port}/modules.git`);
    assert.ok(list.tags.length > 0);
    const lines = shim.commandLines();
    assert.match(lines, /remote-https/);
    assert.ok(!lines.includes(PASSWORD), lines);
  } finally { await e.dispose(); }
});

test('a user name alone in the URL (https://NAME@host): git asks the user\'s helper for that name\'s password; the name is not on a command line', { timeout: 60_000 }, async () => {
  const home = gitClientHome({ username: 'ignored-by-git', password: PASSWORD });
  // the helper logs what git asked it (its standard input names the user)
  writeFileSync(join(home.home, 'credential-helper.sh'), `#!/bin/sh\n[ "$1" = get ] || exit 0\ncat >> '${home.helperLog}'\nprintf 'password=%s\\n' '${PASSWORD}'\n`);
  const shim = recordingGit();
  const e = engine({ ...home.env, PATH: `${shim.dir}:${home.env.PATH}` });
  try {
    const list = await e.listGitRefs(`https://${USER}@127.0.0.1:${srv.server.port}/modules.git`);
    assert.ok(list.tags.length > 0);
    assert.match(readFileSync(home.helperLog, 'utf8'), new RegExp(`username=${USER}`));
    assert.ok(!shim.commandLines().includes(USER), shim.commandLines());
  } finally { await e.dispose(); }
});

test('git\'s default roots are read from the engine\'s environment (SSL_CERT_FILE), not the process\'s: ls-remote and clones, a registry\'s location included', { timeout: 60_000 }, async () => {
  const { gitClone } = await import('../../../src/engine/git/clone');
  const { rootCertificates } = await import('node:tls');
  const { mkdirSync } = await import('node:fs');
  const home = gitClientHome();
  // the engine's environment trusts the test CA through SSL_CERT_FILE only; the extra CA (any
  // other) makes the engine write git a bundle of its own, which must start from those roots
  const env: NodeJS.ProcessEnv = { ...home.env, SSL_CERT_FILE: testPki().caCertPath };
  delete env.NODE_EXTRA_CA_CERTS;
  const otherCa = join(tempDir('git-other-ca-'), 'other.pem');
  writeFileSync(otherCa, rootCertificates[0]);
  const remote = `https://${USER}:${PASSWORD}@127.0.0.1:${srv.server.port}/modules.git`;
  const e = new Engine({ env, caFiles: [otherCa], timeoutMs: 20_000 });
  try {
    assert.ok((await e.listGitRefs(remote)).tags.length > 0);
  } finally { await e.dispose(); }
  // a clone of a location a registry answered (no user credential helpers): the engine's environment too
  const dest = join(tempDir('git-roots-clone-'), 'pkg');
  mkdirSync(dest);
  await gitClone(`${remote}?ref=v1.0.0`, dest, { timeoutMs: 30_000, diskCap: 10_000_000, protocols: 'https', caCertificates: [rootCertificates[0]], scratchDir: dirname(dest), env });
  assert.equal(readFileSync(join(dest, 'main.tf'), 'utf8').split('\n')[0], '# v1.0.0');
});

test('a clone of a location a registry answered runs none of the user\'s credential helpers, not even one the environment names (GIT_CONFIG_PARAMETERS): none is asked, none is handed the URL\'s password to store', { timeout: 60_000 }, async () => {
  const { gitClone } = await import('../../../src/engine/git/clone');
  const { mkdirSync } = await import('node:fs');
  const home = gitClientHome();
  const helperLog = join(home.home, 'env-helper.log');
  const helper = join(home.home, 'env-helper.sh');
  writeFileSync(helper, `#!/bin/sh\necho "$1" >> '${helperLog}'\ncat >> '${helperLog}'\n`);
  chmodSync(helper, 0o755);
  const env: NodeJS.ProcessEnv = { ...home.env, GIT_CONFIG_PARAMETERS: `'credential.helper'='${helper}'` };
  const dest = join(tempDir('git-registry-clone-'), 'pkg');
  mkdirSync(dest);
  await gitClone(`https://${USER}:${PASSWORD}@127.0.0.1:${srv.server.port}/modules.git?ref=v1.0.0`, dest,
    { timeoutMs: 30_000, diskCap: 10_000_000, protocols: 'https', caCertificates: [readFileSync(testPki().caCertPath, 'utf8')], scratchDir: dirname(dest), env });
  assert.equal(readFileSync(join(dest, 'main.tf'), 'utf8').split('\n')[0], '# v1.0.0');
  assert.ok(!existsSync(helperLog), existsSync(helperLog) ? readFileSync(helperLog, 'utf8') : '');
});

test('a URL\'s password goes to its own host only: a redirect to another host never gets it (the helper is scoped to the origin)', { timeout: 60_000 }, async () => {
  const home = gitClientHome();
  const seen: string[] = [];
  const other = await new TestHttpsServer().start();
  other.route('/', (req, res) => {
    seen.push(String(req.headers.authorization ?? ''));
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="elsewhere"', 'Content-Length': '0' });
    res.end();
  });
  const redirector = await new TestHttpsServer().start();
  redirector.route('/', (_req, res, url) => {
    res.writeHead(302, { Location: `${other.origin}${url.pathname}${url.search}`, 'Content-Length': '0' });
    res.end();
  });
  const e = engine(home.env);
  try {
    await assert.rejects(e.listGitRefs(`https://${USER}:${PASSWORD}@127.0.0.1:${redirector.port}/modules.git`));
    assert.ok(seen.length > 0, 'git followed the redirect');
    const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    assert.ok(!seen.some((a) => a.includes(basic)), `the other host got the URL's credentials: ${seen.join(', ')}`);
  } finally {
    await e.dispose();
    await other.stop();
    await redirector.stop();
  }
});
