// The ref lookup over git's own protocol (`git daemon`, git://) and over ssh as far as this machine
// allows without sshd: the user's ssh command (GIT_SSH_COMMAND, else core.sshCommand) is kept and
// `-o BatchMode=yes` added, so ssh never asks; a refusal names the SSH agent and keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { gitClientHome, makeRepo } from '../../support/git-server';
import { tempDir } from '../../support/temp';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('git:// (git daemon): tags, annotated ones peeled, and branches', { timeout: 60_000 }, async () => {
  const root = tempDir('git-daemon-');
  const repo = makeRepo(root, 'mods', { tags: [{ name: 'v0.1.0' }, { name: 'v0.2.0', annotated: true }], branches: ['feature/x'] });
  const port = await freePort();
  const daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${root}`, `--port=${port}`, '--listen=127.0.0.1', root], { stdio: 'ignore' });
  const { env } = gitClientHome();
  const e = new Engine({ env, timeoutMs: 20_000 });
  try {
    let list;
    for (let i = 0; ; i++) { // the daemon needs a moment to listen
      try { list = await e.listGitRefs(`git://127.0.0.1:${port}/mods.git`); break; } catch (err) {
        if (i > 40) throw err;
        await e.clearCache();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.deepEqual(list.tags.map((t) => [t.name, t.commit]), [['v0.1.0', repo.commits['v0.1.0']], ['v0.2.0', repo.commits['v0.2.0']]]);
    assert.deepEqual(list.branches.map((b) => b.name).sort(), ['feature/x', 'main']);
  } finally {
    await e.dispose();
    daemon.kill();
  }
});

test('ssh: the user\'s own ssh command is kept, BatchMode=yes added; a refusal names the SSH agent', { timeout: 60_000 }, async () => {
  const dir = tempDir('git-ssh-');
  const log = join(dir, 'ssh.log');
  const fakeSsh = join(dir, 'fake-ssh.sh');
  // an ssh that records how it was called and refuses like a server without our key
  writeFileSync(fakeSsh, `#!/bin/sh\necho "$@" >> '${log}'\necho 'git@127.0.0.1: Permission denied (publickey).' >&2\nexit 255\n`);
  chmodSync(fakeSsh, 0o755);
  const home = gitClientHome();
  const viaEnv = new Engine({ env: { ...home.env, GIT_SSH_COMMAND: `${fakeSsh} -o UserOption=kept` } });
  try {
    await assert.rejects(viaEnv.listGitRefs('ssh://git@127.0.0.1/org/repo.git'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'unauthorized');
      assert.match(err.message, /SSH agent/);
      return true;
    });
    const line = readFileSync(log, 'utf8').trim().split('\n').pop()!;
    assert.match(line, /-o UserOption=kept -o BatchMode=yes/);
  } finally { await viaEnv.dispose(); }
  // core.sshCommand from the user's git configuration, for an scp-like address
  writeFileSync(home.env.GIT_CONFIG_GLOBAL!, `[core]\n\tsshCommand = ${fakeSsh} -o FromConfig=yes\n`);
  const viaConfig = new Engine({ env: home.env });
  try {
    await assert.rejects(viaConfig.listGitRefs('git@127.0.0.1:org/repo.git'));
    assert.match(readFileSync(log, 'utf8').trim().split('\n').pop()!, /-o FromConfig=yes -o BatchMode=yes/);
  } finally { await viaConfig.dispose(); }
});
