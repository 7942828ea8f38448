// Remote service discovery: GET https://HOST/.well-known/terraform.json (redirects bounded by the
// HTTP layer), status 200, JSON media type, a JSON object (≤ 1 MiB). 404 → the host offers no
// services. Service URLs resolve against the final discovery URL; modules.v1 gets a trailing "/".
// Layer: protocols (docs/architecture.md: it imports only the folders listed below it there).
import { hostnameToASCII, normalizeHostname } from '../addresses/hostname';
import { RegistryError, isRegistryError } from '../net/errors';
import { HttpClient, MiB } from '../net/http';
import { CachedLookup } from './cache';
import { isDiscoveryValue } from './shapes';
import { shownUrl } from '../net/http-errors';

export { CachedLookup } from './cache';

export interface DiscoveryResult {
  /** Normalised host ("host[:port]"). */
  host: string;
  discoveryUrl: string;
  /** The discovery URL after redirects. */
  finalUrl: string;
  /** Service id → absolute base URL. */
  services: Record<string, string>;
  /**
   * Services whose value is not a base URL (e.g. `login.v1`'s object), as announced; absent when
   * there are none. Kept so that a `host` block replacing this discovery can carry them on.
   */
  objectServices?: Record<string, unknown>;
  cached: boolean;
  /**
   * 'cli-config': the services come from a `host` block of the CLI configuration (no request was
   * made; discoveryUrl and finalUrl are then the file:// URL of that configuration file).
   * Absent: network discovery.
   */
  source?: 'cli-config';
}

export const DISCOVERY_MAX_BYTES = MiB;

export function discoveryUrlFor(host: string): string {
  return `https://${hostnameToASCII(normalizeHostname(host))}/.well-known/terraform.json`;
}

/** Fetch and interpret one discovery document (no caching). */
export async function fetchDiscovery(http: HttpClient, hostGiven: string, signal?: AbortSignal): Promise<Omit<DiscoveryResult, 'cached'>> {
  const host = normalizeHostname(hostGiven);
  const discoveryUrl = discoveryUrlFor(host);
  let res;
  try {
    res = await http.getJson(discoveryUrl, { maxBytes: DISCOVERY_MAX_BYTES, auth: true, signal });
  } catch (err) {
    if (isRegistryError(err, 'not-found')) {
      throw new RegistryError('no-services', `${host} does not offer any OpenTofu services (404 Not Found for ${err.url ?? discoveryUrl})`, { host, url: err.url ?? discoveryUrl, status: 404 });
    }
    if (err instanceof RegistryError) {
      const msg = err.message.startsWith(`service discovery`) ? err.message : `service discovery for ${host} failed: ${err.message}`;
      throw new RegistryError(err.code, msg, { host, url: err.url ?? discoveryUrl, status: err.status, cause: err });
    }
    throw err;
  }
  if (res.status !== 200) {
    throw new RegistryError('protocol', `service discovery for ${host} failed: expected status 200, got ${res.status} from ${shownUrl(res.url)}`, { host, url: shownUrl(res.url), status: res.status });
  }
  const doc = res.json;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new RegistryError('protocol', `service discovery for ${host} failed: ${shownUrl(res.url)} is not a JSON object`, { host, url: shownUrl(res.url), status: res.status });
  }
  return { host, discoveryUrl, finalUrl: res.url, ...discovered(doc as Record<string, unknown>, res.url) };
}

/** `services` and (when there are any) `objectServices` of a discovery document. */
function discovered(doc: Record<string, unknown>, base: string): Pick<DiscoveryResult, 'services' | 'objectServices'> {
  const objects = objectServices(doc, base);
  return { services: serviceUrls(doc, base), ...(Object.keys(objects).length ? { objectServices: objects } : {}) };
}

/**
 * Service id → absolute base URL, resolved against `base`; modules.v1 gets a trailing "/".
 * Non-string values (e.g. "login.v1" objects) are not base URLs (objectServices), and invalid URLs are skipped.
 */
function serviceUrls(services: Record<string, unknown>, base: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, raw] of Object.entries(services)) {
    if (typeof raw !== 'string') continue;
    let u: URL;
    try { u = new URL(raw, base); } catch { continue; }
    if (id === 'modules.v1' && !u.pathname.endsWith('/')) u.pathname += '/';
    out[id] = u.href;
  }
  return out;
}

/**
 * The services that are not base URLs (JSON null dropped: it announces nothing). login.v1's
 * `authz` and `token` may be relative to the discovery URL (OpenTofu's disco resolves them
 * against it, after redirects): they are made absolute, so they point at the same place from a
 * host block, which resolves against https://HOST/.well-known/terraform.json.
 */
function objectServices(services: Record<string, unknown>, base: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [id, raw] of Object.entries(services)) {
    if (typeof raw === 'string' || raw === null) continue;
    if (id === 'login.v1' && raw && typeof raw === 'object' && !Array.isArray(raw)) {
      const login: Record<string, unknown> = { ...raw };
      for (const k of ['authz', 'token']) {
        if (typeof login[k] !== 'string') continue;
        try { login[k] = new URL(login[k] as string, base).href; } catch { /* not a URL: left as given */ }
      }
      out[id] = login;
    } else {
      out[id] = raw;
    }
  }
  return out;
}

/**
 * The services of a CLI configuration `host` block, as OpenTofu's disco.ForceHostServices: used
 * verbatim instead of network discovery; relative URLs resolve against the discovery URL the host
 * would have had. Non-string values (e.g. login.v1 objects) are not base URLs: objectServices.
 */
export function forcedDiscovery(host: string, services: Record<string, unknown>, configUrl: string): Omit<DiscoveryResult, 'cached'> {
  return { host, discoveryUrl: configUrl, finalUrl: configUrl, ...discovered(services, discoveryUrlFor(host)), source: 'cli-config' };
}

export interface DiscoveryOptions {
  cacheDir?: string;
  ttlMs: number;
  failureTtlMs?: number;
  /** Services configured for a (normalised) host, which then is never asked over the network. */
  forced?: (host: string) => Omit<DiscoveryResult, 'cached'> | undefined;
  /** The cache key of a (normalised) host's answer (default: the host). */
  cacheKey?: (host: string) => string;
}

/** Cached, single-flight discovery per normalised host. */
export class Discovery {
  private readonly cache: CachedLookup<Omit<DiscoveryResult, 'cached'>>;
  constructor(private readonly http: HttpClient, private readonly opts: DiscoveryOptions) {
    this.cache = new CachedLookup({
      diskDir: opts.cacheDir ? `${opts.cacheDir}/discovery` : undefined,
      ttlMs: opts.ttlMs, failureTtlMs: opts.failureTtlMs, validate: isDiscoveryValue,
    });
  }

  /** `signal`: this caller stops waiting (see CachedLookup.get). */
  async discover(hostGiven: string, signal?: AbortSignal): Promise<DiscoveryResult> {
    let host: string;
    try { host = normalizeHostname(hostGiven); } catch (err) {
      throw err instanceof RegistryError ? new RegistryError('invalid-address', err.message, { host: hostGiven }) : err;
    }
    const forced = this.opts.forced?.(host);
    if (forced) return { ...forced, cached: false };
    const { value, cached } = await this.cache.get(this.opts.cacheKey?.(host) ?? host, (loadSignal) => fetchDiscovery(this.http, host, loadSignal), signal);
    return { ...value, cached };
  }

  /** Base URL of one service, or a RegistryError('no-services') naming what is missing. */
  async serviceUrl(host: string, id: string, what: string, signal?: AbortSignal): Promise<string> {
    const d = await this.discover(host, signal);
    const url = d.services[id];
    if (!url) {
      throw new RegistryError('no-services', `${d.host} does not offer a ${what} (no "${id}" in ${shownUrl(d.finalUrl)})`, { host: d.host, url: shownUrl(d.finalUrl) });
    }
    return url;
  }

  clear(): Promise<void> {
    return this.cache.clear();
  }
}
