// Registry module sources the user already uses in the workspace (for cheap source completion):
// the features layer's KnownSources over VS Code's file search. Files are read a few at a time,
// asynchronously, so the extension host keeps serving typing and other requests between files.
import * as vscode from 'vscode';
import { mapLimit, readTextCapped } from '../engine/fstree';
import { KnownSources, MAX_SCAN_FILE_BYTES, MAX_SCAN_FILES, sourceStrings } from '../features/workspace';
import type { RegistryServices } from './services';

const SCAN_CONCURRENCY = 8;

let known: KnownSources | undefined;

export async function knownSources(services: RegistryServices): Promise<Set<string>> {
  known ??= new KnownSources(scanWorkspace, services.log);
  const open: Array<string | null | undefined> = [];
  for (const doc of vscode.workspace.textDocuments) {
    if (!services.isOurs(doc)) continue;
    for (const m of services.refs(doc).refs.modules) open.push(m.source?.value);
  }
  return known.get(open);
}

async function scanWorkspace(): Promise<string[]> {
  const sources: string[] = [];
  const files = await vscode.workspace.findFiles('**/*.{tf,tofu}', '**/{.terraform,node_modules,.git}/**', MAX_SCAN_FILES);
  await mapLimit(files, SCAN_CONCURRENCY, async (f) => {
    const text = await readSmallFile(f).catch(() => undefined); // unreadable: skip
    if (text !== undefined) sources.push(...sourceStrings(text));
  });
  return sources;
}

/** The file's text, or undefined above MAX_SCAN_FILE_BYTES: one capped read for local files. */
async function readSmallFile(uri: vscode.Uri): Promise<string | undefined> {
  if (uri.scheme === 'file') return readTextCapped(uri.fsPath, MAX_SCAN_FILE_BYTES);
  if ((await vscode.workspace.fs.stat(uri)).size > MAX_SCAN_FILE_BYTES) return undefined;
  return Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
}
