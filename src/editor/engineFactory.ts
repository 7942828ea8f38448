// Builds the one Engine from the settings, and adapts it to the editor's RegistryBackend.
import * as vscode from 'vscode';
import { describeSource, Engine, EngineOptions, LogEntry } from '../engine/engine';
import { redactUrls } from '../engine/net/http-errors';
import type { RegistryBackend } from '../features/lookup';
import type { EditorSettings } from './settings';

export function engineOptions(s: EditorSettings, cacheDir: string, log: vscode.LogOutputChannel): EngineOptions {
  return {
    cacheDir,
    cacheTtlMs: s.cacheTtlMinutes * 60_000,
    timeoutMs: s.requestTimeoutSeconds * 1000,
    caFiles: s.caFile ? [s.caFile] : undefined,
    proxy: s.proxy || undefined,
    noProxy: s.noProxy || undefined,
    cliConfigFile: s.cliConfigFile || undefined,
    userAgent: `tofu-registry-vscode/${vscode.version}`,
    // The engine never passes tokens to the log; URLs are still stripped of user:password and of
    // signature/token query values (pre-signed download URLs) before they reach "Show log".
    log: (e: LogEntry) => {
      const m = redactUrls(e.message);
      if (e.level === 'error') log.error(m);
      else if (e.level === 'warn') log.warn(m);
      else if (e.level === 'info' || m.startsWith('GET ')) log.info(m); // request timings
      else log.debug(m);
    },
    // Untrusted workspace: the engine refuses to send anything, and never runs the CLI
    // configuration's credentials_helper (a program named by configuration).
    networkAllowed: () => vscode.workspace.isTrusted,
    allowCredentialsHelper: () => vscode.workspace.isTrusted,
  };
}

export function createEngine(s: EditorSettings, cacheDir: string, log: vscode.LogOutputChannel): Engine {
  return new Engine(engineOptions(s, cacheDir, log));
}

export function backendOf(engine: Engine): RegistryBackend {
  return {
    async discover(host) {
      const d = await engine.discoverServices(host);
      return {
        host: d.host, url: d.finalUrl, services: d.services,
        ...(d.finalUrl !== d.discoveryUrl ? { redirectedTo: d.finalUrl } : {}),
      };
    },
    async moduleVersions(addr) {
      return (await engine.listModuleVersions(addr)).versions;
    },
    async providerVersions(addr) {
      const list = await engine.listProviderVersions(addr);
      const versions = list.versions.map((v) => v.version);
      // Say where versions came from when the CLI configuration routes providers elsewhere.
      const from = list.sources?.some((s) => s.method !== 'direct') ? list.sources.map(describeSource).join(', ') : undefined;
      return from ? Object.assign(versions, { from }) : versions;
    },
    async downloadLocation(addr, version) {
      return (await engine.resolveDownloadLocation(addr, version)).location;
    },
  };
}
