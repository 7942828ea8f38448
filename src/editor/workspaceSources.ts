// Registry module sources the user already uses in the workspace (for cheap source completion):
// open documents plus one bounded scan of the workspace's files, refreshed at most every minute.
import * as vscode from 'vscode';
import { parseModuleSource } from '../engine/addresses';
import type { RegistryServices } from './services';

let scanned: { at: number; sources: Set<string> } | undefined;
const SOURCE_RE = /^\s*source\s*=\s*"([^"\n]+)"/gm;
/** Files scanned at most, and the largest one read (a generated or vendored .tf is skipped). */
const MAX_FILES = 500;
export const MAX_SCAN_FILE_BYTES = 512 * 1024;

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
  if (!scanned || Date.now() - scanned.at > 60_000) {
    const sources = new Set<string>();
    const files = await vscode.workspace.findFiles('**/*.{tf,tofu}', '**/{.terraform,node_modules,.git}/**', MAX_FILES);
    for (const f of files) {
      try {
        if ((await vscode.workspace.fs.stat(f)).size > MAX_SCAN_FILE_BYTES) continue;
        const text = Buffer.from(await vscode.workspace.fs.readFile(f)).toString('utf8');
        for (const m of text.matchAll(SOURCE_RE)) sources.add(m[1]);
      } catch { /* unreadable: skip */ }
    }
    scanned = { at: Date.now(), sources };
  }
  for (const s of scanned.sources) add(s);
  return out;
}
