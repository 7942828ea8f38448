// What every editor feature receives: one engine instance (shared caches), the log, the parsed
// document cache and the trust/settings state. Owned by the editor layer; features only read it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../engine/engine';
import type { ConfigFile } from '../engine/config/ast';
import type { DocRefs } from '../features/refs';
import { DocumentCache, DocumentSnapshot, ParsedText } from '../features/documents';
import { RegistryLookup } from '../features/lookup';
import { EditorSettings, readSettings } from './settings';
import { isOurFileName } from './selector';

export interface ParsedDocument {
  uri: vscode.Uri;
  version: number;
  text: string;
  file: ConfigFile;
}

export interface EditorServices {
  /** The one engine instance: discovery/version caches are shared by every feature. */
  readonly engine: Engine;
  readonly log: vscode.LogOutputChannel;
  /** Parsed once per document version. */
  parse(document: vscode.TextDocument): ParsedDocument;
  /** True when the document is one of ours (*.tf, *.tofu, *.tf.json, *.tofu.json), whatever its language id. */
  isOurs(document: vscode.TextDocument): boolean;
  /** False in an untrusted workspace: then no feature may touch the network. */
  networkAllowed(): boolean;
  /** Directory for caches (discovery, downloaded modules), under the extension's global storage. */
  readonly cacheDir: string;
}

/** The editor layer's own view (registry features); a superset of EditorServices. */
export interface RegistryServices extends EditorServices {
  /** Module calls and provider requirements of a document (cached with the parse). */
  refs(document: vscode.TextDocument): { parsed: ParsedDocument; refs: DocRefs };
  /** Remembered registry answers, readable synchronously. */
  readonly lookup: RegistryLookup;
  settings(): EditorSettings;
  /** Fired after the engine was replaced (settings changed) or its cache cleared. */
  readonly onDidReset: vscode.Event<void>;
}

function snapshot(document: vscode.TextDocument): DocumentSnapshot {
  return { key: document.uri.toString(), version: document.version, fsPath: document.uri.fsPath || path.basename(document.uri.path), getText: () => document.getText() };
}

function withUri(document: vscode.TextDocument, p: ParsedText): ParsedDocument {
  return { uri: document.uri, version: p.version, text: p.text, file: p.file };
}

export class Services implements RegistryServices {
  private readonly docs = new DocumentCache();
  private current: EditorSettings = readSettings();
  private readonly resetEmitter = new vscode.EventEmitter<void>();
  readonly onDidReset = this.resetEmitter.event;
  // Registered before any feature's listener, so features read the new settings when theirs run.
  private readonly configListener = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('tofuRegistry') || e.affectsConfiguration('http')) this.current = readSettings();
  });

  constructor(
    readonly log: vscode.LogOutputChannel,
    readonly cacheDir: string,
    private engineRef: Engine,
    readonly lookup: RegistryLookup,
  ) {}

  /** Parses performed (tests and the bench check the cache works). */
  get parseCount(): number {
    return this.docs.parseCount;
  }

  get engine(): Engine {
    return this.engineRef;
  }

  replaceEngine(engine: Engine, lookupBackend: Parameters<RegistryLookup['setBackend']>[0]): void {
    this.engineRef = engine;
    this.lookup.setBackend(lookupBackend);
    this.resetEmitter.fire();
  }

  reset(): void {
    this.lookup.clear();
    this.resetEmitter.fire();
  }

  reloadSettings(): EditorSettings {
    this.current = readSettings();
    return this.current;
  }

  settings(): EditorSettings {
    return this.current;
  }

  isOurs(document: vscode.TextDocument): boolean {
    return isOurFileName(document.uri.path);
  }

  networkAllowed(): boolean {
    return vscode.workspace.isTrusted;
  }

  parse(document: vscode.TextDocument): ParsedDocument {
    return withUri(document, this.docs.parse(snapshot(document)));
  }

  refs(document: vscode.TextDocument): { parsed: ParsedDocument; refs: DocRefs } {
    const r = this.docs.refs(snapshot(document));
    return { parsed: withUri(document, r.parsed), refs: r.refs };
  }

  forget(document: vscode.TextDocument): void {
    this.docs.forget(document.uri.toString());
  }

  dispose(): void {
    this.docs.clear();
    this.configListener.dispose();
    this.resetEmitter.dispose();
  }
}
