// The lock step of the dependency actions: after "Upgrade to newest" rewrote provider constraints,
// or for "Update within constraint", each affected directory's `.terraform.lock.hcl` is relocked
// once through the lock engine (src/engine/deps/relock.ts) for the team's platforms, with
// cancellable progress. A relock that fails or is cancelled writes nothing, and the constraint edit
// stays (it is what the user asked for, and undoable as any edit): the message says why, what the
// lock still holds, and offers "Retry" and "Revert constraint".
import * as path from 'node:path';
import * as vscode from 'vscode';
import { relockProviders } from '../engine/deps/relock';
import type { Dependency } from '../engine/deps/types';
import type { UpgradePlan } from '../engine/deps/upgrade';
import { LOCK_FILE_NAME, LockReport } from '../engine/lock';
import { selectVersions } from '../engine/versions/select';
import { toRange } from './convert';
import type { DependencyView } from './dependencies';
import { lockConcurrency, lockProgress, summarize, teamPlatforms } from './lockCommand';
import type { RegistryServices } from './services';

export interface LockStep {
  /** Absent when the lock engine did not run (untrusted workspace, an unexpected error). */
  report?: LockReport;
  /** What happened, per lock file. */
  message: string;
  /** A lock file was not written (failure or cancellation): it is byte for byte as it was. */
  failed: boolean;
}

export interface AppliedUpgrade {
  dep: Dependency;
  plan: UpgradePlan;
  uri: vscode.Uri;
  /** The text the edit replaced (to revert it). */
  oldText: string;
}

/**
 * Relock the providers' directories (each once) for the team's platforms: each of these providers
 * takes the newest version its constraints allow, the others stay as locked. A failure writes nothing.
 */
export async function relock(deps: Dependency[], services: RegistryServices, view: DependencyView): Promise<LockStep> {
  const providers = new Map<string, string[]>();
  for (const d of deps) providers.set(d.dir, [...(providers.get(d.dir) ?? []), d.source]);
  const where = [...providers.keys()].map((d) => vscode.workspace.asRelativePath(path.join(d, LOCK_FILE_NAME))).join(', ');
  if (!services.networkAllowed()) {
    return { message: `${where}: not updated: relocking needs network access, which is disabled in an untrusted workspace.`, failed: true };
  }
  const platforms = teamPlatforms();
  // Unsaved buffers count (a constraint edited in a file that had other unsaved changes stays unsaved).
  const overlay = new Map(vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file').map((d) => [d.uri.fsPath, d.getText()]));
  try {
    const report = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, cancellable: true,
      title: `Updating ${providers.size === 1 ? 'the lock file' : `${providers.size} lock files`} for ${platforms.join(', ')}`,
    }, (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      return relockProviders({
        engine: services.engine, providers, platforms, resolver: view.resolver, overlay, concurrency: lockConcurrency(),
        signal: ac.signal, onProgress: lockProgress(services, progress, platforms),
      });
    });
    return { report, message: summarize(report), failed: report.failed.length > 0 };
  } catch (err) {
    // The lock engine writes a file only once all of its directory succeeded: nothing was written.
    const message = `${where}: not updated: ${err instanceof Error ? err.message : String(err)}`;
    services.log.error(`lock: ${message}`);
    return { message, failed: true };
  } finally {
    view.schedule(300);
  }
}

/** The applied provider upgrades whose directory's lock file was not written. */
export function notRelocked(applied: AppliedUpgrade[], lock: LockStep): AppliedUpgrade[] {
  const failed = new Set(lock.report ? lock.report.failed.map((f) => f.dir) : applied.map((a) => a.dep.dir));
  return applied.filter((a) => a.dep.kind === 'provider' && failed.has(a.dep.dir));
}

/** After a failed relock: the edit stays; say why, what the lock still holds, and offer to retry or revert. */
export async function afterFailedRelock(affected: AppliedUpgrade[], lock: LockStep, services: RegistryServices, view: DependencyView): Promise<void> {
  const held = affected.filter((a) => a.dep.locked).map((a) => `${a.dep.name} ${a.dep.locked}`);
  const consequence = affected.some(lockExcluded) ? ` tofu init fails until it is relocked: it still locks ${held.join(', ')}.`
    : held.length ? ` It still locks ${held.join(', ')}.` : '';
  const edits = affected.map((a) => `${a.dep.name} "${a.plan.constraint}"`).join(', ');
  const choice = await vscode.window.showWarningMessage(
    `OpenTofu: the constraint edit stays (${edits}), but the lock file was left exactly as it was: ${lock.message}${consequence}`,
    'Retry', 'Revert constraint', 'Show log');
  if (choice === 'Show log') services.log.show(true);
  if (choice === 'Retry') {
    const again = await relock(affected.map((a) => a.dep), services, view);
    if (again.failed) await afterFailedRelock(notRelocked(affected, again), again, services, view);
    else void vscode.window.showInformationMessage(`OpenTofu: ${again.message}`);
  }
  if (choice === 'Revert constraint') {
    const problems = await revertEdits(affected);
    const msg = `OpenTofu: reverted ${edits}${problems.length ? ` except: ${problems.join('; ')}` : ''}.`;
    services.log.info(`dependencies: ${msg}`);
    void (problems.length ? vscode.window.showWarningMessage(msg) : vscode.window.showInformationMessage(msg));
    view.schedule(300);
  }
}

/** Whether the lock still holds a version the new constraint excludes (then `tofu init` fails). */
function lockExcluded(a: AppliedUpgrade): boolean {
  return !!a.dep.locked && !!a.plan.constraint && selectVersions([a.dep.locked], a.plan.constraint, 'provider').selected !== a.dep.locked;
}

/** The inverse of each applied edit, where the file still holds what the edit wrote; returns what could not be reverted. */
async function revertEdits(applied: AppliedUpgrade[]): Promise<string[]> {
  const edit = new vscode.WorkspaceEdit();
  const docs = new Set<vscode.TextDocument>();
  const problems: string[] = [];
  for (const a of applied) {
    const doc = await vscode.workspace.openTextDocument(a.uri);
    const start = toRange(a.plan.edit!.range).start;
    const written = new vscode.Range(start, start.translate(0, a.plan.edit!.newText.length));
    if (doc.getText(written) !== a.plan.edit!.newText) {
      problems.push(`${a.dep.name} (${vscode.workspace.asRelativePath(a.uri)} changed since)`);
      continue;
    }
    edit.replace(a.uri, written, a.oldText);
    docs.add(doc);
  }
  const clean = [...docs].filter((d) => !d.isDirty);
  if (docs.size && !(await vscode.workspace.applyEdit(edit))) return ['VS Code refused the edit'];
  // Saved as the upgrade saved them, so the lock diagnostics and the view see the old constraint again.
  for (const d of clean) await d.save();
  return problems;
}
