// The extension's engine: built by the features layer from the settings, with VS Code's version in
// the user agent and the workspace's trust deciding network access and credentials helpers.
import * as vscode from 'vscode';
import type { Engine } from '../engine/engine';
import { createEngine as create, EngineHost } from '../features/engine';
import type { FeatureSettings } from '../features/settings';

export { backendOf } from '../features/engine';

// Untrusted workspace: the engine refuses to send anything, and never runs the CLI
// configuration's credentials_helper (a program named by configuration).
const HOST: EngineHost = {
  userAgent: `tofu-registry-vscode/${vscode.version}`,
  networkAllowed: () => vscode.workspace.isTrusted,
  allowCredentialsHelper: () => vscode.workspace.isTrusted,
  showWarning: (message) => { void vscode.window.showWarningMessage(message); },
};

export function createEngine(s: FeatureSettings, cacheDir: string, log: vscode.LogOutputChannel): Engine {
  return create(s, cacheDir, log, HOST);
}
