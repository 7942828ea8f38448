// Editor features in a real VS Code extension host, against the HTTPS test registry started in this
// process (certificate trusted through the extension's tofuRegistry.caFile setting).
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TofuRegistryApi } from '../../src/extension';
import { FALLBACK_LANGUAGE } from '../../src/editor/language';
import { startConnectProxy } from '../support/connect-proxy';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import {
  completions, extensionApi, hoverText, labelOf, openFile, ourDiagnostics, positionOf, trustTestCa,
  versionLabels, waitFor, waitForCodes, workspaceDir,
} from './editor-helpers';

const NET_VERSIONS = ['4.9.0', '5.2.1', '5.30.0', '5.31.0', '6.0.0-beta1'];
const NET_ORDER = ['5.31.0', '5.30.0', '5.2.1', '4.9.0', '6.0.0-beta1'];

describe('editor features (real extension host, HTTPS test registry)', function () {
  this.timeout(60000);
  let reg: TestRegistry;
  let api: TofuRegistryApi;
  let H: string;

  before(async () => {
    reg = await startTestRegistry();
    H = reg.host;
    reg.addModule({ namespace: 'edtest', name: 'network', system: 'aws', versions: NET_VERSIONS });
    reg.addModule({
      namespace: 'edtest', name: 'vpc', system: 'aws', versions: ['1.0.0', '1.1.0'],
      location: (v) => ({ kind: 'header', location: `git::https://git.example.invalid/edtest/vpc.git?ref=v${v}` }),
    });
    reg.addProvider({ namespace: 'edtest', type: 'cloud', versions: ['2.0.0', '2.1.0', '10.0.0', '3.0.0-rc1'].map((version) => ({ version, platforms: [] })) });
    api = await extensionApi();
    assert.ok(api.activationMs > 0 && api.loadAndActivateMs > api.activationMs && api.sinceLoadMs >= api.loadAndActivateMs);
    // For `npm run bench`: the activation time measured in a real extension host, and which bundle
    // it measured (the bench ignores figures of another build).
    const out = path.resolve(__dirname, '../../../test-output');
    const bundle = fs.readFileSync(path.resolve(__dirname, '../../../dist/extension.js'));
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'activation.json'), JSON.stringify({ activationMs: api.activationMs, loadAndActivateMs: api.loadAndActivateMs, sinceLoadMs: api.sinceLoadMs, vscode: vscode.version,
      bundleSha256: createHash('sha256').update(bundle).digest('hex') }));
    await trustTestCa(api, reg);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await reg?.stop();
  });

  it('completes module versions from a private host, newest first, prereleases last, whole string replaced', async () => {
    const doc = await openFile('completion.tf', `module "net" {\n  source  = "${H}/edtest/network/aws"\n  version = "5.3"\n}\n`);
    const pos = positionOf(doc, '"5.3"', 2); // cursor in the middle of the string: "5|.3"
    const items = await completions(doc, pos);
    assert.deepEqual(versionLabels(items), NET_ORDER);
    const newest = items.find((i) => labelOf(i) === '5.31.0')!;
    assert.equal(newest.preselect, true, 'the version tofu init would select is preselected');
    const range = newest.range as vscode.Range;
    assert.equal(doc.getText(range), '5.3', 'replaces the whole string content');
    const pre = items.find((i) => labelOf(i) === '6.0.0-beta1')!;
    assert.match(String((pre.label as vscode.CompletionItemLabel).description), /prerelease/);
    const forms = items.map(labelOf).filter((l) => !/^\d/.test(l));
    assert.ok(forms.includes('~> 5.31') && forms.includes('>= 5.31.0'), `constraint forms offered: ${forms}`);
    assert.equal(reg.server.requests.filter((r) => r.path.startsWith('/v1/modules/edtest/network/aws/versions')).length, 1);
  });

  it('completes while typing an unterminated string, keeping the operator', async () => {
    const doc = await openFile('typing.tf', `module "net" {\n  source  = "${H}/edtest/network/aws"\n  version = "~> 5.\n}\n`);
    const pos = positionOf(doc, '"~> 5.', 6);
    const items = await completions(doc, pos);
    const v = items.find((i) => labelOf(i) === '5.30.0');
    assert.ok(v, `5.30.0 offered (got ${items.map(labelOf)})`);
    assert.equal(v.insertText, '~> 5.30.0');
    assert.equal(doc.getText(v.range as vscode.Range), '~> 5.');
  });

  it('completes module sources used elsewhere in the workspace (scanned files; one above the size cap skipped)', async () => {
    const dir = path.join(workspaceDir(), 'scanned');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'uses.tf'), `module "a" {\n  source = "${H}/scanco/queue/aws"\n}\n`);
    // Larger than MAX_SCAN_FILE_BYTES (512 KiB): a generated file whose sources are not offered.
    fs.writeFileSync(path.join(dir, 'generated.tf'), `module "g" {\n  source = "${H}/hugeco/gen/aws"\n}\n${'# padding\n'.repeat(60_000)}`);
    const doc = await openFile('source-completion.tf', `module "new" {\n  source = "${H}/"\n}\n`);
    const items = await completions(doc, positionOf(doc, `${H}/"`, H.length + 1));
    const labels = items.map(labelOf);
    assert.ok(labels.includes(`${H}/scanco/queue/aws`), `scanned source offered: ${labels.join(', ')}`);
    assert.ok(labels.includes(`${H}/scanco/`), 'its namespace is offered as a prefix');
    assert.ok(!labels.some((l) => l.includes('hugeco')), 'a file above the size cap is not read');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('completes provider versions in required_providers', async () => {
    const doc = await openFile('providers.tf',
      `terraform {\n  required_providers {\n    cloud = {\n      source  = "${H}/edtest/cloud"\n      version = ""\n    }\n  }\n}\n`);
    const items = await completions(doc, positionOf(doc, 'version = ""', 11));
    assert.deepEqual(versionLabels(items), ['10.0.0', '2.1.0', '2.0.0', '3.0.0-rc1']);
    assert.equal(items.find((i) => labelOf(i) === '10.0.0')?.preselect, true);
  });

  it('completion waits for the registry at most the request budget (as the language server): no versions yet within it, then the versions once known', async () => {
    reg.addModule({ namespace: 'slowco', name: 'net', system: 'aws', versions: ['1.0.0', '1.1.0'] });
    reg.setFault('/v1/modules/slowco/', 'hang');
    try {
      const doc = await openFile('slow-completion.tf', `module "slow" {\n  source  = "${H}/slowco/net/aws"\n  version = ""\n}\n`);
      const pos = positionOf(doc, 'version = ""', 11);
      const t0 = Date.now();
      const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, pos);
      const waited = Date.now() - t0;
      // (the empty list is marked incomplete, but VS Code keeps that mark only on items, so it is not seen here)
      assert.deepEqual(versionLabels(list.items), []);
      assert.ok(waited < 5000, `answered within the budget, not after the 15 s request timeout (${waited} ms)`);
    } finally {
      reg.setFault('/v1/modules/slowco/', null);
    }
    // a registry that answers: the next requests get the versions (the hung lookup failed or a new one answered)
    reg.addModule({ namespace: 'slowco', name: 'fast', system: 'aws', versions: ['2.0.0'] });
    const doc = await openFile('fast-completion.tf', `module "fast" {\n  source  = "${H}/slowco/fast/aws"\n  version = ""\n}\n`);
    assert.deepEqual(versionLabels(await completions(doc, positionOf(doc, 'version = ""', 11))), ['2.0.0']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('hovers: constraint in words, selected version, and the resolved download location (200 JSON and 204 header)', async () => {
    const doc = await openFile('hover.tf', [
      'module "net" {', `  source  = "${H}/edtest/network/aws"`, '  version = "~> 5.2"', '}',
      'module "vpc" {', `  source  = "${H}/edtest/vpc/aws"`, '  version = "~> 1.0"', '}', ''].join('\n'));
    const v = await hoverText(doc, positionOf(doc, '~> 5.2', 2));
    assert.match(v, /at least 5\.2\.0 and below 6\.0\.0/);
    assert.match(v, /Selected by `tofu init`: \*\*5\.31\.0\*\*/);
    assert.match(v, /3 of 5 versions match/);
    const s = await hoverText(doc, positionOf(doc, 'edtest/network/aws', 3));
    assert.ok(s.includes(`${reg.origin}/archives/edtest/network/aws/5.31.0.tar.gz`), s);
    assert.ok(s.includes(`modules.v1: \`${reg.origin}/v1/modules/\``) || s.includes(`${reg.origin}/v1/modules`), s);
    const s204 = await hoverText(doc, positionOf(doc, 'edtest/vpc/aws', 3));
    assert.ok(s204.includes('git::https://git.example.invalid/edtest/vpc.git?ref=v1.1.0'), s204);
    assert.match(s204, /Download\*\* of 1\.1\.0/);
  });

  it('hover names non-registry sources', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'local.tf'));
    assert.match(await hoverText(doc, positionOf(doc, './modules/net', 2)), /Local path/);
    // A git source has its own hover (issue 28): the remote and the ref, even when the remote cannot be read.
    const git = await hoverText(doc, positionOf(doc, 'git::', 2));
    assert.match(git, /Git module source/);
    assert.match(git, /remote: `https:\/\/example\.invalid\/infra\/modules\.git`/);
    assert.match(git, /ref: `v1\.2\.0`/);
  });

  it('diagnostics for a 404 module and an unsatisfiable constraint, gone when fixed', async () => {
    const doc = await openFile('diag.tf', [
      'module "missing" {', `  source  = "${H}/edtest/nothere/aws"`, '  version = "1.0.0"', '}',
      'module "net" {', `  source  = "${H}/edtest/network/aws"`, '  version = "~> 9.0"', '}', ''].join('\n'));
    const diags = await waitForCodes(doc.uri, ['not-found', 'unsatisfiable']);
    const unsat = diags.find((d) => d.code === 'unsatisfiable')!;
    assert.equal(doc.getText(unsat.range), '"~> 9.0"');
    assert.equal(unsat.severity, vscode.DiagnosticSeverity.Error);
    assert.match(diags.find((d) => d.code === 'not-found')!.message, /edtest\/nothere\/aws/);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(positionOf(doc, 'nothere'), positionOf(doc, 'nothere', 7)), 'vpc');
    edit.replace(doc.uri, new vscode.Range(positionOf(doc, '~> 9.0'), positionOf(doc, '~> 9.0', 6)), '~> 5.0');
    edit.replace(doc.uri, new vscode.Range(positionOf(doc, '"1.0.0"', 1), positionOf(doc, '"1.0.0"', 6)), '1.1.0');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitForCodes(doc.uri, []);
  });

  it('malformed constraint: a "v" prefix is an error for providers (no network needed)', async () => {
    const doc = await openFile('malformed.tf',
      `terraform {\n  required_providers {\n    cloud = {\n      source  = "${H}/edtest/cloud"\n      version = "v2.0.0"\n    }\n  }\n}\n`);
    const [d] = await waitForCodes(doc.uri, ['malformed-constraint']);
    assert.match(d.message, /"v" prefix/);
  });

  it('quick fix rewrites the constraint keeping the operator; CodeLens offers it too', async () => {
    const doc = await openFile('fix.tf', `module "net" {\n  source  = "${H}/edtest/network/aws"\n  version = "~> 4.0"\n  extra   = "x"\n}\n`);
    const at = positionOf(doc, '~> 4.0', 1);
    const actions = await waitFor('the update quick fix', async () => {
      const a = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(at, at));
      return a?.find((x) => x.title.startsWith('Update constraint to'));
    });
    assert.equal(actions.title, 'Update constraint to "~> 5.31" (newest 5.31.0; currently selects 4.9.0)');
    // Not offered on an unrelated line of the same block.
    const elsewhere = positionOf(doc, 'extra', 1);
    const unrelated = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(elsewhere, elsewhere));
    assert.deepEqual((unrelated ?? []).filter((x) => /constraint|version/i.test(x.title)).map((x) => x.title), []);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    assert.ok(lenses.some((l) => l.command?.title === 'newer version available: 5.31.0 → update constraint'),
      `lenses: ${lenses.map((l) => l.command?.title)}`);
    assert.ok(await vscode.workspace.applyEdit(actions.edit!));
    assert.ok(doc.getText().includes('version = "~> 5.31"'), doc.getText());
  });

  it('quick fix adds a missing version pinned to ~> of the newest', async () => {
    const doc = await openFile('addversion.tf', `module "net" {\n  source = "${H}/edtest/network/aws"\n}\n`);
    await waitForCodes(doc.uri, ['missing-version']);
    const at = positionOf(doc, 'module', 2);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(at, at));
    const add = actions.find((a) => /Add missing version/.test(a.title));
    assert.ok(add, `actions: ${actions.map((a) => a.title)}`);
    assert.ok(await vscode.workspace.applyEdit(add.edit!));
    assert.equal(doc.getText(), `module "net" {\n  source = "${H}/edtest/network/aws"\n  version = "~> 5.31"\n}\n`);
    await waitForCodes(doc.uri, []);
  });

  it('authentication needed (401) names the credentials setting', async () => {
    const secured = await startTestRegistry({ token: 'sekrit-token-value' });
    try {
      secured.addModule({ namespace: 'edtest', name: 'private', system: 'aws', versions: ['1.0.0'] });
      const doc = await openFile('auth.tf', `module "p" {\n  source  = "${secured.host}/edtest/private/aws"\n  version = "1.0.0"\n}\n`);
      const [d] = await waitForCodes(doc.uri, ['auth']);
      assert.match(d.message, /tofuRegistry\.cliConfigFile/);
      assert.match(d.message, new RegExp(secured.host.replace(/[.]/g, '\\.')));
      // Naming a CLI config with the credentials takes effect without a reload …
      const rc = path.join(workspaceDir(), '..', 'auth.tofurc');
      fs.writeFileSync(rc, `credentials "${secured.host}" {\n  token = "sekrit-token-value"\n}\n`);
      await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', rc, vscode.ConfigurationTarget.Global);
      await waitForCodes(doc.uri, []);
      // … and "Show log" shows the request with its timing, never the token.
      const logFile = vscode.Uri.joinPath(api.logUri, 'OpenTofu Registry.log').fsPath;
      const line = new RegExp(`GET ${secured.origin.replace(/[.]/g, '\\.')}/v1/modules/edtest/private/aws/versions → 200 \\(\\d+ ms\\) \\[with credentials\\]`);
      const log = await waitFor('the request line in the log file', () => {
        const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
        return line.test(text) && text;
      });
      assert.ok(!log.includes('sekrit-token-value'), 'the token is never logged');
    } finally {
      await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', undefined, vscode.ConfigurationTarget.Global);
      await secured.stop();
    }
  });

  it('acts on *.tf whatever its language id, and not on a Terragrunt .hcl file', async () => {
    const doc = await openFile('plain.tf', `module "net" {\n  source  = "${H}/edtest/network/aws"\n  version = ""\n}\n`);
    // No other extension claims .tf here: our fallback language (with its grammar) is given to it …
    const ours = await waitFor(`language ${FALLBACK_LANGUAGE} for plain.tf`, () =>
      vscode.workspace.textDocuments.find((d) => d.uri.toString() === doc.uri.toString() && d.languageId === FALLBACK_LANGUAGE));
    // … but a language the user picks by hand sticks, and we still act on the file.
    const plain = await vscode.languages.setTextDocumentLanguage(ours, 'plaintext');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(vscode.workspace.textDocuments.find((d) => d.uri.toString() === doc.uri.toString())?.languageId, 'plaintext');
    assert.equal(plain.languageId, 'plaintext');
    assert.deepEqual(versionLabels(await completions(plain, positionOf(plain, 'version = ""', 11))), NET_ORDER);
    const hcl = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'terragrunt.hcl'));
    const items = await completions(hcl, positionOf(hcl, '"1.0.0"', 1));
    assert.deepEqual(versionLabels(items).filter((l) => NET_ORDER.includes(l)), []);
    assert.doesNotMatch(await hoverText(hcl, positionOf(hcl, 'acme/network', 2)), /Registry module/);
    assert.deepEqual(ourDiagnostics(hcl.uri), []);
  });

  it('parses each document once per version (cache by document.version)', async () => {
    const opened = await openFile('cache.tf', `module "net" {\n  source  = "${H}/edtest/network/aws"\n  version = "~> 5.0"\n}\n`);
    // (our fallback language first closes and reopens it: that drops the cached parse once)
    const doc = await waitFor('the fallback language', () =>
      vscode.workspace.textDocuments.find((d) => d.uri.toString() === opened.uri.toString() && d.languageId === FALLBACK_LANGUAGE));
    await hoverText(doc, positionOf(doc, '~> 5.0', 1));
    const before = api.services.parseCount;
    for (let i = 0; i < 5; i++) {
      await hoverText(doc, positionOf(doc, '~> 5.0', 1));
      await completions(doc, positionOf(doc, '~> 5.0', 1));
    }
    assert.equal(api.services.parseCount, before, 'no re-parse without an edit');
  });
  it('network failures are not diagnostics and never block editing', async () => {
    const gone = await startTestRegistry();
    const host = gone.host;
    await gone.stop(); // connection refused from now on
    const doc = await openFile('offline.tf', `module "o" {\n  source  = "${host}/edtest/network/aws"\n  version = "~> 1.0"\n}\n`);
    const ref = api.services.refs(doc).refs.modules[0];
    const { targetOf } = await import('../../src/features/target');
    const t = targetOf(ref).target!;
    await waitFor('the lookup to fail', () => api.services.lookup.peekVersions(t)?.state === 'error');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(ourDiagnostics(doc.uri).map((d) => d.code), []);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), '# still editable\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
  });

  it('diagnostics are debounced while typing and skipped when nothing changed', async () => {
    const doc = await openFile('typing2.tf', `module "net" {\n  source  = "${H}/edtest/network/aws"\n  version = "~> 5.0"\n}\n`);
    await waitFor('first diagnostics run', () => ourDiagnostics(doc.uri).length === 0 && api.diagnostics.runs > 0);
    await new Promise((r) => setTimeout(r, 400));
    const before = api.diagnostics.runs;
    // A loaded machine can take longer than the debounce (150 ms in the test settings) between two
    // edits; each such pause may rightly end in a run. So the bound counts the pauses seen.
    const DEBOUNCE_MS = 150;
    const at: number[] = [];
    for (let i = 0; i < 8; i++) {
      const e = new vscode.WorkspaceEdit();
      e.insert(doc.uri, new vscode.Position(4, 0), '#');
      await vscode.workspace.applyEdit(e);
      at.push(Date.now());
    }
    const pauses = at.slice(1).filter((t, i) => t - at[i] >= DEBOUNCE_MS - 20).length;
    await new Promise((r) => setTimeout(r, 900));
    const after = api.diagnostics.runs;
    const allowed = Math.min(8, 1 + pauses + 2); // + 2: a run may start while the burst begins or ends
    assert.ok(after - before >= 1 && after - before <= allowed, `8 keystrokes (${pauses} pauses ≥ debounce) → ${after - before} diagnostics runs, at most ${allowed}`);
    api.diagnostics.update(doc);
    assert.equal(api.diagnostics.runs, after, 'no recomputation when neither the document nor the registry changed');
  });

  it("proxy: VS Code's http.proxy is the default, and a change applies without a reload", async () => {
    const proxy = await startConnectProxy();
    const { url, connects } = proxy;
    try {
      await vscode.workspace.getConfiguration('http').update('proxy', url, vscode.ConfigurationTarget.Global);
      await waitFor('http.proxy to reach the extension', () => api.services.settings().proxy === url && api.services.settings().proxyFromVscode);
      const d = await vscode.commands.executeCommand<{ services: Record<string, string> }>('tofuRegistry.showDiscovery', `localhost:${reg.origin.split(':').pop()}`);
      assert.ok(d.services?.['modules.v1'], JSON.stringify(d));
      assert.ok(connects.some((c) => c.startsWith('localhost:')), `CONNECTs through the proxy: ${connects}`);
      // VS Code's http.noProxy: a listed host is contacted directly, the proxy sees nothing.
      await vscode.workspace.getConfiguration('http').update('noProxy', ['localhost'], vscode.ConfigurationTarget.Global);
      await waitFor('http.noProxy to reach the extension', () => api.services.settings().noProxy === 'localhost');
      // (other open documents keep asking 127.0.0.1 through the proxy: count only localhost)
      const toLocalhost = () => connects.filter((c) => c.startsWith('localhost:')).length;
      const viaProxy = toLocalhost();
      await vscode.commands.executeCommand('tofuRegistry.clearCache');
      const direct = await vscode.commands.executeCommand<{ services: Record<string, string> }>('tofuRegistry.showDiscovery', `localhost:${reg.origin.split(':').pop()}`);
      assert.ok(direct.services?.['modules.v1'], JSON.stringify(direct));
      assert.equal(toLocalhost(), viaProxy, 'the http.noProxy host bypasses the proxy');
    } finally {
      await vscode.workspace.getConfiguration('http').update('noProxy', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace.getConfiguration('http').update('proxy', undefined, vscode.ConfigurationTarget.Global);
      await waitFor('http.proxy removed', () => api.services.settings().proxy === '');
      await proxy.close();
    }
    const before = connects.length;
    await vscode.commands.executeCommand('tofuRegistry.clearCache');
    await vscode.commands.executeCommand('tofuRegistry.showDiscovery', H);
    assert.equal(connects.length, before, 'no proxy once the setting is gone');
  });

  it('commands: service discovery for a host, clear cache', async () => {
    const d = await vscode.commands.executeCommand<{ services: Record<string, string> }>('tofuRegistry.showDiscovery', H);
    assert.equal(d.services['modules.v1'], `${reg.origin}/v1/modules/`);
    const all = await vscode.commands.getCommands(true);
    for (const c of ['tofuRegistry.showDiscovery', 'tofuRegistry.clearCache', 'tofuRegistry.showLog']) assert.ok(all.includes(c), c);
    const n = reg.server.count('/.well-known/terraform.json');
    await vscode.commands.executeCommand('tofuRegistry.clearCache');
    await vscode.commands.executeCommand('tofuRegistry.showDiscovery', H);
    assert.equal(reg.server.count('/.well-known/terraform.json'), n + 1, 'cache cleared: discovery asked again');
  });
});
