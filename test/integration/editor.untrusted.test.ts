// Run only in an UNTRUSTED workspace (scripts/run-vscode-tests.js --untrusted): the extension still
// parses and checks offline, but no request may reach the registry (counted on the server).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { completions, extensionApi, hoverText, openFile, positionOf, trustTestCa, versionLabels, waitForCodes } from './editor-helpers';

describe('untrusted workspace: no network requests', function () {
  this.timeout(60000);
  let reg: TestRegistry;

  before(async () => {
    reg = await startTestRegistry();
    reg.addModule({ namespace: 'edtest', name: 'network', system: 'aws', versions: ['1.0.0', '2.0.0'] });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await reg?.stop();
  });

  it('activates in restricted mode, answers offline, and sends nothing to the registry', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'this suite runs in an untrusted workspace');
    const api = await extensionApi();
    await trustTestCa(api, reg).catch(() => undefined); // restricted setting: may be ignored, must not matter
    const doc = await openFile('untrusted.tf', [
      'module "net" {', `  source  = "${reg.host}/edtest/network/aws"`, '  version = ""', '}',
      'terraform {', '  required_providers {', '    cloud = {', `      source  = "${reg.host}/edtest/cloud"`,
      '      version = "v1.0"', '    }', '  }', '}', ''].join('\n'));
    const hover = await hoverText(doc, positionOf(doc, 'edtest/network', 2));
    assert.match(hover, /untrusted workspace/);
    assert.match(hover, /Registry module/);
    assert.deepEqual(versionLabels(await completions(doc, positionOf(doc, 'version = ""', 11))), []);
    // offline checks still run: the provider's "v" prefix is reported without any request
    await waitForCodes(doc.uri, ['malformed-constraint', 'malformed-constraint']); // "" and "v1.0"
    await vscode.commands.executeCommand('tofuRegistry.showDiscovery', reg.host);
    // "Mirror providers" refuses in an untrusted workspace: no request, nothing written.
    const mirrorOut = vscode.Uri.joinPath(doc.uri, '..', 'untrusted-mirror-out');
    assert.equal(await vscode.commands.executeCommand('tofuRegistry.mirrorProviders',
      { out: mirrorOut.fsPath, dirs: [vscode.Uri.joinPath(doc.uri, '..').fsPath], platforms: ['linux_amd64'], show: false }), undefined);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(mirrorOut)), 'the mirror output folder was not created');
    // "Mirror modules" too.
    assert.equal(await vscode.commands.executeCommand('tofuRegistry.mirrorModules',
      { out: mirrorOut.fsPath, dirs: [vscode.Uri.joinPath(doc.uri, '..').fsPath], show: false }), undefined);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(mirrorOut)), 'the module mirror output folder was not created');
    await new Promise((r) => setTimeout(r, 1500)); // give any stray request time to arrive
    assert.equal(reg.server.requests.length, 0, `requests: ${reg.server.requests.map((r) => r.path)}`);
  });

  it('lock files: diagnostics and hover offline; "Lock providers for all platforms" refuses; nothing sent', async () => {
    const main = await openFile('untrusted-lock/main.tf', `terraform {\n  required_providers {\n    cloud = {\n      source  = "${reg.host}/edtest/cloud"\n      version = "~> 1.0"\n    }\n  }\n}\n`);
    const lockDoc = await openFile('untrusted-lock/.terraform.lock.hcl', `provider "${reg.host}/edtest/gone" {\n  version = "1.0.0"\n}\n`);
    await waitForCodes(lockDoc.uri, ['lock-stale-provider']);
    await waitForCodes(main.uri, ['lock-missing-provider']);
    assert.match(await hoverText(lockDoc, positionOf(lockDoc, 'version')), /untrusted workspace/);
    const dir = vscode.Uri.joinPath(main.uri, '..').fsPath;
    assert.equal(await vscode.commands.executeCommand('tofuRegistry.lockProviders', { dirs: [dir], show: false }), undefined);
    assert.equal(lockDoc.getText(), `provider "${reg.host}/edtest/gone" {\n  version = "1.0.0"\n}\n`);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(reg.server.requests.length, 0, `requests: ${reg.server.requests.map((r) => r.path)}`);
  });
});
