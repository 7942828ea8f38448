// "Lock providers for all platforms" and the team's platforms in the real extension host, against
// the HTTPS test registry: the default of tofuRegistry.lock.platforms (current platform plus
// linux_amd64) in the missing-platform diagnostic, cancelling from the progress notification (the
// lock file left byte for byte), and the quick fix on a locked version outside the constraint
// (that provider relocked, the others' entries untouched).
import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { LockReport } from '../../src/engine/lock';
import { h1OfZip } from '../../src/engine/providerpkg/hash';
import { HOST_PLATFORM } from '../support/platform';
import type { BuiltRelease } from '../support/provider-packages';
import { extensionApi, ourDiagnostics, trustTestCa, waitFor, windowStubs, workspaceDir } from './editor-helpers';
import { KNOWN, LockRegistry, startLockRegistry } from './lock-registry';

const TEAM = ['darwin_arm64', 'linux_amd64'];
const LOCK = '.terraform.lock.hcl';
const HEADER = '# This file is maintained automatically by "tofu init".\n# Manual edits may be lost in future updates.\n';

describe('Lock providers command and team platforms (real extension host, HTTPS test registry)', function () {
  this.timeout(60_000);
  let lr: LockRegistry;
  let H: string;
  let widget: BuiltRelease[];
  const made: string[] = [];
  const { stub, restoreAll } = windowStubs();
  const cfg = () => vscode.workspace.getConfiguration('tofuRegistry');
  const setTeam = (value: string[] | undefined) => cfg().update('lock.platforms', value, vscode.ConfigurationTarget.Global);
  const codes = (uri: vscode.Uri) => ourDiagnostics(uri).map((d) => String(d.code)).filter((c) => c.startsWith('lock-')).sort();
  const waitCodes = (uri: vscode.Uri, want: string[]) => waitFor(`lock diagnostics ${want.join(', ')} on ${uri.fsPath} (have ${codes(uri).join(', ')})`,
    () => JSON.stringify(codes(uri)) === JSON.stringify([...want].sort()));
  /** A root module in the workspace (removed after the suite). */
  const rootModule = (name: string, providers: Record<string, string | undefined>, lock: string) => {
    const dir = join(workspaceDir(), name);
    mkdirSync(dir, { recursive: true });
    made.push(dir);
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n${Object.entries(providers).map(([source, version]) =>
      `    ${source.split('/').pop()} = {\n      source  = "${H}/${source}"\n${version ? `      version = "${version}"\n` : ''}    }\n`).join('')}  }\n}\n`);
    writeFileSync(join(dir, LOCK), lock);
    return dir;
  };
  const snapshot = (path: string) => ({ text: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs, ino: statSync(path).ino });
  /** A lock block as tofu writes it (no constraints line: the configuration sets none). */
  const block = (address: string, version: string, hashes: string[]) =>
    `provider "${address}" {\n  version = "${version}"\n  hashes = [\n${hashes.map((h) => `    "${h}",\n`).join('')}  ]\n}\n`;
  /** Every hash `packages` lists for a release (h1: and zh: of each platform), sorted as tofu sorts. */
  const allHashes = async (rel: BuiltRelease) =>
    [...new Set((await Promise.all(rel.packages.map(async (p) => [await h1OfZip(p.path), `zh:${p.sha256}`]))).flat())].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  before(async () => {
    lr = await startLockRegistry();
    H = lr.reg.host;
    await lr.serve(await lr.knownFake());
    widget = await lr.build('widget', ['2.0.0', '2.1.0'], ['darwin_arm64', 'linux_amd64', 'windows_amd64']);
    await lr.serve(widget);
    await lr.serve(await lr.build('team', ['1.0.0'], [...new Set([HOST_PLATFORM, 'linux_amd64', 'darwin_arm64', 'windows_amd64'])]));
    // No `packages`: its archives are downloaded (and made to hang below).
    await lr.serve(await lr.build('slow', ['1.0.0'], ['darwin_arm64', 'linux_amd64']), false);
    await trustTestCa(await extensionApi(), lr.reg);
  });
  afterEach(restoreAll);
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await setTeam(undefined);
    for (const d of made) rmSync(d, { recursive: true, force: true });
    await lr?.reg.stop();
  });

  it('tofuRegistry.lock.platforms unset: the missing-platform diagnostic names exactly the current platform and linux_amd64', async () => {
    await setTeam(undefined);
    const inspected = cfg().inspect<string[]>('lock.platforms');
    assert.deepEqual([inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue], [undefined, undefined, undefined], 'the setting is unset');
    const dir = rootModule('lock-default-platforms', { 'acme/team': undefined }, `${HEADER}\nprovider "${H}/acme/team" {\n  version = "1.0.0"\n}\n`);
    const doc = await vscode.workspace.openTextDocument(join(dir, LOCK));
    await vscode.window.showTextDocument(doc);
    await waitCodes(doc.uri, ['lock-missing-platform']);
    const expected = [...new Set([HOST_PLATFORM, 'linux_amd64'])];
    const [diag] = ourDiagnostics(doc.uri);
    assert.ok(diag.message.startsWith(`${H}/acme/team 1.0.0 has no h1: hash for ${expected.join(', ')}: tofu init on`), diag.message);
  });

  it('cancelling "Lock providers for all platforms" from its progress notification leaves the lock file byte for byte', async () => {
    await setTeam(TEAM);
    const before = readFileSync(join(KNOWN, 'existing-lock', 'lock-before.hcl'), 'utf8').split('registry.peer.test').join(H);
    const dir = rootModule('lock-cancel', { 'example/fake': '~> 1.0', 'acme/slow': undefined }, before);
    const lockFile = join(dir, LOCK);
    const was = snapshot(lockFile);
    for (const p of TEAM) lr.files.fault(`terraform-provider-slow_1.0.0_${p}.zip`, { kind: 'hang' });
    const cts = new vscode.CancellationTokenSource();
    let options: vscode.ProgressOptions | undefined;
    const real = vscode.window.withProgress;
    stub('withProgress', (o: vscode.ProgressOptions, task: (p: vscode.Progress<unknown>, t: vscode.CancellationToken) => Thenable<unknown>) => {
      if (o.title !== 'Locking providers') return real(o, task as never); // other features' progress goes to VS Code
      options = o;
      return task({ report: () => undefined }, cts.token);
    });
    try {
      lr.reg.server.resetLog();
      const run = vscode.commands.executeCommand<{ report: LockReport }>('tofuRegistry.lockProviders', { dirs: [dir], show: false });
      await waitFor('an archive of acme/slow is being downloaded', () => lr.reg.server.requests.some((r) => r.path.includes('/terraform-provider-slow_1.0.0_')));
      cts.cancel();
      const res = await run;
      assert.equal(options?.cancellable, true);
      assert.equal(options?.location, vscode.ProgressLocation.Notification);
      assert.ok(res.report.failed.length > 0 && res.report.failed.every((f) => f.step === 'cancelled'), JSON.stringify(res.report.failed));
      assert.equal(res.report.lockFiles[0].changed, false);
      assert.deepEqual(snapshot(lockFile), was);
      assert.deepEqual(readdirSync(dir).sort(), [LOCK, 'main.tf'], 'no temp file left');
    } finally {
      for (const p of TEAM) lr.files.fault(`terraform-provider-slow_1.0.0_${p}.zip`, undefined);
    }
  });

  it('quick fix on a locked version outside the constraint: relocks only that provider, for the team platforms; the other entries unchanged', async () => {
    await setTeam(TEAM);
    const fakeBefore = readFileSync(join(KNOWN, 'existing-lock', 'lock-before.hcl'), 'utf8').split('registry.peer.test').join(H).slice(HEADER.length + 1);
    const widgetBlock = block(`${H}/acme/widget`, '2.0.0', await allHashes(widget[0]));
    // widget 2.1.0 exists: relocking every provider with upgrade would move it too.
    const dir = rootModule('lock-mismatch', { 'example/fake': '>= 1.1', 'acme/widget': undefined }, `${HEADER}\n${widgetBlock}\n${fakeBefore}`);
    const doc = await vscode.workspace.openTextDocument(join(dir, LOCK));
    await vscode.window.showTextDocument(doc);
    await waitCodes(doc.uri, ['lock-version-mismatch']);
    const diag = ourDiagnostics(doc.uri)[0];
    assert.match(diag.message, /Locked version 1\.0\.0 of \S+\/example\/fake does not match the configured constraints >= 1\.1\.0/);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, diag.range);
    const fix = actions.find((a) => a.title === `Lock providers for all platforms (select a new version of ${H}/example/fake)`);
    assert.ok(fix?.command, `quick fix offered (got: ${actions.map((a) => a.title).join(', ')})`);
    const shown: string[] = [];
    stub('showInformationMessage', (m: string) => { shown.push(m); return Promise.resolve(undefined); });
    const res = await vscode.commands.executeCommand<{ report: LockReport }>(fix.command.command, ...(fix.command.arguments ?? []));
    assert.deepEqual(res.report.failed, []);
    assert.equal(res.report.lockFiles[0].changed, true);
    assert.match(shown[0] ?? '', /version changed: \S+\/example\/fake 1\.0\.0 → 1\.1\.0\./);
    // fake 1.1.0 exactly as tofu 1.9.4 locked it for all its platforms (the team's among them,
    // every platform from `packages`), under this constraint; widget's entry byte for byte.
    const tofuFake = readFileSync(join(KNOWN, 'child-module', 'expected.terraform.lock.hcl'), 'utf8').split('registry.peer.test').join(H)
      .slice(HEADER.length + 1).replace('constraints = ">= 1.0.0, ~> 1.1, < 2.0.0"', 'constraints = ">= 1.1.0"');
    assert.equal(readFileSync(join(dir, LOCK), 'utf8'), `${HEADER}\n${widgetBlock}\n${tofuFake}`);
    const report = res.report.lockFiles[0].providers.map((p) => [p.provider.split('/').slice(1).join('/'), p.previousVersion, p.version]);
    assert.deepEqual(report, [['acme/widget', '2.0.0', '2.0.0'], ['example/fake', '1.0.0', '1.1.0']]);
    for (const p of res.report.lockFiles[0].providers) assert.ok(TEAM.every((t) => p.platforms.includes(t)), `${p.provider}: h1: for ${TEAM.join(', ')}`);
    await waitCodes(doc.uri, []);
  });
});
