// What every editor feature receives: one engine instance (shared caches), the log, the parsed
// document cache and the trust/settings state. Owned by the editor layer; features only read it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../engine/engine';
import type { ConfigFile } from '../engine/config/ast';
import { parseConfig } from '../engine/config';
import { collectRefs, DocRefs } from '../features/refs';
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

interface CacheEntry { parsed: ParsedDocument; refs?: DocRefs }

export class Services implements RegistryServices {
  private readonly docs = new Map<string, CacheEntry>();
  private current: EditorSettings = readSettings();
  private readonly resetEmitter = new vscode.EventEmitter<void>();
  readonly onDidReset = this.resetEmitter.event;
  /** Parses performed (tests and the bench check the cache works). */
  parseCount = 0;

  constructor(
    readonly log: vscode.LogOutputChannel,
    readonly cacheDir: string,
    private engineRef: Engine,
    readonly lookup: RegistryLookup,
  ) {}

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

  private entry(document: vscode.TextDocument): CacheEntry {
    const key = document.uri.toString();
    const hit = this.docs.get(key);
    if (hit && hit.parsed.version === document.version) return hit;
    const text = document.getText();
    this.parseCount++;
    const file = parseConfig(text, document.uri.fsPath || path.basename(document.uri.path));
    const e: CacheEntry = { parsed: { uri: document.uri, version: document.version, text, file } };
    this.docs.set(key, e);
    return e;
  }

  parse(document: vscode.TextDocument): ParsedDocument {
    return this.entry(document).parsed;
  }

  refs(document: vscode.TextDocument): { parsed: ParsedDocument; refs: DocRefs } {
    const e = this.entry(document);
    if (!e.refs) e.refs = collectRefs(e.parsed.file, e.parsed.text);
    return { parsed: e.parsed, refs: e.refs };
  }

  forget(document: vscode.TextDocument): void {
    this.docs.delete(document.uri.toString());
  }

  dispose(): void {
    this.docs.clear();
    this.resetEmitter.dispose();
  }
}
