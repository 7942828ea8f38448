// Reads the extension's settings (contributes.configuration) into plain data. The proxy defaults
// to VS Code's own `http.proxy` (then HTTPS_PROXY/NO_PROXY in the engine).
import * as vscode from 'vscode';

export interface EditorSettings {
  cacheTtlMinutes: number;
  requestTimeoutSeconds: number;
  caFile: string;
  proxy: string;
  /** Proxy settings came from `http.proxy` rather than `tofuRegistry.proxy`. */
  proxyFromVscode: boolean;
  diagnosticsEnabled: boolean;
  /** Quiet period after the last edit before diagnostics are recomputed. */
  diagnosticsDebounceMs: number;
  cliConfigFile: string;
  codeLensEnabled: boolean;
}

export const SECTION = 'tofuRegistry';

export function readSettings(): EditorSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const own = (c.get<string>('proxy') ?? '').trim();
  const vscodeProxy = (vscode.workspace.getConfiguration('http').get<string>('proxy') ?? '').trim();
  return {
    cacheTtlMinutes: Math.max(0, c.get<number>('cacheTtlMinutes') ?? 60),
    requestTimeoutSeconds: Math.max(1, c.get<number>('requestTimeoutSeconds') ?? 15),
    caFile: (c.get<string>('caFile') ?? '').trim(),
    proxy: own || vscodeProxy,
    proxyFromVscode: !own && !!vscodeProxy,
    diagnosticsEnabled: c.get<boolean>('diagnostics.enabled') ?? true,
    diagnosticsDebounceMs: Math.max(0, c.get<number>('diagnostics.debounceMs') ?? 500),
    cliConfigFile: (c.get<string>('cliConfigFile') ?? '').trim(),
    codeLensEnabled: c.get<boolean>('codeLens.enabled') ?? true,
  };
}

/** Settings whose change needs a new engine (network options); the others are read on use. */
export function affectsEngine(e: vscode.ConfigurationChangeEvent): boolean {
  return ['cacheTtlMinutes', 'requestTimeoutSeconds', 'caFile', 'proxy', 'cliConfigFile']
    .some((k) => e.affectsConfiguration(`${SECTION}.${k}`)) || e.affectsConfiguration('http.proxy');
}
