// "OpenTofu: Export SBOM…" (palette + explorer context menu on a folder): asks for the format and
// the file, writes the software bill of materials of the root modules under the folder (or the
// workspace folders) with cancellable progress, and opens it. In an untrusted workspace it is the
// offline document (lock files and modules.json only), and says so. Thin adapter over
// src/features/sbom.ts.
//
// Programmatic use (tests) skips every prompt and opens nothing:
//   executeCommand('tofuRegistry.exportSbom', { dirs, format, out, offline? }) → SbomExportResult | undefined
import * as path from 'node:path';
import * as vscode from 'vscode';
import { exportSbom, sbomFileName, SbomExportResult, SbomFormat } from '../features/sbom';
import type { EditorServices } from './services';
import { readSettings } from './settings';

const TITLE = 'Export SBOM';

interface SbomCommandArgs {
  dirs?: string[];
  format?: SbomFormat;
  out?: string;
  offline?: boolean;
}

/** tofuRegistry.exportSbom's handler (registered by lazyCommands.ts, loaded on first use). */
export function sbomCommand(_context: vscode.ExtensionContext, services: EditorServices) {
  return (arg?: unknown) => runExport(services, arg instanceof vscode.Uri ? { dirs: [arg.fsPath] } : (arg && typeof arg === 'object' ? arg as SbomCommandArgs : {}));
}

async function runExport(services: EditorServices, args: SbomCommandArgs): Promise<SbomExportResult | undefined> {
  const programmatic = !!args.dirs && !!args.format && !!args.out;
  const dirs = args.dirs ?? (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  if (!dirs.length) {
    void vscode.window.showWarningMessage(`${TITLE}: open a folder first.`);
    return undefined;
  }
  const format = args.format ?? (await vscode.window.showQuickPick([
    { label: 'CycloneDX 1.6 JSON', description: 'what most scanners read', format: 'cyclonedx' as const },
    { label: 'SPDX 2.3 JSON', format: 'spdx' as const },
  ], { title: `${TITLE} (1/2): format`, ignoreFocusOut: true }))?.format;
  if (!format) return undefined;
  const out = args.out ?? (await vscode.window.showSaveDialog({
    title: `${TITLE} (2/2): file`, defaultUri: vscode.Uri.file(path.join(dirs[0], sbomFileName(format))), filters: { JSON: ['json'] }, saveLabel: 'Export',
  }))?.fsPath;
  if (!out) return undefined;
  const offline = !!args.offline || !services.networkAllowed();
  let result: SbomExportResult;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `${TITLE}${offline ? ' (offline: lock files and installed modules only)' : ''}`, cancellable: true },
      (_progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        return exportSbom({ engine: services.engine, log: services.log, networkAllowed: () => services.networkAllowed(), cacheDir: services.cacheDir, settings: readSettings },
          { dirs, format, out, offline, signal: ac.signal });
      });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    services.log.error(`sbom: ${message}`);
    void vscode.window.showErrorMessage(`${TITLE}: ${message}`);
    return undefined;
  }
  if (!programmatic) {
    await vscode.window.showTextDocument(vscode.Uri.file(out), { preview: false });
    const notes = result.notes.length ? ` ${result.notes.length} thing${result.notes.length === 1 ? '' : 's'} could not be known (see the log).` : '';
    void vscode.window.showInformationMessage(`${TITLE}: ${result.components} components written to ${vscode.workspace.asRelativePath(out)}.${notes}`);
  }
  return result;
}
