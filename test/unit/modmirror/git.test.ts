// Git-backed registry modules in the module mirror: git never asks anyone for credentials (a git
// server answering 401 fails that module alone, fast, with no credential helper, askpass or
// terminal prompt run even when the user's global git configuration names them), and a tag is
// cloned shallow at ?ref= when the transport can (file:// here; the dumb HTTP test server cannot).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { mirrorModules } from '../../../src/engine/modmirror';
import { makeBareRepo } from '../../support/git-repo';
import { startModuleOrigin, ModuleOrigin } from '../../support/module-origin';
import { archiveFiles, readSite } from '../../support/module-site';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
before(async () => { o = await startModuleOrigin(); });
after(async () => { await o.stop(); });

const call = (name: string, source: string, version: string) => `module "${name}" {\n  source  = "${source}"\n  version = "${version}"\n}\n`;

test('a git server answering 401: that module fails at once, no credential helper, askpass or prompt is run, the others are mirrored', { timeout: 120_000 }, async () => {
  const h = o.reg.host;
  o.git.route('/private.git/', (_req, res) => {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="private"', 'Content-Length': '0' });
    res.end();
  });
  o.reg.addModule({ namespace: 'acme', name: 'private', system: 'aws', versions: ['1.0.0'],
    location: (v) => ({ kind: 'json', location: `git::https://127.0.0.1:${o.git.port}/private.git?ref=v${v}` }) });
  // the user's global git configuration names a credential helper and an askpass program: each
  // would write the marker (and hand git a password) if git ran it
  const home = tempDir('modmirror-git-home-');
  const marker = join(home, 'asked-for-credentials');
  const script = (name: string, answer: string) => {
    const f = join(home, name);
    writeFileSync(f, `#!/bin/sh\necho "${name} $*" >> '${marker}'\n${answer}\n`);
    chmodSync(f, 0o755);
    return f;
  };
  const helper = script('credential-helper.sh', 'printf "username=u\\npassword=p\\n"');
  const askpass = script('askpass.sh', 'echo p');
  writeFileSync(join(home, '.gitconfig'), `[credential]\n\thelper = ${helper}\n[core]\n\taskPass = ${askpass}\n`);
  const saved = { ...process.env };
  Object.assign(process.env, { HOME: home, GIT_CONFIG_GLOBAL: join(home, '.gitconfig'), GIT_ASKPASS: askpass, SSH_ASKPASS: askpass });
  // sanity: outside the mirror, this configuration does make git ask the helper (async: the
  // server answering git lives in this process)
  await assert.rejects(promisify(execFile)('git', ['ls-remote', `https://127.0.0.1:${o.git.port}/private.git`],
    { env: { ...process.env, GIT_SSL_NO_VERIFY: '1', GIT_TERMINAL_PROMPT: '0' }, timeout: 30_000 }));
  assert.ok(existsSync(marker), 'the global helper is used by a plain git');
  rmSync(marker);
  o.git.resetLog();
  let r;
  try {
    const ws = o.workspace('git-401', { 'main.tf': call('private', `${h}/acme/private/aws`, '1.0.0') + call('base', `${h}/acme/base/aws`, '1.0.0') });
    // the engine's own clone deadline bounds the run should git wait for an answer
    r = await mirrorModules({ engine: o.engine(), dirs: [ws], out: join(tempDir('modmirror-git-401-'), 'site'), fetch: { gitTimeoutMs: 60_000 } });
  } finally {
    for (const k of ['HOME', 'GIT_CONFIG_GLOBAL', 'GIT_ASKPASS', 'SSH_ASKPASS']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
  assert.deepEqual(r.failed.map((f) => [f.module, f.version, f.step]), [[`${h}/acme/private/aws`, '1.0.0', 'fetch']]);
  assert.match(r.failed[0].message, /git clone of https:\/\/127\.0\.0\.1:\d+\/private\.git failed: .*terminal prompts disabled/);
  assert.ok(!existsSync(marker), `no credential helper or askpass was run: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
  assert.ok(o.git.requests.length > 0 && o.git.requests.every((q) => q.authorization === undefined), 'no credentials were sent');
  assert.deepEqual(r.mirrored.map((m) => `${m.module} ${m.version}`), [`${h}/acme/base/aws 1.0.0`]);
});

test('a tag at ?ref= is cloned shallow (--depth 1 --branch) when the transport supports it', async () => {
  const h = o.reg.host;
  const root = tempDir('modmirror-shallow-');
  const bare = makeBareRepo(root, 'shallow', {
    'v0.9.0': { 'old.tf': '# only in the history before v1.0.0\n' },
    'v1.0.0': { 'sub/main.tf': 'variable "from_git" {\n  default = "v1"\n}\n' },
    'v2.0.0': { 'sub/main.tf': 'variable "from_git" {\n  default = "v2"\n}\n' },
  });
  // break the history before the tag: only a clone of depth 1 at the tag can still succeed
  const blob = execFileSync('git', ['rev-parse', 'v0.9.0:old.tf'], { cwd: bare, encoding: 'utf8' }).trim();
  rmSync(join(bare, 'objects', blob.slice(0, 2), blob.slice(2)));
  const url = pathToFileURL(bare).href;
  assert.throws(() => execFileSync('git', ['clone', '-q', url, join(root, 'full')], { stdio: 'pipe' }), Error, 'a full clone fails');
  o.reg.addModule({ namespace: 'acme', name: 'shallow', system: 'aws', versions: ['1.0.0'],
    location: (v) => ({ kind: 'json', location: `git::${url}//sub?ref=v${v}` }) });
  const out = join(root, 'site');
  const ws = o.workspace('git-shallow', { 'main.tf': call('s', `${h}/acme/shallow/aws`, '1.0.0') });
  const r = await mirrorModules({ engine: o.engine(), dirs: [ws], out, fetch: { gitProtocols: 'file' } });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(r.mirrored.map((m) => `${m.module} ${m.version}`), [`${h}/acme/shallow/aws 1.0.0`]);
  assert.deepEqual(await readSite(out), { listed: { [`${h}/acme/shallow/aws`]: ['1.0.0'] }, problems: [] });
  // the package is the tree at the tag (HEAD is v2.0.0)
  assert.deepEqual(await archiveFiles(join(out, r.mirrored[0].archive)), { 'sub/main.tf': 'variable "from_git" {\n  default = "v1"\n}\n' });
});
