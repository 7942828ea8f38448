// Shared by the editor integration tests (run inside the VS Code extension host): the extension's
// API, the workspace folder, writing/opening .tf files, waiting for diagnostics.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TofuRegistryApi } from '../../src/extension';
import type { TestRegistry } from '../support/registry-server';

export const EXTENSION_ID = 'tofu-registry.tofu-registry';

export interface WindowStubs {
  /** Replaces a `vscode.window` function until `restoreAll` (the extension shares this API object). */
  stub<K extends keyof typeof vscode.window>(name: K, fn: unknown): void;
  /** Puts back every replaced function, last replaced first (call it in afterEach). */
  restoreAll(): void;
}

export function windowStubs(): WindowStubs {
  const restore: Array<() => void> = [];
  return {
    stub(name, fn) {
      const w = vscode.window as unknown as Record<string, unknown>;
      const original = w[name];
      w[name] = fn;
      assert.equal(vscode.window[name], fn, `vscode.window.${name} can be stubbed`);
      restore.push(() => { w[name] = original; });
    },
    restoreAll() { while (restore.length) restore.pop()!(); },
  };
}

export async function extensionApi(): Promise<TofuRegistryApi> {
  const ext = vscode.extensions.getExtension<TofuRegistryApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is loaded`);
  return ext.activate();
}

export function workspaceDir(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'a workspace folder is open');
  return f.uri.fsPath;
}

export async function openFile(name: string, content: string): Promise<vscode.TextDocument> {
  const file = path.join(workspaceDir(), name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  const doc = await vscode.workspace.openTextDocument(file);
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** Position of the n-th occurrence of `needle` in the document, plus `delta` characters. */
export function positionOf(doc: vscode.TextDocument, needle: string, delta = 0, nth = 0): vscode.Position {
  const text = doc.getText();
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  assert.ok(at >= 0, `${JSON.stringify(needle)} is in ${doc.uri.fsPath}`);
  return doc.positionAt(at + delta);
}

/**
 * The completion items at `pos`, asked again (as the next keystroke would) while the list is marked
 * incomplete and holds none of our items (ours always carry a `detail`; VS Code's word-based ones,
 * offered when ours are empty, do not): completion waits for the registry at most the request
 * budget (1 s), which a busy test machine may pass on a first lookup.
 */
export async function completions(doc: vscode.TextDocument, pos: vscode.Position, ms = 15000): Promise<vscode.CompletionItem[]> {
  const end = Date.now() + ms;
  for (;;) {
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, pos);
    if (!list?.isIncomplete || list.items.some((i) => i.detail !== undefined) || Date.now() > end) return list?.items ?? [];
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function labelOf(item: vscode.CompletionItem): string {
  return typeof item.label === 'string' ? item.label : item.label.label;
}

/** Our version items (labels that look like versions), in the order the suggest widget shows them. */
export function versionLabels(items: vscode.CompletionItem[]): string[] {
  return items.filter((i) => /^\d+\.\d+\.\d+/.test(labelOf(i)))
    .sort((a, b) => (a.sortText ?? labelOf(a)).localeCompare(b.sortText ?? labelOf(b)))
    .map(labelOf);
}

export async function hoverText(doc: vscode.TextDocument, pos: vscode.Position): Promise<string> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, pos);
  return (hovers ?? []).flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n---\n');
}

export function ourDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'tofu-registry');
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 15000): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined | false;
  while (Date.now() < end) {
    last = await probe();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function waitForCodes(uri: vscode.Uri, codes: string[], ms = 15000): Promise<vscode.Diagnostic[]> {
  return waitFor(`diagnostics ${codes.join(', ')} on ${path.basename(uri.fsPath)} (have: ${ourDiagnostics(uri).map((d) => d.code).join(', ')})`, () => {
    const have = ourDiagnostics(uri);
    const got = have.map((d) => String(d.code)).sort();
    return JSON.stringify(got) === JSON.stringify([...codes].sort()) ? have : undefined;
  }, ms);
}

/** Point the extension at the test registry's CA (the real settings path users take). */
export async function trustTestCa(api: TofuRegistryApi, reg: TestRegistry): Promise<void> {
  await vscode.workspace.getConfiguration('tofuRegistry').update('caFile', reg.caCertPath, vscode.ConfigurationTarget.Global);
  await waitFor('caFile setting to reach the extension', () => api.services.settings().caFile === reg.caCertPath);
}

export async function closeAll(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
