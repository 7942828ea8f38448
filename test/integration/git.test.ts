// Git-sourced module calls in a real VS Code extension host, against a real smart-HTTP git remote
// (git http-backend behind the HTTPS test server, test CA through tofuRegistry.caFile): ref
// completion inside ?ref=, the hover naming the commit, a missing ref diagnosed on the ref, and the
// "Update ref to newest tag" quick fix.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TofuRegistryApi } from '../../src/extension';
import { GitHttpServer, makeRepo, MadeRepo, startGitHttpServer } from '../support/git-server';
import { testPki } from '../support/tls';
import { completions, extensionApi, hoverText, labelOf, openFile, positionOf, waitFor, waitForCodes } from './editor-helpers';

describe('git module sources (real extension host, smart HTTP git remote over TLS)', function () {
  this.timeout(60000);
  let srv: GitHttpServer;
  let repo: MadeRepo;
  let api: TofuRegistryApi;
  let base: string;

  before(async () => {
    srv = await startGitHttpServer();
    repo = makeRepo(srv.root, 'net', { tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }, { name: 'stable' }], branches: ['develop'] });
    base = `git::${srv.origin}/net.git`;
    api = await extensionApi();
    const ca = testPki().caCertPath;
    await vscode.workspace.getConfiguration('tofuRegistry').update('caFile', ca, vscode.ConfigurationTarget.Global);
    await waitFor('settings to reach the extension', () => api.services.settings().caFile === ca);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await srv?.stop();
  });

  it('completes refs inside ?ref= (tags as versions, then branches) and hovers the commit', async () => {
    const doc = await openFile('git-completion.tf', `module "net" {\n  source = "${base}//vpc?ref=v1.0.0"\n}\n`);
    const items = await waitFor('ref items', async () => {
      const got = await completions(doc, positionOf(doc, 'ref=v1.0.0', 6));
      return got.some((i) => labelOf(i) === 'v1.1.0') ? got : undefined;
    });
    const ours = items.filter((i) => i.sortText && /^\d{5}$/.test(i.sortText)).sort((a, b) => a.sortText!.localeCompare(b.sortText!));
    assert.deepEqual(ours.map(labelOf), ['v1.1.0', 'v1.0.0', 'stable', 'main', 'develop']);
    assert.equal(ours.find((i) => i.preselect) && labelOf(ours.find((i) => i.preselect)!), 'v1.0.0');
    assert.equal(doc.getText(ours[0].range as vscode.Range), 'v1.0.0', 'the ref value is replaced');
    const text = await waitFor('the hover with the commit', async () => {
      const t = await hoverText(doc, positionOf(doc, 'net.git', 2));
      return t.includes('commit') ? t : undefined;
    });
    assert.ok(text.includes(repo.commits['v1.0.0']), text);
  });

  it('diagnoses a missing ref on the ref; "Update ref to newest tag" rewrites it', async () => {
    const doc = await openFile('git-missing.tf', `module "net" {\n  source = "${base}//vpc?ref=v0.9.0&depth=1"\n}\n`);
    const [d] = await waitForCodes(doc.uri, ['ref-not-found']);
    assert.equal(doc.getText(d.range), 'v0.9.0');
    const at = positionOf(doc, 'net.git', 1);
    const fixed = await openFile('git-update.tf', `module "net" {\n  source = "${base}//vpc?ref=v1.0.0&depth=1"\n}\n`);
    const update = await waitFor('the update-ref fix', async () => {
      const a = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', fixed.uri, new vscode.Range(at, at));
      return a?.find((x) => x.title.startsWith('Update ref to newest tag'));
    });
    assert.equal(update.title, 'Update ref to newest tag v1.1.0 (currently v1.0.0)');
    assert.ok(await vscode.workspace.applyEdit(update.edit!));
    assert.ok(fixed.getText().includes(`source = "${base}//vpc?ref=v1.1.0&depth=1"`), fixed.getText());
  });
});
