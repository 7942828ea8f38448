// The registry engine: one object per editor session / CLI run. Plain data in, plain data out.
// Wires credentials → HTTP client → discovery → module/provider registry clients, with caches.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliConfigFile, readCliConfigFiles } from './cliconfig/read';
import { CliSettings, cliSettingsFrom } from './cliconfig/settings';
import { ModuleAddress } from './addresses/module-source';
import { builtInProviderError, isBuiltInProvider, ProviderAddress } from './addresses/provider-source';
import { CredentialStore } from './credentials';
import { CachedLookup, Discovery, DiscoveryResult, forcedDiscovery } from './discovery';
import { isDownloadLocation, isModuleVersionList, isProviderVersionList } from './discovery/shapes';
import { proxySettings } from './net/dispatcher';
import { RegistryError } from './net/errors';
import { HttpClient } from './net/http';
import { OciClient, OciCredentials, parseRepositoryTemplate } from './oci';
import { safeText } from './net/http-errors';
import { extraCaCertificates } from './net/dispatcher';
import { GitRefList, GitRefLookup } from './git/lookup';
import { resolveGitRef, ResolvedGitRef } from './git/refs';
import { DownloadLocation, fetchModuleLocation, fetchModuleVersions, toModuleAddress, VersionList } from './registry/modules';
import { fetchProviderPackage, fetchProviderVersions, ProviderPackageMeta, ProviderVersionList, toProviderAddress } from './registry/providers';
import { listViaInstallationMethods, VersionSource } from './registry/installation';

export type { DiscoveryResult } from './discovery';
export type { VersionList, DownloadLocation } from './registry/modules';
export type { ProviderVersionList, ProviderPackageMeta, ProviderVersion } from './registry/providers';
export type { ModuleAddress, ModuleSource } from './addresses/module-source';
export type { ProviderAddress } from './addresses/provider-source';
export type { VersionSource } from './registry/installation';
export { describeSource } from './registry/installation';
export { RegistryError } from './net/errors';
export { HttpClient } from './net/http';

export type LogEntry = { level: 'debug' | 'info' | 'warn' | 'error'; message: string };

export interface EngineOptions {
  /** For TF_TOKEN_*, TF_CLI_CONFIG_FILE, HOME, proxies, NODE_EXTRA_CA_CERTS (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** On-disk discovery/version cache; none = memory only. */
  cacheDir?: string;
  /** Default 1 h. */
  cacheTtlMs?: number;
  /** How long failures are remembered; default min(30 s, cacheTtlMs). */
  failureTtlMs?: number;
  /** Per request, default 15 s. */
  timeoutMs?: number;
  /** Extra PEM files to trust. */
  caFiles?: string[];
  /** Overrides HTTPS_PROXY. */
  proxy?: string;
  /** Hosts that bypass the proxy (NO_PROXY syntax, comma-separated), added to NO_PROXY. */
  noProxy?: string;
  /** Like TF_CLI_CONFIG_FILE. */
  cliConfigFile?: string;
  /**
   * Called once, when the CLI configuration is first read, if a file of it cannot be read or does
   * not parse: tofu's "There are some problems with the CLI configuration: Error parsing FILE: …"
   * (also logged as a warning). The CLI prints it on stderr, the editors show it once.
   */
  onCliConfigProblem?: (message: string) => void;
  /** False → the CLI configuration's credentials_helper is never run (untrusted workspace). Default: allowed. */
  allowCredentialsHelper?: () => boolean;
  /** How long a credentials helper may take (default 10 s). */
  credentialsHelperTimeoutMs?: number;
  userAgent?: string;
  /** Never receives tokens: messages pass through safeText (URL secrets, credentials sent in the run, control characters). */
  log?: (entry: LogEntry) => void;
  /** false → every network call rejects with code 'network-disabled' without sending. */
  networkAllowed?: () => boolean;
  /** Attempts on 429/502/503/504 (default 3) and the longest Retry-After honoured (default 10 s). */
  maxAttempts?: number;
  maxRetryDelayMs?: number;
  /** How long an OCI registry that refused the credentials is not asked again (default: the engine's life). */
  ociRefusedCredentialsTtlMs?: number;
  /** Entries read per directory of a filesystem mirror (default 100,000); a listing cut there carries `warnings`. */
  maxFsMirrorEntries?: number;
  /**
   * Called once per engine for each warning a provider version list carries (a filesystem mirror
   * directory holding more entries than were read: the list may be incomplete), cached answers
   * included; also logged as a warning. The CLI prints a list's `warnings` itself; the editors show
   * them once, as they show onCliConfigProblem's.
   */
  onListWarning?: (message: string) => void;
  /** GIT_ALLOW_PROTOCOL of the ref lookup's `git ls-remote` (default "https:http:ssh:git"). */
  gitProtocols?: string;
}

/**
 * `signal`: the caller stops waiting when it aborts (AbortError); the shared request is aborted
 * when every caller waiting on it has (see CachedLookup.get).
 */
export interface Cancellable { signal?: AbortSignal }

/** A provider address that can be asked of a registry: built-in providers (terraform.io/builtin/…) never can. */
function registryProvider(address: ProviderAddress | string): ProviderAddress {
  const p = toProviderAddress(address);
  if (isBuiltInProvider(p)) throw builtInProviderError(p);
  return p;
}

export class Engine {
  readonly http: HttpClient;
  readonly credentials: CredentialStore;
  /** OCI registry credentials (oci_credentials blocks, Docker-style files, docker-credential helpers). */
  readonly ociCredentials: OciCredentials;
  private ociClient?: OciClient;
  private readonly discovery: Discovery;
  private readonly moduleVersions: CachedLookup<Omit<VersionList, 'cached'>>;
  private readonly moduleLocations: CachedLookup<DownloadLocation>;
  private readonly providerVersions: CachedLookup<Omit<ProviderVersionList, 'cached'> & { sources?: VersionSource[] }>;
  private readonly gitRefs: GitRefLookup;
  private gitCas?: string[];
  private settings?: CliSettings;
  private cliFiles?: CliConfigFile[];
  private trust?: string;
  private readonly contexts = new Map<string, string>();
  private readonly log?: (entry: LogEntry) => void;

  constructor(readonly options: EngineOptions = {}) {
    const env = options.env ?? process.env;
    const ttlMs = options.cacheTtlMs ?? 60 * 60 * 1000;
    const log = options.log;
    this.log = log && ((e) => log({ ...e, message: safeText(e.message) }));
    this.credentials = new CredentialStore({
      env, cliConfigFile: options.cliConfigFile, log: this.log, cliConfig: () => this.cliConfig(),
      allowCredentialsHelper: options.allowCredentialsHelper, helperTimeoutMs: options.credentialsHelperTimeoutMs,
    });
    this.ociCredentials = new OciCredentials({
      env, cliConfig: () => this.cliConfig(), log: this.log,
      allowHelpers: options.allowCredentialsHelper, helperTimeoutMs: options.credentialsHelperTimeoutMs,
    });
    this.http = new HttpClient({
      env, caFiles: options.caFiles, proxy: options.proxy, noProxy: options.noProxy, timeoutMs: options.timeoutMs,
      userAgent: options.userAgent, log: this.log, networkAllowed: options.networkAllowed,
      maxAttempts: options.maxAttempts, maxRetryDelayMs: options.maxRetryDelayMs,
      credentials: (url) => this.credentials.tokenFor(url.host),
      authHint: (host, sent) => this.credentials.authHint(host, sent),
    });
    const dir = (sub: string) => (options.cacheDir ? join(options.cacheDir, sub) : undefined);
    this.discovery = new Discovery(this.http, {
      cacheDir: options.cacheDir, ttlMs, failureTtlMs: options.failureTtlMs,
      cacheKey: (host) => `${host}|${this.answerContext([host])}`,
      forced: (host) => {
        const h = this.cliSettings().hosts.get(host);
        return h && forcedDiscovery(host, h.services, pathToFileURL(h.file).href);
      },
    });
    this.moduleVersions = new CachedLookup({ diskDir: dir('module-versions'), ttlMs, failureTtlMs: options.failureTtlMs, validate: isModuleVersionList });
    // A version's download location, like its version list: per (module, version) and answer context, same TTL.
    this.moduleLocations = new CachedLookup({ diskDir: dir('module-locations'), ttlMs, failureTtlMs: options.failureTtlMs, validate: isDownloadLocation });
    this.providerVersions = new CachedLookup({ diskDir: dir('provider-versions'), ttlMs, failureTtlMs: options.failureTtlMs, validate: isProviderVersionList });
    // The refs of git remotes: one `git ls-remote` per remote and TTL, like a version list.
    this.gitRefs = new GitRefLookup({
      cacheDir: dir('git-refs'), ttlMs, failureTtlMs: options.failureTtlMs, timeoutMs: options.timeoutMs ?? 15_000,
      protocols: options.gitProtocols, proxy: options.proxy, noProxy: options.noProxy, env, networkAllowed: options.networkAllowed,
      caCertificates: () => (this.gitCas ??= extraCaCertificates(env, options.caFiles ?? [])),
      context: (host) => this.answerContext([host]),
    });
  }

  /** The CLI configuration files as read (once; clearCache() reads them again): credentials and settings share them. */
  cliConfig(): CliConfigFile[] {
    this.cliFiles ??= readCliConfigFiles(this.credentials.configFiles(), (message) => {
      this.log?.({ level: 'warn', message });
      this.options.onCliConfigProblem?.(safeText(message));
    });
    return this.cliFiles;
  }

  /** The `host` and `provider_installation` parts of the CLI configuration. */
  cliSettings(): CliSettings {
    this.settings ??= cliSettingsFrom(this.cliConfig(), (message) => this.log?.({ level: 'warn', message }));
    return this.settings;
  }

  /**
   * What, besides the request, decides an answer from `hosts`: the CAs trusted (file contents), the
   * proxy, where each host's credentials come from (never the token) and its CLI configuration
   * `host` block. Part of every cache key, so that changing any of them never serves an answer
   * obtained under other settings — another trust, another identity, another services URL.
   */
  answerContext(hosts: string[]): string {
    const memo = hosts.join(' ');
    let ctx = this.contexts.get(memo); // (on the editor's hot path: peekModuleVersions)
    if (ctx === undefined) {
      this.trust ??= trustFingerprint(this.options);
      const perHost = hosts.map((h) => [h, this.credentials.sourceKey(h), this.cliSettings().hosts.get(h)?.services ?? null]);
      ctx = createHash('sha256').update(JSON.stringify([this.trust, perHost])).digest('hex').slice(0, 16);
      this.contexts.set(memo, ctx);
    }
    return ctx;
  }

  /**
   * Service discovery for a host ("host[:port]", Unicode or punycode). Cached, single-flight.
   * A `host` block in the CLI configuration answers instead of the network (source 'cli-config').
   */
  discoverServices(host: string, opts: Cancellable = {}): Promise<DiscoveryResult> {
    return this.discovery.discover(host, opts.signal);
  }

  /** Versions of a registry module (newest first, as the registry wrote them). Cached, single-flight. */
  async listModuleVersions(address: ModuleAddress | string, opts: Cancellable = {}): Promise<VersionList> {
    const a = toModuleAddress(address);
    const { value, cached } = await this.moduleVersions.get(this.moduleKey(a), async (signal) => {
      const base = await this.discovery.serviceUrl(a.host, 'modules.v1', 'module registry', signal);
      return fetchModuleVersions(this.http, base, a, signal);
    }, opts.signal);
    return { ...value, cached };
  }

  /** Synchronous memory-cache peek (no network): for hovers/completion that must not wait. */
  peekModuleVersions(address: ModuleAddress | string): VersionList | undefined {
    const v = this.moduleVersions.peek(this.moduleKey(toModuleAddress(address)));
    return v && { ...v, cached: true };
  }

  /**
   * Where a module version's source lives (absolute go-getter location). Cached like version lists
   * (memory and disk, single-flight, per module, version and answer context).
   */
  async resolveDownloadLocation(address: ModuleAddress | string, version: string, opts: Cancellable = {}): Promise<DownloadLocation> {
    const a = toModuleAddress(address);
    const { value } = await this.moduleLocations.get(`${a.fullAddress}@${version}|${this.answerContext([a.host])}`, async (signal) => {
      const base = await this.discovery.serviceUrl(a.host, 'modules.v1', 'module registry', signal);
      return fetchModuleLocation(this.http, base, a, version, signal);
    }, opts.signal);
    return value;
  }

  /** Forgets a cached download location (memory and disk): one that led to a failed download may have expired. */
  async forgetDownloadLocation(address: ModuleAddress | string, version: string): Promise<void> {
    const a = toModuleAddress(address);
    await this.moduleLocations.invalidate(`${a.fullAddress}@${version}|${this.answerContext([a.host])}`);
  }

  /**
   * Versions of a provider as `tofu init` would find them: through the CLI configuration's
   * provider_installation methods when there is such a block (`sources` then says which methods
   * answered), else from the origin registry. Cached, single-flight.
   */
  async listProviderVersions(address: ProviderAddress | string, opts: Cancellable = {}): Promise<ProviderVersionList & { sources?: VersionSource[] }> {
    const p = registryProvider(address);
    const inst = this.cliSettings().installation;
    if (!inst) return this.listOriginProviderVersions(p, opts);
    // The key covers the methods, so an edited configuration never reads an old disk entry, and the
    // hosts asked (mirrors and the origin registry).
    const mirrorHosts = inst.methods.filter((m) => m.kind === 'network_mirror').map((m) => hostOf(m.location));
    // an OCI mirror's answer depends on the credentials chosen for its repository (never the secret)
    const ociSources = inst.methods.filter((m) => m.kind === 'oci_mirror').map((m) => {
      try { return this.ociCredentials.sourceKey(parseRepositoryTemplate(m.location).render(p)); } catch { return 'invalid'; }
    });
    const key = `installation:${createHash('sha256').update(JSON.stringify([inst, ociSources])).digest('hex').slice(0, 16)}:${p.address}|${this.answerContext([p.host, ...mirrorHosts])}`;
    const { value, cached } = await this.providerVersions.get(key, (signal) => listViaInstallationMethods(inst.methods, inst.file, p, {
      http: this.http, oci: this.oci, timeoutMs: this.options.timeoutMs, log: this.options.log, signal, maxFsMirrorEntries: this.options.maxFsMirrorEntries,
      direct: (q, s) => this.listOriginProviderVersions(q, { signal: s }),
    }), opts.signal);
    for (const w of value.warnings ?? []) this.listWarning(w);
    return { ...value, cached };
  }

  /** Warnings of version lists said once per engine (onListWarning, the log): the lists are asked for on every keystroke. */
  private readonly listWarningsSaid = new Set<string>();
  private listWarning(message: string): void {
    if (this.listWarningsSaid.has(message)) return;
    this.listWarningsSaid.add(message);
    this.log?.({ level: 'warn', message });
    this.options.onListWarning?.(safeText(message));
  }

  /** Versions from the provider's origin registry only (what the mirror command copies from). */
  async listOriginProviderVersions(address: ProviderAddress | string, opts: Cancellable = {}): Promise<ProviderVersionList> {
    const p = registryProvider(address);
    const { value, cached } = await this.providerVersions.get(`${p.address}|${this.answerContext([p.host])}`, async (signal) => {
      const base = await this.discovery.serviceUrl(p.host, 'providers.v1', 'provider registry', signal);
      return fetchProviderVersions(this.http, base, p, signal);
    }, opts.signal);
    return { ...value, cached };
  }

  /** One platform's download answer (not cached: callers keep what they need). `signal` aborts its requests. */
  async getProviderPackage(address: ProviderAddress | string, version: string, os: string, arch: string, opts: Cancellable = {}): Promise<ProviderPackageMeta> {
    const p = registryProvider(address);
    const base = await this.discovery.serviceUrl(p.host, 'providers.v1', 'provider registry', opts.signal);
    return fetchProviderPackage(this.http, base, p, version, os, arch, opts.signal);
  }

  /**
   * The refs of a git remote (`remote` as parseGitModuleSource gives it): one `git ls-remote`, run
   * as tofu init runs git (the user's credential helpers and SSH agent, never a prompt, never a
   * TF_TOKEN_*). Cached like version lists (memory + disk, TTL, single-flight, answer context);
   * offline, only cached answers.
   */
  listGitRefs(remote: string, opts: Cancellable = {}): Promise<GitRefList> {
    return this.gitRefs.list(remote, opts.signal);
  }

  /**
   * What a git source's `?ref=` selects on its remote now — the commit `tofu init` would check out:
   * the remote's refs (listGitRefs) read by resolveGitRef (a tag, annotated ones peeled; a branch;
   * the default branch when the source names no ref; a commit id as written, or its full id when
   * a branch or tag points at it). `resolved` is undefined when the remote has no such ref (or no
   * HEAD). `resolve` and `outdated` for a git source and the SBOM's commit of a package not cloned.
   */
  async resolveGitSource(src: { remote: string; ref?: string }, opts: Cancellable = {}): Promise<{ refs: GitRefList; resolved?: ResolvedGitRef }> {
    const refs = await this.listGitRefs(src.remote, opts);
    const resolved = resolveGitRef(refs, src.ref);
    return resolved ? { refs, resolved } : { refs };
  }

  /** Synchronous memory peek of a remote's refs (no process started). */
  peekGitRefs(remote: string): GitRefList | undefined {
    return this.gitRefs.peek(remote);
  }

  /** How many `git ls-remote` runs this engine started (each one contacts a remote). */
  get gitRefContacts(): number {
    return this.gitRefs.contacts;
  }

  /** Forget discovery and version answers (memory and disk) and re-read credentials. */
  async clearCache(): Promise<void> {
    this.credentials.reload();
    this.ociCredentials.reload();
    this.ociClient?.forgetVerdicts(); // credentials read again: a registry that refused them is asked again
    this.settings = undefined;
    this.cliFiles = undefined;
    this.trust = undefined;
    this.contexts.clear();
    this.gitCas = undefined;
    await Promise.all([this.gitRefs.clear(), this.discovery.clear(), this.moduleVersions.clear(), this.moduleLocations.clear(), this.providerVersions.clear()]);
  }

  /** The engine's OCI Distribution client (same CA files, proxy, timeouts, log and network switch as `http`), made on first use. */
  get oci(): OciClient {
    this.ociClient ??= new OciClient({
      env: this.options.env ?? process.env, caFiles: this.options.caFiles, proxy: this.options.proxy, noProxy: this.options.noProxy, timeoutMs: this.options.timeoutMs,
      userAgent: this.options.userAgent, log: this.log, networkAllowed: this.options.networkAllowed, credentials: this.ociCredentials,
      maxAttempts: this.options.maxAttempts, maxRetryDelayMs: this.options.maxRetryDelayMs,
      refusedCredentialsTtlMs: this.options.ociRefusedCredentialsTtlMs,
    });
    return this.ociClient;
  }

  async dispose(): Promise<void> {
    await Promise.all([this.http.dispose(), this.ociClient?.dispose()]);
  }

  private moduleKey(a: ModuleAddress): string {
    return `${a.fullAddress}|${this.answerContext([a.host])}`;
  }
}

/** The CAs (by content: a file rewritten in place counts) and the proxy settings, hashed. */
function trustFingerprint(o: EngineOptions): string {
  const env = o.env ?? process.env;
  const cas = [...(o.caFiles ?? []), ...(env.NODE_EXTRA_CA_CERTS ? [env.NODE_EXTRA_CA_CERTS] : [])].map((f) => {
    try { return createHash('sha256').update(readFileSync(f)).digest('hex'); } catch { return `unreadable ${f}`; }
  });
  const proxy = proxySettings(env, o.proxy, o.noProxy);
  return createHash('sha256').update(JSON.stringify([cas, proxy.httpsProxy ?? null, proxy.noProxy ?? null])).digest('hex');
}

function hostOf(url: string): string {
  try { return new URL(url).host; } catch { return url; }
}

export function isNetworkDisabled(err: unknown): boolean {
  return err instanceof RegistryError && err.code === 'network-disabled';
}
