// Builds the one Engine from the settings, and adapts it to the features' RegistryBackend.
import { describeSource, Engine, EngineOptions, LogEntry } from '../engine/engine';
import { safeText } from '../engine/net/http-errors';
import type { FeatureLog } from './context';
import type { RegistryBackend } from './lookup';
import type { FeatureSettings } from './settings';

export interface EngineHost {
  userAgent: string;
  /** Whether requests may be sent now (the extension: a trusted workspace; the server: not offline). */
  networkAllowed(): boolean;
  /** Whether the CLI configuration's credentials_helper (a program named by configuration) may run. */
  allowCredentialsHelper(): boolean;
  /** Shows the user a warning (VS Code: a notification; the server: window/showMessage). */
  showWarning?(message: string): void;
}

/** The problems each host has shown: one notification per problem and session, however often the engine is rebuilt. */
const shownProblems = new WeakMap<EngineHost, Set<string>>();

export function engineOptions(s: FeatureSettings, cacheDir: string, log: FeatureLog, host: EngineHost): EngineOptions {
  return {
    cacheDir,
    cacheTtlMs: s.cacheTtlMinutes * 60_000,
    timeoutMs: s.requestTimeoutSeconds * 1000,
    caFiles: s.caFile ? [s.caFile] : undefined,
    proxy: s.proxy || undefined,
    noProxy: s.noProxy || undefined,
    cliConfigFile: s.cliConfigFile || undefined,
    userAgent: host.userAgent,
    // The engine never passes tokens to the log; URLs are still stripped of user:password and of
    // signature/token query values (pre-signed download URLs) before they reach the log.
    log: (e: LogEntry) => {
      const m = safeText(e.message);
      if (e.level === 'error') log.error(m);
      else if (e.level === 'warn') log.warn(m);
      else if (e.level === 'info' || m.startsWith('GET ')) log.info(m); // request timings
      else log.debug(m);
    },
    networkAllowed: () => host.networkAllowed(),
    allowCredentialsHelper: () => host.allowCredentialsHelper(),
    // a session lasts: a registry that refused the credentials is asked again after 5 minutes
    // (a fixed password, a new docker login), or at once after "Clear registry cache"
    ociRefusedCredentialsTtlMs: 5 * 60_000,
    // tofu's "There are some problems with the CLI configuration" (also in the log, as a warning)
    onCliConfigProblem: (message: string) => showOnce(host, message),
    // a filesystem mirror listing cut at its bound (also in the log, as a warning)
    onListWarning: (message: string) => showOnce(host, message),
  };
}

function showOnce(host: EngineHost, message: string): void {
  let shown = shownProblems.get(host);
  if (!shown) shownProblems.set(host, shown = new Set());
  if (shown.has(message)) return;
  shown.add(message);
  host.showWarning?.(message);
}

export function createEngine(s: FeatureSettings, cacheDir: string, log: FeatureLog, host: EngineHost): Engine {
  return new Engine(engineOptions(s, cacheDir, log, host));
}

export function backendOf(engine: Engine): RegistryBackend {
  return {
    async discover(host, signal) {
      const d = await engine.discoverServices(host, { signal });
      return {
        host: d.host, url: d.finalUrl, services: d.services,
        ...(d.finalUrl !== d.discoveryUrl ? { redirectedTo: d.finalUrl } : {}),
      };
    },
    async moduleVersions(addr, signal) {
      return (await engine.listModuleVersions(addr, { signal })).versions;
    },
    async providerVersions(addr, signal) {
      const list = await engine.listProviderVersions(addr, { signal });
      const versions = list.versions.map((v) => v.version);
      // Say where versions came from when the CLI configuration routes providers elsewhere.
      const from = list.sources?.some((s) => s.method !== 'direct') ? list.sources.map(describeSource).join(', ') : undefined;
      return from ? Object.assign(versions, { from }) : versions;
    },
    async downloadLocation(addr, version, signal) {
      return (await engine.resolveDownloadLocation(addr, version, { signal })).location;
    },
  };
}
