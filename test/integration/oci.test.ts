// oci:// module sources in a real VS Code extension host, against a real OCI registry (CNCF
// Distribution on 127.0.0.1, TLS from the test CA, Basic auth; credentials from an oci_credentials
// block in the file named by tofuRegistry.cliConfigFile): tag completion order and marking,
// the hover, a not-found diagnostic, both quick fixes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TofuRegistryApi } from '../../src/extension';
import { Engine } from '../../src/engine/engine';
import { publishModule, PublishResult } from '../../src/engine/publish/publish';
import { DEFAULT_USERS, startOciRegistry, TestOciRegistry } from '../support/oci-registry';
import { completions, extensionApi, hoverText, labelOf, openFile, positionOf, waitFor, waitForCodes } from './editor-helpers';

describe('oci:// module sources (real extension host, OCI registry with TLS and auth)', function () {
  this.timeout(60000);
  let reg: TestOciRegistry;
  let api: TofuRegistryApi;
  let tmp: string;
  let engine: Engine;
  let newest: PublishResult;
  let H: string;

  before(async () => {
    reg = await startOciRegistry({ auth: 'basic' });
    H = reg.host;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oci-editor-'));
    const rc = path.join(tmp, 'tofurc');
    fs.writeFileSync(rc, `oci_credentials "${H}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`);
    engine = new Engine({ cacheDir: path.join(tmp, 'cache'), caFiles: [reg.caCertPath], cliConfigFile: rc, env: {} });
    const mod = path.join(tmp, 'module');
    fs.mkdirSync(mod);
    for (const [content, tags] of [['1.0.0', ['1.0.0']], ['1.1.0', ['1.1.0']], ['2.0.0-rc.1', ['2.0.0-rc.1', 'edge']], ['1.2.0', ['1.2.0', 'latest']]] as const) {
      fs.writeFileSync(path.join(mod, 'main.tf'), `# ${content}\nvariable "name" {}\n`);
      newest = await publishModule({ engine, dir: mod, target: `oci://${H}/mods/net`, tags: [...tags],
        annotations: { 'org.opencontainers.image.version': content, 'org.opencontainers.image.revision': `rev-${content}` } });
    }
    api = await extensionApi();
    const config = vscode.workspace.getConfiguration('tofuRegistry');
    await config.update('caFile', reg.caCertPath, vscode.ConfigurationTarget.Global);
    await config.update('cliConfigFile', rc, vscode.ConfigurationTarget.Global);
    await waitFor('settings to reach the extension', () => api.services.settings().caFile === reg.caCertPath && api.services.settings().cliConfigFile === rc);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('tofuRegistry').update('cliConfigFile', undefined, vscode.ConfigurationTarget.Global);
    await engine?.dispose();
    await reg?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('completes tags inside ?tag=: version-like newest first, prerelease marked, others after, the written tag preselected', async () => {
    const doc = await openFile('oci-completion.tf', `module "net" {\n  source = "oci://${H}/mods/net?tag=1.1.0"\n}\n`);
    const pos = positionOf(doc, 'tag=1.1.0', 6);
    const items = await waitFor('tag items', async () => {
      const got = await completions(doc, pos);
      return got.some((i) => labelOf(i) === '1.2.0') ? got : undefined;
    });
    const ours = items.filter((i) => i.sortText && /^\d{5}$/.test(i.sortText)).sort((a, b) => a.sortText!.localeCompare(b.sortText!));
    assert.deepEqual(ours.map(labelOf), ['2.0.0-rc.1', '1.2.0', '1.1.0', '1.0.0', 'edge', 'latest']);
    const by = (l: string) => ours.find((i) => labelOf(i) === l)!;
    assert.equal((by('2.0.0-rc.1').label as vscode.CompletionItemLabel).description, 'prerelease');
    assert.equal((by('1.2.0').label as vscode.CompletionItemLabel).description, 'newest');
    assert.equal(by('1.1.0').preselect, true);
    const range = by('1.2.0').range as vscode.Range;
    assert.equal(doc.getText(range), '1.1.0', 'the tag value is replaced');
  });

  it('hovers the source: tag → manifest digest, module package, size, annotations, what tofu init downloads', async () => {
    const doc = await openFile('oci-hover.tf', `module "net" {\n  source = "oci://${H}/mods/net?tag=1.2.0"\n}\n`);
    const text = await waitFor('the resolved hover', async () => {
      const t = await hoverText(doc, positionOf(doc, 'mods/net', 2));
      return t.includes('manifest') ? t : undefined;
    });
    for (const part of [`manifest \`${newest.manifestDigest}\``, 'Module package: yes', `Size: ${newest.size} bytes`,
      `downloads \`${H}/mods/net@${newest.manifestDigest}\``, 'version: `1.2.0`', 'revision: `rev-1.2.0`']) {
      assert.ok(text.includes(part), `${part}\n---\n${text}`);
    }
  });

  it('diagnoses a missing tag, and its quick fix updates the tag to the newest', async () => {
    const doc = await openFile('oci-notfound.tf', `module "net" {\n  source = "oci://${H}/mods/net?tag=0.9.0"\n}\n`);
    const [d] = await waitForCodes(doc.uri, ['not-found']);
    assert.match(d.message, /Tag "0\.9\.0" not found in .*mods\/net/);
    const at = positionOf(doc, 'mods/net', 1);
    const update = await waitFor('the update-tag fix', async () => {
      const a = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(at, at));
      return a?.find((x) => x.title.startsWith('Update tag to newest'));
    });
    assert.equal(update.title, 'Update tag to newest "1.2.0" (currently "0.9.0")');
    assert.ok(await vscode.workspace.applyEdit(update.edit!));
    assert.ok(doc.getText().includes(`source = "oci://${H}/mods/net?tag=1.2.0"`), doc.getText());
    await waitForCodes(doc.uri, []);
  });

  it('"Pin to digest" replaces the tag with the digest it points at now', async () => {
    const doc = await openFile('oci-pin.tf', `module "net" {\n  source = "oci://${H}/mods/net?tag=latest"\n}\n`);
    const at = positionOf(doc, 'mods/net', 1);
    const pin = await waitFor('the pin fix', async () => {
      const a = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(at, at));
      return a?.find((x) => x.title.startsWith('Pin to digest'));
    });
    assert.ok(await vscode.workspace.applyEdit(pin.edit!));
    assert.equal(doc.getText(), `module "net" {\n  source = "oci://${H}/mods/net?digest=${newest.manifestDigest}"\n}\n`);
  });

  it('"Publish module to an OCI registry…" publishes a folder (twice: same digests, nothing uploaded) and refuses to move a released tag', async () => {
    const dir = path.join(tmp, 'to-publish');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'main.tf'), 'variable "zone" {}\n');
    const target = `oci://${H}/mods/published`;
    const first = await vscode.commands.executeCommand<PublishResult>('tofuRegistry.publishModule', { dir, target, tags: ['1.0.0'] });
    assert.ok(first);
    assert.equal(first.sources.tag, `${target}?tag=1.0.0`);
    assert.equal(first.sources.digest, `${target}?digest=${first.manifestDigest}`);
    assert.equal(first.uploaded, 2);
    const again = await vscode.commands.executeCommand<PublishResult>('tofuRegistry.publishModule', { dir, target, tags: ['1.0.0'] });
    assert.deepEqual([again?.manifestDigest, again?.uploaded], [first.manifestDigest, 0]);
    fs.writeFileSync(path.join(dir, 'main.tf'), 'variable "zone" {}\nvariable "size" {}\n');
    const moved = await vscode.commands.executeCommand<PublishResult | undefined>('tofuRegistry.publishModule', { dir, target, tags: ['1.0.0'] });
    assert.equal(moved, undefined, 'a released tag is not moved without force');
    const head = await engine.oci.headManifest({ registry: H, repository: 'mods/published' }, '1.0.0');
    assert.equal(head?.digest, first.manifestDigest);
  });
});
