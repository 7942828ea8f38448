// "OpenTofu: Mirror providers to an OCI registry…" inside the real extension host, against a real
// OCI registry (CNCF Distribution on 127.0.0.1) and the HTTPS test registry with signed packages:
// the template is asked for (prefilled from tofuRegistry.oci.providerRepositoryTemplate), progress is
// cancellable, and the summary holds the provider_installation block; what was pushed is read back.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { OciMirrorReport } from '../../src/engine/ocimirror';
import { OciClient } from '../../src/engine/oci';
import { buildRelease, makeSigningKey, PackageFiles, providerDefinition } from '../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { startOciRegistry, TestOciRegistry } from '../support/oci-registry';
import { tempDir } from '../support/temp';
import { windowStubs } from './editor-helpers';

describe('Mirror providers to an OCI registry command', function () {
  this.timeout(90_000);
  let reg: TestRegistry;
  let oci: TestOciRegistry;
  let previousCa: string | undefined;
  let previousTemplate: string | undefined;
  const { stub, restoreAll } = windowStubs();
  afterEach(restoreAll);
  const realWithProgress = vscode.window.withProgress;

  before(async () => {
    reg = await startTestRegistry({ fixtures: false });
    oci = await startOciRegistry();
    const files = new PackageFiles(reg.server);
    const key = await makeSigningKey();
    const rel = await buildRelease(tempDir('it-oci-pkgs-'), { namespace: 'acme', type: 'widget', version: '1.2.0', platforms: ['linux_amd64', 'darwin_arm64'] }, key);
    files.add(rel);
    reg.addProvider(providerDefinition(files, [rel], [key]));
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    previousCa = cfg.inspect<string>('caFile')?.globalValue;
    previousTemplate = cfg.inspect<string>('oci.providerRepositoryTemplate')?.globalValue;
    await cfg.update('caFile', reg.caCertPath, vscode.ConfigurationTarget.Global);
    await cfg.update('oci.providerRepositoryTemplate', `${oci.host}/previous/\${type}`, vscode.ConfigurationTarget.Global);
    await vscode.extensions.all.find((e) => e.packageJSON?.name === 'tofu-registry')?.activate();
    await new Promise((r) => setTimeout(r, 500)); // the engine is rebuilt on the settings change
  });

  after(async () => {
    const cfg = vscode.workspace.getConfiguration('tofuRegistry');
    await cfg.update('caFile', previousCa, vscode.ConfigurationTarget.Global);
    await cfg.update('oci.providerRepositoryTemplate', previousTemplate, vscode.ConfigurationTarget.Global);
    await oci?.stop();
    await reg?.stop();
  });

  it('asks for the template (prefilled from the setting, remembered), pushes with cancellable progress, shows the block to paste', async () => {
    const dir = tempDir('it-oci-cfg-');
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source  = "${reg.host}/acme/widget"\n      version = "~> 1.0"\n    }\n  }\n}\n`);
    const template = `${oci.host}/providers/\${namespace}/\${type}`;
    const asked: vscode.InputBoxOptions[] = [];
    stub('showInputBox', async (o: vscode.InputBoxOptions) => {
      asked.push(o);
      assert.ok(await o.validateInput?.('no-registry'), 'an address without a registry is refused while typing');
      assert.equal(await o.validateInput?.(template), undefined);
      return template;
    });
    let progressOptions: vscode.ProgressOptions | undefined;
    const reports: Array<{ message?: string; increment?: number }> = [];
    stub('withProgress', (o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string; increment?: number }>, t: vscode.CancellationToken) => Thenable<unknown>) => {
      if (o.location !== vscode.ProgressLocation.Notification) return realWithProgress(o, task as never);
      progressOptions = o;
      return task({ report: (v) => { reports.push(v); } }, new vscode.CancellationTokenSource().token);
    });
    const shown: string[] = [];
    stub('showInformationMessage', async (m: string) => { shown.push(m); return undefined; });

    const res = await vscode.commands.executeCommand<{ report: OciMirrorReport; markdown: string }>('tofuRegistry.mirrorProvidersToOci', {
      dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'], show: false,
    });
    assert.ok(res, 'the command ran to the end');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].value, `${oci.host}/previous/\${type}`, 'prefilled from the setting');
    assert.equal(vscode.workspace.getConfiguration('tofuRegistry').get('oci.providerRepositoryTemplate'), template, 'remembered');
    assert.equal(progressOptions?.cancellable, true);
    assert.deepEqual(res.report.failed, []);
    assert.deepEqual(res.report.pushed.map((p) => p.platform), ['darwin_arm64', 'linux_amd64']);
    assert.equal(reports.reduce((n, r) => n + (r.increment ?? 0), 0), 100);
    assert.ok(shown.some((m) => m === 'OCI mirror: 2 pushed, 0 up to date, 0 failed.'), shown.join('\n'));
    assert.ok(res.markdown.includes(`oci_mirror {\n    repository_template = "${template}"\n    include             = ["${reg.host}/acme/widget"]`), res.markdown);

    const client = new OciClient({ caFiles: [oci.caCertPath], env: {} });
    const index = await client.getManifest({ registry: oci.host, repository: 'providers/acme/widget' }, '1.2.0');
    assert.equal((index.manifest as { artifactType: string }).artifactType, 'application/vnd.opentofu.provider');
    await client.dispose();
  });
});
