// The "OpenTofu Dependencies" view in a real VS Code extension host: the tree's items and
// descriptions for a workspace on the HTTPS test registry, the status bar count, "Upgrade to
// newest" editing the file (several at once through the "Show changes" preview), the code action
// on a block, and `module.NAME.` completion listing a registry module's outputs.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DependencyView } from '../../src/editor/dependencies';
import type { UpgradeResult } from '../../src/editor/dependencyActions';
import type { DepsNode } from '../../src/editor/logic/depsTree';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { tarGz } from '../unit/types/archives';
import { closeAll, completions, extensionApi, hoverText, labelOf, openFile, positionOf, trustTestCa, waitFor, workspaceDir } from './editor-helpers';

const OUTPUTS = 'output "vpc_id" {\n  value       = "vpc-1"\n  description = "ID of the VPC."\n}\noutput "subnet_ids" {\n  value = []\n}\noutput "admin_password" {\n  value     = "x"\n  sensitive = true\n}\n';

function depNodes(view: DependencyView, dirLabel: string): DepsNode[] {
  const dir = view.getChildren().find((n) => n.label === dirLabel);
  assert.ok(dir, `a folder item "${dirLabel}" in ${JSON.stringify(view.getChildren().map((n) => n.label))}`);
  return view.getChildren(dir).flatMap((g) => view.getChildren(g));
}

function dep(view: DependencyView, dirLabel: string, name: string): Extract<DepsNode, { kind: 'dep' }> {
  const n = depNodes(view, dirLabel).find((x) => x.kind === 'dep' && x.label === name);
  assert.ok(n && n.kind === 'dep', `an item "${name}"`);
  return n;
}

describe('dependencies view (real extension host)', function () {
  this.timeout(90000);
  let reg: TestRegistry;
  let view: DependencyView;
  let stack: string;
  /** Outdated dependencies of the workspace before this suite's stack was written. */
  let outdatedBefore: number;

  before(async () => {
    reg = await startTestRegistry();
    reg.addModule({ namespace: 'deps', name: 'net', system: 'aws', versions: ['1.0.0', '1.1.0', '2.0.0'] });
    for (const v of ['1.1.0', '2.0.0']) reg.addFile(`/archives/deps/net/aws/${v}.tar.gz`, tarGz([{ name: 'outputs.tf', data: OUTPUTS }]), 'application/gzip');
    const api = await extensionApi();
    await trustTestCa(api, reg);
    assert.ok(api.dependencies, 'the dependencies view is registered');
    view = api.dependencies;
    stack = path.join(workspaceDir(), 'deps-ws', 'stack');
    assert.ok(await view.refresh(), 'a graph was computed');
    outdatedBefore = Number(/(\d+) outdated/.exec(view.statusBar.text)?.[1] ?? 0);
    fs.mkdirSync(stack, { recursive: true });
    fs.writeFileSync(path.join(stack, 'main.tf'), `module "net" {\n  source  = "${reg.host}/deps/net/aws"\n  version = "~> 1.0" # keep me\n}\n`);
    fs.writeFileSync(path.join(stack, 'versions.tf'), `terraform {\n  required_providers {\n    widget = {\n      source  = "${reg.host}/acme/widget"\n      version = "~> 1.0"\n    }\n    random = {\n      source  = "${reg.host}/hashicorp/random"\n      version = "~> 3.6"\n    }\n  }\n}\n`);
    fs.writeFileSync(path.join(stack, '.terraform.lock.hcl'), `provider "${reg.host}/acme/widget" {\n  version = "1.0.0"\n  hashes  = ["h1:AAAA"]\n}\n`);
  });

  after(async () => {
    await closeAll();
    await reg?.stop();
  });

  it('shows modules and providers with their descriptions, icons and the status bar count', async () => {
    // the file watcher schedules a recomputation on its own
    await waitFor('the view to pick up the new stack', () => view.graph?.directories.some((d) => d.dir === stack && d.providers.length === 2), 30000);
    assert.equal(dep(view, 'deps-ws/stack', 'net').description, '~> 1.0 · selects 1.1.0 · newest 2.0.0');
    const widget = dep(view, 'deps-ws/stack', 'widget');
    assert.equal(widget.description, '~> 1.0 · locked 1.0.0 · 1.1.0 in range · newest 2.0.0');
    assert.equal(dep(view, 'deps-ws/stack', 'random').description, '~> 3.6 · selects 3.6.0');
    const item = view.getTreeItem(widget);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'arrow-circle-up');
    assert.match((item.tooltip as vscode.MarkdownString).value, /locked: 1\.0\.0[\s\S]*tofu init selects: 1\.0\.0[\s\S]*newest matching: 1\.1\.0/);
    assert.equal(item.command?.command, 'tofuRegistry.dependencies.open');
    assert.equal(view.statusBar.text, `$(arrow-circle-up) ${outdatedBefore + 2} outdated`);
    // "only outdated" hides random (up to date) but keeps the two outdated ones
    await vscode.commands.executeCommand('tofuRegistry.dependencies.showOnlyOutdated');
    assert.deepEqual(depNodes(view, 'deps-ws/stack').map((n) => n.label).sort(), ['net', 'widget']);
    await vscode.commands.executeCommand('tofuRegistry.dependencies.showAll');
    assert.equal(depNodes(view, 'deps-ws/stack').length, 3);
  });

  it('module.NAME. completion lists the registry module\'s outputs; hover shows sensitivity', async () => {
    const doc = await openFile('deps-ws/stack/outputs.tf', 'output "id" {\n  value = module.net.\n}\n');
    const items = await waitFor('output completions', async () => {
      const got = await completions(doc, positionOf(doc, 'module.net.', 'module.net.'.length));
      return got.some((i) => labelOf(i) === 'vpc_id') ? got : undefined;
    }, 30000);
    const names = items.filter((i) => i.kind === vscode.CompletionItemKind.Property).map(labelOf).sort();
    assert.deepEqual(names, ['admin_password', 'subnet_ids', 'vpc_id']);
    const vpc = items.find((i) => labelOf(i) === 'vpc_id')!;
    assert.match((vpc.documentation as vscode.MarkdownString).value, /ID of the VPC\./);
    const pw = items.find((i) => labelOf(i) === 'admin_password')!;
    assert.equal((pw.label as vscode.CompletionItemLabel).description, 'sensitive');
    const edited = await openFile('deps-ws/stack/outputs-hover.tf', 'output "pw" {\n  value     = module.net.admin_password\n  sensitive = true\n}\n');
    const hover = await hoverText(edited, positionOf(edited, 'admin_password', 3));
    assert.match(hover, /output "admin_password"[\s\S]*Output of module `net`[\s\S]*\*\*Sensitive\*\*/);
  });

  it('"Upgrade to newest" rewrites one constraint in place; the code action offers it on the block', async () => {
    await waitFor('the stack in the graph', async () => (await view.refresh())?.directories.some((d) => d.dir === stack));
    const doc = await vscode.workspace.openTextDocument(path.join(stack, 'main.tf'));
    await vscode.window.showTextDocument(doc);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri,
      new vscode.Range(positionOf(doc, '~> 1.0', 1), positionOf(doc, '~> 1.0', 1)));
    const upgrade = actions.find((a) => a.title === 'Upgrade net to newest (2.0.0)');
    assert.ok(upgrade?.command, `an upgrade action among ${JSON.stringify(actions.map((a) => a.title))}`);
    const before = doc.getText();
    const r = await vscode.commands.executeCommand<UpgradeResult>(upgrade.command.command, ...(upgrade.command.arguments ?? []));
    assert.equal(r.applied.length, 1);
    assert.equal(doc.getText(), before.replace('"~> 1.0" # keep me', '"~> 2.0" # keep me'));
    assert.equal(fs.readFileSync(path.join(stack, 'main.tf'), 'utf8'), doc.getText(), 'saved (it had no unsaved changes)');
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.getText(), before, 'one undoable edit');
    await doc.save();
  });

  it('several at once go through "Show changes"; providers report the lock step', async () => {
    await waitFor('the stack in the graph', async () => (await view.refresh())?.directories.some((d) => d.dir === stack));
    const net = dep(view, 'deps-ws/stack', 'net');
    const widget = dep(view, 'deps-ws/stack', 'widget');
    const lockBefore = fs.readFileSync(path.join(stack, '.terraform.lock.hcl'), 'utf8');
    const pending = vscode.commands.executeCommand<UpgradeResult>('tofuRegistry.dependencies.upgrade', net, [net, widget]);
    // "Show changes" lists both, picked; accept them as a user would (Enter)
    let settled = false;
    void pending.then(() => { settled = true; }, () => { settled = true; });
    await waitFor('the "Show changes" list to be accepted', async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await new Promise((resolve) => setTimeout(resolve, 250));
      return settled;
    }, 30000);
    const r = await pending;
    assert.deepEqual(r.applied.map((a) => a.plan.constraint).sort(), ['~> 2.0', '~> 2.0']);
    assert.match(fs.readFileSync(path.join(stack, 'main.tf'), 'utf8'), /version = "~> 2\.0" # keep me/);
    assert.match(fs.readFileSync(path.join(stack, 'versions.tf'), 'utf8'), /source {2}= "[^"]+\/acme\/widget"\n {6}version = "~> 2\.0"/);
    assert.match(r.relock ?? '', /needs the lock engine/);
    assert.equal(fs.readFileSync(path.join(stack, '.terraform.lock.hcl'), 'utf8'), lockBefore);
  });
});
