// "OpenTofu: Export SBOM…" inside the real extension host, against the HTTPS test registry (token
// from the CLI configuration the settings name): with arguments that skip the prompts (the
// document with each fetched package's SHA-256, no token in it), and from the explorer's folder
// menu (a folder Uri): format picked, file chosen in the save dialog, cancellable progress, the
// file opened.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { SbomExportResult } from '../../src/features/sbom';
import { extensionApi, waitFor, windowStubs } from './editor-helpers';
import { MODULE_TOKEN, startModuleOrigin, ModuleOrigin } from '../support/module-origin';
import { tempDir } from '../support/temp';

describe('Export SBOM command', function () {
  this.timeout(60_000);
  let o: ModuleOrigin;
  let outDir: string;
  const previous: Record<string, string | undefined> = {};
  const { stub, restoreAll } = windowStubs();
  afterEach(restoreAll);

  before(async () => {
    o = await startModuleOrigin();
    outDir = tempDir('it-sbom-out-');
    const api = await extensionApi();
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    for (const [key, value] of [['caFile', o.reg.caCertPath], ['cliConfigFile', o.rcFile]]) {
      previous[key] = cfg.inspect<string>(key)?.globalValue;
      await cfg.update(key, value, vscode.ConfigurationTarget.Global);
    }
    await waitFor('the settings to reach the engine', () => api.services.settings().caFile === o.reg.caCertPath && api.services.settings().cliConfigFile === o.rcFile);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    for (const [key, value] of Object.entries(previous)) await cfg.update(key, value, vscode.ConfigurationTarget.Global);
    await o?.stop();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('writes the CycloneDX document of a folder: registry modules (nested ones too) with their package hashes, no token', async () => {
    const h = o.reg.host;
    const ws = o.workspace('sbom-it', { 'main.tf': `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "~> 1.0"\n}\n` });
    const out = join(outDir, 'sbom.cdx.json');
    const res = await vscode.commands.executeCommand<SbomExportResult | undefined>('tofuRegistry.exportSbom', { dirs: [ws], format: 'cyclonedx', out });
    assert.ok(res, 'the command returned a result');
    assert.equal(res.out, out);
    const text = readFileSync(out, 'utf8');
    assert.ok(!text.includes(MODULE_TOKEN), 'no token in the document');
    const doc = JSON.parse(text) as { specVersion: string; components: Array<{ 'bom-ref': string; version?: string; hashes?: Array<{ alg: string; content: string }> }> };
    assert.equal(doc.specVersion, '1.6');
    const app = doc.components.find((c) => c['bom-ref'] === `module:${h}/acme/app/aws@1.1.0`);
    assert.ok(app, text);
    assert.equal(app.hashes?.length, 1);
    assert.match(app.hashes[0].content, /^[0-9a-f]{64}$/);
    // the hash is the archive's as the registry served it
    const archive = await fetchBuffer(o, '/archives/app/1.1.0.tar.gz');
    assert.equal(app.hashes[0].content, createHash('sha256').update(archive).digest('hex'));
    assert.ok(doc.components.some((c) => c['bom-ref'].startsWith(`module:${h}/acme/base/aws@`)), 'the module app calls is listed too');
  });

  it('from a folder\'s context menu: picks the format, asks where to save (defaulting into the folder), shows cancellable progress and opens the file', async () => {
    const h = o.reg.host;
    const ws = o.workspace('sbom-menu', { 'main.tf': `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "~> 1.0"\n}\n` });
    const out = join(outDir, 'picked.spdx.json');
    const picks: string[][] = [];
    const dialogs: vscode.SaveDialogOptions[] = [];
    let cancellable: boolean | undefined;
    stub('showQuickPick', async (items: Array<vscode.QuickPickItem & { format: string }>) => {
      picks.push(items.map((i) => i.label));
      return items.find((i) => i.format === 'spdx');
    });
    stub('showSaveDialog', async (d: vscode.SaveDialogOptions) => { dialogs.push(d); return vscode.Uri.file(out); });
    const withProgress = vscode.window.withProgress;
    stub('withProgress', (opts: vscode.ProgressOptions, task: Parameters<typeof withProgress>[1]) => { cancellable = opts.cancellable; return withProgress(opts, task); });
    const res = await vscode.commands.executeCommand<SbomExportResult | undefined>('tofuRegistry.exportSbom', vscode.Uri.file(ws));
    assert.ok(res);
    assert.deepEqual(picks, [['CycloneDX 1.6 JSON', 'SPDX 2.3 JSON']]);
    assert.equal(dialogs[0].defaultUri?.fsPath, join(ws, 'sbom.spdx.json'));
    assert.equal(cancellable, true);
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).spdxVersion, 'SPDX-2.3');
    await waitFor('the document to open', () => vscode.window.activeTextEditor?.document.uri.fsPath === out);
  });
});

/** A file the registry serves (no token needed for archives), as bytes. */
async function fetchBuffer(o: ModuleOrigin, p: string): Promise<Buffer> {
  const engine = o.engine();
  try {
    return (await engine.http.getBuffer(`${o.reg.origin}${p}`, { maxBytes: 1 << 20 })).body;
  } finally {
    await engine.dispose();
  }
}
