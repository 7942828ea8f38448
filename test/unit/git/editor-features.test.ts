// The features layer on git-sourced module calls (what both the VS Code adapter and the language
// server show) against a real smart-HTTP git remote over TLS whose Basic credentials come from the
// user's git credential helper: ref completion inside `?ref=` and of a whole `?ref=` (order and
// marking), the hover (remote, ref, kind, commit with annotated tags peeled, newest tag), the
// diagnostics (missing ref on the ref, refused credentials once per remote naming the helper,
// branch / no ref as information), the three fixes, and no git run when the network is off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../src/engine/engine';
import { parseConfig } from '../../../src/engine/config';
import { applyEdits } from '../../../src/engine/deps/rewrite';
import { parseGitModuleSource } from '../../../src/engine/git';
import { backendOf } from '../../../src/features/engine';
import { RegistryLookup } from '../../../src/features/lookup';
import { objectReader, settingsFrom } from '../../../src/features/settings';
import type { FeatureContext } from '../../../src/features/context';
import { collectRefs } from '../../../src/features/refs';
import { registryCompletions } from '../../../src/features/completion';
import { unreachableNotice } from '../../../src/features/diagnostics';
import { registryHover } from '../../../src/features/hover';
import { fixLenses, quickFixesAt } from '../../../src/features/fixes';
import { GitHttpServer, gitClientHome, makeRepo, MadeRepo, startGitHttpServer } from '../../support/git-server';
import { settledDiagnostics } from '../../support/settled-diagnostics';
import { tempDir } from '../../support/temp';
import { testPki } from '../../support/tls';

describe('git module sources in the features layer (both adapters)', () => {
  let srv: GitHttpServer;
  let repo: MadeRepo;
  const engines: Engine[] = [];
  let base: string;

  function context(opts: { password?: string; network?: boolean; warnings?: string[] } = {}): FeatureContext {
    const { env } = gitClientHome({ username: 'dev', password: opts.password ?? 'dev-pw' });
    const engine = new Engine({ env, cacheDir: tempDir('git-editor-cache-'), caFiles: [testPki().caCertPath], networkAllowed: () => opts.network !== false });
    engines.push(engine);
    const silent = { debug() {}, info() {}, warn(m: string) { opts.warnings?.push(m); }, error() {} };
    return {
      engine, lookup: new RegistryLookup(backendOf(engine)), log: silent, cacheDir: tempDir('git-editor-fcache-'),
      networkAllowed: () => opts.network !== false, settings: () => settingsFrom(objectReader({})),
    };
  }

  function doc(...sources: string[]) {
    const text = sources.map((s, i) => `module "m${i}" {\n  source = "${s}"\n}\n`).join('\n');
    return { text, refs: collectRefs(parseConfig(text, 'main.tf'), text) };
  }

  async function diagnose(ctx: FeatureContext, ...sources: string[]) {
    const d = doc(...sources);
    return { ...d, ...(await settledDiagnostics(ctx, d.refs)) };
  }

  before(async () => {
    srv = await startGitHttpServer({ users: { dev: 'dev-pw' } });
    repo = makeRepo(srv.root, 'net', {
      tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }, { name: 'stable' }, { name: 'v1.2.0-rc.1' }, { name: 'v1.2.0', annotated: true }],
      branches: ['develop'],
    });
    base = `git::${srv.origin}/net.git`;
  });
  after(async () => {
    for (const e of engines) await e.dispose();
    await srv.stop();
  });

  test('completion inside ?ref=: version-like tags newest first, other tags, branches; the current ref marked', async () => {
    const ctx = context();
    const source = `${base}//vpc?ref=v1.1.0&depth=1`;
    const d = doc(source);
    const offset = d.text.indexOf('v1.1.0') + 2;
    const list = await registryCompletions(ctx, d, offset, 1, async () => new Set());
    assert.ok(list);
    assert.deepEqual(list.items.map((i) => i.label), ['v1.2.0', 'v1.2.0-rc.1', 'v1.1.0', 'v1.0.0', 'stable', 'main', 'develop']);
    const cur = list.items.find((i) => i.preselect)!;
    assert.equal(cur.label, 'v1.1.0');
    assert.match(cur.description ?? '', /current/);
    assert.match(list.items[0].description ?? '', /newest/);
    assert.match(list.items[1].description ?? '', /prerelease/);
    assert.match(list.items[5].description ?? '', /default branch/);
    assert.equal(cur.detail, `tag v1.1.0 → commit ${repo.commits['v1.1.0'].slice(0, 12)} (version 1.1.0)`);
    // the item replaces the whole value of ref (not &depth=1)
    const line = d.text.split('\n')[1];
    assert.equal(line.slice(list.items[0].range.start.character, list.items[0].range.end.character), 'v1.1.0');
    // a whole ?ref= at the end of a source without one
    const d2 = doc(`${base}//vpc`);
    const l2 = await registryCompletions(ctx, d2, d2.text.indexOf('//vpc') + 5, 1, async () => new Set());
    assert.equal(l2?.items[0].insertText, '?ref=v1.2.0');
    assert.equal(l2?.items.find((i) => i.preselect)?.label, 'main', 'no ref: the default branch is what tofu init clones');
    assert.equal(ctx.engine.gitRefContacts, 1, 'one ls-remote for both lists');
  });

  test('hover: remote, ref, kind, commit (annotated tag peeled), newest version-like tag', async () => {
    const ctx = context();
    const d = doc(`${base}//vpc?ref=v1.1.0`);
    const h = await registryHover(ctx, d.refs, d.text.indexOf('net.git'));
    assert.ok(h);
    assert.match(h.markdown, /\*\*Git module source\*\*/);
    assert.ok(h.markdown.includes(`- remote: \`${srv.origin}/net.git\``));
    assert.ok(h.markdown.includes('- ref: `v1.1.0`'));
    assert.ok(h.markdown.includes('- kind: tag'));
    assert.ok(h.markdown.includes(`- commit: \`${repo.commits['v1.1.0']}\``), h.markdown);
    assert.ok(!h.markdown.includes(repo.tagObjects['v1.1.0']), 'the commit, not the tag object');
    assert.ok(h.markdown.includes('- Newest version-like tag: `v1.2.0`'));
    const b = doc(`${base}?ref=develop`);
    const hb = await registryHover(ctx, b.refs, b.text.indexOf('net.git'));
    assert.match(hb!.markdown, /- kind: branch/);
    assert.ok(hb!.markdown.includes(repo.commits.develop));
  });

  test('diagnostics: a missing ref (error on the ref), a branch and no ref (information), nothing for a current tag', async () => {
    const ctx = context();
    const r = await diagnose(ctx, `${base}//vpc?ref=v9.9.9&depth=1`, `${base}?ref=develop`, base, `${base}?ref=v1.2.0`);
    const byCode = (c: string) => r.diagnostics.filter((d) => d.code === c);
    const missing = byCode('ref-not-found');
    assert.equal(missing.length, 1);
    assert.equal(missing[0].severity, 'error');
    assert.equal(r.text.slice(missing[0].range.start.offset, missing[0].range.end.offset), 'v9.9.9', 'on the ref');
    assert.match(missing[0].message, /has no branch or tag "v9\.9\.9" \(newest version-like tag: v1\.2\.0\)/);
    const unpinned = byCode('unpinned-ref');
    assert.equal(unpinned.length, 2);
    assert.ok(unpinned.every((d) => d.severity === 'information' && /e\.g\. \?ref=v1\.2\.0/.test(d.message)));
    assert.equal(r.diagnostics.length, 3);
    assert.equal(ctx.engine.gitRefContacts, 1);
  });

  test('an unreachable git remote is named as git\'s in the editor\'s one-time notice and the log, a registry as the registry\'s', async () => {
    const warnings: string[] = [];
    const ctx = context({ warnings });
    // nothing listens on port 1: git and the registry client both get "connection refused"
    const r = await diagnose(ctx, 'git::https://127.0.0.1:1/net.git?ref=v1.0.0', '127.0.0.1:1/acme/net/aws');
    const notices = r.unreachable.map(unreachableNotice).sort();
    assert.deepEqual(notices, ['Git: https://127.0.0.1:1/net.git unreachable', 'OpenTofu Registry: 127.0.0.1:1 unreachable']);
    assert.ok(warnings.some((w) => w.startsWith('git remote https://127.0.0.1:1/net.git unreachable: ')), warnings.join('\n'));
    assert.ok(warnings.some((w) => w.startsWith('registry 127.0.0.1:1 unreachable: ')), warnings.join('\n'));
  });

  test('refused credentials: one error per remote naming the credential helper, never the password', async () => {
    const ctx = context({ password: 'not-the-password' });
    const r = await diagnose(ctx, `${base}?ref=v1.0.0`, `${base}//other?ref=v1.1.0`);
    const auth = r.diagnostics.filter((d) => d.code === 'auth');
    assert.equal(auth.length, 1);
    assert.match(auth[0].message, /credential-helper\.sh/);
    assert.ok(!auth[0].message.includes('not-the-password'));
  });

  test('quick fixes and lenses: update ref to newest tag, pin to commit (full sha), pin to newest tag; the edits parse back', async () => {
    const ctx = context();
    const check = async (source: string) => {
      const d = doc(source);
      const found = await quickFixesAt(ctx, d.refs, d.text.indexOf('source'), false);
      return { d, fixes: found?.fixes ?? [] };
    };
    const tagged = await check(`${base}//vpc?ref=v1.0.0&depth=1`);
    assert.deepEqual(tagged.fixes.map((f) => f.title), [
      'Update ref to newest tag v1.2.0 (currently v1.0.0)', `Pin to commit ${repo.commits['v1.0.0']} (what tag v1.0.0 points at now)`]);
    const src = (d: { text: string }, f: { range: { start: { offset: number }; end: { offset: number } }; newText: string }) => {
      const edited = applyEdits(d.text, [{ range: f.range as never, newText: f.newText }]);
      return parseGitModuleSource(/source = "([^"]*)"/.exec(edited)![1])!;
    };
    const up = src(tagged.d, tagged.fixes[0]);
    assert.deepEqual([up.ref, up.subdir, up.depth], ['v1.2.0', 'vpc', 1]);
    assert.equal(src(tagged.d, tagged.fixes[1]).ref, repo.commits['v1.0.0']);
    const none = await check(base);
    assert.deepEqual(none.fixes.map((f) => f.kind), ['pin-tag', 'pin-commit']);
    assert.equal(none.fixes[0].title, 'Pin to newest tag v1.2.0 (now the default branch main)');
    assert.equal(src(none.d, none.fixes[0]).ref, 'v1.2.0');
    assert.equal(src(none.d, none.fixes[1]).ref, repo.commits.main);
    const lenses = fixLenses(ctx, none.d.refs);
    assert.deepEqual(lenses.map((l) => l.fix.kind), ['pin-tag'], 'pin to commit is a choice: quick fix only');
    assert.deepEqual((await check(`${base}?ref=v1.2.0`)).fixes.map((f) => f.kind), ['pin-commit']);
  });

  test('network not allowed: no git runs, no diagnostics but refusals of the source itself', async () => {
    const ctx = context({ network: false });
    const r = await diagnose(ctx, `${base}?ref=v9.9.9`, `${base}?ref=--upload-pack=x`);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['invalid-source']);
    const d = doc(`${base}?ref=v1`);
    assert.equal(await registryCompletions(ctx, d, d.text.indexOf('v1') + 1, 1, async () => new Set()), undefined);
    assert.equal(ctx.engine.gitRefContacts, 0);
  });
});
