// The CLI on git module sources against a real smart-HTTP git remote over TLS: `versions` (tags as
// versions, then other tags, then branches), `resolve` ({remote, ref, kind, commit, subdir} for a
// lightweight tag, an annotated one peeled, a branch, a commit, no ref; a missing ref exits 1),
// `outdated` (every git status, exit 1 on update-available) and "Upgrade to newest" rewriting the ref.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { main } from '../../../src/cli';
import { applyEdits, buildDependencyGraph, planUpgradeToNewest, UpgradePlan } from '../../../src/engine/deps';
import { Engine } from '../../../src/engine/engine';
import { GitHttpServer, gitClientHome, makeRepo, MadeRepo, startGitHttpServer } from '../../support/git-server';
import { tempDir } from '../../support/temp';
import { testPki } from '../../support/tls';

let srv: GitHttpServer;
let priv: GitHttpServer;
let repo: MadeRepo;
let env: NodeJS.ProcessEnv;
let ws: string;

before(async () => {
  srv = await startGitHttpServer();
  priv = await startGitHttpServer({ users: { u: 'p' } });
  repo = makeRepo(srv.root, 'net', {
    tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }, { name: 'stable' }, { name: '1.2.0', annotated: true }, { name: 'v2.0.0-beta.1' }],
    branches: ['develop'],
  });
  makeRepo(priv.root, 'secret', { tags: [{ name: 'v1.0.0' }] });
  env = gitClientHome().env; // no credential helper: the private remote refuses
  ws = tempDir('gitrefs-cli-');
});
after(async () => { await srv.stop(); await priv.stop(); });

async function run(args: string[], cwd = ws) {
  let stdout = '', stderr = '';
  const code = await main([...args, '--ca-file', testPki().caCertPath, '--no-cache'], { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env, cwd });
  return { code, stdout, stderr };
}

test('versions git::…: version-like tags newest first (prereleases marked), other tags, then branches; the ref marked', async () => {
  const r = await run(['versions', `git::${srv.origin}/net.git//modules/vpc?ref=v1.1.0`, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(doc), ['address', 'host', 'kind', 'versions', 'matching', 'selected', 'newest', 'tags', 'branches']);
  assert.equal(doc.kind, 'git');
  assert.equal(doc.address, `${srv.origin}/net.git`);
  assert.deepEqual(doc.versions, ['v2.0.0-beta.1', '1.2.0', 'v1.1.0', 'v1.0.0', 'stable']);
  assert.equal(doc.selected, 'v1.1.0');
  assert.equal(doc.newest, '1.2.0');
  assert.deepEqual(doc.tags.find((t: { tag: string }) => t.tag === 'v1.1.0'), { tag: 'v1.1.0', commit: repo.commits['v1.1.0'], version: '1.1.0', prerelease: false, selected: true });
  assert.equal(doc.tags[0].prerelease, true);
  assert.deepEqual(doc.branches, [
    { branch: 'main', commit: repo.commits.main, default: true, selected: false },
    { branch: 'develop', commit: repo.commits.develop, default: false, selected: false },
  ]);
  const human = await run(['versions', `git::${srv.origin}/net.git?ref=develop`]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /selected: develop \(branch, commit [0-9a-f]{40}\)/);
  assert.match(human.stdout, /tags: +v2\.0\.0-beta\.1 \(prerelease\) 1\.2\.0 v1\.1\.0 v1\.0\.0 stable\n/);
  assert.match(human.stdout, /branches: main \(default\) develop \*\n/);
  const bad = await run(['versions', `git::${srv.origin}/net.git?ref=v1`, '--constraint', '~> 1.0']);
  assert.equal(bad.code, 2);
});

test('resolve git::…?ref=R: {remote, ref, kind, commit, subdir}; annotated tags peeled; a missing ref exits 1', async () => {
  const one = async (source: string) => {
    const r = await run(['resolve', source, '--json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const tag = await one(`git::${srv.origin}/net.git//modules/vpc?ref=v1.1.0&depth=1`);
  assert.deepEqual(tag, { source: `git::${srv.origin}/net.git//modules/vpc?ref=v1.1.0&depth=1`, remote: `${srv.origin}/net.git`, ref: 'v1.1.0', kind: 'tag',
    commit: repo.commits['v1.1.0'], subdir: 'modules/vpc', defaultBranch: false });
  assert.equal((await one(`git::${srv.origin}/net.git?ref=v1.0.0`)).commit, repo.commits['v1.0.0']);
  const branch = await one(`git::${srv.origin}/net.git?ref=develop`);
  assert.deepEqual([branch.kind, branch.commit], ['branch', repo.commits.develop]);
  const commit = await one(`git::${srv.origin}/net.git?ref=${repo.commits['v1.0.0'].slice(0, 12)}`);
  assert.deepEqual([commit.kind, commit.commit], ['commit', repo.commits['v1.0.0']]);
  const head = await one(`git::${srv.origin}/net.git`);
  assert.deepEqual([head.ref, head.kind, head.commit, head.defaultBranch], ['main', 'branch', repo.commits.main, true]);
  const missing = await run(['resolve', `git::${srv.origin}/net.git?ref=v9.9.9`]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /has no branch or tag "v9\.9\.9" \(newest version-like tag: 1\.2\.0\)/);
  const refused = await run(['resolve', `git::${priv.origin}/secret.git?ref=v1.0.0`]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /git looks for credentials in git's credential helpers/);
});

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(ws, rel)), { recursive: true });
  writeFileSync(join(ws, rel), text);
}

test('outdated: git calls with kind module, selected the ref, newest the newest version-like tag, every git status; exit 1; upgrade rewrites the ref', { timeout: 120_000 }, async () => {
  const base = `git::${srv.origin}/net.git`;
  const calls: Array<[string, string]> = [
    ['current', `${base}//modules/vpc?ref=1.2.0`], ['old', `${base}//modules/vpc?ref=v1.0.0&depth=1`], ['pinned', `${base}?ref=${repo.commits['v1.0.0']}`],
    ['branch', `${base}?ref=develop`], ['noref', base], ['missing', `${base}?ref=v9.9.9`], ['private', `git::${priv.origin}/secret.git?ref=v1.0.0`],
    ['nonversion', `${base}?ref=stable`],
  ];
  const text = calls.map(([n, s]) => `module "${n}" {\n  source = "${s}"\n}\n`).join('\n');
  write('stack/main.tf', text);
  const r = await run(['outdated', '--json', 'stack']);
  assert.equal(r.code, 1, r.stderr);
  const rows = (JSON.parse(r.stdout) as { dependencies: Array<Record<string, unknown>> }).dependencies;
  const by = Object.fromEntries(rows.map((d) => [d.name, d]));
  const pick = (n: string) => [by[n].kind, by[n].selected, by[n].newest, by[n].status];
  assert.deepEqual(pick('current'), ['module', '1.2.0', '1.2.0', 'up-to-date']);
  assert.deepEqual(pick('old'), ['module', 'v1.0.0', '1.2.0', 'update-available']);
  assert.deepEqual(pick('pinned'), ['module', repo.commits['v1.0.0'], '1.2.0', 'pinned']);
  assert.deepEqual(pick('branch'), ['module', 'develop', '1.2.0', 'unpinned']);
  assert.deepEqual(pick('noref'), ['module', 'main', '1.2.0', 'unpinned']);
  assert.deepEqual(pick('missing'), ['module', null, '1.2.0', 'not-found']);
  assert.equal(by.private.status, 'error');
  assert.match(String(by.private.message), /credential/);
  assert.deepEqual(pick('nonversion'), ['module', 'stable', '1.2.0', 'up-to-date']);
  assert.deepEqual(Object.keys(rows[0]), ['dir', 'kind', 'name', 'source', 'constraint', 'locked', 'selected', 'newestMatching', 'newest', 'status', 'message']);
  // only up-to-date, pinned and unpinned calls: exit 0
  write('calm/main.tf', `module "a" {\n  source = "${base}?ref=1.2.0"\n}\nmodule "b" {\n  source = "${base}?ref=develop"\n}\n`);
  const calm = await run(['outdated', 'calm']);
  assert.equal(calm.code, 0, calm.stdout + calm.stderr);
  assert.match(calm.stdout, /is a branch .*pin a tag, e\.g\. \?ref=1\.2\.0/);

  // "Upgrade to newest": the ref rewritten, subdirectory and depth kept; no ref: one added; a commit pin left alone
  const engine = new Engine({ env, caFiles: [testPki().caCertPath] });
  try {
    const graph = await buildDependencyGraph([join(ws, 'stack')], { engine });
    const deps = Object.fromEntries(graph.directories[0].modules.map((d) => [d.name, d]));
    const file = join(ws, 'stack/main.tf');
    const after = (plan: UpgradePlan, name: string) => {
      assert.ok(plan.edit, `${name}: ${plan.message}`);
      const edited = applyEdits(text, [plan.edit]);
      return new RegExp(`module "${name}" \\{\\n  source = "([^"]*)"`).exec(edited)?.[1];
    };
    const old = planUpgradeToNewest(deps.old, text, file);
    assert.equal(old.version, '1.2.0');
    assert.equal(after(old, 'old'), `${base}//modules/vpc?ref=1.2.0&depth=1`);
    assert.equal(after(planUpgradeToNewest(deps.noref, text, file), 'noref'), `${base}?ref=1.2.0`);
    assert.equal(after(planUpgradeToNewest(deps.branch, text, file), 'branch'), `${base}?ref=1.2.0`);
    const pinned = planUpgradeToNewest(deps.pinned, text, file);
    assert.equal(pinned.edit, undefined);
    assert.match(pinned.message ?? '', /pinned to a commit/);
    assert.deepEqual(deps.old.git && { ...deps.old.git }, { remote: `${srv.origin}/net.git`, ref: 'v1.0.0', subdir: 'modules/vpc', kind: 'tag', commit: repo.commits['v1.0.0'], status: 'update-available' });
  } finally { await engine.dispose(); }
});

test('the refs "Update ref" and "Pin to commit" write are what a clone checks out: the commit resolve named', { timeout: 120_000 }, async () => {
  const { gitClone } = await import('../../../src/engine/git/clone');
  const { detectPackage, forcedGetter } = await import('../../../src/engine/addresses/go-getter');
  const { withGitRef } = await import('../../../src/engine/git');
  const { readFileSync } = await import('node:fs');
  const source = `git::${srv.origin}/net.git?ref=v1.0.0`;
  const cloned = async (src: string) => {
    const d = detectPackage(src);
    assert.ok(!('error' in d));
    const dest = join(tempDir('gitrefs-clone-'), 'pkg');
    mkdirSync(dest);
    await gitClone(forcedGetter(d.package)[1], dest, { timeoutMs: 60_000, diskCap: 10_000_000, protocols: 'https', caCertificates: [readFileSync(testPki().caCertPath, 'utf8')], scratchDir: dirname(dest) });
    return readFileSync(join(dest, 'main.tf'), 'utf8').split('\n')[0];
  };
  // resolve names the commit of the annotated tag; pinning that commit checks out the same tree as the tag
  const r = JSON.parse((await run(['resolve', withGitRef(source, 'v1.1.0'), '--json'])).stdout);
  assert.equal(r.commit, repo.commits['v1.1.0']);
  assert.equal(await cloned(withGitRef(source, r.commit)), '# v1.1.0');
  assert.equal(await cloned(withGitRef(source, '1.2.0')), '# 1.2.0');
});
