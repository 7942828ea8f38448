// Reads the extension's settings (contributes.configuration) into plain data. The proxy defaults
// to VS Code's own `http.proxy` (then HTTPS_PROXY in the engine); VS Code's `http.noProxy` hosts
// bypass it, in addition to NO_PROXY. `http.proxyStrictSSL` is deliberately not honoured: registry
// TLS is always verified (trust a private CA with tofuRegistry.caFile or NODE_EXTRA_CA_CERTS).
import * as vscode from 'vscode';
import { noProxyList } from '../features/proxy';
import { ConfigDirScan, scanConfigDirs } from '../engine/mirror/requirements';

export interface EditorSettings {
  cacheTtlMinutes: number;
  requestTimeoutSeconds: number;
  caFile: string;
  proxy: string;
  /** Proxy settings came from `http.proxy` rather than `tofuRegistry.proxy`. */
  proxyFromVscode: boolean;
  /** VS Code's `http.noProxy` (hosts that bypass the proxy), comma-separated; '' when none. */
  noProxy: string;
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
    noProxy: noProxyList(vscode.workspace.getConfiguration('http').get<unknown>('noProxy')),
    diagnosticsEnabled: c.get<boolean>('diagnostics.enabled') ?? true,
    diagnosticsDebounceMs: Math.max(0, c.get<number>('diagnostics.debounceMs') ?? 500),
    cliConfigFile: (c.get<string>('cliConfigFile') ?? '').trim(),
    codeLensEnabled: c.get<boolean>('codeLens.enabled') ?? true,
  };
}

/** Settings whose change needs a new engine (network options); the others are read on use. */
export function affectsEngine(e: vscode.ConfigurationChangeEvent): boolean {
  return ['cacheTtlMinutes', 'requestTimeoutSeconds', 'caFile', 'proxy', 'cliConfigFile']
    .some((k) => e.affectsConfiguration(`${SECTION}.${k}`)) || e.affectsConfiguration('http.proxy') || e.affectsConfiguration('http.noProxy');
}

/**
 * The configuration directories under `roots`, at most tofuRegistry.maxConfigDirs per root. A walk
 * cut short is never silent: each warning goes to the log; callers show it where the user looks.
 */
export async function scanWorkspaceDirs(roots: readonly string[], log: { warn(message: string): void }): Promise<ConfigDirScan> {
  const max = vscode.workspace.getConfiguration(SECTION).get<number>('maxConfigDirs');
  const scan = await scanConfigDirs(roots, { maxDirs: typeof max === 'number' && max >= 1 ? Math.floor(max) : undefined });
  for (const w of scan.warnings) log.warn(`workspace scan: ${w}`);
  return scan;
}
