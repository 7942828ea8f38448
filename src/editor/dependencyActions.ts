// Commands of the "OpenTofu Dependencies" view and the matching code actions on module blocks and
// required_providers entries: "Upgrade to newest" (rewrite the constraint in its own style; several
// at once go through VS Code's "Show changes" refactor preview), "Update within constraint"
// (providers: relock to the newest matching; modules: nothing to edit, the version
// `tofu init -upgrade` installs is shown), refresh, the "only outdated" filter, open the block.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { planUpgradeToNewest, UpgradePlan } from '../engine/deps/upgrade';
import { LockEngineMissingError, relockProviders } from '../engine/deps/relock';
import type { Dependency } from '../engine/deps/types';
import { toRange } from './convert';
import { DependencyView, openDeclaration } from './dependencies';
import { DepsNode, findDependency, isOutdated } from './logic/depsTree';
import { attributeAt, contains, refAt } from './logic/refs';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';

export const UPGRADE_COMMAND = 'tofuRegistry.dependencies.upgrade';
export const UPDATE_WITHIN_COMMAND = 'tofuRegistry.dependencies.updateWithin';

export interface UpgradeResult {
  applied: { dep: Dependency; plan: UpgradePlan }[];
  skipped: string[];
  /** Lock files that still need updating (the lock engine is not wired yet). */
  relock?: string;
}

/** The dependencies an invocation means: the clicked node plus the selection, folders and groups expanded. */
function depsOf(view: DependencyView, node?: DepsNode | Dependency, nodes?: readonly DepsNode[]): Dependency[] {
  const picked: (DepsNode | Dependency)[] = nodes?.length ? [...nodes] : node ? [node] : [...view.view.selection];
  const expand = (n: DepsNode | Dependency): Dependency[] => {
    if (!('kind' in n) || (n.kind !== 'dir' && n.kind !== 'group' && n.kind !== 'dep')) return [n as Dependency];
    if (n.kind === 'dep') return [n.dep];
    const children = view.getChildren(n);
    return children.flatMap(expand).filter(isOutdated);
  };
  const all = picked.length ? picked.flatMap(expand) : view.graph?.directories.flatMap((d) => [...d.modules, ...d.providers]).filter(isOutdated) ?? [];
  const seen = new Set<string>();
  return all.filter((d) => { const k = `${d.dir}\u0000${d.kind}\u0000${d.name}`; return !seen.has(k) && !!seen.add(k); });
}

/** Upgrade each dependency to its newest version: one undoable workspace edit, then the lock files. */
export async function upgradeToNewest(deps: Dependency[], preview: boolean, services: RegistryServices): Promise<UpgradeResult> {
  const result: UpgradeResult = { applied: [], skipped: [] };
  const docs = new Map<string, vscode.TextDocument>();
  const planned: { dep: Dependency; plan: UpgradePlan; doc: vscode.TextDocument }[] = [];
  for (const dep of deps) {
    if (!dep.site) { result.skipped.push(`${dep.kind} ${dep.name}: declared only by a child module or the lock file`); continue; }
    const doc = docs.get(dep.site.file) ?? await vscode.workspace.openTextDocument(vscode.Uri.file(dep.site.file));
    docs.set(dep.site.file, doc);
    const plan = planUpgradeToNewest(dep, doc.getText(), doc.uri.fsPath);
    if (!plan.edit) result.skipped.push(`${dep.kind} ${dep.name}: ${plan.message}`);
    else planned.push({ dep, plan, doc });
  }
  const chosen = preview && planned.length ? await showChanges(planned) : planned;
  if (!chosen.length) return result;
  const edit = new vscode.WorkspaceEdit();
  for (const p of chosen) edit.replace(p.doc.uri, toRange(p.plan.edit!.range), p.plan.edit!.newText);
  const touched = [...new Set(chosen.map((p) => p.doc))];
  const wasDirty = new Set(touched.filter((d) => d.isDirty).map((d) => d.uri.toString()));
  if (!(await vscode.workspace.applyEdit(edit))) return result;
  result.applied = chosen.map(({ dep, plan }) => ({ dep, plan }));
  // Files that had no unsaved changes are saved, so the lock step and the view see the new constraint.
  for (const d of touched) if (!wasDirty.has(d.uri.toString()) && d.isDirty) await d.save();
  const providers = result.applied.filter((a) => a.dep.kind === 'provider' && a.plan.version);
  if (providers.length) result.relock = await relock(providers.map((a) => ({ dep: a.dep, version: a.plan.version! })), services);
  return result;
}

/** "Show changes": every planned rewrite, all picked; the user unpicks what to leave and accepts (Escape: nothing). */
async function showChanges<T extends { dep: Dependency; plan: UpgradePlan; doc: vscode.TextDocument }>(planned: T[]): Promise<T[]> {
  const items = planned.map((p) => ({
    label: `${p.dep.kind === 'module' ? '$(package)' : '$(plug)'} ${p.dep.name}`,
    description: `"${p.dep.constraint ?? ''}" → "${p.plan.constraint}"   ${p.dep.selected ?? '-'} → ${p.plan.version ?? p.dep.newest}`,
    detail: `${vscode.workspace.asRelativePath(p.doc.uri)}:${p.plan.edit!.range.start.line + 1}${p.plan.message ? ` — ${p.plan.message}` : ''}`,
    picked: true,
    planned: p,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true, ignoreFocusOut: true,
    title: `Show changes: upgrade ${planned.length} dependencies to their newest versions`,
    placeHolder: 'Unselect what to keep as it is, then press Enter to apply',
  });
  return picked?.map((i) => i.planned) ?? [];
}

/** Relock providers per directory; returns the message when the lock engine is not available. */
async function relock(items: { dep: Dependency; version: string }[], services: RegistryServices): Promise<string | undefined> {
  const byDir = new Map<string, Map<string, string>>();
  for (const { dep, version } of items) {
    const m = byDir.get(dep.dir) ?? new Map<string, string>();
    m.set(dep.source, version);
    byDir.set(dep.dir, m);
  }
  const missing: string[] = [];
  for (const [dir, versions] of byDir) {
    try {
      await relockProviders({ dir, versions });
    } catch (err) {
      if (!(err instanceof LockEngineMissingError)) throw err;
      missing.push(err.message);
      services.log.warn(err.message);
    }
  }
  return missing.length ? missing.join('\n') : undefined;
}

function summary(r: UpgradeResult): string {
  const done = r.applied.map((a) => `${a.dep.name} → "${a.plan.constraint}"`).join(', ');
  const parts = [done ? `Upgraded ${done}.` : 'Nothing upgraded.'];
  if (r.skipped.length) parts.push(`Skipped: ${r.skipped.join('; ')}.`);
  for (const a of r.applied) if (a.plan.message) parts.push(a.plan.message);
  return parts.join(' ');
}

export function registerDependencyActions(context: vscode.ExtensionContext, view: DependencyView, services: RegistryServices): void {
  const run = async (node?: DepsNode | Dependency, nodes?: readonly DepsNode[], options?: { preview?: boolean }) => {
    const deps = depsOf(view, node, nodes);
    if (!deps.length) { void vscode.window.showInformationMessage('OpenTofu: no outdated dependency selected.'); return undefined; }
    const r = await upgradeToNewest(deps, options?.preview ?? deps.length > 1, services);
    services.log.info(`dependencies: ${summary(r)}`);
    if (r.relock) void vscode.window.showWarningMessage(`OpenTofu: ${r.relock}`);
    else if (r.skipped.length || !r.applied.length) void vscode.window.showInformationMessage(`OpenTofu: ${summary(r)}`);
    view.schedule(300);
    return r;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('tofuRegistry.dependencies.refresh', () => view.refresh()),
    vscode.commands.registerCommand('tofuRegistry.dependencies.showOnlyOutdated', () => view.setOnlyOutdated(true)),
    vscode.commands.registerCommand('tofuRegistry.dependencies.showAll', () => view.setOnlyOutdated(false)),
    vscode.commands.registerCommand('tofuRegistry.dependencies.open', (node: DepsNode) => (node.kind === 'dep' ? openDeclaration(node.dep) : undefined)),
    vscode.commands.registerCommand(UPGRADE_COMMAND, run),
    vscode.commands.registerCommand(UPDATE_WITHIN_COMMAND, async (node?: DepsNode | Dependency) => {
      const dep = depsOf(view, node)[0];
      if (!dep) return undefined;
      if (dep.kind === 'module') {
        const msg = `module "${dep.name}": nothing to edit — tofu init -upgrade installs ${dep.newestMatching ?? 'nothing'} (installed: ${dep.locked ?? 'none yet'}).`;
        void vscode.window.showInformationMessage(`OpenTofu: ${msg}`);
        return msg;
      }
      const msg = dep.newestMatching ? await relock([{ dep, version: dep.newestMatching }], services) : 'no version matches the constraint';
      if (msg) void vscode.window.showWarningMessage(`OpenTofu: ${msg}`);
      view.schedule(300);
      return msg;
    }),
  );
  context.subscriptions.push(vscode.languages.registerCodeActionsProvider(SELECTOR, {
    provideCodeActions(document, range) {
      if (!services.isOurs(document) || !view.graph) return undefined;
      const offset = document.offsetAt(range.start);
      const ref = refAt(services.refs(document).refs, offset);
      if (!ref || (!contains(ref.headerRange, offset) && !attributeAt(ref, offset))) return undefined;
      const dep = findDependency(view.graph, path.dirname(document.uri.fsPath), ref.kind, ref.name);
      if (!dep || !isOutdated(dep)) return undefined;
      const actions: vscode.CodeAction[] = [];
      if (dep.status === 'update-out-of-range' || dep.newest !== dep.newestMatching) {
        const a = new vscode.CodeAction(`Upgrade ${dep.name} to newest (${dep.newest})`, vscode.CodeActionKind.RefactorRewrite);
        a.command = { command: UPGRADE_COMMAND, title: a.title, arguments: [dep] };
        actions.push(a);
      }
      if (dep.status === 'update-in-range') {
        const a = new vscode.CodeAction(`Update ${dep.name} within constraint (${dep.newestMatching})`, vscode.CodeActionKind.RefactorRewrite);
        a.command = { command: UPDATE_WITHIN_COMMAND, title: a.title, arguments: [dep] };
        actions.push(a);
      }
      return actions;
    },
  }, { providedCodeActionKinds: [vscode.CodeActionKind.RefactorRewrite] }));
}

export function registerDependencies(context: vscode.ExtensionContext, services: RegistryServices): DependencyView {
  const view = new DependencyView(services);
  context.subscriptions.push(view);
  registerDependencyActions(context, view, services);
  return view;
}
