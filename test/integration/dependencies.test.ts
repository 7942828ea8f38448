// The "OpenTofu Dependencies" view in a real VS Code extension host: the tree's items and
// descriptions for a workspace on the HTTPS test registry, the status bar count, "Upgrade to
// newest" editing the file (several at once through the "Show changes" list) and relocking the
// lock file for the team's platforms (real signed provider packages; the recorded hashes are
// checked against the packages themselves), "Update within constraint" relocking a provider, a
// failed relock leaving the lock file as it was with "Revert constraint" offered, the code action
// on a block, and `module.NAME.` completion listing a registry module's outputs.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DependencyView } from '../../src/editor/dependencies';
import type { UpdateWithinResult, UpgradeResult } from '../../src/editor/dependencyActions';
import { depItem as dep, depNodes, DepsFixture, mkdirWatched, startDepsFixture } from './deps-fixture';
import { closeAll, completions, hoverText, labelOf, openFile, positionOf, waitFor, workspaceDir } from './editor-helpers';

/** Runs the "Upgrade NAME to newest (VERSION)" code action at the first `at` of a file; the text before and the result. */
async function upgradeByCodeAction(file: string, at: string, title: string): Promise<{ doc: vscode.TextDocument; before: string; r: UpgradeResult }> {
  const doc = await vscode.workspace.openTextDocument(file);
  await vscode.window.showTextDocument(doc);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri,
    new vscode.Range(positionOf(doc, at, 1), positionOf(doc, at, 1)));
  const upgrade = actions.find((a) => a.title === title);
  assert.ok(upgrade?.command, `an upgrade action among ${JSON.stringify(actions.map((a) => a.title))}`);
  const before = doc.getText();
  const r = await vscode.commands.executeCommand<UpgradeResult>(upgrade.command.command, ...(upgrade.command.arguments ?? []));
  return { doc, before, r };
}

describe('dependencies view (real extension host)', function () {
  this.timeout(90000);
  let fx: DepsFixture;
  let view: DependencyView;
  let stack: string;
  /** Outdated dependencies of the workspace before this suite's stack was written. */
  let outdatedBefore: number;
  const lockPath = () => path.join(stack, '.terraform.lock.hcl');

  before(async () => {
    fx = await startDepsFixture();
    view = fx.view;
    const host = fx.reg.host;
    stack = path.join(workspaceDir(), 'deps-ws', 'stack');
    // The first test relies on the file watcher: the directories first, each seen by it.
    await mkdirWatched(stack);
    assert.ok(await view.refresh(), 'a graph was computed');
    outdatedBefore = Number(/(\d+) outdated/.exec(view.statusBar.text)?.[1] ?? 0);
    fs.writeFileSync(path.join(stack, 'main.tf'), `module "net" {\n  source  = "${host}/deps/net/aws"\n  version = "~> 1.0" # keep me\n}\n`);
    fs.writeFileSync(path.join(stack, 'versions.tf'), `terraform {\n  required_providers {\n    widget = {\n      source  = "${host}/acme/widget"\n      version = "~> 1.0"\n    }\n    random = {\n      source  = "${host}/hashicorp/random"\n      version = "~> 3.6"\n    }\n  }\n}\n`);
    fs.writeFileSync(path.join(stack, '.terraform.lock.hcl'), `provider "${host}/acme/widget" {\n  version = "1.0.0"\n  hashes  = ["h1:AAAA"]\n}\n`);
  });

  after(async () => {
    await closeAll();
    if (stack) fs.rmSync(path.dirname(stack), { recursive: true, force: true });
    await fx?.stop();
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
    const { doc, before, r } = await upgradeByCodeAction(path.join(stack, 'main.tf'), '~> 1.0', 'Upgrade net to newest (2.0.0)');
    assert.equal(r.applied.length, 1);
    assert.equal(doc.getText(), before.replace('"~> 1.0" # keep me', '"~> 2.0" # keep me'));
    assert.equal(fs.readFileSync(path.join(stack, 'main.tf'), 'utf8'), doc.getText(), 'saved (it had no unsaved changes)');
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.getText(), before, 'one undoable edit');
    await doc.save();
  });

  it('"Update within constraint" on a provider relocks it to the newest matching, for the team\'s platforms', async () => {
    await waitFor('the stack in the graph', async () => (await view.refresh())?.directories.some((d) => d.dir === stack));
    const widget = dep(view, 'deps-ws/stack', 'widget');
    assert.equal(widget.dep.status, 'update-in-range');
    const r = await vscode.commands.executeCommand<UpdateWithinResult>('tofuRegistry.dependencies.updateWithin', widget);
    assert.equal(r.lock?.failed, false, r.message);
    assert.match(r.message, /deps-ws\/stack\/\.terraform\.lock\.hcl updated: 1 provider\(s\) added \([^)]*hashicorp\/random\); version changed: [^ ]*acme\/widget 1\.0\.0 → 1\.1\.0\./);
    // widget moved (a new version: only its packages' hashes); random, required but not locked yet, was added
    assert.equal(fs.readFileSync(lockPath(), 'utf8'), await fx.expectedLock([['hashicorp/random', '3.6.0', '~> 3.6'], ['acme/widget', '1.1.0', '~> 1.0']]));
    await waitFor('the view to show the new lock', () => dep(view, 'deps-ws/stack', 'widget').description === '~> 1.0 · locked 1.1.0 · newest 2.0.0', 30000);
  });

  it('a failed relock leaves the lock file as it was, says why, and "Revert constraint" undoes the edit', async () => {
    const versions = await vscode.workspace.openTextDocument(path.join(stack, 'versions.tf'));
    const textBefore = versions.getText();
    const lockBefore = fs.readFileSync(lockPath(), 'utf8');
    const statBefore = fs.statSync(lockPath());
    const zip = fx.zipOf('acme/widget', '2.0.0', 'darwin_arm64');
    fx.files.fault(zip, { kind: 'status', status: 500 });
    const warnings: string[] = [];
    const w = vscode.window as unknown as Record<string, unknown>;
    const original = w.showWarningMessage;
    w.showWarningMessage = (m: string, ...items: string[]) => { warnings.push(m); return Promise.resolve(items.includes('Revert constraint') ? 'Revert constraint' : undefined); };
    try {
      const r = await vscode.commands.executeCommand<UpgradeResult>('tofuRegistry.dependencies.upgrade', dep(view, 'deps-ws/stack', 'widget'));
      assert.deepEqual(r.applied.map((a) => a.plan.constraint), ['~> 2.0']);
      assert.equal(r.lock?.failed, true);
      assert.match(r.lock!.message, new RegExp(`not written, 1 failure\\(s\\): .*widget 2\\.0\\.0 darwin_arm64: download failed: .*500.*${zip.replace(/\./g, '\\.')}`));
      assert.equal(fs.readFileSync(lockPath(), 'utf8'), lockBefore, 'byte for byte');
      assert.equal(fs.statSync(lockPath()).mtimeMs, statBefore.mtimeMs, 'not even rewritten');
      assert.deepEqual(fs.readdirSync(stack).filter((n) => n.startsWith('.') && n !== '.terraform.lock.hcl'), [], 'no temp file left');
      const warning = await waitFor('the warning', () => warnings.find((m) => m.includes('constraint edit stays')));
      assert.match(warning, /the constraint edit stays \(widget "~> 2\.0"\), but the lock file was left exactly as it was: .*500.* tofu init fails until it is relocked: it still locks widget 1\.1\.0\./);
      // the user chose "Revert constraint": the file is as before, on disk too
      await waitFor('the constraint to be reverted', () => fs.readFileSync(path.join(stack, 'versions.tf'), 'utf8') === textBefore);
      assert.equal(versions.getText(), textBefore);
    } finally {
      w.showWarningMessage = original;
      fx.files.fault(zip, undefined);
    }
  });

  it('"Upgrade to newest" on a provider: one undoable edit, then the lock file locks the newest for the team\'s platforms', async () => {
    await waitFor('widget back within ~> 1.0 in the graph', async () => (await view.refresh())?.directories.find((d) => d.dir === stack)?.providers.find((p) => p.name === 'widget')?.constraint === '~> 1.0');
    const { doc, before, r } = await upgradeByCodeAction(path.join(stack, 'versions.tf'), '~> 1.0', 'Upgrade widget to newest (2.0.0)');
    assert.equal(r.lock?.failed, false, r.lock?.message);
    assert.equal(doc.getText(), before.replace('version = "~> 1.0"', 'version = "~> 2.0"'));
    assert.equal(fs.readFileSync(lockPath(), 'utf8'), await fx.expectedLock([['hashicorp/random', '3.6.0', '~> 3.6'], ['acme/widget', '2.0.0', '~> 2.0']]));
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.getText(), before, 'one undoable edit (the lock write is not part of it)');
    await doc.save();
  });

  it('several at once go through "Show changes"; each directory is relocked once', async () => {
    await waitFor('the stack in the graph', async () => (await view.refresh())?.directories.find((d) => d.dir === stack)?.providers.find((p) => p.name === 'widget')?.status === 'unsatisfiable');
    const net = dep(view, 'deps-ws/stack', 'net');
    const widget = dep(view, 'deps-ws/stack', 'widget');
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
    assert.equal(r.lock?.failed, false, r.lock?.message);
    assert.equal(r.lock?.report?.lockFiles.length, 1);
    // widget stays at 2.0.0 (locked, now allowed), its recorded constraint follows the configuration
    assert.equal(fs.readFileSync(lockPath(), 'utf8'), await fx.expectedLock([['hashicorp/random', '3.6.0', '~> 3.6'], ['acme/widget', '2.0.0', '~> 2.0']]));
    await waitFor('the view to show widget up to date', () => dep(view, 'deps-ws/stack', 'widget').dep.status === 'up-to-date', 30000);
  });
});
