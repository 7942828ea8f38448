// Run only in an UNTRUSTED workspace: a CLI configuration that names a credentials_helper is read,
// but the helper program is never run (and nothing reaches the registry).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { installHelper } from './credentials-helper';
import { completions, extensionApi, hoverText, openFile, positionOf, workspaceDir } from './editor-helpers';

describe('untrusted workspace: credentials helpers are never run', function () {
  this.timeout(60000);
  let reg: TestRegistry;

  before(async () => {
    reg = await startTestRegistry({ token: 'never-sent' });
  });

  after(async () => {
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await reg?.stop();
  });

  it('hover, completion, diagnostics and discovery run no helper', async function () {
    assert.equal(vscode.workspace.isTrusted, false, 'this suite runs in an untrusted workspace');
    const helper = installHelper(path.join(workspaceDir(), '..'), reg.host, 'never-sent');
    if (!helper) return this.skip();
    const api = await extensionApi();
    // User settings apply in an untrusted workspace too: the CLI configuration is the user's own.
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', helper.rc, vscode.ConfigurationTarget.Global);
    const doc = await openFile('untrusted-helper.tf', `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = ""\n}\n`);
    assert.match(await hoverText(doc, positionOf(doc, 'acme/network', 2)), /untrusted workspace/);
    await completions(doc, positionOf(doc, 'version = ""', 11));
    await vscode.commands.executeCommand('tofuRegistry.showDiscovery', reg.host);
    await new Promise((r) => setTimeout(r, 1500)); // give a stray helper run time to show up
    assert.equal(api.services.settings().cliConfigFile, helper.rc, 'the configuration naming the helper was read');
    assert.deepEqual(helper.calls(), [], 'the helper never ran');
    assert.equal(reg.server.requests.length, 0);
  });
});
