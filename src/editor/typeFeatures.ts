// Type constraints and module inputs in the editor: hover on variable types / labels and module
// arguments, completion of module input names, and diagnostics (own collection
// 'tofu-registry-types'). A thin adapter over the features layer (src/features/moduleTypes.ts).
import * as vscode from 'vscode';
import { ModuleTypes, TYPES_SOURCE } from '../features/moduleTypes';
import type { ParsedText } from '../features/documents';
import type { EditorServices } from './services';
import { SELECTOR } from './selector';
import { toRange } from './convert';
import { toCompletionItem } from './completion';

class TypeFeatures implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('tofu-registry-types');
  readonly types: ModuleTypes;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly generation = new Map<string, number>();

  constructor(private readonly services: EditorServices) {
    this.types = new ModuleTypes(services);
  }

  get resolver() {
    return this.types.resolver;
  }

  private parsed(doc: vscode.TextDocument): ParsedText {
    const p = this.services.parse(doc);
    return { key: doc.uri.toString(), version: p.version, fsPath: doc.uri.fsPath, text: p.text, file: p.file };
  }

  enabled(): boolean {
    return vscode.workspace.getConfiguration('tofuRegistry').get<boolean>('diagnostics.enabled') ?? true;
  }

  schedule(doc: vscode.TextDocument, delay = 400): void {
    if (!this.services.isOurs(doc) || doc.uri.scheme === 'git') return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => { this.timers.delete(key); void this.check(doc); }, delay));
  }

  async check(doc: vscode.TextDocument): Promise<void> {
    const key = doc.uri.toString();
    if (!this.enabled()) { this.collection.delete(doc.uri); return; }
    const gen = (this.generation.get(key) ?? 0) + 1;
    this.generation.set(key, gen);
    try {
      const diagnostics = await this.types.check(this.parsed(doc));
      if (this.generation.get(key) !== gen || doc.isClosed) return;
      this.collection.set(doc.uri, diagnostics.map((d) => {
        const diag = new vscode.Diagnostic(toRange(d.range), d.message,
          d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
        diag.source = TYPES_SOURCE;
        return diag;
      }));
    } catch (err) {
      this.services.log.warn(`type check of ${doc.uri.fsPath} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async hover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const h = await this.types.hover(this.parsed(doc), pos);
    return h && new vscode.Hover(new vscode.MarkdownString(h.markdown), toRange(h.range));
  }

  async complete(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.CompletionItem[] | undefined> {
    return (await this.types.complete(this.parsed(doc), pos))?.map(toCompletionItem);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.collection.dispose();
  }
}

export function registerTypeFeatures(context: vscode.ExtensionContext, services: EditorServices): void {
  const features = new TypeFeatures(services);
  context.subscriptions.push(
    features,
    vscode.languages.registerHoverProvider(SELECTOR, {
      provideHover: (doc, pos) => (services.isOurs(doc) ? features.hover(doc, pos) : undefined),
    }),
    vscode.languages.registerCompletionItemProvider(SELECTOR, {
      provideCompletionItems: async (doc, pos) => {
        if (!services.isOurs(doc)) return undefined;
        const items = await features.complete(doc, pos);
        return items && new vscode.CompletionList(items, false);
      },
    }, '.'),
    vscode.workspace.onDidOpenTextDocument((d) => features.schedule(d, 0)),
    vscode.workspace.onDidChangeTextDocument((e) => features.schedule(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => features.collection.delete(d.uri)),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (!services.isOurs(d)) return;
      // A saved file may be a local module's variables: re-read local modules, re-check open files.
      features.resolver.invalidateLocal();
      for (const doc of vscode.workspace.textDocuments) features.schedule(doc, 100);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tofuRegistry')) for (const doc of vscode.workspace.textDocuments) features.schedule(doc, 0);
    }),
  );
  for (const doc of vscode.workspace.textDocuments) features.schedule(doc, 0);
}
