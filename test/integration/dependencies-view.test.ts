// The "OpenTofu Dependencies" view's own behaviour in a real VS Code extension host: several files
// written in quick succession recompute the graph once (the watcher is debounced), the status bar
// item's command shows the view, and clicking an item opens its block with the cursor on it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { depItem, DepsFixture, mkdirWatched, startDepsFixture } from './deps-fixture';
import { closeAll, waitFor, workspaceDir } from './editor-helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('dependencies view: debounce, status bar, click (real extension host)', function () {
  this.timeout(90000);
  let fx: DepsFixture;
  let root: string;

  before(async () => {
    fx = await startDepsFixture();
    root = path.join(workspaceDir(), 'deps-view');
    fs.mkdirSync(root, { recursive: true });
    // A refresh the previous test's file writes scheduled may cancel this one (refresh() then
    // resolves undefined): the graph is then the one that run computes.
    assert.ok((await fx.view.refresh()) ?? (await fx.view.current()), 'a graph was computed (the file watchers start with it)');
  });

  after(async () => {
    await closeAll();
    if (root) fs.rmSync(root, { recursive: true, force: true });
    await fx?.stop();
  });

  it('several .tf files written in quick succession recompute the view once', async () => {
    const view = fx.view;
    // Quiet first: no recomputation pending from earlier changes.
    await waitFor('the view to be quiet', async () => { const n = view.runs; await sleep(2500); return view.runs === n; }, 30000);
    const before = view.runs;
    const burst = path.join(root, 'burst');
    await mkdirWatched(burst);
    // 400 ms apart: each write alone would be recomputed before the next one without the 1.5 s debounce.
    for (let i = 0; i < 4; i++) {
      fs.writeFileSync(path.join(burst, `m${i}.tf`), `module "m${i}" {\n  source = "./m${i}"\n}\n`);
      await sleep(400);
    }
    await waitFor('the burst in the graph', () => view.graph?.directories.find((d) => d.dir === burst)?.modules.length === 4, 30000);
    await sleep(2500); // longer than the debounce: a second recomputation would have come by now
    assert.equal(view.runs - before, 1, 'one recomputation for four files');
  });

  it('the status bar item shows the view', async () => {
    const view = fx.view;
    assert.equal(view.statusBar.command, 'tofuRegistry.dependencies.focus');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await waitFor('the view to be hidden', () => !view.view.visible);
    await vscode.commands.executeCommand(view.statusBar.command as string);
    await waitFor('the view to be shown', () => view.view.visible);
  });

  it('clicking an item opens its block, the cursor on its version, scrolled into view', async () => {
    const view = fx.view;
    const dir = path.join(root, 'click');
    const file = path.join(dir, 'main.tf');
    fs.mkdirSync(dir);
    // the block far down the file: opening at the top would not show it
    fs.writeFileSync(file, `${'# filler\n'.repeat(120)}module "net" {\n  source  = "${fx.reg.host}/deps/net/aws"\n  version = "~> 1.0"\n}\n`);
    await waitFor('the module in the graph', async () => (await view.refresh())?.directories.some((d) => d.dir === dir), 30000);
    const item = view.getTreeItem(depItem(view, 'deps-view/click', 'net'));
    assert.ok(item.command, 'a click runs a command');
    await closeAll();
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    const editor = await waitFor('the file in the active editor', () => (vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined));
    // line 123 (0-based 122): `  version = "~> 1.0"`, the cursor at the start of the constraint
    const at = new vscode.Position(122, '  version = "'.length);
    assert.equal(editor.document.lineAt(122).text, '  version = "~> 1.0"');
    assert.ok(editor.selection.isEmpty && editor.selection.active.isEqual(at), `cursor at ${JSON.stringify(editor.selection.active)}`);
    await waitFor('the block scrolled into view', () => editor.visibleRanges.some((r) => r.contains(at)));
  });
});
