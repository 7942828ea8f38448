// `.terraform.lock.hcl` in the real extension host: diagnostics on the lock file and on the
// configuration, the hover on a provider block, the quick fix / command "Lock providers for all
// platforms" (written atomically, says what changed) — against the HTTPS test registry serving the
// zips tofu 1.9.4 locked (with OpenTofu 1.12 `packages`) and a second, generated provider.
import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { LockReport } from '../../src/engine/lock';
import type { TestRegistry } from '../support/registry-server';
import { extensionApi, hoverText, ourDiagnostics, positionOf, trustTestCa, waitFor, workspaceDir } from './editor-helpers';
import { KNOWN, startLockRegistry } from './lock-registry';

const TEAM = ['darwin_arm64', 'linux_amd64'];

describe('lock files (real extension host, HTTPS test registry)', function () {
  this.timeout(60_000);
  let reg: TestRegistry;
  let dir: string;
  let H: string;
  const lockPath = () => join(dir, '.terraform.lock.hcl');
  const codes = (uri: vscode.Uri) => ourDiagnostics(uri).map((d) => String(d.code)).filter((c) => c.startsWith('lock-')).sort();
  const waitCodes = (uri: vscode.Uri, want: string[]) => waitFor(`lock diagnostics ${want.join(', ')} on ${uri.fsPath} (have ${codes(uri).join(', ')})`,
    () => JSON.stringify(codes(uri)) === JSON.stringify([...want].sort()));

  before(async () => {
    const lr = await startLockRegistry();
    reg = lr.reg;
    H = reg.host;
    // example/fake: the zips and SHA256SUMS the real tofu 1.9.4 locked, with `packages`.
    await lr.serve(await lr.knownFake());
    await lr.serve(await lr.build('widget', ['2.0.0'], ['darwin_arm64', 'linux_amd64', 'windows_amd64']));
    const api = await extensionApi();
    await trustTestCa(api, reg);
    await vscode.workspace.getConfiguration('tofuRegistry').update('lock.platforms', TEAM, vscode.ConfigurationTarget.Global);
    dir = join(workspaceDir(), 'lock-it');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    fake = {\n      source  = "${H}/example/fake"\n      version = "~> 1.0"\n    }\n  }\n}\n\nmodule "app" {\n  source = "./app"\n}\n`);
    mkdirSync(join(dir, 'app'), { recursive: true });
    writeFileSync(join(dir, 'app', 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source = "${H}/acme/widget"\n    }\n  }\n}\n`);
    // tofu 1.9.4's lock for 1.0.0 on linux_amd64 only, plus a provider nobody requires any more.
    const before = readFileSync(join(KNOWN, 'existing-lock', 'lock-before.hcl'), 'utf8').split('registry.peer.test').join(H);
    writeFileSync(lockPath(), `${before}\nprovider "${H}/acme/gone" {\n  version = "0.1.0"\n}\n`);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('tofuRegistry').update('lock.platforms', undefined, vscode.ConfigurationTarget.Global);
    rmSync(dir, { recursive: true, force: true });
    await reg?.stop();
  });

  it('diagnostics: a team platform without h1:, a provider no longer required, one missing from the lock, a version outside the constraint', async () => {
    const lockDoc = await vscode.workspace.openTextDocument(lockPath());
    await vscode.window.showTextDocument(lockDoc);
    await waitCodes(lockDoc.uri, ['lock-missing-platform', 'lock-stale-provider']);
    const missing = ourDiagnostics(lockDoc.uri).find((d) => d.code === 'lock-missing-platform')!;
    assert.match(missing.message, /1\.0\.0 has no h1: hash for darwin_arm64/);
    assert.equal(lockDoc.getText(missing.range), `provider "${H}/example/fake"`);
    // The child module's provider is not in the lock: reported where the child requires it.
    const app = vscode.Uri.file(join(dir, 'app', 'main.tf'));
    await waitCodes(app, ['lock-missing-provider']);
    // Unsaved edits count: a constraint the locked 1.0.0 does not meet.
    const main = await vscode.workspace.openTextDocument(join(dir, 'main.tf'));
    const editor = await vscode.window.showTextDocument(main);
    await editor.edit((e) => e.replace(main.getWordRangeAtPosition(positionOf(main, '~> 1.0', 1), /~> 1\.0/)!, '>= 1.1'));
    await waitCodes(main.uri, ['lock-version-mismatch']);
    await waitCodes(lockDoc.uri, ['lock-stale-provider', 'lock-version-mismatch']);
    assert.match(ourDiagnostics(main.uri)[0].message, /Locked version 1\.0\.0 of .*example\/fake does not match the configured constraints >= 1\.1\.0/);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitCodes(lockDoc.uri, ['lock-missing-platform', 'lock-stale-provider']);
  });

  it('hover on a provider block: locked version, what the configuration requires, newest, platforms the hashes cover', async () => {
    const lockDoc = await vscode.workspace.openTextDocument(lockPath());
    const text = await hoverText(lockDoc, positionOf(lockDoc, 'version     = "1.0.0"'));
    assert.match(text, /\*\*Provider lock\*\* `[^`]*example\/fake`/);
    assert.match(text, /Locked version: \*\*1\.0\.0\*\*/);
    assert.match(text, /Configuration requires: `~> 1\.0` \(root module\)/);
    assert.match(text, /Newest version: \*\*1\.1\.0\*\*\n/);
    assert.match(text, /`h1:` covers: linux\\_amd64/);
    assert.match(text, /No `h1:` for team platform darwin\\_arm64/);
    assert.match(text, /`zh:` covers \(SHA256SUMS\): darwin\\_arm64, linux\\_amd64, windows\\_amd64/);
  });

  it('quick fix "Lock providers for all platforms": writes the lock atomically and says what changed', async () => {
    const lockDoc = await vscode.workspace.openTextDocument(lockPath());
    const diag = ourDiagnostics(lockDoc.uri).find((d) => d.code === 'lock-missing-platform')!;
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', lockDoc.uri, diag.range);
    const fix = actions.find((a) => a.title === 'Lock providers for all platforms');
    assert.ok(fix?.command, `quick fix offered (got: ${actions.map((a) => a.title).join(', ')})`);
    const shown: string[] = [];
    const w = vscode.window as unknown as Record<string, unknown>;
    const original = w.showInformationMessage;
    w.showInformationMessage = (m: string) => { shown.push(m); return Promise.resolve(undefined); };
    let res: { report: LockReport; message: string };
    try {
      res = await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    } finally {
      w.showInformationMessage = original;
    }
    assert.deepEqual(res.report.failed, []);
    const f = res.report.lockFiles[0];
    assert.equal(f.changed, true);
    assert.deepEqual(f.providers.map((p) => [p.provider.split('/').slice(1).join('/'), p.version, p.platforms]), [
      ['acme/widget', '2.0.0', ['darwin_arm64', 'linux_amd64', 'windows_amd64']],
      ['example/fake', '1.0.0', ['darwin_arm64', 'linux_amd64', 'windows_amd64']],
    ]);
    assert.equal(shown.length, 1);
    assert.match(shown[0], /lock-it\/\.terraform\.lock\.hcl updated: 1 provider\(s\) added \([^)]*acme\/widget\); platforms added: darwin_arm64, windows_amd64\./);
    const text = readFileSync(lockPath(), 'utf8');
    assert.ok(text.startsWith('# This file is maintained automatically by "tofu init".\n'));
    assert.ok(text.includes('"h1:0y60UjSZwjl8+WCGm9nz2ZiEJ9+heLv7HSrArTAO9K0="'), 'tofu\'s linux_amd64 h1: kept');
    assert.ok(text.includes('"h1:yJvLoIqhxLNF+jT8glF9l4qJ/rS2Vd9Romcexj8BLOE="'), 'the darwin_arm64 h1: tofu computed, from packages');
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.') && n !== '.terraform.lock.hcl'), [], 'no temp file left');
    await waitCodes(lockDoc.uri, ['lock-stale-provider']);
    await waitCodes(vscode.Uri.file(join(dir, 'app', 'main.tf')), []);
  });

  it('broken syntax in the lock file is a diagnostic (and the rest of the file is still read)', async () => {
    const lockDoc = await vscode.workspace.openTextDocument(lockPath());
    const editor = await vscode.window.showTextDocument(lockDoc);
    await editor.edit((e) => e.insert(lockDoc.positionAt(lockDoc.getText().indexOf('  hashes = [')), '  version = "1.0.0\n'));
    await waitFor('a lock-file diagnostic', () => ourDiagnostics(lockDoc.uri).some((d) => d.code === 'lock-file' && d.severity === vscode.DiagnosticSeverity.Error));
    assert.ok(codes(lockDoc.uri).includes('lock-stale-provider'), 'the other blocks are still understood');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });
});
