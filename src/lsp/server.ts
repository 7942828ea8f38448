// The language server: the features layer (src/features) over the Language Server Protocol, on
// vscode-languageserver. It only converts types (positions in the client's encoding, items, edits)
// and wires protocol events; every answer is the one the VS Code extension gives.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CodeActionKind, Connection, Diagnostic, DiagnosticSeverity, DidChangeWatchedFilesNotification, InitializeParams, InitializeResult,
  Position, Range, TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Engine } from '../engine/engine';
import { LOCK_FILE_NAME } from '../engine/lock';
import { safeText } from '../engine/net/http-errors';
import type { LineRange } from '../features/completion';
import { FeatureContext, FeatureLog, logFailure } from '../features/context';
import { registryDiagnostics } from '../features/diagnostics';
import { DocumentCache, isOurFileName } from '../features/documents';
import { backendOf, createEngine, EngineHost } from '../features/engine';
import { isLockFileName, LockStatus } from '../features/lockStatus';
import { RegistryLookup } from '../features/lookup';
import { ModuleTypes, TYPES_SOURCE } from '../features/moduleTypes';
import { engineSettingsDiffer, FeatureSettings, objectReader, SECTION, settingsFrom } from '../features/settings';
import { KnownSources, scanSourceStrings } from '../features/workspace';
import { COMMANDS, DIAGNOSTIC_SOURCE, SEVERITY, uriToPath } from './common';
import { chooseEncoding, fromUtf16Column, PositionEncoding, toUtf16Column } from './positions';

export interface ServerOptions {
  /** Cache directory: discovery answers and version lists, fetched module packages. */
  cacheDir: string;
  /** The server's version (serverInfo, user agent). */
  version: string;
}

/** Diagnostics of one file, by producer: each is replaced on its own and the client gets their union. */
interface FileDiagnostics { registry: Diagnostic[]; types: Diagnostic[]; lock: Diagnostic[] }


export class TofuRegistryServer implements FeatureContext {
  readonly docs = new Map<string, TextDocument>();
  readonly cache = new DocumentCache();
  readonly diagnosticsByUri = new Map<string, FileDiagnostics>();
  readonly timers = new Map<string, NodeJS.Timeout>();
  readonly reportedHosts = new Set<string>();
  engineRef!: Engine;
  readonly lookup: RegistryLookup;
  readonly log: FeatureLog;
  current: FeatureSettings = settingsFrom(() => undefined);
  encoding: PositionEncoding = 'utf-16';
  pullDiagnostics = false;
  refreshDiagnostics = false;
  refreshLenses = false;
  configurationPull = false;
  /** The client accepts progress the server creates (window/workDoneProgress/create). */
  workDoneProgress = false;
  workspaceFolders: string[] = [];
  readonly types: ModuleTypes;
  readonly lock: LockStatus;
  readonly known: KnownSources;
  refreshTimer?: NodeJS.Timeout;

  constructor(readonly connection: Connection, readonly options: ServerOptions) {
    // Every line goes through safeText (user:password, signed query values, sent credentials, control characters) and to stderr too;
    // window/logMessage carries info and above (debug only on stderr). Never stdout: that is the protocol's.
    const send = (type: 1 | 2 | 3 | 4, m: string) => {
      const line = safeText(m);
      process.stderr.write(`[tofu-registry] ${line}\n`);
      if (type < 4) void connection.sendNotification('window/logMessage', { type, message: line });
    };
    this.log = { error: (m) => send(1, m), warn: (m) => send(2, m), info: (m) => send(3, m), debug: (m) => { process.stderr.write(`[tofu-registry] ${safeText(m)}\n`); } };
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
    this.known = new KnownSources(() => scanSourceStrings(this.workspaceFolders, this.log), this.log);
    this.lookup.onDidSettle(() => this.settled());
  }

  get engine(): Engine { return this.engineRef; }
  get cacheDir(): string { return this.options.cacheDir; }
  settings(): FeatureSettings { return this.current; }
  networkAllowed(): boolean { return !this.current.offline; }

  /** One host for every engine of the session: a problem in the CLI configuration is shown once, not per rebuild. */
  private get engineHost(): EngineHost {
    return this.host ??= {
      userAgent: `tofu-registry-lsp/${this.options.version}`,
      networkAllowed: () => this.networkAllowed(),
      allowCredentialsHelper: () => this.networkAllowed(),
      showWarning: (message) => { void this.connection.sendNotification('window/showMessage', { type: 2, message: safeText(message) }); },
    };
  }
  private host?: EngineHost;

  newEngine(): Engine {
    return createEngine(this.current, this.options.cacheDir, this.log, this.engineHost);
  }

  // ---- lifecycle and settings

  initialize(params: InitializeParams): InitializeResult {
    const caps = params.capabilities;
    this.encoding = chooseEncoding(caps.general?.positionEncodings);
    this.pullDiagnostics = !!caps.textDocument?.diagnostic;
    this.refreshDiagnostics = !!caps.workspace?.diagnostics?.refreshSupport;
    this.refreshLenses = !!caps.workspace?.codeLens?.refreshSupport;
    this.configurationPull = !!caps.workspace?.configuration;
    this.workDoneProgress = !!caps.window?.workDoneProgress;
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

  uriOfPath(file: string): string {
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

  snapshot(doc: TextDocument) {
    return { key: doc.uri, version: doc.version, fsPath: uriToPath(doc.uri), getText: () => doc.getText() };
  }

  // ---- positions

  lineText(doc: TextDocument, line: number): string {
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

  toDiagnostic(doc: TextDocument | undefined, range: LineRange, message: string, severity: DiagnosticSeverity, source: string, code?: string): Diagnostic {
    return { range: this.toClientRange(doc, range), message, severity, source, ...(code ? { code } : {}) };
  }

  touched(uri: string, delay: number): void {
    this.schedule(uri, delay);
    const p = uriToPath(uri);
    if (uri.startsWith('file:')) this.lock.touched(p, delay);
  }

  scheduleAll(delay: number): void {
    for (const uri of this.docs.keys()) this.schedule(uri, delay);
    this.lock.scheduleAll([...this.docs.keys()].filter((u) => u.startsWith('file:')).map(uriToPath), delay);
  }

  schedule(uri: string, delay: number): void {
    if (!isOurFileName(uriToPath(uri))) return;
    clearTimeout(this.timers.get(uri));
    this.timers.set(uri, setTimeout(() => {
      this.timers.delete(uri);
      this.updateRegistry(uri);
      void this.updateTypes(uri);
    }, delay));
  }

  /** A registry answer arrived: recompute the open documents (cheaply), and ask for fresh lenses. */
  settled(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      for (const uri of this.docs.keys()) this.updateRegistry(uri);
      if (this.refreshLenses) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
    }, 50);
  }

  registryDiagnosticsOf(doc: TextDocument): Diagnostic[] {
    if (!this.current.diagnosticsEnabled || !isOurFileName(uriToPath(doc.uri))) return [];
    const r = registryDiagnostics(this, this.cache.refs(this.snapshot(doc)).refs, this.reportedHosts);
    return r.diagnostics.map((d) => this.toDiagnostic(doc, d.range, d.message, SEVERITY[d.severity], DIAGNOSTIC_SOURCE, d.code));
  }

  updateRegistry(uri: string): void {
    const doc = this.docs.get(uri);
    if (!doc) return;
    try {
      this.setDiagnostics(uri, 'registry', this.registryDiagnosticsOf(doc));
    } catch (err) {
      logFailure(this.log, `diagnostics for ${uri}`, err);
    }
  }

  async updateTypes(uri: string): Promise<void> {
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

  setDiagnostics(uri: string, kind: keyof FileDiagnostics, list: Diagnostic[]): void {
    let d = this.diagnosticsByUri.get(uri);
    const first = !d; // an open document gets its (maybe empty) list once, so the client knows it was checked
    if (!d) this.diagnosticsByUri.set(uri, (d = { registry: [], types: [], lock: [] }));
    const same = !first && JSON.stringify(d[kind]) === JSON.stringify(list);
    d[kind] = list;
    if (!same) this.publish(uri);
  }

  publish(uri: string): void {
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

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    clearTimeout(this.refreshTimer);
    this.lock.dispose();
    void this.engineRef.dispose().catch(() => undefined);
  }
}
