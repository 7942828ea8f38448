// Registry module sources the user already uses in the workspace (for cheap source completion):
// open documents plus one bounded scan of the workspace's files. The scan never runs on the
// activation path: the first source completion starts it (and waits for it); afterwards answers
// come from the last scan at once while a stale one (older than a minute) is refreshed in the
// background. Files are read a few at a time, asynchronously, so the extension host keeps serving
// typing and other requests between files.
import * as vscode from 'vscode';
import { parseModuleSource } from '../engine/addresses';
import { mapLimit, readTextCapped } from '../engine/fstree';
import type { RegistryServices } from './services';

const SOURCE_RE = /^\s*source\s*=\s*"([^"\n]+)"/gm;
/** Files scanned at most, and the largest one read (a generated or vendored .tf is skipped). */
const MAX_FILES = 500;
export const MAX_SCAN_FILE_BYTES = 512 * 1024;
const SCAN_CONCURRENCY = 8;
const RESCAN_AFTER_MS = 60_000;

let scanned: { at: number; sources: Set<string> } | undefined;
let scanning: Promise<void> | undefined;

export async function knownSources(services: RegistryServices): Promise<Set<string>> {
  const out = new Set<string>();
  const add = (s: string | null | undefined) => {
    if (!s) return;
    const p = parseModuleSource(s);
    if (p.kind !== 'registry') return;
    out.add(p.address);
    // namespaces/names already in use are offered as prefixes too
    const host = p.address === p.fullAddress ? `${p.host}/` : '';
    out.add(`${host}${p.namespace}/`);
  };
  for (const doc of vscode.workspace.textDocuments) {
    if (!services.isOurs(doc)) continue;
    for (const m of services.refs(doc).refs.modules) add(m.source?.value);
  }
  if (!scanned || Date.now() - scanned.at > RESCAN_AFTER_MS) {
    scanning ??= scanWorkspace(services).finally(() => { scanning = undefined; });
    if (!scanned) await scanning;
  }
  for (const s of scanned?.sources ?? []) add(s);
  return out;
}

async function scanWorkspace(services: RegistryServices): Promise<void> {
  const sources = new Set<string>();
  try {
    const files = await vscode.workspace.findFiles('**/*.{tf,tofu}', '**/{.terraform,node_modules,.git}/**', MAX_FILES);
    await mapLimit(files, SCAN_CONCURRENCY, async (f) => {
      const text = await readSmallFile(f).catch(() => undefined); // unreadable: skip
      if (text !== undefined) for (const m of text.matchAll(SOURCE_RE)) sources.add(m[1]);
    });
  } catch (err) {
    services.log.warn(`workspace scan for module sources failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  scanned = { at: Date.now(), sources };
}

/** The file's text, or undefined above MAX_SCAN_FILE_BYTES: one capped read for local files. */
async function readSmallFile(uri: vscode.Uri): Promise<string | undefined> {
  if (uri.scheme === 'file') return readTextCapped(uri.fsPath, MAX_SCAN_FILE_BYTES);
  if ((await vscode.workspace.fs.stat(uri)).size > MAX_SCAN_FILE_BYTES) return undefined;
  return Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
}
