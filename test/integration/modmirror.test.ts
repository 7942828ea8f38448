// "OpenTofu: Mirror modules" inside the real extension host, against the HTTPS test registry (token
// from the CLI configuration the settings name) and a git server: with arguments that skip the
// prompts, interactively (QuickPick, folder dialog remembered, progress per module version,
// Markdown report with the host blocks), from the explorer's folder menu (a folder Uri), and
// cancelled from the progress notification.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ModuleMirrorReport } from '../../src/engine/modmirror';
import { extensionApi, waitFor, windowStubs, workspaceDir } from './editor-helpers';
import { startModuleOrigin, ModuleOrigin } from '../support/module-origin';
import { tempDir } from '../support/temp';

type Result = { report: ModuleMirrorReport; markdown: string } | undefined;

describe('Mirror modules command', function () {
  this.timeout(60_000);
  let o: ModuleOrigin;
  const previous: Record<string, string | undefined> = {};
  const { stub, restoreAll } = windowStubs();
  afterEach(restoreAll);

  before(async () => {
    o = await startModuleOrigin();
    const api = await extensionApi();
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    for (const [key, value] of [['caFile', o.reg.caCertPath], ['cliConfigFile', o.rcFile]]) {
      previous[key] = cfg.inspect<string>(key)?.globalValue;
      await cfg.update(key, value, vscode.ConfigurationTarget.Global);
    }
    await waitFor('the settings to reach the engine', () => api.services.settings().caFile === o.reg.caCertPath && api.services.settings().cliConfigFile === o.rcFile);
  });

  after(async () => {
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    for (const [key, value] of Object.entries(previous)) await cfg.update(key, value, vscode.ConfigurationTarget.Global);
    await o?.stop();
  });

  it('mirrors the workspace\'s registry modules (nested and git-backed ones too); an unchanged re-run fetches nothing', async () => {
    const h = o.reg.host;
    const ws = o.workspace('it', {
      'main.tf': `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "~> 1.0"\n}\n\nmodule "git" {\n  source = "${h}/acme/gitmod/aws"\n}\n\nmodule "direct" {\n  source = "git::https://git.example.com/direct.git"\n}\n`,
    });
    const out = join(tempDir('it-modmirror-out-'), 'site');
    const res = await vscode.commands.executeCommand<Result>('tofuRegistry.mirrorModules', { out, dirs: [ws], show: false });
    assert.ok(res, 'the command returned a result');
    assert.deepEqual(res.report.failed, []);
    assert.deepEqual(res.report.mirrored.map((m) => `${m.module} ${m.version}`),
      ['app/aws 1.1.0', 'base/aws 1.1.0', 'gitmod/aws 1.0.0', 'leaf/aws 0.1.0'].map((m) => `${h}/acme/${m}`));
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'modules', h, 'acme', 'gitmod', 'aws', '1.0.0', 'download'), 'utf8')), { location: '../1.0.0.tar.gz//sub' });
    assert.ok(existsSync(join(out, 'modules', h, 'acme', 'gitmod', 'aws', '1.0.0.tar.gz')));
    assert.match(res.markdown, /^# Module mirror — ✔ complete/);
    assert.match(res.markdown, /\| 4 \| 0 \| 0 \| 2 \|/);
    assert.ok(res.markdown.includes(`host "${h}" {\n  services = {\n    "modules.v1"   = "https://mirror.example.com/modules/${h}/"`), res.markdown);
    assert.match(res.markdown, /## Not mirrorable without changing the source\n\n\| source \| reason \|\n\|---\|---\|\n\| `git::https:\/\/git\.example\.com\/direct\.git` \| Git repository: /);

    o.reg.server.resetLog();
    o.git.resetLog();
    const again = await vscode.commands.executeCommand<Result>('tofuRegistry.mirrorModules', { out, dirs: [ws], show: false });
    assert.equal(again?.report.upToDate.length, 4);
    assert.deepEqual(o.counts(), { registry: 0, archives: 0, git: 0 }, 'nothing fetched or cloned (the editor keeps discovery and version lists cached)');
  });

  it('interactive: picks configurations, asks for the output folder (remembered), reports progress per module version, opens the report', async () => {
    const h = o.reg.host;
    const base = join(workspaceDir(), 'modmirror-it');
    const cfgs = ['a', 'b'].map((n, i) => {
      const d = join(base, n);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'main.tf'), `module "m" {\n  source  = "${h}/acme/base/aws"\n  version = "${i ? '2.0.0' : '1.0.0'}"\n}\n`);
      return d;
    });
    const out = tempDir('it-modmirror-ui-');
    try {
      let titles: string[] = [];
      let offered: Array<vscode.QuickPickItem & { dir: string }> = [];
      stub('showQuickPick', async (items: Array<vscode.QuickPickItem & { dir: string }>, opts: vscode.QuickPickOptions) => {
        titles.push(opts.title ?? '');
        offered = (await items).filter((i) => i.dir.startsWith(base));
        return offered;
      });
      const dialogs: vscode.OpenDialogOptions[] = [];
      let answer: vscode.Uri[] | undefined = [vscode.Uri.file(out)];
      stub('showOpenDialog', async (d: vscode.OpenDialogOptions) => { dialogs.push(d); return answer; });
      const reports: string[] = [];
      let cancellable: boolean | undefined;
      stub('withProgress', (opts: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string }>, t: vscode.CancellationToken) => Thenable<unknown>) => {
        // the dependency view refreshes through withProgress too (the test's files changed): only ours counts
        if (opts.title === 'Mirroring modules') cancellable = opts.cancellable;
        return task({ report: (v) => { if (v.message) reports.push(v.message); } }, new vscode.CancellationTokenSource().token);
      });
      const res = await vscode.commands.executeCommand<Result>('tofuRegistry.mirrorModules');
      assert.ok(res, 'the command ran to the end');
      assert.deepEqual(titles, ['Mirror modules: configurations to include']);
      assert.deepEqual(offered.map((i) => [i.dir, i.picked]), cfgs.map((d) => [d, true]));
      assert.equal(dialogs[0].title, 'Mirror modules: output folder');
      assert.equal(cancellable, true);
      assert.deepEqual(res.report.mirrored.map((m) => m.version), ['1.0.0', '2.0.0']);
      for (const v of ['1.0.0', '2.0.0']) assert.ok(reports.some((r) => r.endsWith(`${h}/acme/base/aws ${v}: mirrored`)), `progress for ${v}: ${reports.join(' | ')}`);
      assert.ok(reports.every((r) => /^\d\/\d — /.test(r)), reports.join(' | '));
      const doc = vscode.workspace.textDocuments.find((d) => d.languageId === 'markdown' && d.getText() === res.markdown);
      assert.ok(doc, 'the Markdown report is open');
      assert.match(doc.getText(), new RegExp(`host "${h.replace(/\./g, '\\.')}" \\{`));

      // the next run offers the folder chosen last time; cancelling the dialog mirrors nothing
      answer = undefined;
      titles = [];
      o.reg.server.resetLog();
      assert.equal(await vscode.commands.executeCommand('tofuRegistry.mirrorModules'), undefined);
      assert.equal(dialogs[1].defaultUri?.fsPath, out);
      assert.equal(o.reg.server.requests.length, 0);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('from the explorer context menu: a folder Uri mirrors just that folder (several selected: each of them)', async () => {
    const h = o.reg.host;
    const base = join(workspaceDir(), 'modmirror-menu');
    const folders = ['a', 'b', 'c'].map((n, i) => {
      const d = join(base, n);
      mkdirSync(join(d, 'stack'), { recursive: true });
      writeFileSync(join(d, 'stack', 'main.tf'), `module "m" {\n  source  = "${h}/acme/base/aws"\n  version = "${['1.0.0', '1.1.0', '2.0.0'][i]}"\n}\n`);
      return d;
    });
    const out = tempDir('it-modmirror-menu-');
    try {
      stub('showQuickPick', async () => assert.fail('no configuration picker: the folder says which'));
      stub('showOpenDialog', async () => [vscode.Uri.file(out)]);
      stub('withProgress', (_o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string }>, t: vscode.CancellationToken) => Thenable<unknown>) =>
        task({ report: () => undefined }, new vscode.CancellationTokenSource().token));
      // as the menu invokes it: (clicked folder, all selected); its configurations below it are found
      const one = await vscode.commands.executeCommand<Result>('tofuRegistry.mirrorModules', vscode.Uri.file(folders[0]), [vscode.Uri.file(folders[0])]);
      assert.ok(one, 'the command ran to the end');
      assert.deepEqual(one.report.failed, []);
      assert.deepEqual(one.report.mirrored.map((m) => `${m.module} ${m.version}`), [`${h}/acme/base/aws 1.0.0`]);
      const two = await vscode.commands.executeCommand<Result>('tofuRegistry.mirrorModules', vscode.Uri.file(folders[1]), folders.slice(1).map((f) => vscode.Uri.file(f)));
      assert.deepEqual(two?.report.mirrored.map((m) => m.version), ['1.1.0', '2.0.0']);
      assert.deepEqual(two?.report.upToDate, []);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('cancelling the progress notification stops cleanly and leaves a valid site', async () => {
    const h = o.reg.host;
    const ws = o.workspace('it-cancel', { 'main.tf': `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "1.0.0"\n}\n` });
    const out = join(tempDir('it-modmirror-cancel-'), 'site');
    o.reg.setFault('/archives/base/', 'hang');
    const cts = new vscode.CancellationTokenSource();
    stub('withProgress', (_o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string }>, t: vscode.CancellationToken) => Thenable<unknown>) =>
      task({ report: (v) => { if (v.message?.endsWith('/acme/base/aws 1.1.0')) cts.cancel(); } }, cts.token));
    try {
      const res = await vscode.commands.executeCommand<Result>('tofuRegistry.mirrorModules', { out, dirs: [ws], show: false });
      assert.ok(res);
      assert.ok(res.report.mirrored.some((m) => m.module === `${h}/acme/app/aws`));
      assert.ok(res.report.failed.some((f) => f.module === `${h}/acme/base/aws` && f.step === 'cancelled'), JSON.stringify(res.report.failed));
      assert.ok(!existsSync(join(out, 'modules', h, 'acme', 'base')) || !existsSync(join(out, 'modules', h, 'acme', 'base', 'aws', 'versions')));
      assert.ok(!existsSync(join(out, '.tofu-registry-mirror.lock')), 'lock released');
    } finally {
      o.reg.setFault('/archives/base/', null);
    }
  });
});
