// The features layer on oci:// module calls (what both the VS Code adapter and the language server
// show) against a real OCI registry (CNCF Distribution on 127.0.0.1, TLS from the test CA, Basic
// auth, credentials from an oci_credentials block): tag completion order and marking inside
// `?tag=` and of a whole `?tag=`, the hover, tofu's refusals on the argument they name, the
// not-found / wrong-artifact / credentials diagnostics, both quick fixes, no request when the
// network is not allowed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { parseConfig } from '../../../src/engine/config';
import { publishModule } from '../../../src/engine/publish/publish';
import { backendOf } from '../../../src/features/engine';
import { RegistryLookup } from '../../../src/features/lookup';
import { objectReader, settingsFrom } from '../../../src/features/settings';
import type { FeatureContext } from '../../../src/features/context';
import { collectRefs } from '../../../src/features/refs';
import { registryCompletions } from '../../../src/features/completion';
import { registryDiagnostics } from '../../../src/features/diagnostics';
import { registryHover } from '../../../src/features/hover';
import { quickFixesAt } from '../../../src/features/fixes';
import { directoryDependencies } from '../../../src/engine/deps/graph';
import { applyEdits } from '../../../src/engine/deps/rewrite';
import { planUpgradeToNewest } from '../../../src/engine/deps/upgrade';
import { depNode } from '../../../src/features/depsTree';
import { ModuleTypes } from '../../../src/features/moduleTypes';
import { DEFAULT_USERS, pushForeignArtifact, startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { settledDiagnostics } from '../../support/settled-diagnostics';
import { removeTempDir, tempDir } from '../../support/temp';

const ANN = 'org.opencontainers.image.';

describe('oci:// module calls in the features layer (both adapters)', () => {
  let reg: TestOciRegistry;
  let ws: string;
  const engines: Engine[] = [];
  let published: { manifestDigest: string; blobDigest: string; size: number };

  function context(opts: { password?: string; credentials?: boolean; network?: boolean } = {}): FeatureContext {
    const rc = join(ws, `tofurc-${engines.length}`);
    writeFileSync(rc, opts.credentials === false ? '' : `oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${opts.password ?? DEFAULT_USERS.tofu}"\n}\n`);
    const engine = new Engine({ cacheDir: join(ws, 'cache'), caFiles: [reg.caCertPath], cliConfigFile: rc, env: { HOME: ws }, networkAllowed: () => opts.network !== false });
    engines.push(engine);
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    return {
      engine, lookup: new RegistryLookup(backendOf(engine)), log: silent, cacheDir: join(ws, 'cache'),
      networkAllowed: () => opts.network !== false, settings: () => settingsFrom(objectReader({})),
    };
  }

  function doc(source: string) {
    const text = `module "net" {\n  source = "${source}"\n}\n`;
    return { text, refs: collectRefs(parseConfig(text, 'main.tf'), text) };
  }
  const offsetIn = (text: string, needle: string, delta = 0) => text.indexOf(needle) + delta;

  async function diagnose(ctx: FeatureContext, source: string) {
    const d = doc(source);
    return { ...d, ...(await settledDiagnostics(ctx, d.refs, 10_000)) };
  }

  before(async () => {
    reg = await startOciRegistry({ auth: 'basic' });
    ws = tempDir('oci-editor-');
    mkdirSync(join(ws, 'module'), { recursive: true });
    writeFileSync(join(ws, 'module/main.tf'), 'variable "name" {\n  type = string\n}\n\noutput "id" {\n  value = var.name\n}\n');
    const ctx = context();
    const annotations = { [`${ANN}created`]: '2026-11-26T00:00:00Z', [`${ANN}source`]: 'https://git.example.com/net', [`${ANN}revision`]: 'abc123' };
    const target = `oci://${reg.host}/mods/net`;
    for (const tags of [['1.0.0'], ['v1.1.0', 'dev'], ['2.0.0-rc.1']]) {
      writeFileSync(join(ws, 'module/version.tf'), `# ${tags[0]}\n`);
      await publishModule({ engine: ctx.engine, dir: join(ws, 'module'), target, tags });
    }
    writeFileSync(join(ws, 'module/version.tf'), '# 1.2.0\n');
    published = await publishModule({ engine: ctx.engine, dir: join(ws, 'module'), target, tags: ['1.2.0', 'latest'], annotations });
    // an artifact that is not a module package (another artifactType)
    const c = ctx.engine.oci;
    const repo = { registry: reg.host, repository: 'mods/other' };
    await pushForeignArtifact(c, repo, 'wrong');
  });
  after(async () => {
    for (const e of engines) await e.dispose();
    await reg.stop();
    removeTempDir(ws);
  });

  test('completion inside ?tag=: version-like tags newest first, prereleases marked, then the others; the written tag marked; the value replaced', async () => {
    const ctx = context();
    const d = doc(`oci://${reg.host}/mods/net?tag=1.0.0`);
    const at = offsetIn(d.text, 'tag=1', 5);
    const list = await registryCompletions(ctx, d, at, 1, async () => new Set());
    assert.ok(list);
    assert.deepEqual(list.items.map((i) => i.label), ['2.0.0-rc.1', '1.2.0', 'v1.1.0', '1.0.0', 'dev', 'latest']);
    const by = (l: string) => list.items.find((i) => i.label === l)!;
    assert.equal(by('2.0.0-rc.1').description, 'prerelease');
    assert.equal(by('1.2.0').description, 'newest');
    assert.equal(by('1.0.0').description, 'used by tofu init');
    assert.equal(by('1.0.0').preselect, true);
    const col = d.text.split('\n')[1].indexOf('tag=') + 4;
    assert.deepEqual(by('1.2.0').range, { start: { line: 1, character: col }, end: { line: 1, character: col + '1.0.0'.length } }, 'the whole tag value');
    assert.equal(by('1.2.0').insertText, '1.2.0');
  });

  test('completion of a whole ?tag= after the repository: "latest" is the tag tofu init uses without one', async () => {
    const ctx = context();
    const d = doc(`oci://${reg.host}/mods/net`);
    const at = offsetIn(d.text, 'mods/net', 'mods/net'.length);
    const list = await registryCompletions(ctx, d, at, 1, async () => new Set());
    assert.ok(list);
    assert.equal(list.items[1].insertText, '?tag=1.2.0');
    assert.equal(list.items.find((i) => i.preselect)?.label, 'latest');
    assert.match(list.items.find((i) => i.label === 'latest')!.description ?? '', /used by tofu init/);
    const col = d.text.split('\n')[1].indexOf('mods/net') + 'mods/net'.length;
    assert.deepEqual(list.items[0].range, { start: { line: 1, character: col }, end: { line: 1, character: col } });
    // Elsewhere in the string (the host): no tag items.
    const none = await registryCompletions(ctx, d, offsetIn(d.text, 'oci://', 8), 1, async () => new Set());
    assert.ok(!none?.items.some((i) => i.label === '1.2.0'));
  });

  test('hover: registry, repository, tag → manifest digest, module package verdict, size, annotations, the artifact tofu init downloads', async () => {
    const ctx = context();
    const d = doc(`oci://${reg.host}/mods/net?tag=1.2.0`);
    const h = await registryHover(ctx, d.refs, offsetIn(d.text, 'mods/net'));
    assert.ok(h);
    const md = h.markdown;
    for (const part of [`registry: \`${reg.host}\``, 'repository: `mods/net`', 'tag `1.2.0`', `manifest \`${published.manifestDigest}\``,
      'Module package: yes', `Size: ${published.size} bytes`, `downloads \`${reg.host}/mods/net@${published.manifestDigest}\``,
      `layer \`${published.blobDigest}\``, 'created: `2026-11-26T00:00:00Z`', 'source: `https://git.example.com/net`', 'revision: `abc123`',
      'Newest version-like tag: `1.2.0` (this one)']) {
      assert.ok(md.includes(part), `${part}\n---\n${md}`);
    }
    assert.ok(md.indexOf('created:') < md.indexOf('source:'), 'created first');
    const wrong = await registryHover(ctx, doc(`oci://${reg.host}/mods/other?tag=wrong`).refs, offsetIn(d.text, 'mods/'));
    assert.match(wrong!.markdown, /Not a module package\*\*: unexpected artifact type "application\/vnd\.example\.other"/);
  });

  test('diagnostics: tofu\'s refusal on the argument it names, tag and repository not found, not a module package', async () => {
    const ctx = context();
    const both = doc(`oci://${reg.host}/mods/net?tag=1.2.0&digest=sha256:${'0'.repeat(64)}`);
    reg.resetLog();
    const r = registryDiagnostics(ctx, both.refs, new Set());
    assert.equal(r.diagnostics.length, 1);
    const dg = r.diagnostics[0];
    assert.equal(dg.code, 'invalid-source');
    assert.equal(both.text.slice(dg.range.start.offset, dg.range.end.offset), `digest=sha256:${'0'.repeat(64)}`);
    assert.match(dg.message, /tag.*digest/i);
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(reg.requests.length, 0, 'a refused source is not looked up');

    const gone = await diagnose(ctx, `oci://${reg.host}/mods/net?tag=9.9.9`);
    assert.deepEqual(gone.diagnostics.map((x) => x.code), ['not-found']);
    assert.match(gone.diagnostics[0].message, /Tag "9\.9\.9" not found in .*mods\/net \(newest version-like tag: 1\.2\.0\)/);
    assert.equal(gone.text.slice(gone.diagnostics[0].range.start.offset, gone.diagnostics[0].range.end.offset), `"oci://${reg.host}/mods/net?tag=9.9.9"`);

    const norepo = await diagnose(ctx, `oci://${reg.host}/mods/nothing?tag=1.0.0`);
    assert.deepEqual(norepo.diagnostics.map((x) => x.code), ['not-found']);
    assert.match(norepo.diagnostics[0].message, /Repository .*mods\/nothing not found/);

    const wrong = await diagnose(ctx, `oci://${reg.host}/mods/other?tag=wrong`);
    assert.deepEqual(wrong.diagnostics.map((x) => x.code), ['not-module-package']);
    assert.match(wrong.diagnostics[0].message, /unexpected artifact type "application\/vnd\.example\.other"/);

    const fine = await diagnose(ctx, `oci://${reg.host}/mods/net?tag=1.0.0`);
    assert.deepEqual(fine.diagnostics, []);
  });

  test('diagnostics: credentials missing or refused name the host and where credentials come from; no network, no request', async () => {
    const refused = await diagnose(context({ password: 'wrong' }), `oci://${reg.host}/mods/net?tag=1.0.0`);
    assert.deepEqual(refused.diagnostics.map((x) => x.code), ['auth']);
    assert.match(refused.diagnostics[0].message, /rejected the credentials/);
    assert.ok(!refused.diagnostics[0].message.includes('wrong'), 'no password in the message');
    const missing = await diagnose(context({ credentials: false }), `oci://${reg.host}/mods/net?tag=1.0.0`);
    assert.deepEqual(missing.diagnostics.map((x) => x.code), ['auth']);
    assert.match(missing.diagnostics[0].message, /requires authentication/);

    reg.resetLog();
    const off = context({ network: false });
    const d = doc(`oci://${reg.host}/mods/net?tag=9.9.9`);
    assert.deepEqual(registryDiagnostics(off, d.refs, new Set()).diagnostics, []);
    assert.equal(await registryCompletions(off, d, offsetIn(d.text, 'tag=9', 5), 1, async () => new Set()), undefined);
    assert.match((await registryHover(off, d.refs, offsetIn(d.text, 'mods/')))!.markdown, /no network requests are made/);
    assert.equal(await quickFixesAt(off, d.refs, offsetIn(d.text, 'mods/'), false), undefined);
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(reg.requests.length, 0);
  });

  test('refused credentials: one diagnostic per registry (the refusal, naming where the credentials came from), not one per call; one request offered them', async () => {
    const ctx = context({ password: 'wrong-again' });
    const text = `module "a" {\n  source = "oci://${reg.host}/mods/net?tag=1.0.0"\n}\n\nmodule "b" {\n  source = "oci://${reg.host}/mods/other?tag=1.0.0"\n}\n\nmodule "c" {\n  source = "oci://${reg.host}/mods/net?tag=1.2.0"\n}\n`;
    const refs = collectRefs(parseConfig(text, 'main.tf'), text);
    reg.resetLog();
    const r = await settledDiagnostics(ctx, refs, 10_000);
    assert.deepEqual(r.diagnostics.map((x) => x.code), ['auth'], JSON.stringify(r.diagnostics));
    assert.match(r.diagnostics[0].message, new RegExp(`${reg.host.replace(/\./g, '\\.')} rejected the credentials from oci_credentials`));
    assert.equal(reg.requests.filter((q) => q.auth).length, 1, 'one request offered the credentials');
  });

  test('quick fixes: "Pin to digest" writes the digest the tag points at, "Update tag to newest" the newest version-like tag', async () => {
    const ctx = context();
    const d = doc(`oci://${reg.host}/mods/net//sub?tag=1.0.0`);
    const found = await quickFixesAt(ctx, d.refs, offsetIn(d.text, 'mods/'), false);
    assert.ok(found);
    const byKind = Object.fromEntries(found.fixes.map((f) => [f.kind, f]));
    assert.deepEqual(Object.keys(byKind).sort(), ['pin-digest', 'update-tag']);
    const v1 = await ctx.engine.oci.headManifest({ registry: reg.host, repository: 'mods/net' }, '1.0.0');
    assert.equal(byKind['pin-digest'].newText, `oci://${reg.host}/mods/net//sub?digest=${v1!.digest}`);
    assert.equal(byKind['update-tag'].newText, `oci://${reg.host}/mods/net//sub?tag=1.2.0`);
    const r = byKind['update-tag'].range;
    assert.equal(d.text.slice(r.start.offset, r.end.offset), `oci://${reg.host}/mods/net//sub?tag=1.0.0`, 'the string content');
    // At the newest tag: only the pin.
    const newest = doc(`oci://${reg.host}/mods/net?tag=1.2.0`);
    const f2 = await quickFixesAt(ctx, newest.refs, offsetIn(newest.text, 'mods/'), false);
    assert.deepEqual(f2!.fixes.map((f) => f.kind), ['pin-digest']);
  });

  test('dependency view: oci:// calls with their tag or digest, the newest version-like tag and the OCI status; Upgrade to newest rewrites the tag', async () => {
    const ctx = context();
    const dir = join(ws, 'deps');
    mkdirSync(dir, { recursive: true });
    const v1 = await ctx.engine.oci.headManifest({ registry: reg.host, repository: 'mods/net' }, '1.0.0');
    const text = `module "old" {\n  source = "oci://${reg.host}/mods/net?tag=1.0.0" # keep\n}\n\nmodule "cur" {\n  source = "oci://${reg.host}/mods/net?tag=1.2.0"\n}\n\n` +
      `module "pin" {\n  source = "oci://${reg.host}/mods/net?digest=${v1!.digest}"\n}\n\nmodule "gone" {\n  source = "oci://${reg.host}/mods/net?tag=0.1.0"\n}\n`;
    writeFileSync(join(dir, 'main.tf'), text);
    const deps = (await directoryDependencies(dir, { engine: ctx.engine })).modules;
    const node = (name: string) => depNode(deps.find((d) => d.name === name)!) as Extract<ReturnType<typeof depNode>, { kind: 'dep' }>;
    assert.equal(node('old').description, 'tag 1.0.0 · newest 1.2.0 · update available');
    assert.equal(node('old').contextValue, 'dep.module.outdated.declared', 'offers Upgrade to newest');
    assert.equal(node('cur').description, 'tag 1.2.0 · up to date');
    assert.equal(node('pin').description, `digest ${v1!.digest.slice(0, 15)}… · newest 1.2.0 · pinned`);
    assert.equal(node('pin').icon.id, 'pinned');
    assert.equal(node('gone').description, 'tag 0.1.0 · newest 1.2.0 · not found');
    assert.match(node('old').tooltip, /^\*\*module old\*\*: update available\n/);
    assert.match(node('pin').tooltip, /digest: `sha256:/);

    const plan = planUpgradeToNewest(deps.find((d) => d.name === 'old')!, text, join(dir, 'main.tf'));
    assert.ok(plan.edit, plan.message);
    assert.equal(applyEdits(text, [plan.edit]), text.replace('mods/net?tag=1.0.0" # keep', 'mods/net?tag=1.2.0" # keep'));
    assert.match(planUpgradeToNewest(deps.find((d) => d.name === 'pin')!, text, join(dir, 'main.tf')).message ?? '', /pinned to a digest/);
  });

  test('inputs and outputs of an oci:// module: type diagnostics, input completion, module.NAME. outputs (the package fetched once)', async () => {
    const ctx = context();
    const types = new ModuleTypes(ctx);
    const fsPath = join(ws, 'types', 'main.tf');
    const call = `module "net" {\n  source = "oci://${reg.host}/mods/net?tag=1.2.0"\n  name   = ["not", "a", "string"]\n  \n}\n`;
    const parsed = (text: string) => ({ key: fsPath, version: 1, fsPath, text, file: parseConfig(text, fsPath) });
    const doc = parsed(call);
    const text = call;
    reg.resetLog();
    const diags = await types.check(doc);
    assert.equal(diags.length, 1, `diagnostics: ${JSON.stringify(diags)}`);
    assert.equal(text.slice(diags[0].range.start.offset, diags[0].range.end.offset), '["not", "a", "string"]');
    const inputs = await types.complete(parsed(call.replace('  name   = ["not", "a", "string"]\n', '')), { line: 2, character: 2 });
    assert.ok(inputs?.some((i) => i.label === 'name'), `inputs: ${JSON.stringify(inputs?.map((i) => i.label))}`);
    const outputs = await types.complete(parsed(`${call}\noutput "x" {\n  value = module.net.\n}\n`), { line: 7, character: '  value = module.net.'.length });
    assert.deepEqual(outputs?.map((i) => i.label), ['id']);
    assert.equal(reg.count('GET', '/blobs/'), 1, 'the package zip fetched once, by its digest');
  });
});
