// Air-gapped setup in a real extension host: the CLI configuration named by the setting
// tofuRegistry.cliConfigFile routes registry.opentofu.org/hashicorp/* to a network mirror (served
// over HTTPS by the test registry). registry.opentofu.org itself is unreachable here (loopback
// only), so completion, hover and diagnostics can only work through the mirror.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TofuRegistryApi } from '../../src/extension';
import { sendJson } from '../support/https-server';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import {
  completions, extensionApi, hoverText, openFile, ourDiagnostics, positionOf, trustTestCa, versionLabels, waitFor, waitForCodes, workspaceDir,
} from './editor-helpers';

describe('air-gapped: provider versions from a network mirror (CLI configuration)', function () {
  this.timeout(60000);
  let reg: TestRegistry;
  let api: TofuRegistryApi;
  let rc: string;

  before(async () => {
    reg = await startTestRegistry();
    reg.server.route('/airgap/', (_req, res, url) => {
      if (url.pathname !== '/airgap/registry.opentofu.org/hashicorp/random/index.json') return void sendJson(res, 404, { errors: ['not found'] });
      sendJson(res, 200, { versions: { '3.5.1': {}, '3.6.0': {}, '3.6.2': {} } });
    });
    api = await extensionApi();
    await trustTestCa(api, reg);
    rc = path.join(workspaceDir(), '..', 'airgap.tofurc');
    fs.writeFileSync(rc, [
      'provider_installation {',
      '  network_mirror {',
      `    url     = "${reg.origin}/airgap/"`,
      '    include = ["registry.opentofu.org/hashicorp/*"]',
      '  }',
      '  direct {',
      '    exclude = ["registry.opentofu.org/hashicorp/*"]',
      '  }',
      '}', ''].join('\n'));
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', rc, vscode.ConfigurationTarget.Global);
    await waitFor('cliConfigFile setting to reach the extension', () => api.services.settings().cliConfigFile === rc);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await reg?.stop();
  });

  it('completes, hovers and checks hashicorp/random through the mirror while registry.opentofu.org is unreachable', async () => {
    const doc = await openFile('airgap.tf', [
      'terraform {', '  required_providers {', '    random = {', '      source  = "hashicorp/random"',
      '      version = ""', '    }', '  }', '}', ''].join('\n'));
    const items = await completions(doc, positionOf(doc, 'version = ""', 11));
    assert.deepEqual(versionLabels(items), ['3.6.2', '3.6.0', '3.5.1']);
    assert.match(String(items.find((i) => i.preselect)?.detail), /from network mirror https:\/\/127\.0\.0\.1:\d+\/airgap\//);
    assert.equal(reg.server.count('/airgap/registry.opentofu.org/hashicorp/random/index.json'), 1);

    // An unsatisfiable constraint is reported against the mirror's versions; nothing says the
    // (unreachable) registry.opentofu.org is unknown.
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(positionOf(doc, '""'), positionOf(doc, '""', 2)), '"~> 4.0"');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const [d] = await waitForCodes(doc.uri, ['unsatisfiable']);
    assert.match(d.message, /the newest is 3\.6\.2/);
    assert.ok(!ourDiagnostics(doc.uri).some((x) => x.code === 'unknown-host'));

    const hover = await hoverText(doc, positionOf(doc, '~> 4.0', 2));
    assert.match(hover, /Newest available: 3\.6\.2/);
    assert.match(hover, /Versions from network mirror https:\/\/127\.0\.0\.1:\d+\/airgap\//);
  });
});
