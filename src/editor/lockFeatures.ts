// `.terraform.lock.hcl` in the editor: diagnostics on the lock file and on the configuration (own
// collection 'tofu-registry-lock'), a hover on each provider block, and the quick fix "Lock
// providers for all platforms". The lock file keeps whatever language another extension gives it:
// only these features are attached (by file name). Thin adapter over src/features/lockStatus.ts.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LOCK_FILE_NAME } from '../engine/lock';
import { LockStatus } from '../features/lockStatus';
import { signalOf } from '../features/lookup';
import { toRange } from './convert';
import { md } from './hover';
import { LOCK_COMMAND, registerLockCommand } from './lockCommand';
import { LOCK_SELECTOR, SELECTOR } from './selector';
import type { RegistryServices } from './services';

export { isLockFileName } from '../features/lockStatus';

const SEVERITY = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, information: vscode.DiagnosticSeverity.Information };

const onDisk = (d: vscode.TextDocument) => d.uri.scheme === 'file' || d.uri.scheme === 'vscode-remote';

class LockFeatures implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('tofu-registry-lock');
  private readonly ran = new vscode.EventEmitter<string>();
  readonly onDidRun = this.ran.event;
  readonly status: LockStatus;

  constructor(services: RegistryServices) {
    this.status = new LockStatus(services, {
      openTexts: () => new Map(vscode.workspace.textDocuments.filter(onDisk).map((d) => [d.uri.fsPath, d.getText()])),
      folderOf: (file) => vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath,
      publish: (file, diagnostics) => {
        const uri = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file)?.uri ?? vscode.Uri.file(file);
        this.collection.set(uri, diagnostics.map((d) => {
          const diag = new vscode.Diagnostic(toRange(d.range), d.message, SEVERITY[d.severity]);
          diag.source = 'tofu-registry';
          diag.code = d.code;
          return diag;
        }));
      },
      ran: (root) => this.ran.fire(root),
    });
  }

  /** Finished diagnostic runs (tests wait on this). */
  get runs(): number {
    return this.status.runs;
  }

  touched(doc: vscode.TextDocument, delay?: number): void {
    if (onDisk(doc)) this.status.touched(doc.uri.fsPath, delay);
  }

  scheduleAll(delay = 0): void {
    this.status.scheduleAll(vscode.workspace.textDocuments.filter(onDisk).map((d) => d.uri.fsPath), delay);
  }

  async hover(doc: vscode.TextDocument, pos: vscode.Position, token?: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    const h = await this.status.hover(doc.uri.fsPath, doc.getText(), doc.offsetAt(pos), signalOf(token));
    return h && new vscode.Hover(md(h.markdown), toRange(h.range));
  }

  dispose(): void {
    this.status.dispose();
    this.collection.dispose();
    this.ran.dispose();
  }
}

export function registerLockFeatures(context: vscode.ExtensionContext, services: RegistryServices): LockFeatures {
  const features = new LockFeatures(services);
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${LOCK_FILE_NAME}`);
  const changed = (uri: vscode.Uri) => features.status.lockFileChanged(path.dirname(uri.fsPath));
  registerLockCommand(context, services, (dirs) => { for (const d of dirs) features.status.lockFileChanged(d); });
  context.subscriptions.push(
    features, watcher, watcher.onDidCreate(changed), watcher.onDidChange(changed), watcher.onDidDelete(changed),
    vscode.workspace.onDidOpenTextDocument((d) => features.touched(d, 0)),
    vscode.workspace.onDidChangeTextDocument((e) => { if (e.contentChanges.length) features.touched(e.document); }),
    vscode.workspace.onDidSaveTextDocument((d) => features.touched(d, 0)),
    vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('tofuRegistry')) features.scheduleAll(0); }),
    services.onDidReset(() => features.scheduleAll(0)),
    vscode.languages.registerHoverProvider(LOCK_SELECTOR, { provideHover: (doc, pos, token) => features.hover(doc, pos, token) }),
    vscode.languages.registerCodeActionsProvider([...SELECTOR as vscode.DocumentFilter[], ...LOCK_SELECTOR as vscode.DocumentFilter[]], {
      provideCodeActions(doc, _range, ctx) {
        const ours = ctx.diagnostics.filter((d) => d.source === 'tofu-registry');
        return features.status.fixes(doc.uri.fsPath, ours).map((f) => {
          const a = new vscode.CodeAction(f.title, vscode.CodeActionKind.QuickFix);
          a.command = { command: LOCK_COMMAND, title: a.title, arguments: [{ dirs: f.args.dirs, upgrade: f.args.upgrade }] };
          a.diagnostics = [f.diagnostic];
          a.isPreferred = true;
          return a;
        });
      },
    }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
  );
  for (const doc of vscode.workspace.textDocuments) features.touched(doc, 0);
  return features;
}
