// The request machinery of the OCI client (client.ts holds the API): one logical request with auth
// (a 401's challenge picks Basic or the token flow, auth.ts; credentials looked up only then and
// sent only to the registry's host, never after a redirect), redirects followed for GET/HEAD,
// retries with backoff on 429/5xx for idempotent requests only, capped reads, and errors that
// name the registry, the repository and the URL.
// The request timeout covers connect, headers and the whole body of a read; what a run learns
// about each registry (credentials refused, no answer in time) is kept in verdicts.ts, so that a
// bad registry costs a run once. Every credential value sent is remembered (net/shown-text.ts):
// never printed, even when a server echoes it.
import type { Readable } from 'node:stream';
import { Dispatcher, request } from 'undici';
import { createDispatcher } from '../net/dispatcher';
import { RegistryError, RegistryErrorCode } from '../net/errors';
import { parseRetryAfter, shortText, shownUrl, translateError } from '../net/http-errors';
import { parseJsonBounded } from '../net/json-depth';
import { fetchToken, mergeScopes, parseChallenge, TokenCache } from './auth';
import type { OciCredentialAnswer, OciCredentials } from './credentials';
import { rememberSentSecret } from '../net/shown-text';
import { RegistryVerdicts, Turn, VerdictCall } from './verdicts';
import { basic, discard, drain, flatten, MAX_ERROR_BODY, readText, sleep } from './wire';

export { discard, drain, flatten, MAX_ERROR_BODY, pull, push } from './wire';
import { OciRepository, repositoryName } from '../addresses/oci-reference';

export interface OciClientOptions {
  env?: NodeJS.ProcessEnv;
  caFiles?: string[];
  proxy?: string;
  /** Extra proxy bypass list (NO_PROXY syntax). */
  noProxy?: string;
  /** Connect, headers and each pause of a body (default 15 s). */
  timeoutMs?: number;
  /** Whole blob upload or download (default 30 min). */
  transferDeadlineMs?: number;
  /** Slowest average blob download (64 KiB/s): N bytes may take the timeout + N at this rate, ≤ transferDeadlineMs. */
  minBlobBytesPerSecond?: number;
  userAgent?: string;
  credentials?: OciCredentials;
  /** Attempts for idempotent requests on 429/502/503/504 (including the first; default 3). */
  maxAttempts?: number;
  /** Longest Retry-After honoured, ms (default 10 s). */
  maxRetryDelayMs?: number;
  /** Blobs above this size are uploaded in PATCH chunks of it (default 32 MiB). */
  chunkSize?: number;
  log?: (entry: { level: 'debug' | 'info' | 'warn' | 'error'; message: string }) => void;
  networkAllowed?: () => boolean;
  /** How long a registry that refused the credentials is not asked again (default: the client's life, a CLI run). */
  refusedCredentialsTtlMs?: number;
}

export type Method = 'GET' | 'HEAD' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

export interface Call {
  method: Method;
  repo: OciRepository;
  url: string;
  /** Token scopes the request needs, e.g. "repository:a/b:pull". */
  scopes: string[];
  headers?: Record<string, string>;
  /** A function so that a retry (after a 401 or a 5xx) can send the body again. */
  body?: () => Buffer | Readable;
  idempotent: boolean;
  /** What the request does, for messages ("read the tags of", "upload a blob to"). */
  action: string;
  signal?: AbortSignal;
  /** Header timeout for this request (uploads wait for the registry to store the body). */
  timeoutMs?: number;
  deadlineMs?: number;
}

export interface Answer {
  res: Dispatcher.ResponseData;
  url: string;
  headers: Record<string, string>;
}

const RETRY_STATUSES = [429, 502, 503, 504];

export class OciTransport {
  readonly timeoutMs: number;
  protected readonly userAgent: string;
  private dispatcher?: Dispatcher;
  private disposed = false;
  private readonly tokens = new TokenCache();
  /** The scheme each registry challenged with, once known: requests carry credentials from then on. */
  private readonly schemes = new Map<string, { scheme: 'basic' } | { scheme: 'bearer'; realm: string; service?: string }>();
  private readonly answers = new Map<string, Promise<OciCredentialAnswer | undefined>>();
  private readonly pendingTokens = new Map<string, Promise<string>>();
  private readonly verdicts: RegistryVerdicts;

  constructor(protected readonly opts: OciClientOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.userAgent = opts.userAgent ?? `tofu-registry/0.1.0 (node ${process.version})`;
    this.verdicts = new RegistryVerdicts({ refusedCredentialsTtlMs: opts.refusedCredentialsTtlMs, log: (m, level) => this.log(level, m) });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const d = this.dispatcher;
    this.dispatcher = undefined;
    if (d) await d.destroy().catch(() => undefined);
  }

  protected base(repo: OciRepository): string {
    return `https://${repo.registry}/v2/${repo.repository}`;
  }

  protected getDispatcher(): Dispatcher {
    if (this.disposed) throw new RegistryError('aborted', 'the OCI registry client was closed: the run has ended');
    this.dispatcher ??= createDispatcher({ env: this.opts.env ?? process.env, caFiles: this.opts.caFiles ?? [], proxy: this.opts.proxy, noProxy: this.opts.noProxy, connectTimeoutMs: this.timeoutMs });
    return this.dispatcher;
  }

  /** Forgets the registries' verdicts (credentials refused, no answer in time): the credentials were read again. */
  forgetVerdicts(): void {
    this.verdicts.forget();
  }

  /** The refusal that ended requests to a registry in this run, if one did. */
  refusalOf(registry: string): RegistryError | undefined {
    return this.verdicts.refusalOf(registry);
  }

  protected log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.opts.log?.({ level, message });
  }

  protected credentialsFor(repo: OciRepository): Promise<OciCredentialAnswer | undefined> {
    const key = repositoryName(repo);
    let a = this.answers.get(key);
    if (!a) {
      a = this.opts.credentials?.lookup(repo) ?? Promise.resolve(undefined);
      this.answers.set(key, a);
    }
    return a;
  }

  protected tokenKey(repo: OciRepository, scopes: string[]): string {
    return `${repo.registry} ${mergeScopes(scopes).join(' ')}`;
  }

  /** The Authorization header for a request, from what the registry asked for before (nothing before its first 401). */
  protected async authorization(c: Call): Promise<string | undefined> {
    const s = this.schemes.get(c.repo.registry);
    if (!s) return undefined;
    if (s.scheme === 'bearer') return this.bearer(c, s.realm, s.service, []);
    const cred = (await this.credentialsFor(c.repo))?.credential;
    return cred?.username !== undefined && cred.password !== undefined ? basic(cred.username, cred.password) : undefined;
  }

  /** A token for the call's scopes: cached, or one request to the realm shared by concurrent calls. */
  protected bearer(c: Call, realm: string, service: string | undefined, extraScopes: string[]): Promise<string> {
    const key = this.tokenKey(c.repo, c.scopes);
    const cached = this.tokens.get(key);
    if (cached) return Promise.resolve(`Bearer ${cached}`);
    let pending = this.pendingTokens.get(key);
    if (!pending) {
      pending = (async () => {
        const answer = await this.credentialsFor(c.repo);
        const { token, lifetimeMs } = await fetchToken({
          realm, service, scopes: mergeScopes([...c.scopes, ...extraScopes]), credential: answer?.credential, source: answer?.source,
          dispatcher: this.getDispatcher(), userAgent: this.userAgent, timeoutMs: this.timeoutMs, signal: c.signal, what: repositoryName(c.repo),
        }).catch((err: unknown) => { throw this.withWhere(err, answer); });
        rememberSentSecret(token);
        this.tokens.set(key, token, lifetimeMs);
        return `Bearer ${token}`;
      })().finally(() => this.pendingTokens.delete(key));
      this.pendingTokens.set(key, pending);
    }
    return pending;
  }

  /** Answers a 401's challenge: a token for the scopes, or Basic credentials. */
  protected async authenticate(c: Call, challengeHeader: string | undefined, url: string): Promise<string> {
    const ch = parseChallenge(challengeHeader);
    if (ch?.scheme === 'bearer' && ch.params.realm) {
      this.schemes.set(c.repo.registry, { scheme: 'bearer', realm: ch.params.realm, service: ch.params.service });
      return this.bearer(c, ch.params.realm, ch.params.service, ch.params.scope ? [ch.params.scope] : []);
    }
    const answer = await this.credentialsFor(c.repo);
    if (ch?.scheme === 'basic') {
      this.schemes.set(c.repo.registry, { scheme: 'basic' });
      const cred = answer?.credential;
      if (cred?.username !== undefined && cred.password !== undefined) return basic(cred.username, cred.password);
      throw this.needsCredentials(c, url, answer, cred ? `${answer!.source} holds a token, but ${c.repo.registry} asks for a username and password (Basic)` : undefined);
    }
    throw this.needsCredentials(c, url, answer, `${c.repo.registry} answered 401 with no challenge this client knows (${shortText(challengeHeader ?? 'no WWW-Authenticate header', 200)})`);
  }

  protected needsCredentials(c: Call, url: string, answer: OciCredentialAnswer | undefined, detail?: string): RegistryError {
    const shown = shownUrl(url);
    const why = detail ?? (answer?.error ? `${answer.source} gave none: ${answer.error}` : `no credentials were found for it; looked in: ${this.searched()}`);
    return new RegistryError('unauthorized', `${c.repo.registry} requires authentication to ${c.action} ${repositoryName(c.repo)} (401 Unauthorized at ${shown}); ${why}`, { host: c.repo.registry, url: shown, status: 401 });
  }

  protected searched(): string {
    const where = this.opts.credentials?.searched() ?? [];
    return where.length ? where.join('; ') : 'no credential sources are configured';
  }

  protected withWhere(err: unknown, answer: OciCredentialAnswer | undefined): unknown {
    if (err instanceof RegistryError && (err.code === 'unauthorized' || err.code === 'forbidden') && !answer?.credential) {
      err.message += answer?.error ? `; ${answer.source} gave none: ${answer.error}` : `; looked for credentials in: ${this.searched()}`;
    }
    return err;
  }

  /** One logical request: auth (one retry after a 401), redirects for GET/HEAD, retries for idempotent ones (once after a timeout). */
  protected call(c: Call): Promise<Answer> {
    return this.verdicts.withTimeoutRetry(this.about(c), () => this.callOnce(c));
  }

  /** A request and the read of its answer, tried again once together when either timed out (idempotent requests). */
  protected callAndRead<T>(c: Call, read: (a: Answer) => Promise<T>): Promise<T> {
    return this.verdicts.withTimeoutRetry(this.about(c), async () => read(await this.callOnce(c)));
  }

  private about(c: Call): VerdictCall {
    return { registry: c.repo.registry, what: `${c.action} ${repositoryName(c.repo)}`, method: c.method, idempotent: c.idempotent,
      timeoutMs: c.timeoutMs ?? this.timeoutMs, signal: c.signal };
  }

  private async callOnce(c: Call): Promise<Answer> {
    if (this.opts.networkAllowed && !this.opts.networkAllowed()) {
      throw new RegistryError('network-disabled', `network access is disabled (untrusted workspace); not requesting ${shownUrl(c.url)}`, { host: c.repo.registry, url: shownUrl(c.url) });
    }
    this.verdicts.throwIfRefused(this.about(c));
    const turn: Turn = {};
    try {
      return await this.callWithTurn(c, turn);
    } finally {
      turn.release?.();
    }
  }


  private async callWithTurn(c: Call, turn: Turn): Promise<Answer> {
    const maxAttempts = c.idempotent ? (this.opts.maxAttempts ?? 3) : 1;
    let offered = false;
    let authorization: string | undefined;
    const about = this.about(c);
    if (this.schemes.has(c.repo.registry)) {
      offered = !!(await this.credentialsFor(c.repo))?.credential;
      if (offered) await this.verdicts.credentialTurn(about, turn);
      authorization = await this.authorization(c).catch((err: unknown) => { throw this.verdicts.noteRefusal(about, err, offered); });
    }
    let authTried = false;
    for (let attempt = 1; ; attempt++) {
      const a = await this.send(c, authorization);
      const status = a.res.statusCode;
      if (status === 401 && !authTried && a.sentTo === c.repo.registry) {
        authTried = true;
        const challenge = a.headers['www-authenticate'];
        await drain(a.res);
        if (authorization) {
          // a cached token that no longer works: drop it and ask again once
          this.tokens.delete(this.tokenKey(c.repo, c.scopes));
        }
        offered = !!(await this.credentialsFor(c.repo))?.credential;
        if (offered) await this.verdicts.credentialTurn(about, turn);
        authorization = await this.authenticate(c, challenge, a.url).catch((err: unknown) => { throw this.verdicts.noteRefusal(about, err, offered); });
        attempt--; // the auth round trip is not a failed attempt
        continue;
      }
      if (status === 401 || status === 403) {
        await drain(a.res);
        throw this.verdicts.noteRefusal(about, await this.refused(c, a, !!authorization), offered && !!authorization);
      }
      if (offered && authorization && a.sentTo === c.repo.registry) this.verdicts.accepted(c.repo.registry);
      if (RETRY_STATUSES.includes(status) && attempt < maxAttempts) {
        const retryAfter = parseRetryAfter(a.headers['retry-after']);
        const delay = retryAfter ?? Math.min(4_000, 200 * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
        if (delay <= (this.opts.maxRetryDelayMs ?? 10_000)) {
          await drain(a.res);
          this.log('info', `${c.repo.registry} answered ${status}; retrying in ${Math.round(delay)} ms (attempt ${attempt + 1} of ${maxAttempts})`);
          await sleep(delay, c.signal);
          continue;
        }
      }
      return a;
    }
  }

  protected async refused(c: Call, a: Answer, sent: boolean): Promise<RegistryError> {
    const shown = shownUrl(a.url);
    const status = a.res.statusCode;
    const name = repositoryName(c.repo);
    const answer = await this.answers.get(name)?.catch(() => undefined);
    const init = { host: c.repo.registry, url: shown, status };
    if (status === 401) {
      if (!answer?.credential) return this.needsCredentials(c, a.url, answer);
      // a helper's answer that was refused is asked for again next time
      if (answer.source.startsWith('docker-credential-')) this.opts.credentials?.forget(c.repo);
      return new RegistryError('unauthorized', `${c.repo.registry} rejected the credentials from ${answer.source} to ${c.action} ${name} (401 Unauthorized at ${shown})`, init);
    }
    const who = answer?.credential ? `the credentials from ${answer.source}` : sent ? 'the anonymous token' : 'an anonymous request';
    const hint = answer?.credential ? '' : `; no credentials were found for it; looked in: ${this.searched()}`;
    return new RegistryError('forbidden', `${c.repo.registry} refused to let ${who} ${c.action} ${name} (403 Forbidden at ${shown})${hint}`, init);
  }

  /** Sends one request; follows redirects of GET/HEAD, credentials only on the registry's own host. */
  protected async send(c: Call, authorization: string | undefined): Promise<Answer & { sentTo?: string }> {
    let current = new URL(c.url);
    // the request timeout covers the whole of a read (connect, headers, body): a registry
    // dripping a byte a second cannot hold it longer; transfers and uploads set their own deadline
    const deadlineMs = c.deadlineMs ?? c.timeoutMs ?? this.timeoutMs;
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = c.signal ? AbortSignal.any([c.signal, deadline]) : deadline;
    const timeoutMs = c.timeoutMs ?? this.timeoutMs;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { 'user-agent': this.userAgent, ...c.headers };
      // never to another host, never after a redirect: a storage URL gets no registry credentials
      const withAuth = hop === 0 && current.host === c.repo.registry && !!authorization;
      if (withAuth) headers.authorization = authorization!;
      let res: Dispatcher.ResponseData;
      const started = Date.now();
      try {
        res = await request(current, {
          method: c.method, headers, body: hop === 0 ? c.body?.() : undefined, dispatcher: this.getDispatcher(), signal,
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
        });
      } catch (err) {
        if (deadline.aborted && !c.signal?.aborted) {
          throw new RegistryError('timeout', `${c.method} ${shownUrl(current.href)} did not finish within ${Math.round(deadlineMs / 1000)} s`, { host: current.host, url: shownUrl(current.href), cause: err });
        }
        throw translateError(err, current.href, timeoutMs);
      }
      this.log('debug', `${c.method} ${shownUrl(current.href)} → ${res.statusCode} (${Date.now() - started} ms)${withAuth ? ' [with credentials]' : ''}`);
      const flat = flatten(res.headers);
      const redirect = [301, 302, 303, 307, 308].includes(res.statusCode) && (c.method === 'GET' || c.method === 'HEAD');
      if (!redirect) return { res, url: current.href, headers: flat, sentTo: hop === 0 ? current.host : undefined };
      await drain(res);
      if (hop >= 5) throw new RegistryError('too-many-redirects', `too many redirects from ${shownUrl(c.url)}`, { host: c.repo.registry, url: shownUrl(current.href) });
      let next: URL;
      try { next = new URL(flat.location ?? '', current); } catch {
        throw this.protocol(c.repo, current.href, 'a redirect to an invalid URL');
      }
      if (!flat.location) throw this.protocol(c.repo, current.href, `a redirect (${res.statusCode}) without a Location`);
      if (next.protocol !== 'https:') throw this.protocol(c.repo, current.href, `a redirect to a non-HTTPS URL (${shownUrl(next.href)})`);
      this.log('debug', `${shownUrl(current.href)} redirects to ${shownUrl(next.href)}: followed without credentials`);
      current = next;
    }
  }

  /** Throws the registry's error (with its error code and message, cut short) unless the status is expected. */
  protected async expect(a: Answer, ok: number[], repo: OciRepository, action: string): Promise<void> {
    const status = a.res.statusCode;
    if (ok.includes(status)) return;
    const text = await readText(a.res, MAX_ERROR_BODY);
    let detail = '';
    try {
      const errs = (parseJsonBounded(text) as { errors?: Array<{ code?: unknown; message?: unknown }> })?.errors;
      if (Array.isArray(errs) && errs.length) detail = `: ${shortText(errs.map((e) => [e.code, e.message].filter((x) => typeof x === 'string').join(' ')).join('; '), 300)}`;
    } catch { /* not JSON: the status says enough */ }
    const shown = shownUrl(a.url);
    const code: RegistryErrorCode = status === 404 ? 'not-found' : status === 429 ? 'rate-limited' : status >= 500 ? 'server-error' : 'http-error';
    throw new RegistryError(code, `${repo.registry} could not ${action} ${repositoryName(repo)}: ${status}${detail} (${shown})`, { host: repo.registry, url: shown, status });
  }

  protected async readCapped(a: Answer, repo: OciRepository, maxBytes: number, what: string): Promise<Buffer> {
    const declared = Number(a.headers['content-length']);
    const tooLarge = () => new RegistryError('too-large', `the ${what} from ${shownUrl(a.url)} is larger than ${maxBytes} bytes`, { host: repo.registry, url: shownUrl(a.url) });
    if (Number.isFinite(declared) && declared > maxBytes) { discard(a.res.body); throw tooLarge(); }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of a.res.body) {
        total += (chunk as Buffer).length;
        if (total > maxBytes) throw tooLarge();
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      discard(a.res.body);
      throw translateError(err, a.url, this.timeoutMs);
    }
    return Buffer.concat(chunks, total);
  }

  protected async readJson(a: Answer, repo: OciRepository, maxBytes: number, what: string): Promise<unknown> {
    const bytes = await this.readCapped(a, repo, maxBytes, what);
    try { return parseJsonBounded(bytes.toString('utf8')); } catch (err) {
      throw this.protocol(repo, a.url, `the ${what} is not JSON (${(err as Error).message})`);
    }
  }

  protected location(a: Answer, repo: OciRepository): string {
    const loc = a.headers.location;
    if (!loc) throw this.protocol(repo, a.url, 'an upload answer without a Location');
    let u: URL;
    try { u = new URL(loc, a.url); } catch { throw this.protocol(repo, a.url, 'an upload Location that is not a URL'); }
    // the upload session stays on the registry: credentials go with it
    if (u.host !== repo.registry || u.protocol !== 'https:') throw this.protocol(repo, a.url, `an upload Location on another host (${shownUrl(u.href)})`);
    return u.href;
  }

  protected protocol(repo: OciRepository, url: string, what: string): RegistryError {
    return new RegistryError('protocol', `unexpected answer from ${repo.registry} for ${repositoryName(repo)}: ${what} (${shownUrl(url)})`, { host: repo.registry, url: shownUrl(url) });
  }
}
