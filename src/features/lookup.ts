// The editor's view of the registry: results of the engine's calls remembered per target, readable
// synchronously (warm completion/hover/diagnostics never wait), single-flight while pending.
// Pure (no vscode): the engine is reached through the RegistryBackend interface.
import type { ProviderAddress, RegistryModuleSource } from '../engine/addresses';
import type { Target } from './target';

export interface DiscoveryInfo {
  host: string;
  /** The URL the discovery document was finally read from (after redirects). */
  url: string;
  /** Set when the discovery request was redirected. */
  redirectedTo?: string;
  /** Service id → absolute base URL (e.g. modules.v1 → https://host/v1/modules/). */
  services: Record<string, string>;
}

/**
 * A version list; `from` names where it came from when that is not the origin registry alone
 * (e.g. "network mirror https://mirror.example/providers/", from the CLI configuration's
 * provider_installation block).
 */
export type VersionsFrom = string[] & { from?: string };

/** What the editor needs from the engine (src/editor/services.ts adapts the Engine to this). */
export interface RegistryBackend {
  discover(host: string): Promise<DiscoveryInfo>;
  moduleVersions(addr: RegistryModuleSource): Promise<string[]>;
  providerVersions(addr: ProviderAddress): Promise<VersionsFrom>;
  /** The resolved download location of one module version (absolute URL, git::…?ref=…). */
  downloadLocation(addr: RegistryModuleSource, version: string): Promise<string>;
}

/** Error codes that are failures of the network itself, not of what was asked. */
export const NETWORK_CODES: ReadonlySet<string> = new Set(['network', 'timeout', 'tls', 'too-large', 'too-many-redirects', 'rate-limited',
  'server-error', 'http-error', 'protocol', 'aborted', 'network-disabled']);

export type Settled<T> =
  | { state: 'pending'; promise: Promise<T> }
  | { state: 'ok'; value: T; at: number }
  | { state: 'error'; error: unknown; at: number };

export class RegistryLookup {
  private readonly entries = new Map<string, Settled<unknown>>();
  /** Bumped whenever a lookup settles: lets diagnostics know whether anything changed. */
  generation = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private backend: RegistryBackend, private readonly errorTtlMs = 30_000) {}

  setBackend(backend: RegistryBackend): void {
    this.backend = backend;
    this.clear();
  }

  clear(): void {
    this.entries.clear();
    this.generation++;
  }

  onDidSettle(fn: () => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  /** Synchronous peek: undefined when never asked. */
  peek<T>(key: string): Settled<T> | undefined {
    const e = this.entries.get(key) as Settled<T> | undefined;
    if (e && e.state === 'error' && Date.now() - e.at > this.errorTtlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private get<T>(key: string, run: () => Promise<T>): Promise<T> {
    const e = this.peek<T>(key);
    if (e) {
      if (e.state === 'ok') return Promise.resolve(e.value);
      if (e.state === 'error') return Promise.reject(e.error);
      return e.promise;
    }
    const promise = run();
    this.entries.set(key, { state: 'pending', promise });
    promise.then(
      (value) => this.settle(key, promise, { state: 'ok', value, at: Date.now() }),
      (error) => this.settle(key, promise, { state: 'error', error, at: Date.now() }),
    );
    return promise;
  }

  private settle(key: string, promise: Promise<unknown>, s: Settled<unknown>): void {
    const cur = this.entries.get(key);
    if (!cur || cur.state !== 'pending' || cur.promise !== promise) return; // cleared meanwhile
    this.entries.set(key, s);
    this.generation++;
    for (const fn of this.listeners) fn();
  }

  /**
   * Any other lookup under its own key (the oci:// features keep tag lists and resolved manifests
   * here): remembered, single-flight, and settling wakes the same listeners.
   */
  remember<T>(key: string, run: () => Promise<T>): Promise<T> {
    return this.get(key, run);
  }

  versions(t: Target): Promise<string[]> {
    return this.get(`v:${t.key}`, () => t.kind === 'module'
      ? this.backend.moduleVersions(t.addr) : this.backend.providerVersions(t.addr));
  }

  peekVersions(t: Target): Settled<string[]> | undefined {
    return this.peek(`v:${t.key}`);
  }

  discovery(host: string): Promise<DiscoveryInfo> {
    return this.get(`d:${host}`, () => this.backend.discover(host));
  }

  peekDiscovery(host: string): Settled<DiscoveryInfo> | undefined {
    return this.peek(`d:${host}`);
  }

  location(addr: RegistryModuleSource, version: string): Promise<string> {
    return this.get(`l:${addr.fullAddress}@${version}`, () => this.backend.downloadLocation(addr, version));
  }

  peekLocation(addr: RegistryModuleSource, version: string): Settled<string> | undefined {
    return this.peek(`l:${addr.fullAddress}@${version}`);
  }
}

/** Resolve a promise, or undefined after `ms` (hovers must not hang on a slow registry). */
export function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then((value) => { clearTimeout(timer); resolve({ value }); },
      (error) => { clearTimeout(timer); resolve({ error }); });
  });
}
