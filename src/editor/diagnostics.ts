// Registry diagnostics: debounced after edits (never on every keystroke), skipped when neither the
// document nor any registry answer changed, and the lookups they start double as the prefetch that
// makes completion and hover instant. Network failures are reported once per host, gently.
import * as vscode from 'vscode';
import { EditorDiagnostic, registryDiagnostics, unreachableNotice } from '../features/diagnostics';
import { logFailure } from '../features/context';
import { toRange } from './convert';
import type { RegistryServices } from './services';

const SEVERITY: Record<EditorDiagnostic['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

export const DIAGNOSTIC_SOURCE = 'tofu-registry';

export class RegistryDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('tofuRegistry');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly computedKey = new Map<string, string>();
  private readonly reportedHosts = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** How many times diagnostics were actually computed (tests check the debounce and the cache). */
  runs = 0;

  constructor(private readonly services: RegistryServices) {
    const d = this.disposables;
    d.push(this.collection);
    d.push(vscode.workspace.onDidOpenTextDocument((doc) => this.schedule(doc, 0)));
    d.push(vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length) this.schedule(e.document, this.services.settings().diagnosticsDebounceMs);
    }));
    d.push(vscode.workspace.onDidSaveTextDocument((doc) => this.schedule(doc, 0)));
    d.push(vscode.workspace.onDidCloseTextDocument((doc) => {
      const k = doc.uri.toString();
      this.collection.delete(doc.uri);
      this.computedKey.delete(k);
      clearTimeout(this.timers.get(k));
      this.timers.delete(k);
    }));
    // A registry answer arrived: recompute (cheaply) the documents that may depend on it.
    const settle = services.lookup.onDidSettle(() => this.scheduleAll(50));
    d.push({ dispose: () => settle.dispose() });
    d.push(services.onDidReset(() => {
      this.reportedHosts.clear();
      this.scheduleAll(0);
    }));
    d.push(vscode.workspace.onDidGrantWorkspaceTrust(() => this.scheduleAll(0)));
    this.scheduleAll(0);
  }

  scheduleAll(delay: number): void {
    for (const doc of vscode.workspace.textDocuments) this.schedule(doc, delay);
  }

  schedule(doc: vscode.TextDocument, delay: number): void {
    if (!this.services.isOurs(doc)) return;
    const k = doc.uri.toString();
    clearTimeout(this.timers.get(k));
    this.timers.set(k, setTimeout(() => {
      this.timers.delete(k);
      try {
        this.update(doc);
      } catch (err) {
        logFailure(this.services.log, `diagnostics for ${doc.uri.fsPath}`, err);
      }
    }, delay));
  }

  update(doc: vscode.TextDocument): void {
    if (doc.isClosed) return;
    const s = this.services.settings();
    const uri = doc.uri.toString();
    if (!s.diagnosticsEnabled) {
      this.collection.delete(doc.uri);
      this.computedKey.delete(uri);
      return;
    }
    const net = this.services.networkAllowed();
    const key = `${doc.version}|${this.services.lookup.generation}|${net}`;
    if (this.computedKey.get(uri) === key) return; // nothing changed
    this.computedKey.set(uri, key);
    this.runs++;
    const r = registryDiagnostics(this.services, this.services.refs(doc).refs, this.reportedHosts);
    this.collection.set(doc.uri, r.diagnostics.map((d) => {
      const diag = new vscode.Diagnostic(toRange(d.range), d.message, SEVERITY[d.severity]);
      diag.source = DIAGNOSTIC_SOURCE;
      diag.code = d.code;
      return diag;
    }));
    for (const p of r.unreachable) {
      void vscode.window.setStatusBarMessage(`$(warning) ${unreachableNotice(p)} (see "Show log")`, 15000);
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}
