// "OpenTofu: Mirror modules" (palette + explorer context menu on a folder), beside "Mirror
// providers": picks the configurations, asks for the output folder (remembered; the providers'
// folder is offered first, since both can share it), mirrors with cancellable progress per module
// version and opens a Markdown report with the `host` blocks to copy. Thin adapter over
// src/engine/modmirror (the same engine as `tofu-registry mirror-modules`).
//
// Programmatic use (tests, other extensions) skips every prompt:
//   executeCommand('tofuRegistry.mirrorModules', { out, dirs, allMatching?, baseUrl?, concurrency?, show? })
// resolves to { report, markdown } (undefined when the user cancelled a prompt).
import * as vscode from 'vscode';
import type { EditorServices } from './services';
import { chooseDirs, chooseOut, commandArgs, OUT_KEY } from './mirrorCommand';
import { mirrorModules, ModuleMirrorReport, renderModuleReportMarkdown } from '../engine/modmirror';

const MODULES_OUT_KEY = 'tofuRegistry.modmirror.lastOutput';
const TITLE = 'Mirror modules';

export interface ModuleMirrorCommandArgs {
  out?: string;
  dirs?: string[];
  allMatching?: boolean;
  baseUrl?: string;
  concurrency?: number;
  /** Open the Markdown report (default true). */
  show?: boolean;
}

/** tofuRegistry.mirrorModules's handler (registered by lazyCommands.ts, loaded on first use). */
export function moduleMirrorCommand(context: vscode.ExtensionContext, services: EditorServices) {
  return (arg?: unknown, selection?: unknown) => runModuleMirrorCommand(context, services, commandArgs<ModuleMirrorCommandArgs>(arg, selection));
}

async function runModuleMirrorCommand(context: vscode.ExtensionContext, services: EditorServices, args: ModuleMirrorCommandArgs):
  Promise<{ report: ModuleMirrorReport; markdown: string } | undefined> {
  if (!services.networkAllowed()) {
    void vscode.window.showWarningMessage(`${TITLE} needs network access, which is disabled in an untrusted workspace.`);
    return undefined;
  }
  const dirs = await chooseDirs(args, !!args.out && !!args.dirs, services.log, TITLE);
  if (!dirs) return undefined;
  const out = args.out ?? (await chooseOut(context, TITLE, MODULES_OUT_KEY, OUT_KEY));
  if (!out) return undefined;
  const cfg = vscode.workspace.getConfiguration('tofuRegistry');
  const concurrency = Math.min(64, Math.max(1, args.concurrency ?? cfg.get<number>('mirror.concurrency') ?? 8));

  let report: ModuleMirrorReport;
  try {
    report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Mirroring modules', cancellable: true },
      async (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let total = 0;
        let done = 0;
        return mirrorModules({
          engine: services.engine, dirs, out, concurrency, allMatching: args.allMatching, baseUrl: args.baseUrl, signal: ac.signal,
          onProgress: (e) => {
            if (e.kind === 'failed') { for (const f of e.failures) services.log.warn(`mirror modules: ${f.message}`); return; }
            if (e.kind === 'skipped') { services.log.info(`mirror modules: skipped ${e.skipped.source}: ${e.skipped.reason}`); return; }
            // the total grows while packages reveal the modules they call
            if (e.kind === 'queued') { total = e.total; return; }
            if (e.kind === 'start') { progress.report({ message: `${done}/${total} — ${e.module} ${e.version}` }); return; }
            done++;
            const who = `${e.module} ${e.version}`;
            if (e.outcome === 'failed') services.log.warn(`mirror modules: ${e.message ?? `${who}: failed`}`);
            else services.log.info(`mirror modules: ${e.outcome} ${who}`);
            progress.report({ message: `${done}/${total} — ${who}: ${e.outcome}` });
          },
        });
      });
  } catch (err) {
    // E.g. another run holds OUT's lock file, or OUT cannot be created.
    const message = err instanceof Error ? err.message : String(err);
    services.log.error(`mirror modules: ${message}`);
    void vscode.window.showErrorMessage(`${TITLE}: ${message}`);
    return undefined;
  }

  const markdown = renderModuleReportMarkdown(report);
  if (args.show !== false) {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
    await vscode.window.showTextDocument(doc, { preview: true });
    void vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => undefined);
  }
  const summary = `Mirror modules: ${report.mirrored.length} mirrored, ${report.upToDate.length} up to date, ${report.failed.length} failed, ${report.skipped.length} sources skipped.`;
  if (report.failed.length) void vscode.window.showWarningMessage(summary);
  else void vscode.window.showInformationMessage(summary);
  return { report, markdown };
}
