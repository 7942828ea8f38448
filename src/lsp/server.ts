// The language server: the features layer (src/features) over the Language Server Protocol, on
// vscode-languageserver. It only converts types (positions in the client's encoding, items, edits)
// and wires protocol events; every answer is the one the VS Code extension gives.
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CancellationToken, CodeAction, DidChangeConfigurationParams, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
  DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams, CodeActionKind, CodeLens, CompletionItem, CompletionItemKind, CompletionList, Connection,
  Diagnostic, DiagnosticSeverity, DidChangeWatchedFilesNotification, DocumentDiagnosticReportKind, Hover, InitializeParams,
  InitializeResult, InsertTextFormat, MarkupKind, Position, Range, TextDocumentSyncKind, TextEdit, WorkDoneProgressReporter,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Engine } from '../engine/engine';
import { LOCK_FILE_NAME, lockProviders } from '../engine/lockfile';
import { mirrorProviders } from '../engine/mirror';
import { mirrorModules } from '../engine/modmirror';
import { buildDependencyGraph, rootConfigDirs } from '../engine/deps';
import { mapLimit, readTextCapped } from '../engine/fstree';
import { redactUrls } from '../engine/net/http-errors';
import { CompletionKind, FeatureCompletion, LineRange, registryCompletions } from '../features/completion';
import type { FeatureContext, FeatureLog } from '../features/context';
import { EditorDiagnostic, registryDiagnostics } from '../features/diagnostics';
import { DocumentCache, isOurFileName } from '../features/documents';
import { backendOf, createEngine } from '../features/engine';
import { Fix, fixDiagnosticRange, FIXED_CODES, fixLenses, quickFixesAt } from '../features/fixes';
import { FeatureHover, registryHover } from '../features/hover';
import { isLockFileName, LockFixArgs, LockStatus } from '../features/lockStatus';
import { RegistryLookup, within } from '../features/lookup';
import { ModuleTypes, TYPES_SOURCE } from '../features/moduleTypes';
import { engineSettingsDiffer, FeatureSettings, objectReader, SECTION, settingsFrom } from '../features/settings';
import { KnownSources, scanFeatureDirs, sourceStrings } from '../features/workspace';
import { chooseEncoding, fromUtf16Column, PositionEncoding, toUtf16Column } from './positions';

/** How long any request waits for the network: past it, it answers with what it has and the lookup goes on. */
export const REQUEST_BUDGET_MS = 1000;

export const COMMANDS = {
  applyFix: 'tofuRegistry.applyFix',
  lock: 'tofuRegistry.lockProviders',
  mirror: 'tofuRegistry.mirrorProviders',
  mirrorModules: 'tofuRegistry.mirrorModules',
  outdated: 'tofuRegistry.outdated',
} as const;

export const DIAGNOSTIC_SOURCE = 'tofu-registry';

const SEVERITY: Record<EditorDiagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, information: DiagnosticSeverity.Information, hint: DiagnosticSeverity.Hint,
};

const KIND: Record<CompletionKind, CompletionItemKind> = {
  module: CompletionItemKind.Module, operator: CompletionItemKind.Operator, value: CompletionItemKind.Value,
  field: CompletionItemKind.Field, property: CompletionItemKind.Property,
};

export interface ServerOptions {
  /** Cache directory: discovery answers and version lists, fetched module packages. */
  cacheDir: string;
  /** The server's version (serverInfo, user agent). */
  version: string;
}

/** Diagnostics of one file, by producer: each is replaced on its own and the client gets their union. */
interface FileDiagnostics { registry: Diagnostic[]; types: Diagnostic[]; lock: Diagnostic[] }

function uriToPath(uri: string): string {
  if (uri.startsWith('file:')) {
    try { return fileURLToPath(uri); } catch { /* not a local file: fall through */ }
  }
  return decodeURIComponent(uri.replace(/^[a-z][a-z0-9+.-]*:\/*/i, '/'));
}

function within0<T>(p: Promise<T>, ms: number, token?: CancellationToken): Promise<{ value: T } | { error: unknown } | undefined> {
  if (!token) return within(p, ms);
  // A cancelled request stops waiting at once ($/cancelRequest).
  return Promise.race([within(p, ms), new Promise<undefined>((resolve) => token.onCancellationRequested(() => resolve(undefined)))]);
}

export class TofuRegistryServer implements FeatureContext {
  private readonly docs = new Map<string, TextDocument>();
  private readonly cache = new DocumentCache();
  private readonly diagnosticsByUri = new Map<string, FileDiagnostics>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly reportedHosts = new Set<string>();
  private engineRef!: Engine;
  readonly lookup: RegistryLookup;
  readonly log: FeatureLog;
  private current: FeatureSettings = settingsFrom(() => undefined);
  private encoding: PositionEncoding = 'utf-16';
  private pullDiagnostics = false;
  private refreshDiagnostics = false;
  private refreshLenses = false;
  private configurationPull = false;
  private workspaceFolders: string[] = [];
  readonly types: ModuleTypes;
  readonly lock: LockStatus;
  private readonly known: KnownSources;
  private refreshTimer?: NodeJS.Timeout;

  constructor(private readonly connection: Connection, readonly options: ServerOptions) {
    // Every line goes through redactUrls (user:password, signed query values) and to stderr too;
    // window/logMessage carries info and above (debug only on stderr). Never stdout: that is the protocol's.
    const send = (type: 1 | 2 | 3 | 4, m: string) => {
      const line = redactUrls(m);
      process.stderr.write(`[tofu-registry] ${line}\n`);
      if (type < 4) void connection.sendNotification('window/logMessage', { type, message: line });
    };
    this.log = { error: (m) => send(1, m), warn: (m) => send(2, m), info: (m) => send(3, m), debug: (m) => { process.stderr.write(`[tofu-registry] ${redactUrls(m)}\n`); } };
    this.engineRef = this.newEngine();
    this.lookup = new RegistryLookup(backendOf(this.engineRef));
    this.types = new ModuleTypes(this);
    this.lock = new LockStatus(this, {
      openTexts: () => new Map([...this.docs.values()].filter((d) => d.uri.startsWith('file:')).map((d) => [uriToPath(d.uri), d.getText()])),
      folderOf: (file) => this.workspaceFolders.find((f) => !path.relative(f, file).startsWith('..')),
      publish: (file, diags) => {
        const uri = this.uriOfPath(file);
        const doc = this.docs.get(uri);
        this.setDiagnostics(uri, 'lock', diags.map((d) => this.toDiagnostic(doc, d.range, d.message, SEVERITY[d.severity], DIAGNOSTIC_SOURCE, d.code)));
      },
    });
    this.known = new KnownSources(() => this.scanSources(), this.log);
    this.lookup.onDidSettle(() => this.settled());
  }

  get engine(): Engine { return this.engineRef; }
  get cacheDir(): string { return this.options.cacheDir; }
  settings(): FeatureSettings { return this.current; }
  networkAllowed(): boolean { return !this.current.offline; }

  private newEngine(): Engine {
    return createEngine(this.current, this.options.cacheDir, this.log, {
      userAgent: `tofu-registry-lsp/${this.options.version}`,
      networkAllowed: () => this.networkAllowed(),
      allowCredentialsHelper: () => this.networkAllowed(),
    });
  }

  // ---- lifecycle and settings

  initialize(params: InitializeParams): InitializeResult {
    const caps = params.capabilities;
    this.encoding = chooseEncoding(caps.general?.positionEncodings);
    this.pullDiagnostics = !!caps.textDocument?.diagnostic;
    this.refreshDiagnostics = !!caps.workspace?.diagnostics?.refreshSupport;
    this.refreshLenses = !!caps.workspace?.codeLens?.refreshSupport;
    this.configurationPull = !!caps.workspace?.configuration;
    this.workspaceFolders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri));
    if (!this.workspaceFolders.length && params.rootUri) this.workspaceFolders = [uriToPath(params.rootUri)];
    const init = params.initializationOptions as Record<string, unknown> | undefined;
    if (init && typeof init === 'object') this.applySettings(init[SECTION] ?? init);
    return {
      capabilities: {
        positionEncoding: this.encoding,
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: true },
        completionProvider: { triggerCharacters: ['"', '.', ' ', '~', '>', '=', '/'], resolveProvider: false },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        codeLensProvider: { resolveProvider: false },
        executeCommandProvider: { commands: Object.values(COMMANDS), workDoneProgress: true },
        ...(this.pullDiagnostics ? { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } } : {}),
        workspace: { workspaceFolders: { supported: true } },
      },
      serverInfo: { name: 'tofu-registry', version: this.options.version },
    };
  }

  async initialized(params: { watchedFilesDynamic: boolean }): Promise<void> {
    if (params.watchedFilesDynamic) {
      await this.connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: `**/${LOCK_FILE_NAME}` }, { globPattern: '**/.terraform/modules/modules.json' }],
      }).catch((err: unknown) => this.log.warn(`registering file watchers: ${String(err)}`));
    }
    await this.pullSettings();
  }

  /** workspace/configuration section tofuRegistry, when the client offers it. */
  async pullSettings(): Promise<void> {
    if (!this.configurationPull) return;
    try {
      const [s] = await this.connection.workspace.getConfiguration([{ section: SECTION }]);
      if (s !== null && s !== undefined) this.applySettings(s);
    } catch (err) {
      this.log.warn(`workspace/configuration: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** workspace/didChangeConfiguration: the settings sent along, else asked for again. No restart. */
  async configurationChanged(settings: unknown): Promise<void> {
    const sent = settings !== null && typeof settings === 'object' ? (settings as Record<string, unknown>)[SECTION] : undefined;
    if (sent !== undefined) this.applySettings(sent);
    else await this.pullSettings();
  }

  applySettings(raw: unknown): void {
    const next = settingsFrom(objectReader(raw));
    const prev = this.current;
    this.current = next;
    if (engineSettingsDiffer(prev, next)) {
      const old = this.engineRef;
      this.engineRef = this.newEngine();
      this.lookup.setBackend(backendOf(this.engineRef));
      void old.dispose().catch(() => undefined);
      this.log.info('settings changed: registry client recreated');
    } else if (prev.offline !== next.offline) {
      this.lookup.clear();
    }
    this.reportedHosts.clear();
    this.scheduleAll(0);
  }

  // ---- documents (incremental sync, in the client's encoding)

  isOurs(uri: string): boolean {
    const p = uriToPath(uri);
    return isOurFileName(p) || isLockFileName(p);
  }

  private uriOfPath(file: string): string {
    for (const uri of this.docs.keys()) if (uri.startsWith('file:') && uriToPath(uri) === file) return uri;
    return pathToFileURL(file).href;
  }

  opened(uri: string, languageId: string, version: number, text: string): void {
    if (!this.isOurs(uri)) return;
    this.docs.set(uri, TextDocument.create(uri, languageId, version, text));
    this.touched(uri, 0);
  }

  changed(uri: string, version: number, changes: Array<{ range?: Range; text: string }>): void {
    let doc = this.docs.get(uri);
    if (!doc) return;
    for (const c of changes) {
      // Applied one at a time: each range is in the text the previous change left.
      const change = c.range ? { range: this.fromClientRange(doc, c.range), text: c.text } : { text: c.text };
      doc = TextDocument.update(doc, [change], version);
    }
    this.docs.set(uri, doc);
    this.touched(uri, this.current.diagnosticsDebounceMs);
  }

  saved(uri: string): void {
    if (!this.docs.has(uri)) return;
    // A saved file may be a local module's variables: re-read local modules, re-check open files.
    this.types.resolver.invalidateLocal();
    this.scheduleAll(100);
  }

  closed(uri: string): void {
    this.docs.delete(uri);
    this.cache.forget(uri);
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    const d = this.diagnosticsByUri.get(uri);
    if (d) { d.registry = []; d.types = []; this.publish(uri); }
  }

  /** Lock files and modules.json changed on disk (workspace/didChangeWatchedFiles). */
  watchedFilesChanged(uris: string[]): void {
    let modules = false;
    for (const uri of uris) {
      const p = uriToPath(uri);
      if (isLockFileName(p)) this.lock.lockFileChanged(path.dirname(p));
      else if (p.endsWith(`${path.sep}modules.json`)) modules = true;
    }
    if (modules) {
      this.types.resolver.invalidateLocal();
      this.scheduleAll(100);
    }
  }

  document(uri: string): TextDocument | undefined {
    return this.docs.get(uri);
  }

  private snapshot(doc: TextDocument) {
    return { key: doc.uri, version: doc.version, fsPath: uriToPath(doc.uri), getText: () => doc.getText() };
  }

  // ---- positions

  private lineText(doc: TextDocument, line: number): string {
    return doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '');
  }

  fromClientPosition(doc: TextDocument, p: Position): Position {
    return this.encoding === 'utf-16' ? p : { line: p.line, character: toUtf16Column(this.lineText(doc, p.line), p.character, this.encoding) };
  }

  fromClientRange(doc: TextDocument, r: Range): Range {
    return { start: this.fromClientPosition(doc, r.start), end: this.fromClientPosition(doc, r.end) };
  }

  toClientRange(doc: TextDocument | undefined, r: LineRange): Range {
    const conv = (p: { line: number; character: number }) => ({
      line: p.line, character: doc && this.encoding !== 'utf-16' ? fromUtf16Column(this.lineText(doc, p.line), p.character, this.encoding) : p.character,
    });
    return { start: conv(r.start), end: conv(r.end) };
  }

  // ---- diagnostics

  private toDiagnostic(doc: TextDocument | undefined, range: LineRange, message: string, severity: DiagnosticSeverity, source: string, code?: string): Diagnostic {
    return { range: this.toClientRange(doc, range), message, severity, source, ...(code ? { code } : {}) };
  }

  private touched(uri: string, delay: number): void {
    this.schedule(uri, delay);
    const p = uriToPath(uri);
    if (uri.startsWith('file:')) this.lock.touched(p, delay);
  }

  scheduleAll(delay: number): void {
    for (const uri of this.docs.keys()) this.schedule(uri, delay);
    this.lock.scheduleAll([...this.docs.keys()].filter((u) => u.startsWith('file:')).map(uriToPath), delay);
  }

  private schedule(uri: string, delay: number): void {
    if (!isOurFileName(uriToPath(uri))) return;
    clearTimeout(this.timers.get(uri));
    this.timers.set(uri, setTimeout(() => {
      this.timers.delete(uri);
      this.updateRegistry(uri);
      void this.updateTypes(uri);
    }, delay));
  }

  /** A registry answer arrived: recompute the open documents (cheaply), and ask for fresh lenses. */
  private settled(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      for (const uri of this.docs.keys()) this.updateRegistry(uri);
      if (this.refreshLenses) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
    }, 50);
  }

  private registryDiagnosticsOf(doc: TextDocument): Diagnostic[] {
    if (!this.current.diagnosticsEnabled || !isOurFileName(uriToPath(doc.uri))) return [];
    const r = registryDiagnostics(this, this.cache.refs(this.snapshot(doc)).refs, this.reportedHosts);
    return r.diagnostics.map((d) => this.toDiagnostic(doc, d.range, d.message, SEVERITY[d.severity], DIAGNOSTIC_SOURCE, d.code));
  }

  private updateRegistry(uri: string): void {
    const doc = this.docs.get(uri);
    if (!doc) return;
    try {
      this.setDiagnostics(uri, 'registry', this.registryDiagnosticsOf(doc));
    } catch (err) {
      this.log.error(`diagnostics for ${uri}: ${err instanceof Error ? err.stack : String(err)}`);
    }
  }

  private async updateTypes(uri: string): Promise<void> {
    const doc = this.docs.get(uri);
    if (!doc) return;
    if (!this.current.diagnosticsEnabled) { this.setDiagnostics(uri, 'types', []); return; }
    try {
      const version = doc.version;
      const diags = await this.types.check(this.cache.parse(this.snapshot(doc)));
      const now = this.docs.get(uri);
      if (!now || now.version !== version) return;
      this.setDiagnostics(uri, 'types', diags.map((d) => this.toDiagnostic(now, d.range, d.message, SEVERITY[d.severity], TYPES_SOURCE)));
    } catch (err) {
      this.log.warn(`type check of ${uri} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private setDiagnostics(uri: string, kind: keyof FileDiagnostics, list: Diagnostic[]): void {
    let d = this.diagnosticsByUri.get(uri);
    const first = !d; // an open document gets its (maybe empty) list once, so the client knows it was checked
    if (!d) this.diagnosticsByUri.set(uri, (d = { registry: [], types: [], lock: [] }));
    const same = !first && JSON.stringify(d[kind]) === JSON.stringify(list);
    d[kind] = list;
    if (!same) this.publish(uri);
  }

  private publish(uri: string): void {
    const d = this.diagnosticsByUri.get(uri);
    const all = d ? [...d.registry, ...d.types, ...d.lock] : [];
    if (!all.length && !this.docs.has(uri)) this.diagnosticsByUri.delete(uri);
    if (this.pullDiagnostics) {
      if (this.refreshDiagnostics) void this.connection.sendRequest('workspace/diagnostic/refresh').catch(() => undefined);
      return;
    }
    void this.connection.sendDiagnostics({ uri, version: this.docs.get(uri)?.version, diagnostics: all });
  }

  /** textDocument/diagnostic (pull): the registry part computed now, types and lock from their last run. */
  pulled(uri: string): Diagnostic[] {
    const doc = this.docs.get(uri);
    if (doc) {
      const d = this.diagnosticsByUri.get(uri) ?? { registry: [], types: [], lock: [] };
      d.registry = this.registryDiagnosticsOf(doc);
      this.diagnosticsByUri.set(uri, d);
    }
    const d = this.diagnosticsByUri.get(uri);
    return d ? [...d.registry, ...d.types, ...d.lock] : [];
  }

  // ---- completion, hover, code actions, code lenses

  private toCompletionItem(doc: TextDocument, c: FeatureCompletion): CompletionItem {
    const item: CompletionItem = {
      label: c.label, kind: KIND[c.kind],
      textEdit: TextEdit.replace(this.toClientRange(doc, c.range), c.insertText ?? c.label),
    };
    if (c.description !== undefined) item.labelDetails = { description: c.description };
    if (c.detail !== undefined) item.detail = c.detail;
    if (c.documentation !== undefined) item.documentation = { kind: MarkupKind.Markdown, value: c.documentation };
    if (c.snippet) item.insertTextFormat = InsertTextFormat.Snippet;
    if (c.filterText !== undefined) item.filterText = c.filterText;
    if (c.sortText !== undefined) item.sortText = c.sortText;
    if (c.preselect) item.preselect = true;
    return item;
  }

  async completion(uri: string, position: Position, token?: CancellationToken): Promise<CompletionList | null> {
    const doc = this.docs.get(uri);
    if (!doc || !isOurFileName(uriToPath(doc.uri))) return null;
    const pos = this.fromClientPosition(doc, position);
    const { parsed, refs } = this.cache.refs(this.snapshot(doc));
    const budget = REQUEST_BUDGET_MS;
    const reg = await within0(registryCompletions(this, { text: parsed.text, refs }, doc.offsetAt(pos), pos.line,
      () => this.known.get(this.openSources()), budget), budget + 50, token);
    if (token?.isCancellationRequested) return null;
    if (reg && 'value' in reg && reg.value) return { isIncomplete: reg.value.isIncomplete, items: reg.value.items.map((c) => this.toCompletionItem(doc, c)) };
    if (!reg) return { isIncomplete: true, items: [] }; // the source scan is slow: the next keystroke asks again
    const typed = await within0(this.types.complete(this.cache.parse(this.snapshot(doc)), pos, budget), budget + 50, token);
    if (typed && 'value' in typed && typed.value) return { isIncomplete: false, items: typed.value.map((c) => this.toCompletionItem(doc, c)) };
    return typed ? null : { isIncomplete: true, items: [] };
  }

  private openSources(): Array<string | null | undefined> {
    const out: Array<string | null | undefined> = [];
    for (const doc of this.docs.values()) {
      if (isOurFileName(uriToPath(doc.uri))) for (const m of this.cache.refs(this.snapshot(doc)).refs.modules) out.push(m.source?.value);
    }
    return out;
  }

  /** The module sources of the workspace folders' configuration files (bounded like the extension's scan). */
  private async scanSources(): Promise<string[]> {
    const scan = await scanFeatureDirs(this.workspaceFolders, { maxConfigDirs: 200 }, this.log);
    const files: string[] = [];
    const { readdir } = await import('node:fs/promises');
    await mapLimit(scan.dirs, 8, async (dir) => {
      for (const name of await readdir(dir).catch(() => [] as string[])) if (/\.(?:tf|tofu)$/.test(name) && files.length < 500) files.push(path.join(dir, name));
    });
    const out: string[] = [];
    await mapLimit(files, 8, async (f) => {
      const text = await readTextCapped(f, 512 * 1024).catch(() => undefined);
      if (text !== undefined) out.push(...sourceStrings(text));
    });
    return out;
  }

  async hover(uri: string, position: Position, token?: CancellationToken): Promise<Hover | null> {
    const doc = this.docs.get(uri);
    if (!doc) return null;
    const pos = this.fromClientPosition(doc, position);
    const offset = doc.offsetAt(pos);
    const file = uriToPath(uri);
    const budget = REQUEST_BUDGET_MS;
    let h: FeatureHover | undefined;
    if (isLockFileName(file)) {
      const r = await within0(this.lock.hover(file, doc.getText(), offset), budget, token);
      h = r && 'value' in r ? r.value : undefined;
    } else {
      const refs = this.cache.refs(this.snapshot(doc)).refs;
      const r = await within0(registryHover(this, refs, offset, budget), budget, token);
      // Past the budget: what the lookups know now (the slow ones go on, for the next hover).
      h = r && 'value' in r ? r.value : token?.isCancellationRequested ? undefined : await registryHover(this, refs, offset, 0);
      if (!h && !token?.isCancellationRequested) {
        const t = await within0(this.types.hover(this.cache.parse(this.snapshot(doc)), pos, budget), budget, token);
        h = t && 'value' in t ? t.value : undefined;
      }
    }
    if (!h || token?.isCancellationRequested) return null;
    return { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: this.toClientRange(doc, h.range) };
  }

  private fixEdit(doc: TextDocument, fix: Fix) {
    return { changes: { [doc.uri]: [TextEdit.replace(this.toClientRange(doc, fix.range), fix.newText)] } };
  }

  async codeActions(uri: string, range: Range, context: { diagnostics: Diagnostic[] }, token?: CancellationToken): Promise<CodeAction[]> {
    const doc = this.docs.get(uri);
    if (!doc) return [];
    const file = uriToPath(uri);
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
    const out: CodeAction[] = [];
    if (isOurFileName(file)) {
      const start = this.fromClientPosition(doc, range.start);
      const found = await within0(quickFixesAt(this, this.cache.refs(this.snapshot(doc)).refs, doc.offsetAt(start), ours.length > 0, REQUEST_BUDGET_MS), REQUEST_BUDGET_MS + 50, token);
      const fixes = found && 'value' in found ? found.value : undefined;
      for (const fix of fixes?.fixes ?? []) {
        const target = this.toClientRange(doc, fixDiagnosticRange(fix, fixes!.ref));
        out.push({
          title: fix.title, kind: CodeActionKind.QuickFix, edit: this.fixEdit(doc, fix), isPreferred: fix.kind === 'update-constraint',
          diagnostics: ours.filter((d) => FIXED_CODES.has(String(d.code)) && intersects(d.range, target)),
        });
      }
    }
    if (uri.startsWith('file:')) {
      const utf16 = ours.map((d) => ({ diag: d, message: typeof d.message === 'string' ? d.message : d.message.value, range: this.fromClientRange(doc, d.range) }));
      for (const f of this.lock.fixes(file, utf16)) {
        out.push({
          title: f.title, kind: CodeActionKind.QuickFix, diagnostics: [f.diagnostic.diag], isPreferred: true,
          command: { title: f.title, command: COMMANDS.lock, arguments: [f.args] },
        });
      }
    }
    return out;
  }

  codeLenses(uri: string): CodeLens[] {
    const doc = this.docs.get(uri);
    if (!doc || !isOurFileName(uriToPath(uri))) return [];
    return fixLenses(this, this.cache.refs(this.snapshot(doc)).refs).map(({ range, fix }) => ({
      range: this.toClientRange(doc, range),
      command: { title: fix.lens, command: COMMANDS.applyFix, arguments: [uri, doc.version, fix] },
    }));
  }

  // ---- commands

  async executeCommand(command: string, args: unknown[], token: CancellationToken, progress: WorkDoneProgressReporter): Promise<unknown> {
    if (command === COMMANDS.applyFix) {
      const [uri, version, fix] = args as [string, number, Fix];
      const doc = this.docs.get(uri);
      if (!doc || doc.version !== version) {
        void this.connection.window.showInformationMessage('The document changed; run the fix again from the updated code lens.');
        return false;
      }
      return (await this.connection.workspace.applyEdit({ label: fix.title, edit: this.fixEdit(doc, fix) })).applied;
    }
    if (!this.networkAllowed()) throw new Error(`${command} needs network access, which the offline setting turns off`);
    const a = (args[0] && typeof args[0] === 'object' ? args[0] : {}) as LockFixArgs & { platforms?: string[]; out?: string; allMatching?: boolean; baseUrl?: string };
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    const dirs = a.dirs?.length ? a.dirs : this.workspaceFolders;
    if (!dirs.length) throw new Error(`${command}: no directory given (arguments [{"dirs": [...]}]) and no workspace folder`);
    const title = command === COMMANDS.lock ? 'Locking providers' : command === COMMANDS.mirror ? 'Mirroring providers'
      : command === COMMANDS.mirrorModules ? 'Mirroring modules' : command === COMMANDS.outdated ? 'Checking dependencies' : undefined;
    if (!title) throw new Error(`unknown command ${command}`);
    progress.begin(title, 0, undefined, true);
    let total = 0;
    let done = 0;
    const step = (message: string) => { done++; progress.report(total ? Math.min(100, Math.round((100 * done) / total)) : 0, `${done}/${total} — ${message}`); };
    try {
      if (command === COMMANDS.lock) {
        const platforms = a.platforms?.length ? a.platforms : this.current.lockPlatforms;
        const report = await lockProviders({
          engine: this.engine, dirs, platforms, concurrency: this.current.mirrorConcurrency, upgrade: a.upgrade, signal: ac.signal,
          onProgress: (e) => {
            if (e.kind === 'planned') total += e.packages;
            if (e.kind === 'package') step(`${e.provider} ${e.version} ${e.platform}: ${e.outcome}`);
          },
        });
        for (const f of report.lockFiles) this.lock.lockFileChanged(f.dir);
        return report;
      }
      if (command === COMMANDS.mirror || command === COMMANDS.mirrorModules) {
        if (!a.out) throw new Error(`${command}: the output directory is required (arguments [{"dirs": [...], "out": "DIR"}])`);
        const scan = await scanFeatureDirs(dirs, this.current, this.log);
        if (command === COMMANDS.mirror) {
          return await mirrorProviders({
            engine: this.engine, dirs: scan.dirs, out: a.out, concurrency: this.current.mirrorConcurrency, signal: ac.signal,
            platforms: a.platforms?.length ? a.platforms : this.current.mirrorPlatforms.length ? this.current.mirrorPlatforms : this.current.lockPlatforms,
            onProgress: (e) => {
              if (e.kind === 'planned') total = e.total;
              if (e.kind === 'done') step(`${e.target.provider} ${e.target.version} ${e.target.platform}: ${e.outcome}`);
            },
          });
        }
        return await mirrorModules({
          engine: this.engine, dirs: scan.dirs, out: a.out, concurrency: this.current.mirrorConcurrency, allMatching: a.allMatching, baseUrl: a.baseUrl, signal: ac.signal,
          onProgress: (e) => {
            if (e.kind === 'queued') total += 1;
            if (e.kind === 'done') step(`${e.module} ${e.version}`);
          },
        });
      }
      const scan = await scanFeatureDirs(dirs, this.current, this.log);
      const graph = await buildDependencyGraph(await rootConfigDirs(scan.dirs, dirs), { engine: this.engine, resolver: this.types.resolver, installed: this.types.resolver.installed, signal: ac.signal } as Parameters<typeof buildDependencyGraph>[1]);
      return { dependencies: graph.directories.flatMap((d) => [...d.modules, ...d.providers]), ...(scan.warnings.length ? { warnings: scan.warnings } : {}) };
    } finally {
      progress.done();
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    clearTimeout(this.refreshTimer);
    this.lock.dispose();
    void this.engineRef.dispose().catch(() => undefined);
  }
}

function intersects(a: Range, b: Range): boolean {
  const before = (p: Position, q: Position) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/** Wires a connection to a server; resolves when the client has said exit. */
export function listen(connection: Connection, options: ServerOptions): Promise<number> {
  const server = new TofuRegistryServer(connection, options);
  let watchedFilesDynamic = false;
  let shutdown = false;
  connection.onInitialize((params) => {
    watchedFilesDynamic = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    return server.initialize(params);
  });
  connection.onInitialized(() => { void server.initialized({ watchedFilesDynamic }); });
  connection.onDidChangeConfiguration((p: DidChangeConfigurationParams) => { void server.configurationChanged(p.settings); });
  connection.onDidOpenTextDocument((p: DidOpenTextDocumentParams) => server.opened(p.textDocument.uri, p.textDocument.languageId, p.textDocument.version, p.textDocument.text));
  connection.onDidChangeTextDocument((p: DidChangeTextDocumentParams) => server.changed(p.textDocument.uri, p.textDocument.version, p.contentChanges as Array<{ range?: Range; text: string }>));
  connection.onDidSaveTextDocument((p: DidSaveTextDocumentParams) => server.saved(p.textDocument.uri));
  connection.onDidCloseTextDocument((p: DidCloseTextDocumentParams) => server.closed(p.textDocument.uri));
  connection.onDidChangeWatchedFiles((p: DidChangeWatchedFilesParams) => server.watchedFilesChanged(p.changes.map((c) => c.uri)));
  connection.onCompletion((p, token) => server.completion(p.textDocument.uri, p.position, token));
  connection.onHover((p, token) => server.hover(p.textDocument.uri, p.position, token));
  connection.onCodeAction((p, token) => server.codeActions(p.textDocument.uri, p.range, p.context, token));
  connection.onCodeLens((p) => server.codeLenses(p.textDocument.uri));
  connection.onExecuteCommand((p, token, progress) => server.executeCommand(p.command, p.arguments ?? [], token, progress));
  connection.languages.diagnostics.on((p) => ({ kind: DocumentDiagnosticReportKind.Full, items: server.pulled(p.textDocument.uri) }));
  connection.onShutdown(() => { shutdown = true; server.dispose(); });
  return new Promise((resolve) => {
    connection.onExit(() => resolve(shutdown ? 0 : 1));
    connection.listen();
  });
}
