// "OpenTofu: Mirror providers" (palette + explorer context menu on a folder): picks the
// configurations, asks for the output folder (remembered), mirrors with cancellable progress and
// opens a Markdown report with the ready-to-paste CLI configuration. Thin adapter over
// src/engine/mirror (the same engine as `tofu-registry mirror`).
//
// Programmatic use (tests, other extensions) skips every prompt:
//   executeCommand('tofuRegistry.mirrorProviders', { out, dirs, platforms?, concurrency?, fromMirror?, show? })
// resolves to { report, markdown } (undefined when the user cancelled a prompt).
import * as vscode from 'vscode';
import { scanWorkspaceDirs } from './settings';
import type { EditorServices } from './services';
import { mirrorProviders, MirrorReport, platformsSetting, renderReportMarkdown } from '../engine/mirror';

export const OUT_KEY = 'tofuRegistry.mirror.lastOutput';

export interface MirrorCommandArgs {
  out?: string;
  dirs?: string[];
  platforms?: string[];
  concurrency?: number;
  fromMirror?: string;
  /** Open the Markdown report (default true). */
  show?: boolean;
}

/** tofuRegistry.mirrorProviders's handler (registered by lazyCommands.ts, loaded on first use). */
export function mirrorCommand(context: vscode.ExtensionContext, services: EditorServices) {
  // From the explorer: (clicked folder, every selected resource); from the palette: nothing.
  return (arg?: unknown, selection?: unknown) => runMirrorCommand(context, services, commandArgs<MirrorCommandArgs>(arg, selection));
}

/**
 * A mirror command's arguments: from the explorer (clicked folder, every selected resource) the
 * folders as `dirs`; from a caller the object it passed; from the palette nothing.
 */
export function commandArgs<T extends { dirs?: string[] }>(arg?: unknown, selection?: unknown): T {
  const chosen = Array.isArray(selection) && selection.length > 1 && selection.every((u) => u instanceof vscode.Uri) ? selection : arg;
  if (chosen instanceof vscode.Uri) return { dirs: [chosen.fsPath] } as T;
  if (Array.isArray(chosen)) return { dirs: chosen.map((u: vscode.Uri) => u.fsPath) } as T;
  return (chosen && typeof chosen === 'object' ? chosen : {}) as T;
}

async function runMirrorCommand(context: vscode.ExtensionContext, services: EditorServices, args: MirrorCommandArgs):
  Promise<{ report: MirrorReport; markdown: string } | undefined> {
  if (!services.networkAllowed()) {
    void vscode.window.showWarningMessage('Mirror providers needs network access, which is disabled in an untrusted workspace.');
    return undefined;
  }
  const programmatic = !!args.out && !!args.dirs;

  const dirs = await chooseDirs(args, programmatic, services.log);
  if (!dirs) return undefined;
  const out = args.out ?? (await chooseOut(context));
  if (!out) return undefined;

  const cfg = vscode.workspace.getConfiguration('tofuRegistry');
  const platforms = args.platforms?.length ? args.platforms : platformsSetting(cfg.get<unknown>('mirror.platforms'));
  const concurrency = Math.min(64, Math.max(1, args.concurrency ?? cfg.get<number>('mirror.concurrency') ?? 8));

  let report: MirrorReport;
  try {
    report = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: 'Mirroring providers', cancellable: true,
    }, async (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      let total = 0;
      let done = 0;
      return mirrorProviders({
        engine: services.engine, dirs, out, platforms, concurrency, fromMirror: args.fromMirror, signal: ac.signal,
        onProgress: (e) => {
          if (e.kind === 'failed') { for (const f of e.failures) services.log.warn(`mirror: ${f.message}`); return; }
          if (e.kind === 'planned') { total = e.total; progress.report({ message: `${total} archives to check` }); return; }
          if (e.kind === 'bytes') {
            const pct = e.total ? ` ${Math.round((100 * e.received) / e.total)}%` : ` ${(e.received / 1048576).toFixed(1)} MiB`;
            progress.report({ message: `${done}/${total} — ${e.target.provider} ${e.target.version} ${e.target.platform}${pct}` });
            return;
          }
          if (e.kind === 'done') {
            done++;
            const who = `${e.target.provider} ${e.target.version} ${e.target.platform}`;
            if (e.outcome === 'failed') services.log.warn(`mirror: ${e.message ?? `${who}: failed`}`);
            else services.log.info(`mirror: ${e.outcome} ${who}`);
            progress.report({ increment: total ? 100 / total : 0, message: `${done}/${total} — ${who}: ${e.outcome}` });
          }
        },
      });
    });
  } catch (err) {
    // E.g. another run holds OUT's lock file, or OUT cannot be created: say so instead of a
    // generic "command failed".
    const message = err instanceof Error ? err.message : String(err);
    services.log.error(`mirror: ${message}`);
    void vscode.window.showErrorMessage(`Mirror providers: ${message}`);
    return undefined;
  }

  const markdown = renderReportMarkdown(report);
  if (args.show !== false) {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
    await vscode.window.showTextDocument(doc, { preview: true });
    void vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => undefined);
  }
  const summary = `Mirror: ${report.mirrored.length} mirrored, ${report.upToDate.length} up to date, ${report.failed.length} failed.`;
  if (report.failed.length) void vscode.window.showWarningMessage(summary);
  else void vscode.window.showInformationMessage(summary);
  return { report, markdown };
}

/** The configuration directories: given, the folder clicked in the explorer, or picked from the workspace. */
export async function chooseDirs(args: { dirs?: string[] }, programmatic: boolean, log: { warn(message: string): void }, title = 'Mirror providers'): Promise<string[] | undefined> {
  const roots = args.dirs ?? (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const scan = await scanWorkspaceDirs(roots, log);
  if (scan.truncated) void vscode.window.showWarningMessage(`${title}: ${scan.warnings[0]}`);
  const found = scan.dirs;
  if (!found.length) {
    void vscode.window.showWarningMessage(`No .tf/.tofu files found in ${roots.join(', ') || 'the workspace'}.`);
    return undefined;
  }
  if (programmatic || args.dirs || found.length === 1) return found;
  const picked = await vscode.window.showQuickPick(found.map((d) => ({ label: vscode.workspace.asRelativePath(d), description: d, picked: true, dir: d })), {
    canPickMany: true, title: `${title}: configurations to include`,
  });
  return picked?.length ? picked.map((p) => p.dir) : undefined;
}

/** Asks for the output folder, offering the one chosen last time under `key` (else `fallbackKey`'s). */
export async function chooseOut(context: vscode.ExtensionContext, title = 'Mirror providers', key = OUT_KEY, fallbackKey?: string): Promise<string | undefined> {
  const last = context.globalState.get<string>(key) ?? (fallbackKey ? context.globalState.get<string>(fallbackKey) : undefined);
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true, canSelectFiles: false, canSelectMany: false,
    defaultUri: last ? vscode.Uri.file(last) : vscode.workspace.workspaceFolders?.[0]?.uri,
    openLabel: 'Mirror into this folder', title: `${title}: output folder`,
  });
  const out = picked?.[0]?.fsPath;
  if (out) await context.globalState.update(key, out);
  return out;
}
