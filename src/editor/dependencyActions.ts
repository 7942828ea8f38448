// Commands of the "OpenTofu Dependencies" view and the matching code actions on module blocks and
// required_providers entries: "Upgrade to newest" (rewrite the constraint in its own style; several
// at once go through a "Show changes" list), "Update within constraint" (providers: relock to the
// newest matching; modules: nothing to edit, the version `tofu init -upgrade` installs is shown),
// refresh, the "only outdated" filter, open the block or the lock entry. Provider upgrades then
// relock their directories through the lock engine for the team's platforms (relockStep.ts).
import * as vscode from 'vscode';
import { planUndeclaredUpgrade, planUpgradeToNewest, UpgradePlan } from '../engine/deps/upgrade';
import type { Dependency } from '../engine/deps/types';
import { toRange } from './convert';
import { DependencyView, openDeclaration, openLockEntry } from './dependencies';
import { teamPlatforms } from './lockCommand';
import { DepsNode, findDependency, isOutdated } from '../features/depsTree';
import { attributeAt, contains, refAt } from '../features/refs';
import { afterFailedRelock, AppliedUpgrade, LockStep, notRelocked, relock } from './relockStep';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';

export const UPGRADE_COMMAND = 'tofuRegistry.dependencies.upgrade';
export const UPDATE_WITHIN_COMMAND = 'tofuRegistry.dependencies.updateWithin';

export interface UpgradeResult {
  applied: AppliedUpgrade[];
  /** Providers whose constraint already allows the newest: relocked to it without an edit. */
  relocked: { dep: Dependency; plan: UpgradePlan }[];
  skipped: string[];
  /** After provider upgrades: relocking their directories (absent when no provider moves). */
  lock?: LockStep;
}

export interface UpdateWithinResult {
  message: string;
  /** Providers: relocking their directories. */
  lock?: LockStep;
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

type Planned = { dep: Dependency; plan: UpgradePlan; doc?: vscode.TextDocument };

/** Upgrade each dependency to its newest version: one undoable workspace edit, then the lock files. */
export async function upgradeToNewest(deps: Dependency[], preview: boolean, services: RegistryServices, view: DependencyView): Promise<UpgradeResult> {
  const result: UpgradeResult = { applied: [], relocked: [], skipped: [] };
  const docs = new Map<string, vscode.TextDocument>();
  const planned: Planned[] = [];
  for (const dep of deps) {
    let p: Planned = { dep, plan: planUndeclaredUpgrade(dep) };
    if (dep.site) {
      const doc = docs.get(dep.site.file) ?? await vscode.workspace.openTextDocument(vscode.Uri.file(dep.site.file));
      docs.set(dep.site.file, doc);
      p = { dep, plan: planUpgradeToNewest(dep, doc.getText(), doc.uri.fsPath), doc };
    }
    // No edit and no relock: nothing this command can do (the message says why).
    if (p.plan.edit || p.plan.relock) planned.push(p);
    else result.skipped.push(`${dep.kind} ${dep.name}: ${p.plan.message}`);
  }
  const chosen = preview && planned.length ? await showChanges(planned) : planned;
  const edits = chosen.filter((p): p is Required<Planned> => !!p.plan.edit && !!p.doc);
  result.relocked = chosen.filter((p) => !p.plan.edit);
  if (edits.length) {
    const edit = new vscode.WorkspaceEdit();
    for (const p of edits) edit.replace(p.doc.uri, toRange(p.plan.edit!.range), p.plan.edit!.newText);
    const touched = [...new Set(edits.map((p) => p.doc))];
    const wasDirty = new Set(touched.filter((d) => d.isDirty).map((d) => d.uri.toString()));
    const oldTexts = edits.map((p) => p.doc.getText(toRange(p.plan.edit!.range)));
    if (!(await vscode.workspace.applyEdit(edit))) { result.relocked = []; return result; }
    result.applied = edits.map(({ dep, plan, doc }, i) => ({ dep, plan, uri: doc.uri, oldText: oldTexts[i] }));
    // Files that had no unsaved changes are saved, so the lock step and the view see the new constraint.
    for (const d of touched) if (!wasDirty.has(d.uri.toString()) && d.isDirty) await d.save();
  }
  // Every provider whose constraint changed, and those whose lock alone holds them back: the lock
  // engine picks what all constraints allow now (the newest, for the latter).
  const providers = [...result.applied.filter((a) => a.dep.kind === 'provider').map((a) => a.dep), ...result.relocked.map((r) => r.dep)];
  if (providers.length) result.lock = await relock(providers, services, view);
  return result;
}

/** "Show changes": every planned rewrite, all picked; the user unpicks what to leave and accepts (Escape: nothing). */
async function showChanges<T extends Planned>(planned: T[]): Promise<T[]> {
  const items = planned.map((p) => ({
    label: `${p.dep.kind === 'module' ? '$(package)' : '$(plug)'} ${p.dep.name}`,
    description: p.plan.edit ? `"${p.dep.constraint ?? ''}" → "${p.plan.constraint}"   ${p.dep.selected ?? '-'} → ${p.plan.version ?? p.dep.newest}`
      : `lock ${p.dep.locked ?? '-'} → ${p.plan.version}`,
    detail: (p.plan.edit && p.doc ? `${vscode.workspace.asRelativePath(p.doc.uri)}:${p.plan.edit.range.start.line + 1}` : 'no constraint edit')
      + (p.plan.message ? ` — ${p.plan.message}` : '')
      + (p.dep.kind === 'provider' ? ` — then the lock file, for ${teamPlatforms().join(', ')}` : ''),
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

function summary(r: UpgradeResult): string {
  const done = [
    ...r.applied.map((a) => `${a.dep.name} → "${a.plan.constraint}"`),
    ...r.relocked.map((x) => `${x.dep.name} → ${x.plan.version} (${x.plan.message})`),
  ].join(', ');
  const parts = [done ? `Upgraded ${done}.` : 'Nothing upgraded.'];
  if (r.skipped.length) parts.push(`${done ? 'Skipped' : 'Cannot upgrade'}: ${r.skipped.join('; ')}.`);
  for (const a of r.applied) if (a.plan.message) parts.push(a.plan.message);
  if (r.lock) parts.push(r.lock.message, ...missedTarget(r));
  return parts.join(' ');
}

/** Relocked providers the lock engine did not move to the newest (another constraint holds them back): said, not hidden. */
function missedTarget(r: UpgradeResult): string[] {
  const files = r.lock?.report?.lockFiles ?? [];
  return r.relocked.flatMap(({ dep, plan }) => {
    const got = files.find((f) => f.dir === dep.dir)?.providers.find((p) => p.provider === dep.source)?.version;
    return got && got !== plan.version ? [`${dep.name} is locked at ${got}, not ${plan.version}: another constraint excludes it.`] : [];
  });
}

/** "Update within constraint": providers relocked to the newest matching (each directory once); modules say what init installs. */
async function updateWithin(deps: Dependency[], services: RegistryServices, view: DependencyView): Promise<UpdateWithinResult> {
  const parts = deps.filter((d) => d.kind === 'module').map((d) =>
    `module "${d.name}": nothing to edit — tofu init -upgrade installs ${d.newestMatching ?? 'nothing'} (installed: ${d.locked ?? 'none yet'}).`);
  const providers = deps.filter((d) => d.kind === 'provider');
  const lock = providers.length ? await relock(providers, services, view) : undefined;
  if (lock) parts.push(lock.message);
  const message = parts.join(' ');
  services.log.info(`dependencies: ${message}`);
  if (lock?.failed) {
    void vscode.window.showWarningMessage(`OpenTofu: ${message}`, 'Show log').then((a) => { if (a) services.log.show(true); });
  } else {
    void vscode.window.showInformationMessage(`OpenTofu: ${message}`);
  }
  return { message, lock };
}

export function registerDependencyActions(context: vscode.ExtensionContext, view: DependencyView, services: RegistryServices): void {
  const run = async (node?: DepsNode | Dependency, nodes?: readonly DepsNode[], options?: { preview?: boolean }) => {
    const deps = depsOf(view, node, nodes);
    if (!deps.length) { void vscode.window.showInformationMessage('OpenTofu: no outdated dependency selected.'); return undefined; }
    const r = await upgradeToNewest(deps, options?.preview ?? deps.length > 1, services, view);
    services.log.info(`dependencies: ${summary(r)}`);
    const edited = r.lock?.failed ? notRelocked(r.applied, r.lock) : [];
    if (r.lock?.failed && edited.length) void afterFailedRelock(edited, r.lock, services, view);
    // A failed relock with no edit to keep or revert, or nothing done at all: a warning that says why.
    else if (r.lock?.failed || (!r.applied.length && !r.relocked.length)) void vscode.window.showWarningMessage(`OpenTofu: ${summary(r)}`);
    else if (r.lock || r.skipped.length) void vscode.window.showInformationMessage(`OpenTofu: ${summary(r)}`);
    view.schedule(300);
    return r;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('tofuRegistry.dependencies.refresh', () => view.refresh()),
    vscode.commands.registerCommand('tofuRegistry.dependencies.showOnlyOutdated', () => view.setOnlyOutdated(true)),
    vscode.commands.registerCommand('tofuRegistry.dependencies.showAll', () => view.setOnlyOutdated(false)),
    vscode.commands.registerCommand('tofuRegistry.dependencies.open', (node: DepsNode) => (node.kind === 'dep' ? openDeclaration(node.dep) : undefined)),
    vscode.commands.registerCommand('tofuRegistry.dependencies.openLock', (node: DepsNode) => (node.kind === 'dep' ? openLockEntry(node.dep) : undefined)),
    vscode.commands.registerCommand(UPGRADE_COMMAND, run),
    vscode.commands.registerCommand(UPDATE_WITHIN_COMMAND, async (node?: DepsNode | Dependency, nodes?: readonly DepsNode[]) => {
      const deps = depsOf(view, node, nodes);
      return deps.length ? updateWithin(deps, services, view) : undefined;
    }),
  );
  context.subscriptions.push(vscode.languages.registerCodeActionsProvider(SELECTOR, {
    provideCodeActions(document, range) {
      if (!services.isOurs(document) || !view.graph) return undefined;
      const offset = document.offsetAt(range.start);
      const ref = refAt(services.refs(document).refs, offset);
      if (!ref || (!contains(ref.headerRange, offset) && !attributeAt(ref, offset))) return undefined;
      const dep = findDependency(view.graph, document.uri.fsPath, ref.kind, ref.name);
      const relockable = dep?.kind === 'provider' && dep.status === 'unsatisfiable' && !!dep.locked && !!dep.newestMatching;
      if (!dep || (!isOutdated(dep) && !relockable)) return undefined;
      const actions: vscode.CodeAction[] = [];
      if (isOutdated(dep) && (dep.status === 'update-out-of-range' || dep.newest !== dep.newestMatching)) {
        const a = new vscode.CodeAction(`Upgrade ${dep.name} to newest (${dep.newest})`, vscode.CodeActionKind.RefactorRewrite);
        a.command = { command: UPGRADE_COMMAND, title: a.title, arguments: [dep] };
        actions.push(a);
      }
      // also when the lock contradicts the constraint: relocking to the newest matching is the fix
      if (dep.status === 'update-in-range' || relockable) {
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
