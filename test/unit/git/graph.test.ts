// A workspace of 1,000 roots calling 20 git remotes: the dependency graph lists each remote's refs
// once (20 ref advertisements counted at the git server), and none on a re-run within the TTL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildDependencyGraph } from '../../../src/engine/deps';
import { Engine } from '../../../src/engine/engine';
import { GitHttpServer, gitClientHome, makeRepo, startGitHttpServer } from '../../support/git-server';
import { tempDir, writeFiles } from '../../support/temp';
import { testPki } from '../../support/tls';

const ROOTS = 1000;
const REMOTES = 20;
let srv: GitHttpServer;
before(async () => {
  srv = await startGitHttpServer({ users: { ci: 'ci-pw' } });
  for (let i = 0; i < REMOTES; i++) makeRepo(srv.root, `m${i}`, { tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }] });
});
after(async () => { await srv.stop(); });

test(`${ROOTS} roots calling ${REMOTES} remotes: ${REMOTES} ls-remote contacts, none on a re-run within the TTL`, { timeout: 180_000 }, async () => {
  const ws = tempDir('gitrefs-roots-');
  const files: Record<string, string> = {};
  for (let i = 0; i < ROOTS; i++) {
    const a = i % REMOTES, b = (i * 7 + 3) % REMOTES;
    files[`root${i}/main.tf`] = `module "a" {\n  source = "git::${srv.origin}/m${a}.git//sub?ref=v1.0.0"\n}\nmodule "b" {\n  source = "git::${srv.origin}/m${b}.git?ref=v1.1.0"\n}\n`;
  }
  writeFiles(ws, files);
  const dirs = Array.from({ length: ROOTS }, (_, i) => join(ws, `root${i}`));
  const { env } = gitClientHome({ username: 'ci', password: 'ci-pw' });
  const cacheDir = tempDir('gitrefs-roots-cache-');
  const before = srv.refAdvertisements();
  const e1 = new Engine({ env, cacheDir, caFiles: [testPki().caCertPath], timeoutMs: 30_000 });
  try {
    const graph = await buildDependencyGraph(dirs, { engine: e1 });
    const mods = graph.directories.flatMap((d) => d.modules);
    assert.equal(mods.length, ROOTS * 2);
    assert.deepEqual([...new Set(mods.map((m) => m.git?.status))].sort(), ['up-to-date', 'update-available']);
    const contacts = srv.refAdvertisements() - before;
    console.log(`# ${ROOTS} roots, ${REMOTES} remotes: ${contacts} ref advertisements at the server, ${e1.gitRefContacts} ls-remote runs`);
    assert.equal(contacts, REMOTES);
    assert.equal(e1.gitRefContacts, REMOTES);
  } finally { await e1.dispose(); }
  const e2 = new Engine({ env, cacheDir, caFiles: [testPki().caCertPath], timeoutMs: 30_000 });
  try {
    const graph = await buildDependencyGraph(dirs, { engine: e2 });
    assert.equal(graph.directories.flatMap((d) => d.modules).filter((m) => m.git?.status === 'up-to-date').length, ROOTS);
    assert.equal(srv.refAdvertisements() - before, REMOTES, 'the re-run within the TTL contacted no remote');
    assert.equal(e2.gitRefContacts, 0);
  } finally { await e2.dispose(); }
});
