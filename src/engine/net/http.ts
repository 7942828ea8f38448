// The one HTTP client of the engine (undici): per-request deadline, header/body timeouts, body
// size caps, bounded redirects (credentials dropped on any host change), retry with backoff on
// 429/502/503/504 honouring Retry-After, proxies and extra CAs (dispatcher.ts). Errors are
// RegistryErrors naming host, URL and cause. Tokens are never logged.
import { Readable, Transform } from 'node:stream';
import { Dispatcher, request } from 'undici';
import { createDispatcher } from './dispatcher';
import { RegistryError } from './errors';
import { translateError, statusError, hostOf, shownUrl } from './http-errors';
import { parseJsonBounded } from './json-depth';
import { rememberSentSecret } from './shown-text';

export const MiB = 1024 * 1024;
/** Default bound on one whole download (archives): 30 minutes. */
export const DOWNLOAD_DEADLINE_MS = 30 * 60 * 1000;

export interface HttpClientOptions {
  env?: NodeJS.ProcessEnv;
  caFiles?: string[];
  proxy?: string;
  /** Extra proxy bypass list (NO_PROXY syntax), added to NO_PROXY. */
  noProxy?: string;
  timeoutMs?: number;
  userAgent?: string;
  maxRedirects?: number;
  /** Attempts on 429/502/503/504 (including the first). */
  maxAttempts?: number;
  /** Longest Retry-After honoured, ms (longer → fail at once). */
  maxRetryDelayMs?: number;
  /** Token for the URL's host ("host[:port]"), or undefined (may run a credentials helper). */
  credentials?: (url: URL) => string | undefined | Promise<string | undefined>;
  /** Appended to 401/403 messages of authenticated requests: where the token sent came from, or why none was. */
  authHint?: (host: string, sent: boolean) => string | undefined;
  log?: (entry: { level: 'debug' | 'info' | 'warn' | 'error'; message: string }) => void;
  networkAllowed?: () => boolean;
}

export interface RequestOptions {
  maxBytes?: number;
  timeoutMs?: number;
  /** Send the token of the request's host (never after a redirect to another host). */
  auth?: boolean;
  signal?: AbortSignal;
  accept?: string;
  /**
   * getJson: read the body as JSON whatever its Content-Type, as tofu reads registry documents
   * (parseRegistryJson). Off: the media type must be JSON (discovery, network mirrors).
   */
  anyContentType?: boolean;
}

export interface HttpResponse<T> {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: T;
}
export interface JsonResponse extends Omit<HttpResponse<unknown>, 'body'> { json: unknown }

type Headers = Record<string, string>;

export class HttpClient {
  readonly timeoutMs: number;
  readonly userAgent: string;
  private dispatcher?: Dispatcher;
  private disposed = false;
  private readonly maxRedirects: number;
  private readonly maxAttempts: number;
  private readonly maxRetryDelayMs: number;

  constructor(private readonly opts: HttpClientOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.userAgent = opts.userAgent ?? `tofu-registry/0.1.0 (node ${process.version})`;
    this.maxRedirects = opts.maxRedirects ?? 5;
    this.maxAttempts = opts.maxAttempts ?? 3;
    this.maxRetryDelayMs = opts.maxRetryDelayMs ?? 10_000;
  }

  private getDispatcher(): Dispatcher {
    // Work still running when its run ended (a cancelled walk's fallback request) must not open a
    // new connection pool: it would keep the process alive until the request timed out.
    if (this.disposed) throw new RegistryError('aborted', 'the registry client was closed: the run has ended');
    this.dispatcher ??= createDispatcher({
      env: this.opts.env ?? process.env, caFiles: this.opts.caFiles ?? [], proxy: this.opts.proxy, noProxy: this.opts.noProxy,
      connectTimeoutMs: this.timeoutMs,
    });
    return this.dispatcher;
  }

  /** GET a JSON document: status 200 (or 2xx), a JSON media type, capped body (default 1 MiB). */
  async getJson(url: string, options: RequestOptions = {}): Promise<JsonResponse> {
    const res = await this.getBuffer(url, { ...options, accept: 'application/json' });
    return { url: res.url, status: res.status, headers: res.headers, json: options.anyContentType ? parseRegistryJson(res) : parseJsonBody(res) };
  }

  /** GET with the body buffered (capped); any 2xx is returned, other statuses throw. */
  async getBuffer(url: string, options: RequestOptions = {}): Promise<HttpResponse<Buffer>> {
    const maxBytes = options.maxBytes ?? MiB;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    return this.withRetry(url, async () => {
      // one deadline per attempt covers connect, headers and the whole body
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      const { res, finalUrl, sentAuth } = await this.send(url, options, signal, timeoutMs);
      try {
        if (res.statusCode < 200 || res.statusCode > 299) {
          await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          const err = statusError(res.statusCode, finalUrl, flatten(res.headers), sentAuth);
          const hint = options.auth && (err.code === 'unauthorized' || err.code === 'forbidden') ? this.opts.authHint?.(new URL(finalUrl).host, sentAuth) : undefined;
          if (hint) err.message += ` (${hint})`;
          throw err;
        }
        const body = await readCapped(res, finalUrl, maxBytes);
        // undici hands a kept-alive connection back to its pool on the next setImmediate after the
        // answer ended; a request the caller sends at once would find it busy and open (and
        // TLS-handshake) a new one. One turn first: it is reused (issue 32: lock's SHA256SUMS).
        await afterConnectionReleased();
        return { url: finalUrl, status: res.statusCode, headers: flatten(res.headers), body };
      } catch (err) {
        discard(res.body);
        throw translateError(err, finalUrl, timeoutMs);
      }
    });
  }

  /**
   * Stream a download (archives, SHA256SUMS …). NEVER sends credentials. Status must be 200.
   * The stream errors with RegistryError('too-large') past maxBytes, and 'timeout' when idle for
   * timeoutMs or when the whole download takes longer than deadlineMs (default 30 min).
   */
  async download(url: string, options: RequestOptions & { maxBytes: number; deadlineMs?: number }): Promise<HttpResponse<Readable>> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // timeoutMs bounds connect, headers and each pause in the body; the deadline bounds the whole
    // download, so a server trickling a byte now and then cannot hold it open forever.
    const deadlineMs = options.deadlineMs ?? DOWNLOAD_DEADLINE_MS;
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const overdue = (err: unknown, at: string) => (deadline.aborted && !options.signal?.aborted
      ? new RegistryError('timeout', `download of ${shownUrl(at)} did not finish within ${formatSeconds(deadlineMs)} (${hostOf(at)} is too slow)`, { host: safeHost(at), url: shownUrl(at), cause: err })
      : translateError(err, at, timeoutMs));
    const { res, finalUrl } = await this.withRetry(url, async () => {
      const r = await this.send(url, { ...options, auth: false }, signal, timeoutMs).catch((err) => { throw overdue(err, url); });
      if (r.res.statusCode !== 200) {
        await r.res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        throw statusError(r.res.statusCode, r.finalUrl, flatten(r.res.headers));
      }
      return r;
    });
    const headers = flatten(res.headers);
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      discard(res.body);
      throw tooLarge(finalUrl, options.maxBytes);
    }
    let seen = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > options.maxBytes) cb(tooLarge(finalUrl, options.maxBytes));
        else cb(null, chunk);
      },
    });
    res.body.on('error', (err) => cap.destroy(overdue(err, finalUrl)));
    cap.on('close', () => { if (!res.body.destroyed) discard(res.body); });
    return { url: finalUrl, status: res.statusCode, headers, body: res.body.pipe(cap) };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const d = this.dispatcher;
    this.dispatcher = undefined;
    if (d) await d.destroy().catch(() => undefined);
  }

  private log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.opts.log?.({ level, message });
  }

  /** One logical request: follows redirects (bounded), re-deciding credentials per hop. */
  private async send(url: string, options: RequestOptions, signal: AbortSignal | undefined, timeoutMs: number):
    Promise<{ res: Dispatcher.ResponseData; finalUrl: string; sentAuth: boolean }> {
    if (this.opts.networkAllowed && !this.opts.networkAllowed()) {
      throw new RegistryError('network-disabled', `network access is disabled (untrusted workspace); not requesting ${shownUrl(url)}`, { host: safeHost(url), url: shownUrl(url) });
    }
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      throw new RegistryError('protocol', `invalid URL ${JSON.stringify(shownUrl(url))}`, { url: shownUrl(url) });
    }
    const origin = current.host;
    const start = shownUrl(url);
    const seen = new Set<string>();
    for (let hop = 0; ; hop++) {
      const shown = shownUrl(current.href);
      if (current.protocol !== 'https:' && current.protocol !== 'http:') {
        throw new RegistryError('protocol', `unsupported URL scheme ${current.protocol} in ${shown}`, { host: current.host, url: shown });
      }
      const headers: Headers = { 'user-agent': this.userAgent, accept: options.accept ?? '*/*' };
      // Credentials only to the host (incl. port) the request started at.
      if (options.auth && current.host === origin && current.protocol === 'https:') {
        const token = await this.opts.credentials?.(current);
        if (token) {
          rememberSentSecret(token); // never printed, even when a server echoes it
          headers.authorization = `Bearer ${token}`;
        }
      }
      seen.add(current.href);
      const started = Date.now();
      let res: Dispatcher.ResponseData;
      try {
        res = await request(current, {
          method: 'GET', headers, signal, dispatcher: this.getDispatcher(),
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
        });
      } catch (err) {
        throw translateError(err, current.href, timeoutMs);
      }
      this.log('debug', `GET ${shown} → ${res.statusCode} (${Date.now() - started} ms)${headers.authorization ? ' [with credentials]' : ''}`);
      if (![301, 302, 303, 307, 308].includes(res.statusCode)) return { res, finalUrl: current.href, sentAuth: !!headers.authorization };
      const location = res.headers.location;
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (typeof location !== 'string' || !location) {
        throw new RegistryError('protocol', `redirect (${res.statusCode}) without a Location header from ${shown}`, { host: current.host, url: shown, status: res.statusCode });
      }
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new RegistryError('protocol', `redirect (${res.statusCode}) from ${shown} to an invalid URL`, { host: current.host, url: shown, status: res.statusCode });
      }
      const nextShown = shownUrl(next.href);
      if (current.protocol === 'https:' && next.protocol !== 'https:') {
        throw new RegistryError('protocol', `refusing to follow a redirect from HTTPS to ${next.protocol.slice(0, -1).toUpperCase()} (${shown} → ${nextShown})`, { host: current.host, url: shown });
      }
      if (seen.has(next.href)) {
        throw new RegistryError('too-many-redirects', `redirect loop at ${nextShown} (starting from ${start})`, { host: next.host, url: nextShown, status: res.statusCode });
      }
      if (hop + 1 > this.maxRedirects) {
        throw new RegistryError('too-many-redirects', `too many redirects (more than ${this.maxRedirects}) starting from ${start}`, { host: next.host, url: nextShown, status: res.statusCode });
      }
      if (next.host !== origin && options.auth) this.log('debug', `redirected to another host (${next.host}); credentials for ${origin} are not sent there`);
      current = next;
    }
  }

  /** Retries 429/502/503/504 with exponential backoff, honouring Retry-After. */
  private async withRetry<T>(url: string, attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof RegistryError) || !err.status || ![429, 502, 503, 504].includes(err.status) || n >= this.maxAttempts) throw err;
        const retryAfter = (err as RegistryError & { retryAfterMs?: number }).retryAfterMs;
        const backoff = Math.min(4_000, 200 * 2 ** (n - 1)) * (0.75 + Math.random() * 0.5);
        const delay = retryAfter ?? backoff;
        if (delay > this.maxRetryDelayMs) throw err;
        this.log('info', `${hostOf(url)} answered ${err.status}; retrying in ${Math.round(delay)} ms (attempt ${n + 1} of ${this.maxAttempts})`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}

/** Resolves after the setImmediate callbacks queued so far, undici's connection release among them. */
function afterConnectionReleased(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Destroy a response body without an unhandled 'error' event. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function flatten(h: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

function tooLarge(rawUrl: string, maxBytes: number): RegistryError {
  const url = shownUrl(rawUrl);
  return new RegistryError('too-large', `response from ${url} is larger than the ${formatBytes(maxBytes)} limit`, { host: safeHost(url), url });
}

function formatSeconds(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function safeHost(url: string): string | undefined {
  try { return new URL(url).host; } catch { return undefined; }
}

async function readCapped(res: Dispatcher.ResponseData, url: string, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(url, maxBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) throw tooLarge(url, maxBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/**
 * A registry document read as tofu reads it: providers.v1 `versions` and `download`
 * (internal/getproviders/registry_client.go) and modules.v1 `versions` (internal/registry/client.go)
 * are decoded without a look at their Content-Type; only the discovery document (svchost's disco.go)
 * and a network mirror's documents (http_mirror_source.go) must be application/json — those use
 * parseJsonBody. A static web server or bucket sends the extension-less `versions` and
 * `download/OS/ARCH` files with no type, application/octet-stream or text/plain: read as JSON. A
 * type that declares something else (text/html: a proxy's login page) is still refused, naming it
 * (stricter than tofu there, on purpose: such an answer is not the registry's).
 */
export function parseRegistryJson(res: HttpResponse<Buffer>): unknown {
  const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return parseJsonBody(UNTYPED.has(type) ? { ...res, headers: { ...res.headers, 'content-type': 'application/json' } } : res);
}

/** What static servers send for files without a known extension. */
const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'text/plain']);

/** Media type must be JSON; body must parse. */
export function parseJsonBody(res: HttpResponse<Buffer>): unknown {
  const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const host = safeHost(res.url);
  const url = shownUrl(res.url);
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
    throw new RegistryError('protocol', `unexpected response from ${url}: expected application/json, got ${type || 'no content type'}`, { host, url, status: res.status });
  }
  try {
    return parseJsonBounded(res.body.toString('utf8'));
  } catch (err) {
    throw new RegistryError('protocol', `invalid JSON from ${url}: ${(err as Error).message}`, { host, url, status: res.status });
  }
}
