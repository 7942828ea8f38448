// "OpenTofu: Mirror providers" inside the real extension host: the command runs with arguments
// that skip the prompts, against the HTTPS test registry with signed packages, and the mirror on
// disk and the report are checked.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { MirrorReport } from '../../src/engine/mirror';
import { buildRelease, makeSigningKey, PackageFiles, providerDefinition } from '../support/provider-packages';
import { windowStubs, workspaceDir } from './editor-helpers';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { tempDir } from '../support/temp';

describe('Mirror providers command', function () {
  this.timeout(60_000);
  let reg: TestRegistry;
  let files: PackageFiles;
  let previousCa: string | undefined;
  const { stub, restoreAll } = windowStubs();
  afterEach(restoreAll);
  // Other features show progress too (the dependencies view refreshes when the files a test
  // writes appear): only the mirror's notification goes to a test's stub, the rest to VS Code.
  const realWithProgress = vscode.window.withProgress;
  const onlyNotifications = (fn: (o: vscode.ProgressOptions, task: never) => unknown) =>
    (o: vscode.ProgressOptions, task: never) => (o.location === vscode.ProgressLocation.Notification ? fn(o, task) : realWithProgress(o, task));

  before(async () => {
    reg = await startTestRegistry({ fixtures: false });
    files = new PackageFiles(reg.server);
    const key = await makeSigningKey();
    const pkgDir = tempDir('it-mirror-pkgs-');
    const rel = await buildRelease(pkgDir, { namespace: 'acme', type: 'widget', version: '1.2.0', platforms: ['linux_amd64', 'darwin_arm64', 'windows_amd64', 'freebsd_amd64'] }, key);
    files.add(rel);
    reg.addProvider(providerDefinition(files, [rel], [key]));
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    previousCa = cfg.inspect<string>('caFile')?.globalValue;
    await cfg.update('caFile', reg.caCertPath, vscode.ConfigurationTarget.Global);
    await vscode.extensions.all.find((e) => e.packageJSON?.name === 'tofu-registry')?.activate();
    await new Promise((r) => setTimeout(r, 500)); // the engine is rebuilt on the settings change
  });

  after(async () => {
    await vscode.workspace.getConfiguration('tofuRegistry').update('caFile', previousCa, vscode.ConfigurationTarget.Global);
    await reg?.stop();
  });

  it('mirrors the required providers into OUT and reports what it did', async () => {
    const dir = tempDir('it-mirror-cfg-');
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source  = "${reg.host}/acme/widget"\n      version = "~> 1.0"\n    }\n  }\n}\n`);
    const out = join(tempDir('it-mirror-out-'), 'mirror');
    mkdirSync(out);
    const res = await vscode.commands.executeCommand<{ report: MirrorReport; markdown: string }>('tofuRegistry.mirrorProviders', {
      out, dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'], show: false,
    });
    assert.ok(res, 'the command returned a result');
    assert.deepEqual(res.report.failed, []);
    assert.equal(res.report.mirrored.length, 2);
    const pdir = join(out, reg.host, 'acme', 'widget');
    assert.deepEqual(JSON.parse(readFileSync(join(pdir, 'index.json'), 'utf8')), { versions: { '1.2.0': {} } });
    const vdoc = JSON.parse(readFileSync(join(pdir, '1.2.0.json'), 'utf8'));
    for (const platform of ['darwin_arm64', 'linux_amd64']) {
      const a = vdoc.archives[platform];
      const zip = join(pdir, a.url);
      assert.ok(existsSync(zip));
      assert.equal(a.url, `terraform-provider-widget_1.2.0_${platform}.zip`);
      assert.ok(existsSync(zip));
      assert.ok(a.hashes.includes('zh:' + createHash('sha256').update(readFileSync(zip)).digest('hex')));
      assert.match(a.hashes[0], /^h1:[A-Za-z0-9+/]{43}=$/);
      // What the command reports is what it wrote.
      assert.deepEqual(res.report.mirrored.find((m) => m.platform === platform)?.hashes, a.hashes);
    }
    assert.deepEqual(readdirSync(pdir).filter((f) => f.startsWith('.')), [], 'no temp files left');
    assert.ok(!existsSync(join(out, '.tofu-registry-mirror.lock')), 'lock released');
    assert.match(res.markdown, /\| 2 \| 0 \| 0 \|/);
    assert.match(res.markdown, /## Mirrored/);
    assert.match(res.markdown, new RegExp(`\\| ${reg.host}/acme/widget \\| 1\\.2\\.0 \\| linux_amd64 \\|`));
    assert.match(res.markdown, /network_mirror \{/);
    assert.ok(res.markdown.includes(`filesystem_mirror {\n    path = ${JSON.stringify(out)}\n  }`), 'filesystem_mirror points at OUT');

    // A second run downloads nothing: everything is reported as up to date.
    reg.server.resetLog();
    const again = await vscode.commands.executeCommand<{ report: MirrorReport }>('tofuRegistry.mirrorProviders', {
      out, dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'], show: false,
    });
    assert.equal(again.report.upToDate.length, 2);
    assert.equal(reg.server.count('/files/'), 0);
  });

  it('interactive: picks configurations, asks for the output folder (remembered), shows progress and a Markdown report', async () => {
    // Two configurations inside the workspace (removed afterwards) so the QuickPick offers them.
    const base = join(workspaceDir(), 'mirror-it');
    const cfgs = ['a', 'b'].map((n, i) => {
      const d = join(base, n);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source  = "${reg.host}/acme/widget"\n      version = "${i ? '1.2.0' : '~> 1.0'}"\n    }\n  }\n}\n`);
      return d;
    });
    const out = tempDir('it-mirror-ui-');
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    const previousPlatforms = cfg.inspect<string[]>('mirror.platforms')?.globalValue;
    await cfg.update('mirror.platforms', ['linux_amd64', 'windows_amd64'], vscode.ConfigurationTarget.Global);
    try {
      let offered: Array<vscode.QuickPickItem & { dir: string }> = [];
      stub('showQuickPick', async (items: Array<vscode.QuickPickItem & { dir: string }>, opts: vscode.QuickPickOptions) => {
        offered = await items;
        assert.equal(opts.canPickMany, true);
        return offered.filter((i) => i.dir.startsWith(base));
      });
      const dialogs: vscode.OpenDialogOptions[] = [];
      let answer: vscode.Uri[] | undefined = [vscode.Uri.file(out)];
      stub('showOpenDialog', async (o: vscode.OpenDialogOptions) => { dialogs.push(o); return answer; });
      const reports: Array<{ message?: string; increment?: number }> = [];
      let progressOptions: vscode.ProgressOptions | undefined;
      stub('withProgress', onlyNotifications((o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string; increment?: number }>, t: vscode.CancellationToken) => Thenable<unknown>) => {
        progressOptions = o;
        return task({ report: (v) => { reports.push(v); } }, new vscode.CancellationTokenSource().token);
      }));

      const res = await vscode.commands.executeCommand<{ report: MirrorReport; markdown: string }>('tofuRegistry.mirrorProviders');
      assert.ok(res, 'the command ran to the end');
      assert.deepEqual(offered.filter((i) => i.dir.startsWith(base)).map((i) => [i.dir, i.picked]), cfgs.map((d) => [d, true]));
      assert.equal(dialogs.length, 1);
      assert.equal(dialogs[0].canSelectFolders, true);
      assert.equal(progressOptions?.cancellable, true);
      assert.equal(progressOptions?.location, vscode.ProgressLocation.Notification);
      assert.ok(reports.some((r) => r.message === '2 archives to check'), JSON.stringify(reports));
      for (const p of ['linux_amd64', 'windows_amd64']) {
        assert.ok(reports.some((r) => r.message?.endsWith(`${reg.host}/acme/widget 1.2.0 ${p}: mirrored`)), `per-archive detail for ${p}`);
      }
      assert.equal(reports.reduce((n, r) => n + (r.increment ?? 0), 0), 100);
      assert.deepEqual(res.report.failed, []);
      assert.deepEqual(res.report.mirrored.map((m) => m.platform), ['linux_amd64', 'windows_amd64']);
      assert.ok(existsSync(join(out, reg.host, 'acme', 'widget', 'terraform-provider-widget_1.2.0_windows_amd64.zip')));
      // The report is open as a Markdown document with both CLI configuration snippets.
      const doc = vscode.workspace.textDocuments.find((d) => d.languageId === 'markdown' && d.getText() === res.markdown);
      assert.ok(doc, 'the Markdown report is open');
      assert.match(doc.getText(), /provider_installation \{\n  network_mirror \{\n    url = "https:\/\/[^"]+\/"/);
      assert.ok(doc.getText().includes(`filesystem_mirror {\n    path = ${JSON.stringify(out)}`));

      // The next run offers the folder chosen last time; cancelling the dialog mirrors nothing.
      answer = undefined;
      reg.server.resetLog();
      assert.equal(await vscode.commands.executeCommand('tofuRegistry.mirrorProviders'), undefined);
      assert.equal(dialogs.length, 2);
      assert.equal(dialogs[1].defaultUri?.fsPath, out);
      assert.equal(reg.server.requests.length, 0);
    } finally {
      await cfg.update('mirror.platforms', previousPlatforms, vscode.ConfigurationTarget.Global);
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('cancelling the progress notification stops cleanly and leaves a valid mirror', async () => {
    const dir = tempDir('it-mirror-cancel-');
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source = "${reg.host}/acme/widget"\n    }\n  }\n}\n`);
    const out = tempDir('it-mirror-cancel-out-');
    const platforms = ['darwin_arm64', 'freebsd_amd64', 'linux_amd64', 'windows_amd64'];
    files.fault('terraform-provider-widget_1.2.0_windows_amd64.zip', { kind: 'hang' });
    files.fault('terraform-provider-widget_1.2.0_freebsd_amd64.zip', { kind: 'hang' });
    const cts = new vscode.CancellationTokenSource();
    stub('withProgress', onlyNotifications((_o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string }>, t: vscode.CancellationToken) => Thenable<unknown>) =>
      task({ report: (v) => { if (/: mirrored$/.test(v.message ?? '')) cts.cancel(); } }, cts.token)));
    try {
      const res = await vscode.commands.executeCommand<{ report: MirrorReport }>('tofuRegistry.mirrorProviders', { out, dirs: [dir], platforms, concurrency: 4, show: false });
      assert.ok(res.report.mirrored.length >= 1 && res.report.mirrored.length < 4, JSON.stringify(res.report));
      assert.ok(res.report.failed.length >= 2);
      assert.ok(res.report.failed.every((f) => f.step === 'cancelled'), JSON.stringify(res.report.failed));
      assert.equal(res.report.mirrored.length + res.report.failed.length, 4);
      // What is listed is there and matches; nothing partial is left.
      const pdir = join(out, reg.host, 'acme', 'widget');
      const vdoc = JSON.parse(readFileSync(join(pdir, '1.2.0.json'), 'utf8'));
      assert.deepEqual(Object.keys(vdoc.archives), res.report.mirrored.map((m) => m.platform));
      for (const a of Object.values(vdoc.archives) as Array<{ url: string; hashes: string[] }>) {
        assert.ok(a.hashes.includes('zh:' + createHash('sha256').update(readFileSync(join(pdir, a.url))).digest('hex')));
      }
      assert.deepEqual(readdirSync(pdir).filter((f) => f.startsWith('.') || !/\.(zip|json)$/.test(f)), []);
      assert.ok(!existsSync(join(out, '.tofu-registry-mirror.lock')), 'lock released');
    } finally {
      files.fault('terraform-provider-widget_1.2.0_windows_amd64.zip', undefined);
      files.fault('terraform-provider-widget_1.2.0_freebsd_amd64.zip', undefined);
    }
  });

  it('an output folder held by another run is reported as an error message, not a crash', async () => {
    const dir = tempDir('it-mirror-lock-');
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source = "${reg.host}/acme/widget"\n    }\n  }\n}\n`);
    const out = tempDir('it-mirror-lock-out-');
    // A lock held by a live process on this machine (the extension host itself).
    writeFileSync(join(out, '.tofu-registry-mirror.lock'), JSON.stringify({ pid: process.pid, host: require('node:os').hostname() }));
    const errors: string[] = [];
    stub('showErrorMessage', async (m: string) => { errors.push(m); return undefined; });
    const res = await vscode.commands.executeCommand('tofuRegistry.mirrorProviders', { out, dirs: [dir], platforms: ['linux_amd64'], show: false });
    assert.equal(res, undefined);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^Mirror providers: .*\.tofu-registry-mirror\.lock is held by another mirror run/);
    assert.ok(!existsSync(join(out, reg.host)), 'nothing written');
  });
});
