// Run only with a Terraform language extension installed beside ours (scripts/run-vscode-tests.js
// --coexist loads test/fixtures/ext-terraform-like, which claims `.tf` for language id `terraform`
// and registers BEFORE us, as hashicorp.terraform does). We must not take `.tf` away from it, and
// our features must still work on its documents.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { FALLBACK_LANGUAGE } from '../../src/editor/language';
import { extensionApi, hoverText, openFile, positionOf, waitFor } from './editor-helpers';

describe('coexisting with a Terraform language extension', function () {
  this.timeout(60000);

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('.tf stays `terraform` (theirs) and our features still answer on it', async () => {
    await extensionApi();
    assert.ok(vscode.extensions.getExtension('fixture.terraform-like'), 'the Terraform-like fixture extension is installed');
    assert.ok((await vscode.languages.getLanguages()).includes('terraform'), 'language terraform is registered');
    const doc = await openFile('coexist.tf', 'module "net" {\n  source = "./modules/net"\n}\n');
    assert.equal(doc.languageId, 'terraform');
    await new Promise((r) => setTimeout(r, 500)); // our fallback would have switched it by now
    const now = vscode.workspace.textDocuments.find((d) => d.uri.toString() === doc.uri.toString())!;
    assert.equal(now.languageId, 'terraform');
    assert.match(await hoverText(now, positionOf(now, './modules/net', 2)), /Local path/);
  });

  it('.tofu, which it does not claim, gets our fallback language', async () => {
    const doc = await openFile('coexist.tofu', 'module "net" {\n  source = "./modules/net"\n}\n');
    await waitFor(`language ${FALLBACK_LANGUAGE} for coexist.tofu`, () =>
      vscode.workspace.textDocuments.find((d) => d.uri.toString() === doc.uri.toString())?.languageId === FALLBACK_LANGUAGE);
  });
});
