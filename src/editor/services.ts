// What every editor feature receives: one engine instance (shared caches), the log, the parsed
// document cache and the trust/settings state. Owned by the editor layer; features only read it.
import type * as vscode from 'vscode';
import type { Engine } from '../engine/engine';
import type { ConfigFile } from '../engine/config/ast';

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
