// "OpenTofu: Lock providers for all platforms" (palette, explorer folder menu, quick fix on the lock
// diagnostics): `.terraform.lock.hcl` for the team's platforms (tofuRegistry.lock.platforms),
// cancellable progress, written atomically by the engine, then a message that says what changed.
// Thin adapter over src/engine/lockfile (the same engine as `tofu-registry lock`).
//
// Programmatic use (tests, quick fixes) skips the prompts:
//   executeCommand('tofuRegistry.lockProviders', { dirs, platforms?, upgrade?, show? })
// resolves to { report, message } (undefined when the user cancelled a prompt).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { scanWorkspaceDirs } from './settings';
import type { EditorServices } from './services';
import { LOCK_FILE_NAME, LockProgressEvent, LockReport, lockProviders } from '../engine/lock';
import { platformsSetting } from '../engine/providerpkg/platform';

export const LOCK_COMMAND = 'tofuRegistry.lockProviders';

export interface LockCommandArgs {
  dirs?: string[];
  platforms?: string[];
  /** true: newest matching version for every provider; a list: for these addresses only. */
  upgrade?: boolean | string[];
  /** Show the summary message (default true). */
  show?: boolean;
}

/** tofuRegistry.lock.platforms, else the current platform plus linux_amd64. */
export function teamPlatforms(): string[] {
  return platformsSetting(vscode.workspace.getConfiguration('tofuRegistry').get<unknown>('lock.platforms'));
}

/** Parallel archive downloads of a lock run (tofuRegistry.mirror.concurrency). */
export function lockConcurrency(): number {
  return Math.min(64, Math.max(1, vscode.workspace.getConfiguration('tofuRegistry').get<number>('mirror.concurrency') ?? 8));
}

/** A lock run's progress in a notification ("3/8 — provider version platform: outcome") and the log. */
export function lockProgress(services: EditorServices, progress: vscode.Progress<{ message?: string; increment?: number }>, platforms: string[]): (e: LockProgressEvent) => void {
  let total = 0;
  let done = 0;
  return (e) => {
    if (e.kind === 'planned') { total += e.packages; progress.report({ message: `${total} packages for ${platforms.join(', ')}` }); }
    if (e.kind === 'failed') for (const f of e.failures) services.log.warn(`lock: ${f.message}`);
    if (e.kind === 'package') {
      done++;
      services.log.info(`lock: ${e.outcome} ${e.provider} ${e.version} ${e.platform}`);
      progress.report({ increment: total ? 100 / total : 0, message: `${done}/${total} — ${e.provider} ${e.version} ${e.platform}: ${e.outcome}` });
    }
    if (e.kind === 'written') services.log.info(`lock: ${e.changed ? 'wrote' : 'unchanged'} ${e.path}`);
  };
}

export function registerLockCommand(context: vscode.ExtensionContext, services: EditorServices, onDone?: (dirs: string[]) => void): void {
  context.subscriptions.push(vscode.commands.registerCommand(LOCK_COMMAND,
    async (arg?: unknown, selection?: unknown) => {
      const res = await runLockCommand(services, Array.isArray(selection) && selection.length > 1 && selection.every((u) => u instanceof vscode.Uri) ? selection : arg);
      if (res) onDone?.(res.report.lockFiles.map((f) => f.dir));
      return res;
    }));
}

async function runLockCommand(services: EditorServices, arg: unknown): Promise<{ report: LockReport; message: string } | undefined> {
  if (!services.networkAllowed()) {
    void vscode.window.showWarningMessage('Lock providers needs network access, which is disabled in an untrusted workspace.');
    return undefined;
  }
  const args: LockCommandArgs = arg instanceof vscode.Uri ? { dirs: [arg.fsPath] }
    : Array.isArray(arg) ? { dirs: arg.map((u: vscode.Uri) => u.fsPath) }
      : (arg && typeof arg === 'object' ? arg as LockCommandArgs : {});
  const dirs = args.dirs ?? await chooseDirs(services.log);
  if (!dirs?.length) return undefined;
  const platforms = args.platforms?.length ? args.platforms : teamPlatforms();
  let report: LockReport;
  try {
    report = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: 'Locking providers', cancellable: true,
    }, async (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      return lockProviders({
        engine: services.engine, dirs, platforms, concurrency: lockConcurrency(), upgrade: args.upgrade, signal: ac.signal,
        onProgress: lockProgress(services, progress, platforms),
      });
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    services.log.error(`lock: ${message}`);
    void vscode.window.showErrorMessage(`Lock providers: ${message}`);
    return undefined;
  }
  const message = summarize(report);
  if (args.show !== false) {
    if (report.failed.length) {
      void vscode.window.showWarningMessage(message, 'Show log').then((a) => { if (a) services.log.show(true); });
    } else {
      void vscode.window.showInformationMessage(message);
    }
  }
  return { report, message };
}

/** "Lock file updated: 2 providers; platforms added: darwin_arm64 (aws, random)." and the like. */
export function summarize(r: LockReport): string {
  const parts: string[] = [];
  for (const f of r.lockFiles) {
    const where = vscode.workspace.asRelativePath(f.path);
    if (r.failed.some((x) => x.dir === f.dir)) {
      parts.push(`${where}: not written, ${r.failed.filter((x) => x.dir === f.dir).length} failure(s): ${r.failed.find((x) => x.dir === f.dir)!.message}`);
      continue;
    }
    if (!f.changed) { parts.push(`${where}: already up to date.`); continue; }
    const added = f.providers.filter((p) => p.previousVersion === null).map((p) => p.provider);
    const moved = f.providers.filter((p) => p.previousVersion && p.previousVersion !== p.version).map((p) => `${p.provider} ${p.previousVersion} → ${p.version}`);
    const platforms = new Set(f.providers.filter((p) => p.previousVersion === p.version).flatMap((p) => p.platforms.filter((x) => !p.previousPlatforms.includes(x))));
    const what = [
      added.length ? `${added.length} provider(s) added (${added.join(', ')})` : '',
      moved.length ? `version changed: ${moved.join(', ')}` : '',
      platforms.size ? `platforms added: ${[...platforms].sort().join(', ')}` : '',
    ].filter(Boolean);
    parts.push(`${where} updated: ${what.join('; ') || 'hashes updated'}.`);
  }
  return parts.join(' ');
}

/** Root modules to lock: folders with a lock file, else every configuration folder (the user picks). */
async function chooseDirs(log: { warn(message: string): void }): Promise<string[] | undefined> {
  const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const scan = await scanWorkspaceDirs(roots, log);
  if (scan.truncated) void vscode.window.showWarningMessage(`Lock providers: ${scan.warnings[0]}`);
  const found = scan.dirs;
  if (!found.length) {
    void vscode.window.showWarningMessage(`No .tf/.tofu files found in ${roots.join(', ') || 'the workspace'}.`);
    return undefined;
  }
  const locked = found.filter((d) => existsSync(join(d, LOCK_FILE_NAME)));
  if (found.length === 1) return found;
  const picked = await vscode.window.showQuickPick(found.map((d) => ({
    label: vscode.workspace.asRelativePath(d), description: locked.includes(d) ? LOCK_FILE_NAME : undefined, picked: locked.includes(d), dir: d,
  })), { canPickMany: true, title: 'Lock providers: root modules (each gets its own lock file)' });
  return picked?.length ? picked.map((p) => p.dir) : undefined;
}
