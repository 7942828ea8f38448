// The settings every adapter reads (the extension's `tofuRegistry.*`, the language server's
// initializationOptions / workspace/configuration section `tofuRegistry`), as plain data: the same
// names, defaults and bounds for both. Each adapter only says how to read one key.
import { platformsSetting } from '../engine/providerpkg/platform';
import { noProxyList } from './proxy';

export const SECTION = 'tofuRegistry';

export interface FeatureSettings {
  cacheTtlMinutes: number;
  requestTimeoutSeconds: number;
  caFile: string;
  proxy: string;
  /** Proxy settings came from the editor's own proxy setting (`http.proxy`) rather than `tofuRegistry.proxy`. */
  proxyFromVscode: boolean;
  /** Hosts that bypass the proxy (the editor's `http.noProxy`), comma-separated; '' when none. */
  noProxy: string;
  diagnosticsEnabled: boolean;
  /** Quiet period after the last edit before diagnostics are recomputed. */
  diagnosticsDebounceMs: number;
  cliConfigFile: string;
  codeLensEnabled: boolean;
  /** tofuRegistry.lock.platforms, else the current platform plus linux_amd64. */
  lockPlatforms: string[];
  /** tofuRegistry.mirror.platforms, else the current platform plus linux_amd64. */
  mirrorPlatforms: string[];
  /** Parallel downloads of a mirror or lock run (1-64). */
  mirrorConcurrency: number;
  /** tofuRegistry.maxConfigDirs (undefined: the engine's default). */
  maxConfigDirs?: number;
  /** tofuRegistry.oci.providerRepositoryTemplate: where "mirror to an OCI registry" pushes ('' = ask / none). */
  ociProviderRepositoryTemplate: string;
  /** No network request at all (the language server's `offline`; the extension: an untrusted workspace). */
  offline: boolean;
}

/** Reads one setting by its name under `tofuRegistry` ("caFile", "diagnostics.enabled"); undefined when unset. */
export type SettingReader = (key: string) => unknown;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const bool = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : dflt);

/**
 * The settings from a reader, with the editor's HTTP proxy settings as the fallback (VS Code's
 * `http.proxy` / `http.noProxy`; the language server has none). `http.proxyStrictSSL` is
 * deliberately not honoured: registry TLS is always verified.
 */
export function settingsFrom(read: SettingReader, http: { proxy?: unknown; noProxy?: unknown } = {}): FeatureSettings {
  const own = str(read('proxy'));
  const editorProxy = str(http.proxy);
  const max = num(read('maxConfigDirs'));
  return {
    cacheTtlMinutes: Math.max(0, num(read('cacheTtlMinutes')) ?? 60),
    requestTimeoutSeconds: Math.max(1, num(read('requestTimeoutSeconds')) ?? 15),
    caFile: str(read('caFile')),
    proxy: own || editorProxy,
    proxyFromVscode: !own && !!editorProxy,
    noProxy: noProxyList(http.noProxy),
    diagnosticsEnabled: bool(read('diagnostics.enabled'), true),
    diagnosticsDebounceMs: Math.min(10_000, Math.max(0, num(read('diagnostics.debounceMs')) ?? 500)),
    cliConfigFile: str(read('cliConfigFile')),
    codeLensEnabled: bool(read('codeLens.enabled'), true),
    lockPlatforms: platformsSetting(read('lock.platforms')),
    mirrorPlatforms: platformsSetting(read('mirror.platforms')),
    mirrorConcurrency: Math.min(64, Math.max(1, Math.floor(num(read('mirror.concurrency')) ?? 8))),
    maxConfigDirs: max !== undefined && max >= 1 ? Math.floor(max) : undefined,
    ociProviderRepositoryTemplate: str(read('oci.providerRepositoryTemplate')),
    offline: bool(read('offline'), false),
  };
}

/** The settings whose change needs a new engine (network options); the others are read on use. */
export const ENGINE_SETTINGS = ['cacheTtlMinutes', 'requestTimeoutSeconds', 'caFile', 'proxy', 'cliConfigFile'] as const;

/** Whether two settings differ in what the engine was built from. */
export function engineSettingsDiffer(a: FeatureSettings, b: FeatureSettings): boolean {
  return ENGINE_SETTINGS.some((k) => a[k] !== b[k]) || a.noProxy !== b.noProxy;
}

/**
 * A reader over a settings object as clients send it: nested (`{"diagnostics": {"enabled": false}}`,
 * VS Code's and most clients' form) or with dotted keys (`{"diagnostics.enabled": false}`).
 */
export function objectReader(settings: unknown): SettingReader {
  const root = settings !== null && typeof settings === 'object' ? settings as Record<string, unknown> : {};
  return (key) => {
    if (Object.prototype.hasOwnProperty.call(root, key)) return root[key];
    let cur: unknown = root;
    for (const part of key.split('.')) {
      if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    return cur;
  };
}
