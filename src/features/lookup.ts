// The editor's view of the registry: results of the engine's calls remembered per target, readable
// synchronously (warm completion/hover/diagnostics never wait), single-flight while pending.
// Pure (no vscode): the engine is reached through the RegistryBackend interface.
import type { ProviderAddress, RegistryModuleSource } from '../engine/addresses';
import { SharedFlight } from '../engine/discovery/flight';
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

/** What the editor needs from the engine (src/editor/services.ts adapts the Engine to this). `signal` aborts the lookup's requests. */
export interface RegistryBackend {
  discover(host: string, signal?: AbortSignal): Promise<DiscoveryInfo>;
  moduleVersions(addr: RegistryModuleSource, signal?: AbortSignal): Promise<string[]>;
  providerVersions(addr: ProviderAddress, signal?: AbortSignal): Promise<VersionsFrom>;
  /** The resolved download location of one module version (absolute URL, git::…?ref=…). */
  downloadLocation(addr: RegistryModuleSource, version: string, signal?: AbortSignal): Promise<string>;
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
  private readonly flights = new Map<string, SharedFlight<unknown>>();
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
    this.flights.clear();
    this.generation++;
  }

  /** Lookups still on their way (a caller can tell "nothing more is coming" from "slow"). */
  get pendingCount(): number {
    return this.flights.size;
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

  /**
   * Single flight per key; `signal` (a request's cancellation) stops this caller's wait, and the
   * lookup's requests are aborted once every caller waiting on it has stopped (then nothing is
   * remembered: the next caller asks again).
   */
  private get<T>(key: string, run: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const e = this.peek<T>(key);
    if (e?.state === 'ok') return Promise.resolve(e.value);
    if (e?.state === 'error') return Promise.reject(e.error);
    const running = this.flights.get(key) as SharedFlight<T> | undefined;
    if (e && running && !running.abandoned) return running.join(signal);
    const flight = new SharedFlight(run);
    const promise = flight.promise;
    this.flights.set(key, flight);
    this.entries.set(key, { state: 'pending', promise });
    promise.then(
      (value) => this.settle(key, promise, { state: 'ok', value, at: Date.now() }),
      (error) => this.settle(key, promise, flight.abandoned ? undefined : { state: 'error', error, at: Date.now() }),
    );
    return flight.join(signal);
  }

  /** `s` undefined: the lookup was cancelled, its entry dropped. */
  private settle(key: string, promise: Promise<unknown>, s: Settled<unknown> | undefined): void {
    const cur = this.entries.get(key);
    if (!cur || cur.state !== 'pending' || cur.promise !== promise) return; // cleared meanwhile
    this.flights.delete(key);
    if (!s) {
      this.entries.delete(key);
      return;
    }
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

  versions(t: Target, signal?: AbortSignal): Promise<string[]> {
    return this.get(`v:${t.key}`, (s) => t.kind === 'module'
      ? this.backend.moduleVersions(t.addr, s) : this.backend.providerVersions(t.addr, s), signal);
  }

  peekVersions(t: Target): Settled<string[]> | undefined {
    return this.peek(`v:${t.key}`);
  }

  discovery(host: string, signal?: AbortSignal): Promise<DiscoveryInfo> {
    return this.get(`d:${host}`, (s) => this.backend.discover(host, s), signal);
  }

  peekDiscovery(host: string): Settled<DiscoveryInfo> | undefined {
    return this.peek(`d:${host}`);
  }

  location(addr: RegistryModuleSource, version: string, signal?: AbortSignal): Promise<string> {
    return this.get(`l:${addr.fullAddress}@${version}`, (s) => this.backend.downloadLocation(addr, version, s), signal);
  }

  peekLocation(addr: RegistryModuleSource, version: string): Settled<string> | undefined {
    return this.peek(`l:${addr.fullAddress}@${version}`);
  }
}

/** A request's cancellation token, as the language server's and VS Code's both are. */
export interface CancelToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): unknown;
}

/** An AbortSignal that follows a request's cancellation token (undefined without one). */
export function signalOf(token?: CancelToken): AbortSignal | undefined {
  if (!token) return undefined;
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  else token.onCancellationRequested(() => ac.abort());
  return ac.signal;
}

/**
 * How long an editor request (completion, hover, code action) waits for the registry, in both
 * adapters: past it, it answers with what is known now (cached) and the lookup goes on for the
 * next request.
 */
export const REQUEST_BUDGET_MS = 1000;

/** Resolve a promise, or undefined after `ms` (hovers must not hang on a slow registry). */
export function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then((value) => { clearTimeout(timer); resolve({ value }); },
      (error) => { clearTimeout(timer); resolve({ error }); });
  });
}
