// "OpenTofu: Mirror providers" inside the real extension host: the command runs with arguments
// that skip the prompts, against the HTTPS test registry with signed packages, and the mirror on
// disk and the report are checked.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { MirrorReport } from '../../src/engine/mirror';
import { buildRelease, makeSigningKey, PackageFiles, providerDefinition } from '../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../support/registry-server';

describe('Mirror providers command', function () {
  this.timeout(60_000);
  let reg: TestRegistry;
  let previousCa: string | undefined;

  before(async () => {
    reg = await startTestRegistry({ fixtures: false });
    const files = new PackageFiles(reg.server);
    const key = await makeSigningKey();
    const pkgDir = mkdtempSync(join(tmpdir(), 'it-mirror-pkgs-'));
    const rel = await buildRelease(pkgDir, { namespace: 'acme', type: 'widget', version: '1.2.0', platforms: ['linux_amd64', 'darwin_arm64'] }, key);
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
    const dir = mkdtempSync(join(tmpdir(), 'it-mirror-cfg-'));
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source  = "${reg.host}/acme/widget"\n      version = "~> 1.0"\n    }\n  }\n}\n`);
    const out = join(mkdtempSync(join(tmpdir(), 'it-mirror-out-')), 'mirror');
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
      assert.ok(a.hashes.includes('zh:' + createHash('sha256').update(readFileSync(zip)).digest('hex')));
    }
    assert.match(res.markdown, /\| 2 \| 0 \| 0 \|/);
    assert.match(res.markdown, /network_mirror \{/);
    assert.match(res.markdown, /filesystem_mirror \{/);

    // A second run downloads nothing: everything is reported as up to date.
    reg.server.resetLog();
    const again = await vscode.commands.executeCommand<{ report: MirrorReport }>('tofuRegistry.mirrorProviders', {
      out, dirs: [dir], platforms: ['linux_amd64', 'darwin_arm64'], show: false,
    });
    assert.equal(again.report.upToDate.length, 2);
    assert.equal(reg.server.count('/files/'), 0);
  });
});
