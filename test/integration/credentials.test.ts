// credentials_helper in a real extension host (trusted workspace): the CLI configuration named by
// tofuRegistry.cliConfigFile names a helper program; the extension runs it for the private
// registry's host, sends its token there only, and never writes the token or anything the helper
// printed on stderr to "Show log". A failing helper is named in the diagnostic with its exit code.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TofuRegistryApi } from '../../src/extension';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { HELPER_STDERR_MARKER, installHelper } from './credentials-helper';
import { completions, extensionApi, openFile, positionOf, trustTestCa, versionLabels, waitFor, waitForCodes, workspaceDir } from './editor-helpers';

const TOKEN = 'it-helper-token-7c1e';

describe('credentials helper (trusted workspace)', function () {
  this.timeout(60000);
  let reg: TestRegistry;
  let api: TofuRegistryApi;

  before(async () => {
    reg = await startTestRegistry({ token: TOKEN });
    api = await extensionApi();
    await trustTestCa(api, reg);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await reg?.stop();
  });

  async function useConfig(rc: string): Promise<void> {
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', rc, vscode.ConfigurationTarget.Global);
    await waitFor('cliConfigFile setting to reach the extension', () => api.services.settings().cliConfigFile === rc);
  }

  it('runs the helper for the registry host, sends its token only there, logs neither token nor stderr', async function () {
    const dir = path.join(workspaceDir(), '..');
    const ok = installHelper(dir, reg.host, TOKEN);
    if (!ok) return this.skip(); // the runner always sets XDG_DATA_HOME; another runner may not
    await useConfig(ok.rc);
    const doc = await openFile('helper.tf', `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = ""\n}\n`);
    const labels = versionLabels(await completions(doc, positionOf(doc, 'version = ""', 11)));
    assert.equal(labels.length, 9);
    // (Other open documents may make it ask for other hosts too — it has nothing for them.)
    assert.deepEqual(ok.calls().filter((c) => c.at(-1) === reg.host).map((c) => c.slice(-2)), [['get', reg.host]]);
    const api2 = reg.server.requests.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/.well-known/'));
    assert.ok(api2.length >= 2 && api2.every((r) => r.authorization === `Bearer ${TOKEN}`));
    assert.equal(reg.second.requests.length, 0);

    // A helper that fails: a new engine (the setting changed), the auth diagnostic names the helper.
    const failing = installHelper(dir, reg.host, TOKEN, 'fail')!;
    await useConfig(failing.rc);
    const doc2 = await openFile('helper-fail.tf', `module "s" {\n  source  = "${reg.host}/acme/storage/azurerm"\n  version = "1.0.0"\n}\n`);
    const [d] = await waitForCodes(doc2.uri, ['auth']);
    assert.match(d.message, /credentials_helper "ittest" \(.*terraform-credentials-ittest\) gave no token: exited with code 3 \(its error output is not shown/);
    for (const said of [HELPER_STDERR_MARKER, 'vault is sealed', 'SECOND-LINE-NOT-SHOWN']) assert.ok(!d.message.includes(said), d.message);
    assert.equal(failing.calls().filter((c) => c.at(-1) === reg.host).length, 1);
    const logFile = vscode.Uri.joinPath(api.logUri, 'OpenTofu Registry.log').fsPath;
    const log = await waitFor('the helper failure in the log', () => {
      const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      return /gave no token for .*: exited with code 3/.test(text) && text;
    });
    // The helper's stderr stays out entirely (both helpers wrote to it on every call).
    for (const said of [TOKEN, HELPER_STDERR_MARKER, 'vault is sealed', 'SECOND-LINE']) assert.ok(!log.includes(said), `${said} in the log`);
  });
});
