// The "OpenTofu Dependencies" view (Explorer) and the status bar count of outdated dependencies.
// Registered cheaply at activation; the graph is computed lazily — when the view becomes visible,
// or after an idle delay for the status bar — and again (debounced) when configuration files,
// lock files or installed-module manifests change. Data comes from src/engine/deps and the pure
// src/features/depsTree.ts; this file only adapts it to VS Code.
import * as vscode from 'vscode';
import { scanWorkspaceDirs } from './settings';
import { buildDependencyGraph } from '../engine/deps/graph';
import { rootConfigDirs } from '../engine/deps/roots';
import type { Dependency, DependencyGraph } from '../engine/deps/types';
import { ModuleResolver } from '../engine/modulepkg/resolve';
import type { Range } from '../engine/config/ast';
import type { Engine } from '../engine/engine';
import { toRange } from './convert';
import { countOutdated, DepsNode, dirNodes, groupNodes, depNode } from '../features/depsTree';
import type { RegistryServices } from './services';

export const VIEW_ID = 'tofuRegistry.dependencies';
const ONLY_OUTDATED_KEY = 'tofuRegistry.dependencies.onlyOutdated';
const WATCH_DEBOUNCE_MS = 1500;
const IDLE_DELAY_MS = 5000;

export class DependencyView implements vscode.TreeDataProvider<DepsNode>, vscode.Disposable {
  readonly view: vscode.TreeView<DepsNode>;
  readonly statusBar: vscode.StatusBarItem;
  private readonly changed = new vscode.EventEmitter<DepsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly updatedEmitter = new vscode.EventEmitter<DependencyGraph>();
  /** Fired after each completed graph computation (tests wait on it). */
  readonly onDidUpdate = this.updatedEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private graphRef?: DependencyGraph;
  private running?: { cancel: vscode.CancellationTokenSource; promise: Promise<DependencyGraph | undefined> };
  private timer?: NodeJS.Timeout;
  private onlyOutdated = false;
  private resolverFor?: Engine;
  private resolverRef?: ModuleResolver;
  /** Graph computations finished (tests check the debounce). */
  runs = 0;

  constructor(private readonly services: RegistryServices) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, canSelectMany: true, showCollapseAll: true });
    this.statusBar = vscode.window.createStatusBarItem('tofuRegistry.dependencies.status', vscode.StatusBarAlignment.Left, 50);
    this.statusBar.name = 'OpenTofu Dependencies';
    this.statusBar.command = `${VIEW_ID}.focus`;
    void vscode.commands.executeCommand('setContext', ONLY_OUTDATED_KEY, false);
    const d = this.disposables;
    d.push(this.view, this.statusBar, this.changed, this.updatedEmitter);
    d.push(this.view.onDidChangeVisibility((e) => { if (e.visible && !this.graphRef && !this.running) void this.refresh(); }));
    d.push(vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('tofuRegistry.dependencies')) this.updateStatusBar(); }));
    if (this.statusBarEnabled() && vscode.workspace.workspaceFolders?.length) this.schedule(IDLE_DELAY_MS);
  }

  get graph(): DependencyGraph | undefined {
    return this.graphRef;
  }

  private statusBarEnabled(): boolean {
    return vscode.workspace.getConfiguration('tofuRegistry').get<boolean>('dependencies.statusBar') ?? true;
  }

  /** Reads child modules for the graph and for relocking (one fetch per remote module for both). */
  get resolver(): ModuleResolver {
    if (!this.resolverRef || this.resolverFor !== this.services.engine) {
      this.resolverFor = this.services.engine;
      this.resolverRef = new ModuleResolver({ engine: this.services.engine, cacheDir: this.services.cacheDir, networkAllowed: () => this.services.networkAllowed() });
    }
    return this.resolverRef;
  }

  schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = undefined; void this.refresh(); }, delayMs);
  }

  setOnlyOutdated(on: boolean): void {
    this.onlyOutdated = on;
    void vscode.commands.executeCommand('setContext', ONLY_OUTDATED_KEY, on);
    this.changed.fire(undefined);
  }

  /**
   * File changes only matter once a graph exists (the view was shown or the status bar computed):
   * the watchers start with the first computation, not at activation.
   */
  private watching = false;
  private watchFiles(): void {
    if (this.watching) return;
    this.watching = true;
    const onFile = () => this.schedule(WATCH_DEBOUNCE_MS);
    const d = this.disposables;
    for (const glob of ['**/*.{tf,tofu,tf.json,tofu.json}', '**/.terraform.lock.hcl', '**/.terraform/modules/modules.json']) {
      const w = vscode.workspace.createFileSystemWatcher(glob);
      d.push(w, w.onDidChange(onFile), w.onDidCreate(onFile), w.onDidDelete(onFile));
    }
    d.push(this.services.onDidReset(onFile), vscode.workspace.onDidGrantWorkspaceTrust(onFile), vscode.workspace.onDidChangeWorkspaceFolders(onFile));
  }

  /** Recompute the graph (a run in progress is cancelled first). Resolves with the new graph, or undefined when cancelled. */
  refresh(): Promise<DependencyGraph | undefined> {
    this.watchFiles();
    this.running?.cancel.cancel();
    const cancel = new vscode.CancellationTokenSource();
    const promise = Promise.resolve(vscode.window.withProgress({ location: { viewId: VIEW_ID } }, () => this.compute(cancel.token)))
      .finally(() => { if (this.running?.cancel === cancel) this.running = undefined; cancel.dispose(); });
    this.running = { cancel, promise };
    return promise;
  }

  /** The graph as soon as any run in progress finishes (or a new one when there is none yet). */
  async current(): Promise<DependencyGraph | undefined> {
    if (this.running) return this.running.promise;
    return this.graphRef ?? this.refresh();
  }

  private async compute(token: vscode.CancellationToken): Promise<DependencyGraph | undefined> {
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort(new Error('cancelled')));
    const t0 = performance.now();
    try {
      const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
      // Root modules only: a local child module's providers already count in its caller's.
      const scan = await scanWorkspaceDirs(roots, this.services.log);
      // A scan cut short (tofuRegistry.maxConfigDirs) says so above the tree, not only in the log.
      this.view.message = scan.warnings.length ? scan.warnings.join(' ') : undefined;
      const dirs = await rootConfigDirs(scan.dirs);
      const graph = await buildDependencyGraph(dirs, {
        engine: this.services.engine, resolver: this.resolver, networkAllowed: () => this.services.networkAllowed(), signal: ac.signal,
      });
      if (token.isCancellationRequested) return undefined;
      this.graphRef = graph;
      this.runs++;
      this.reportProblems(graph);
      this.changed.fire(undefined);
      this.updateStatusBar();
      this.services.log.info(`dependency graph: ${dirs.length} configuration directories in ${(performance.now() - t0).toFixed(0)} ms`);
      this.updatedEmitter.fire(graph);
      return graph;
    } catch (err) {
      if (ac.signal.aborted) return undefined;
      this.services.log.error(`dependency graph: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      sub.dispose();
    }
  }

  /** Network problems once per host in the log (items show them quietly), never as errors per item. */
  private readonly reportedHosts = new Set<string>();
  private reportProblems(graph: DependencyGraph): void {
    for (const d of graph.directories.flatMap((x) => [...x.modules, ...x.providers])) {
      if (d.problem !== 'unreachable' || !d.host || this.reportedHosts.has(d.host)) continue;
      this.reportedHosts.add(d.host);
      this.services.log.warn(`dependencies: registry ${d.host} unreachable: ${d.message ?? ''}`);
    }
  }

  private updateStatusBar(): void {
    if (!this.graphRef || !this.statusBarEnabled()) { this.statusBar.hide(); return; }
    const n = countOutdated(this.graphRef);
    this.statusBar.text = n ? `$(arrow-circle-up) ${n} outdated` : '$(check) dependencies up to date';
    this.statusBar.tooltip = n ? `OpenTofu: ${n} outdated module${n === 1 ? '' : 's'}/provider${n === 1 ? '' : 's'} in the workspace — click to show` : 'OpenTofu: every module and provider is up to date';
    this.statusBar.show();
  }

  getTreeItem(node: DepsNode): vscode.TreeItem {
    if (node.kind === 'dir') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = node.id;
      item.description = node.description;
      item.iconPath = new vscode.ThemeIcon('folder');
      item.tooltip = node.dir;
      item.contextValue = 'dir';
      return item;
    }
    if (node.kind === 'group') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = node.id;
      item.description = node.description;
      item.iconPath = new vscode.ThemeIcon(node.group === 'modules' ? 'package' : 'plug');
      item.contextValue = 'group';
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = new vscode.MarkdownString(node.tooltip);
    item.iconPath = new vscode.ThemeIcon(node.icon.id, node.icon.color ? new vscode.ThemeColor(node.icon.color) : undefined);
    item.contextValue = node.contextValue;
    if (node.dep.site || node.dep.lockSite) item.command = { command: 'tofuRegistry.dependencies.open', title: 'Open', arguments: [node] };
    return item;
  }

  getChildren(node?: DepsNode): DepsNode[] {
    const g = this.graphRef;
    if (!g) return [];
    if (!node) {
      const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      return dirNodes(g, roots, this.onlyOutdated);
    }
    if (node.kind === 'dir') {
      const d = g.directories.find((x) => x.dir === node.dir);
      return d ? groupNodes(d, this.onlyOutdated) : [];
    }
    if (node.kind === 'group') return node.deps.map(depNode);
    return [];
  }

  getParent(): undefined {
    return undefined;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.running?.cancel.cancel();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * Open the declaring block of a dependency and put the cursor on its version (else the block); a
 * provider only child modules or the lock file know opens at its lock entry.
 */
export async function openDeclaration(dep: Dependency): Promise<void> {
  const site = dep.site ?? dep.lockSite;
  if (site) await reveal(site.file, dep.site?.versionRange ?? site.range);
}

/** Open a provider's entry in `.terraform.lock.hcl`. */
export async function openLockEntry(dep: Dependency): Promise<void> {
  if (dep.lockSite) await reveal(dep.lockSite.file, dep.lockSite.range);
}

async function reveal(file: string, at: Range): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const range = toRange(at);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(range.start, range.start), preview: true });
}
