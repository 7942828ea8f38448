// Reads the extension's settings (contributes.configuration) through the features layer's one
// parser. The proxy defaults to VS Code's own `http.proxy` (then HTTPS_PROXY in the engine); VS
// Code's `http.noProxy` hosts bypass it, in addition to NO_PROXY.
import * as vscode from 'vscode';
import type { ConfigDirScan } from '../engine/mirror/requirements';
import { scanFeatureDirs } from '../features/workspace';
import { ENGINE_SETTINGS, FeatureSettings, SECTION, settingsFrom } from '../features/settings';

export { SECTION };
export type EditorSettings = FeatureSettings;

export function readSettings(): EditorSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const http = vscode.workspace.getConfiguration('http');
  // `offline` is the language server's: in the editor, an untrusted workspace is what stops requests.
  return { ...settingsFrom((k) => c.get(k), { proxy: http.get('proxy'), noProxy: http.get('noProxy') }), offline: false };
}

/** Settings whose change needs a new engine (network options); the others are read on use. */
export function affectsEngine(e: vscode.ConfigurationChangeEvent): boolean {
  return ENGINE_SETTINGS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`)) || e.affectsConfiguration('http.proxy') || e.affectsConfiguration('http.noProxy');
}

/**
 * The configuration directories under `roots`, at most tofuRegistry.maxConfigDirs per root. A walk
 * cut short is never silent: each warning goes to the log; callers show it where the user looks.
 */
export async function scanWorkspaceDirs(roots: readonly string[], log: { warn(message: string): void }): Promise<ConfigDirScan> {
  return scanFeatureDirs(roots, readSettings(), log);
}
