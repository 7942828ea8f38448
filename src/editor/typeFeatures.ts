// Type constraints and module inputs in the editor: hover on variable types / labels and module
// arguments, completion of module input names, and diagnostics (own collection
// 'tofu-registry-types'). A thin adapter: the logic is in src/engine/modules and src/engine/types.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../engine/engine';
import type { Range } from '../engine/config/ast';
import { extractFile, FileSummary } from '../engine/config/extract';
import { locateCursor, rangeContains } from '../engine/config/locate';
import { analyzeVariable, variableReferenceAt, variablesOfDirectory } from '../engine/modules/variables';
import { isOverrideFile } from '../engine/config/files';
import { checkFile, callSource } from '../engine/modules/check';
import { inputCursor, moduleInputCompletions, typeHoverMarkdown, variableDeclMarkdown, variableMarkdown } from '../engine/modules/inputs';
import { ModuleResolver, ResolvedModule } from '../engine/modules/resolve';
import { moduleCallsOfDirectory, outputCompletionContext, outputMarkdown, outputReferenceAt } from '../engine/modules/outputs';
import type { ModuleCall } from '../engine/config/extract';
import type { EditorServices } from './services';
import { SELECTOR } from './selector';
import { toRange } from './convert';

/** How long hover/completion wait for a module to be fetched before giving up. */
const INTERACTIVE_WAIT_MS = 8000;

class TypeFeatures implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('tofu-registry-types');
  private resolverFor?: Engine;
  private resolverRef?: ModuleResolver;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly generation = new Map<string, number>();
  private readonly logged = new Set<string>();

  constructor(private readonly services: EditorServices) {}

  /** One resolver per engine instance (the engine is replaced when settings change). */
  get resolver(): ModuleResolver {
    if (!this.resolverRef || this.resolverFor !== this.services.engine) {
      this.resolverFor = this.services.engine;
      this.resolverRef = new ModuleResolver({
        engine: this.services.engine,
        cacheDir: this.services.cacheDir,
        networkAllowed: () => this.services.networkAllowed(),
      });
    }
    return this.resolverRef;
  }

  summary(doc: vscode.TextDocument): { text: string; summary: FileSummary; syntax: 'hcl' | 'json' } {
    const p = this.services.parse(doc);
    return { text: p.text, summary: extractFile(p.file, p.text), syntax: p.file.syntax };
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
      const { text, summary, syntax } = this.summary(doc);
      // A module that cannot be loaded is not a type error: the registry diagnostics report
      // unreachable registries; here it is only logged (hover/completion then offer nothing).
      const r = await checkFile({ path: doc.uri.fsPath, text, syntax, summary, file: this.services.parse(doc).file }, this.resolver, (call, err) => {
        const line = `inputs of module "${call.name}" not checked: ${err instanceof Error ? err.message : String(err)}`;
        if (this.logged.has(line)) return;
        if (this.logged.size > 500) this.logged.clear();
        this.logged.add(line);
        this.services.log.info(line);
      });
      if (this.generation.get(key) !== gen || doc.isClosed) return;
      this.collection.set(doc.uri, r.diagnostics.map((d) => {
        const diag = new vscode.Diagnostic(toRange(d.range), d.message,
          d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
        diag.source = 'tofu-registry types';
        return diag;
      }));
    } catch (err) {
      this.services.log.warn(`type check of ${doc.uri.fsPath} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The called module of a module block, or undefined (logged) when it cannot be loaded in time. */
  async module(doc: vscode.TextDocument, call: ModuleCall): Promise<ResolvedModule | undefined> {
    const source = callSource(call);
    if (!source) return undefined;
    const req = { callerDir: path.dirname(doc.uri.fsPath), name: call.name, source, version: call.version?.literal ?? null };
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), INTERACTIVE_WAIT_MS); });
      const r = await Promise.race([this.resolver.resolve(req), timeout]);
      clearTimeout(timer);
      return r;
    } catch (err) {
      this.services.log.info(`module "${call.name}" (${source}): ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  async hover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const ref = variableReferenceAt(this.services.parse(doc).file, pos.line, pos.character);
    if (ref) return this.referenceHover(doc, ref);
    const out = outputReferenceAt(this.services.parse(doc).file, pos.line, pos.character);
    if (out) return this.outputHover(doc, out);
    const { text, summary, syntax } = this.summary(doc);
    const ctx = locateCursor(summary, pos.line, pos.character, text);
    if (ctx.variable) {
      const decl = ctx.variable;
      const { variable } = analyzeVariable(decl, text, doc.uri.fsPath, syntax);
      if (decl.type && rangeContains(decl.type.range, pos.line, pos.character)) {
        return new vscode.Hover(new vscode.MarkdownString(typeHoverMarkdown(variable)), toRange(decl.type.range));
      }
      const label = decl.block.labels[0];
      const onHeader = rangeContains(decl.block.typeRange, pos.line, pos.character) || (label && rangeContains(label.range, pos.line, pos.character));
      if (onHeader) return new vscode.Hover(new vscode.MarkdownString(variableDeclMarkdown(variable, decl)), toRange(label?.range ?? decl.block.typeRange));
      return undefined;
    }
    const cur = inputCursor(summary.modules, pos, text);
    if (cur?.kind !== 'argument-name') return undefined;
    const mod = await this.module(doc, cur.call);
    const v = mod?.iface.variables.find((x) => x.name === cur.name);
    if (!v) return undefined;
    return new vscode.Hover(new vscode.MarkdownString(`**Input** of module \`${cur.call.name}\`\n\n${variableMarkdown(v)}`), toRange(cur.range));
  }

  /** Hover on `var.NAME`: the variable as declared in this file's directory (this document's text included). */
  private async referenceHover(doc: vscode.TextDocument, ref: { name: string; range: Range }): Promise<vscode.Hover | undefined> {
    const p = this.services.parse(doc);
    const current = { path: doc.uri.fsPath, text: p.text, file: p.file, summary: extractFile(p.file, p.text), override: isOverrideFile(doc.uri.fsPath) };
    const v = (await variablesOfDirectory(current)).variables.find((x) => x.name === ref.name);
    if (!v) return undefined;
    return new vscode.Hover(new vscode.MarkdownString(`**Variable** \`${v.name}\`\n\n${variableMarkdown(v)}`), toRange(ref.range));
  }

  /** The called module of `module.NAME` from this document's directory (any file of it). */
  private async calledModule(doc: vscode.TextDocument, name: string): Promise<ResolvedModule | undefined> {
    const calls = await moduleCallsOfDirectory({ path: doc.uri.fsPath, calls: this.summary(doc).summary.modules });
    const call = calls.find((c) => c.name === name);
    return call && this.module(doc, call);
  }

  private async outputHover(doc: vscode.TextDocument, ref: { module: string; output: string; range: Range }): Promise<vscode.Hover | undefined> {
    const o = (await this.calledModule(doc, ref.module))?.iface.outputs.find((x) => x.name === ref.output);
    return o && new vscode.Hover(new vscode.MarkdownString(outputMarkdown(ref.module, o)), toRange(ref.range));
  }

  /** After `module.NAME.`: the called module's outputs, with descriptions. */
  private async outputCompletions(doc: vscode.TextDocument, pos: vscode.Position, ctx: { module: string; prefix: string }): Promise<vscode.CompletionItem[] | undefined> {
    const mod = await this.calledModule(doc, ctx.module);
    if (!mod) return undefined;
    const replace = new vscode.Range(pos.translate(0, -ctx.prefix.length), pos);
    return mod.iface.outputs.map((o) => {
      const item = new vscode.CompletionItem({ label: o.name, description: o.sensitive ? 'sensitive' : undefined }, vscode.CompletionItemKind.Property);
      item.detail = `output of module "${ctx.module}"`;
      item.documentation = new vscode.MarkdownString(outputMarkdown(ctx.module, o));
      item.range = replace;
      item.sortText = `0_${o.name}`;
      return item;
    });
  }

  async complete(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.CompletionItem[] | undefined> {
    const outputs = outputCompletionContext(doc.lineAt(pos.line).text.slice(0, pos.character));
    if (outputs) return this.outputCompletions(doc, pos, outputs);
    const { text, summary } = this.summary(doc);
    const cur = inputCursor(summary.modules, pos, text);
    if (!cur || cur.kind === 'argument-value') return undefined;
    const mod = await this.module(doc, cur.call);
    if (!mod) return undefined;
    // When completing over an existing (half-typed) name, that name does not count as set.
    const call = cur.kind === 'argument-name' ? { ...cur.call, arguments: cur.call.arguments.filter((a) => a.name !== cur.name) } : cur.call;
    const replace = toRange(cur.range);
    return moduleInputCompletions(call, mod.iface).map((c) => {
      const item = new vscode.CompletionItem({ label: c.name, description: c.type }, vscode.CompletionItemKind.Field);
      item.detail = c.detail;
      item.documentation = new vscode.MarkdownString(c.documentation);
      item.sortText = c.sortText;
      item.range = replace;
      item.insertText = cur.kind === 'argument-name' ? c.name : new vscode.SnippetString(c.snippet);
      item.preselect = c.required;
      return item;
    });
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
