// An OCI Distribution client (distribution-spec v1.1): tags with pagination, manifests GET/HEAD/PUT,
// blobs HEAD/GET/upload (POST + PUT, chunked PATCH, cross-repository mount). Plain data in and out;
// errors are RegistryErrors naming the registry, the repository and the URL.
// - Auth (auth.ts): a 401's challenge decides Basic or the token flow; credentials (credentials.ts)
//   are looked up only then, sent only to the registry's own host — never after a redirect (blob
//   GETs redirected to storage) and never in a message.
// - Every read has a timeout and a size cap; every manifest and blob read is checked against its
//   digest (and a blob against its size) before it counts as read.
// - Requests that can be repeated (GET, HEAD, a manifest PUT) are retried with backoff on 429/5xx;
//   upload steps are not (a session's PATCH/PUT/POST are not idempotent).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { Dispatcher, request } from 'undici';
import { createDispatcher } from '../net/dispatcher';
import { RegistryError, RegistryErrorCode } from '../net/errors';
import { parseRetryAfter, shortText, shownUrl, translateError } from '../net/http-errors';
import { parseJsonBounded } from '../net/json-depth';
import { fetchToken, mergeScopes, parseChallenge, TokenCache } from './auth';
import { OciCredentialAnswer, OciCredentials } from './credentials';
import { digestProblem, OciRepository, repositoryName, sha256Digest, tagProblem } from './reference';

export const MEDIA_TYPE = {
  imageManifest: 'application/vnd.oci.image.manifest.v1+json',
  imageIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  empty: 'application/vnd.oci.empty.v1+json',
} as const;

/** The empty JSON blob `{}` image-spec 1.1 uses as the config of an artifact manifest. */
export const EMPTY_CONFIG = {
  mediaType: MEDIA_TYPE.empty,
  digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  size: 2,
  data: 'e30=',
} as const;

/** The distribution spec asks registries to accept manifests up to 4 MiB; we read no more. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const MAX_TAG_PAGE_BYTES = 4 * 1024 * 1024;
const MAX_ERROR_BODY = 64 * 1024;
/** Blobs larger than this are uploaded in PATCH chunks of this size. */
export const DEFAULT_CHUNK_SIZE = 32 * 1024 * 1024;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
  platform?: { os: string; architecture: string; variant?: string };
  data?: string;
}

export interface ManifestResponse {
  digest: string;
  mediaType: string;
  bytes: Buffer;
  /** The parsed JSON (any shape: callers validate what they use). */
  manifest: unknown;
  url: string;
}

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
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** The source of a blob to upload: its bytes, or a file holding exactly them. */
export type BlobSource = Buffer | { path: string };

export interface PushBlobResult {
  /** 'exists': already in the repository; 'mounted': linked from `from`; 'uploaded': sent. */
  outcome: 'exists' | 'mounted' | 'uploaded';
  from?: string;
}

type Method = 'GET' | 'HEAD' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

interface Call {
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

interface Answer {
  res: Dispatcher.ResponseData;
  url: string;
  headers: Record<string, string>;
}

const RETRY_STATUSES = [429, 502, 503, 504];

export class OciClient {
  readonly timeoutMs: number;
  private readonly userAgent: string;
  private dispatcher?: Dispatcher;
  private disposed = false;
  private readonly tokens = new TokenCache();
  /** The scheme each registry challenged with, once known: requests carry credentials from then on. */
  private readonly schemes = new Map<string, { scheme: 'basic' } | { scheme: 'bearer'; realm: string; service?: string }>();
  private readonly answers = new Map<string, Promise<OciCredentialAnswer | undefined>>();
  private readonly pendingTokens = new Map<string, Promise<string>>();

  constructor(private readonly opts: OciClientOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.userAgent = opts.userAgent ?? `tofu-registry/0.1.0 (node ${process.version})`;
  }

  // ---- tags ----

  /**
   * Every tag of a repository, following `Link: <…>; rel="next"` pages (n = `pageSize`, default 1000,
   * per page; at most `maxPages`, default 100); [] when the repository does not exist (404).
   */
  async listTags(repo: OciRepository, opts: CallOptions & { maxPages?: number; pageSize?: number } = {}): Promise<string[]> {
    const tags: string[] = [];
    const seen = new Set<string>();
    let url = `${this.base(repo)}/tags/list?n=${opts.pageSize ?? 1000}`;
    for (let page = 0; ; page++) {
      if (page >= (opts.maxPages ?? 100)) {
        throw new RegistryError('too-large', `${repositoryName(repo)} lists more than ${(opts.maxPages ?? 100)} pages of tags (${shownUrl(url)})`, { host: repo.registry, url: shownUrl(url) });
      }
      seen.add(url);
      const a = await this.call({ method: 'GET', repo, url, scopes: [pull(repo)], idempotent: true, action: 'list the tags of', signal: opts.signal });
      if (a.res.statusCode === 404) { await drain(a.res); return tags; }
      await this.expect(a, [200], repo, 'list the tags of');
      const doc = await this.readJson(a, repo, MAX_TAG_PAGE_BYTES, 'tag list');
      const list = (doc as { tags?: unknown })?.tags;
      if (list !== null && list !== undefined && !Array.isArray(list)) throw this.protocol(repo, a.url, 'the tag list is not a list');
      for (const t of (list ?? []) as unknown[]) if (typeof t === 'string') tags.push(t);
      const next = nextLink(a.headers.link, a.url);
      if (!next) return tags;
      if (new URL(next).host !== new URL(a.url).host) throw this.protocol(repo, a.url, `the next page of tags is on another host (${shownUrl(next)})`);
      if (seen.has(next)) throw this.protocol(repo, a.url, 'the tag list pages loop');
      url = next;
    }
  }

  // ---- manifests ----

  /** GET a manifest by tag or digest, checked against the digest asked for (or the one the registry names). */
  async getManifest(repo: OciRepository, reference: string, opts: CallOptions & { maxBytes?: number; accept?: string[] } = {}): Promise<ManifestResponse> {
    checkReference(repo, reference);
    const url = `${this.base(repo)}/manifests/${reference}`;
    const accept = (opts.accept ?? [MEDIA_TYPE.imageIndex, MEDIA_TYPE.imageManifest, MEDIA_TYPE.dockerManifestList, MEDIA_TYPE.dockerManifest]).join(', ');
    const a = await this.call({ method: 'GET', repo, url, scopes: [pull(repo)], headers: { accept }, idempotent: true, action: 'read the manifest of', signal: opts.signal });
    await this.expect(a, [200], repo, `read the manifest ${reference} of`);
    const bytes = await this.readCapped(a, repo, opts.maxBytes ?? MAX_MANIFEST_BYTES, 'manifest');
    const digest = this.verifyManifestDigest(repo, reference, bytes, a);
    let manifest: unknown;
    try { manifest = parseJsonBounded(bytes.toString('utf8')); } catch (err) {
      throw this.protocol(repo, a.url, `the manifest is not JSON (${(err as Error).message})`);
    }
    const declared = typeof (manifest as { mediaType?: unknown })?.mediaType === 'string' ? (manifest as { mediaType: string }).mediaType : undefined;
    const mediaType = (a.headers['content-type'] ?? '').split(';')[0].trim() || declared || '';
    return { digest, mediaType, bytes, manifest, url: a.url };
  }

  /** HEAD a manifest: its digest, media type and size, or undefined when there is none (404). */
  async headManifest(repo: OciRepository, reference: string, opts: CallOptions = {}): Promise<{ digest: string; mediaType: string; size: number } | undefined> {
    checkReference(repo, reference);
    const url = `${this.base(repo)}/manifests/${reference}`;
    const accept = [MEDIA_TYPE.imageIndex, MEDIA_TYPE.imageManifest, MEDIA_TYPE.dockerManifestList, MEDIA_TYPE.dockerManifest].join(', ');
    const a = await this.call({ method: 'HEAD', repo, url, scopes: [pull(repo)], headers: { accept }, idempotent: true, action: 'check the manifest of', signal: opts.signal });
    if (a.res.statusCode === 404) { await drain(a.res); return undefined; }
    await this.expect(a, [200], repo, `check the manifest ${reference} of`);
    await drain(a.res);
    const digest = a.headers['docker-content-digest'];
    if (!digest || digestProblem(digest)) {
      // no digest header: read the manifest to know it
      const m = await this.getManifest(repo, reference, opts);
      return { digest: m.digest, mediaType: m.mediaType, size: m.bytes.length };
    }
    if (isDigest(reference) && digest !== reference) throw this.protocol(repo, a.url, `the registry names the digest ${digest} for the manifest ${reference}`);
    return { digest, mediaType: (a.headers['content-type'] ?? '').split(';')[0].trim(), size: Number(a.headers['content-length'] ?? 0) };
  }

  /** PUT a manifest under a tag or its digest; returns its digest (checked against the registry's answer). */
  async putManifest(repo: OciRepository, reference: string, manifest: { mediaType: string; bytes: Buffer }, opts: CallOptions = {}): Promise<{ digest: string }> {
    checkReference(repo, reference);
    const digest = sha256Digest(manifest.bytes);
    if (isDigest(reference) && reference !== digest) throw new RegistryError('protocol', `manifest bytes do not match ${reference} (they are ${digest})`, { host: repo.registry });
    const url = `${this.base(repo)}/manifests/${reference}`;
    const a = await this.call({
      method: 'PUT', repo, url, scopes: [push(repo)], headers: { 'content-type': manifest.mediaType, 'content-length': String(manifest.bytes.length) },
      body: () => manifest.bytes, idempotent: true, action: `store the manifest ${reference} in`, signal: opts.signal,
    });
    await this.expect(a, [201, 200, 202], repo, `store the manifest ${reference} in`);
    await drain(a.res);
    const answered = a.headers['docker-content-digest'];
    if (answered && !digestProblem(answered) && answered.startsWith('sha256:') && answered !== digest) {
      throw this.protocol(repo, a.url, `the registry stored the manifest as ${answered}, not ${digest}`);
    }
    return { digest };
  }

  // ---- blobs ----

  /** HEAD a blob: its size, or undefined when the repository does not have it. */
  async headBlob(repo: OciRepository, digest: string, opts: CallOptions = {}): Promise<{ size: number } | undefined> {
    checkDigest(repo, digest);
    const url = `${this.base(repo)}/blobs/${digest}`;
    const a = await this.call({ method: 'HEAD', repo, url, scopes: [pull(repo)], idempotent: true, action: 'check a blob of', signal: opts.signal });
    if (a.res.statusCode === 404) { await drain(a.res); return undefined; }
    await this.expect(a, [200], repo, `check the blob ${digest} of`);
    await drain(a.res);
    return { size: Number(a.headers['content-length'] ?? -1) };
  }

  /**
   * GET a blob as a stream that errors unless it ends with exactly the digest (and `size`, when
   * given) asked for, and past `maxBytes`. A redirect to storage is followed without credentials.
   */
  async getBlob(repo: OciRepository, blob: { digest: string; size?: number }, opts: CallOptions & { maxBytes: number }): Promise<Readable> {
    checkDigest(repo, blob.digest);
    const limit = blob.size !== undefined ? Math.min(blob.size, opts.maxBytes) : opts.maxBytes;
    if (blob.size !== undefined && blob.size > opts.maxBytes) {
      throw new RegistryError('too-large', `the blob ${blob.digest} of ${repositoryName(repo)} is ${blob.size} bytes, more than the ${opts.maxBytes}-byte limit`, { host: repo.registry });
    }
    const url = `${this.base(repo)}/blobs/${blob.digest}`;
    const a = await this.call({ method: 'GET', repo, url, scopes: [pull(repo)], idempotent: true, action: 'read a blob of', signal: opts.signal, deadlineMs: this.opts.transferDeadlineMs ?? 30 * 60_000 });
    await this.expect(a, [200], repo, `read the blob ${blob.digest} of`);
    const declared = Number(a.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      discard(a.res.body);
      throw new RegistryError('too-large', `the blob ${blob.digest} from ${shownUrl(a.url)} is ${declared} bytes, more than ${limit} expected`, { host: repo.registry, url: shownUrl(a.url) });
    }
    const [alg] = blob.digest.split(':');
    const hash = createHash(alg);
    let seen = 0;
    const what = `the blob ${blob.digest} of ${repositoryName(repo)} (${shownUrl(a.url)})`;
    const check = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > limit) return cb(new RegistryError('too-large', `${what} is larger than ${limit} bytes`, { host: repo.registry, url: shownUrl(a.url) }));
        hash.update(chunk);
        cb(null, chunk);
      },
      flush(cb) {
        if (blob.size !== undefined && seen !== blob.size) return cb(new RegistryError('protocol', `${what} ended after ${seen} of ${blob.size} bytes`, { host: repo.registry, url: shownUrl(a.url) }));
        const got = `${alg}:${hash.digest('hex')}`;
        if (got !== blob.digest) return cb(new RegistryError('protocol', `${what} does not match its digest (the content is ${got})`, { host: repo.registry, url: shownUrl(a.url) }));
        cb();
      },
    });
    a.res.body.on('error', (err) => check.destroy(translateError(err, a.url, this.timeoutMs)));
    check.on('close', () => { if (!a.res.body.destroyed) discard(a.res.body); });
    return a.res.body.pipe(check);
  }

  /** A whole blob in memory (checked), for small ones (configs, metadata). */
  async getBlobBuffer(repo: OciRepository, blob: { digest: string; size?: number }, opts: CallOptions & { maxBytes: number }): Promise<Buffer> {
    const stream = await this.getBlob(repo, blob, opts);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * Makes a blob present in the repository: nothing when it is there already, a cross-repository
   * mount from the first of `mountFrom` (repositories of the same registry) that has it, else an
   * upload — one PUT, or PATCH chunks then the closing PUT for blobs above the chunk size.
   */
  async pushBlob(repo: OciRepository, blob: { digest: string; size: number }, source: BlobSource, opts: CallOptions & { mountFrom?: OciRepository[] } = {}): Promise<PushBlobResult> {
    checkDigest(repo, blob.digest);
    if (await this.headBlob(repo, blob.digest, opts)) return { outcome: 'exists' };
    let session: string | undefined;
    for (const from of opts.mountFrom ?? []) {
      if (from.registry !== repo.registry || from.repository === repo.repository) continue;
      const url = `${this.base(repo)}/blobs/uploads/?mount=${encodeURIComponent(blob.digest)}&from=${encodeURIComponent(from.repository)}`;
      const a = await this.call({ method: 'POST', repo, url, scopes: [push(repo), pull(from)], headers: { 'content-length': '0' }, idempotent: false, action: 'mount a blob into', signal: opts.signal });
      if (a.res.statusCode === 201) { await drain(a.res); return { outcome: 'mounted', from: repositoryName(from) }; }
      await this.expect(a, [202], repo, `mount the blob ${blob.digest} from ${from.repository} into`);
      await drain(a.res);
      session = this.location(a, repo);
      break; // the registry opened an upload session instead: use it
    }
    if (!session) {
      const a = await this.call({ method: 'POST', repo, url: `${this.base(repo)}/blobs/uploads/`, scopes: [push(repo)], headers: { 'content-length': '0' }, idempotent: false, action: 'start a blob upload to', signal: opts.signal });
      await this.expect(a, [202], repo, 'start a blob upload to');
      await drain(a.res);
      session = this.location(a, repo);
    }
    const chunkSize = this.opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    const uploadOpts = { timeoutMs: Math.max(this.timeoutMs, 5 * 60_000), deadlineMs: this.opts.transferDeadlineMs ?? 30 * 60_000 };
    if (blob.size > chunkSize) {
      for (let start = 0; start < blob.size; start += chunkSize) {
        const end = Math.min(blob.size, start + chunkSize) - 1;
        const a = await this.call({
          method: 'PATCH', repo, url: session, scopes: [push(repo)], idempotent: false, action: 'upload a blob chunk to', signal: opts.signal, ...uploadOpts,
          headers: { 'content-type': 'application/octet-stream', 'content-range': `${start}-${end}`, 'content-length': String(end - start + 1) },
          body: () => slice(source, start, end),
        });
        await this.expect(a, [202], repo, `upload bytes ${start}-${end} of the blob ${blob.digest} to`);
        await drain(a.res);
        session = this.location(a, repo);
      }
      const a = await this.call({ method: 'PUT', repo, url: withQuery(session, 'digest', blob.digest), scopes: [push(repo)], headers: { 'content-length': '0' }, idempotent: false, action: 'finish a blob upload to', signal: opts.signal, ...uploadOpts });
      await this.expect(a, [201], repo, `finish the upload of the blob ${blob.digest} to`);
      await drain(a.res);
    } else {
      const a = await this.call({
        method: 'PUT', repo, url: withQuery(session, 'digest', blob.digest), scopes: [push(repo)], idempotent: false, action: 'upload a blob to', signal: opts.signal, ...uploadOpts,
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(blob.size) },
        body: () => slice(source, 0, blob.size - 1),
      });
      await this.expect(a, [201], repo, `upload the blob ${blob.digest} to`);
      await drain(a.res);
    }
    return { outcome: 'uploaded' };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const d = this.dispatcher;
    this.dispatcher = undefined;
    if (d) await d.destroy().catch(() => undefined);
  }

  // ---- the request machinery ----

  private base(repo: OciRepository): string {
    return `https://${repo.registry}/v2/${repo.repository}`;
  }

  private getDispatcher(): Dispatcher {
    if (this.disposed) throw new RegistryError('aborted', 'the OCI registry client was closed: the run has ended');
    this.dispatcher ??= createDispatcher({ env: this.opts.env ?? process.env, caFiles: this.opts.caFiles ?? [], proxy: this.opts.proxy, noProxy: this.opts.noProxy, connectTimeoutMs: this.timeoutMs });
    return this.dispatcher;
  }

  private log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.opts.log?.({ level, message });
  }

  private credentialsFor(repo: OciRepository): Promise<OciCredentialAnswer | undefined> {
    const key = repositoryName(repo);
    let a = this.answers.get(key);
    if (!a) {
      a = this.opts.credentials?.lookup(repo) ?? Promise.resolve(undefined);
      this.answers.set(key, a);
    }
    return a;
  }

  private tokenKey(repo: OciRepository, scopes: string[]): string {
    return `${repo.registry} ${mergeScopes(scopes).join(' ')}`;
  }

  /** The Authorization header for a request, from what the registry asked for before (nothing before its first 401). */
  private async authorization(c: Call): Promise<string | undefined> {
    const s = this.schemes.get(c.repo.registry);
    if (!s) return undefined;
    if (s.scheme === 'bearer') return this.bearer(c, s.realm, s.service, []);
    const cred = (await this.credentialsFor(c.repo))?.credential;
    return cred?.username !== undefined && cred.password !== undefined ? basic(cred.username, cred.password) : undefined;
  }

  /** A token for the call's scopes: cached, or one request to the realm shared by concurrent calls. */
  private bearer(c: Call, realm: string, service: string | undefined, extraScopes: string[]): Promise<string> {
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
        this.tokens.set(key, token, lifetimeMs);
        return `Bearer ${token}`;
      })().finally(() => this.pendingTokens.delete(key));
      this.pendingTokens.set(key, pending);
    }
    return pending;
  }

  /** Answers a 401's challenge: a token for the scopes, or Basic credentials. */
  private async authenticate(c: Call, challengeHeader: string | undefined, url: string): Promise<string> {
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

  private needsCredentials(c: Call, url: string, answer: OciCredentialAnswer | undefined, detail?: string): RegistryError {
    const shown = shownUrl(url);
    const why = detail ?? (answer?.error ? `${answer.source} gave none: ${answer.error}` : `no credentials were found for it; looked in: ${this.searched()}`);
    return new RegistryError('unauthorized', `${c.repo.registry} requires authentication to ${c.action} ${repositoryName(c.repo)} (401 Unauthorized at ${shown}); ${why}`, { host: c.repo.registry, url: shown, status: 401 });
  }

  private searched(): string {
    const where = this.opts.credentials?.searched() ?? [];
    return where.length ? where.join('; ') : 'no credential sources are configured';
  }

  private withWhere(err: unknown, answer: OciCredentialAnswer | undefined): unknown {
    if (err instanceof RegistryError && (err.code === 'unauthorized' || err.code === 'forbidden') && !answer?.credential) {
      err.message += answer?.error ? `; ${answer.source} gave none: ${answer.error}` : `; looked for credentials in: ${this.searched()}`;
    }
    return err;
  }

  /** One logical request: auth (one retry after a 401), redirects for GET/HEAD, retries for idempotent ones. */
  private async call(c: Call): Promise<Answer> {
    if (this.opts.networkAllowed && !this.opts.networkAllowed()) {
      throw new RegistryError('network-disabled', `network access is disabled (untrusted workspace); not requesting ${shownUrl(c.url)}`, { host: c.repo.registry, url: shownUrl(c.url) });
    }
    const maxAttempts = c.idempotent ? (this.opts.maxAttempts ?? 3) : 1;
    let authorization = await this.authorization(c);
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
        authorization = await this.authenticate(c, challenge, a.url);
        attempt--; // the auth round trip is not a failed attempt
        continue;
      }
      if (status === 401 || status === 403) {
        await drain(a.res);
        throw await this.refused(c, a, !!authorization);
      }
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

  private async refused(c: Call, a: Answer, sent: boolean): Promise<RegistryError> {
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
  private async send(c: Call, authorization: string | undefined): Promise<Answer & { sentTo?: string }> {
    let current = new URL(c.url);
    const deadlineMs = c.deadlineMs ?? this.timeoutMs * 4;
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
  private async expect(a: Answer, ok: number[], repo: OciRepository, action: string): Promise<void> {
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

  private async readCapped(a: Answer, repo: OciRepository, maxBytes: number, what: string): Promise<Buffer> {
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

  private async readJson(a: Answer, repo: OciRepository, maxBytes: number, what: string): Promise<unknown> {
    const bytes = await this.readCapped(a, repo, maxBytes, what);
    try { return parseJsonBounded(bytes.toString('utf8')); } catch (err) {
      throw this.protocol(repo, a.url, `the ${what} is not JSON (${(err as Error).message})`);
    }
  }

  private verifyManifestDigest(repo: OciRepository, reference: string, bytes: Buffer, a: Answer): string {
    const header = a.headers['docker-content-digest'];
    const expected = isDigest(reference) ? reference : header && !digestProblem(header) ? header : undefined;
    const alg = expected?.split(':')[0] ?? 'sha256';
    const got = `${alg}:${createHash(alg).update(bytes).digest('hex')}`;
    if (expected && got !== expected) throw this.protocol(repo, a.url, `the manifest ${reference} does not match its digest ${expected} (the content is ${got})`);
    return alg === 'sha256' ? got : sha256Digest(bytes);
  }

  private location(a: Answer, repo: OciRepository): string {
    const loc = a.headers.location;
    if (!loc) throw this.protocol(repo, a.url, 'an upload answer without a Location');
    let u: URL;
    try { u = new URL(loc, a.url); } catch { throw this.protocol(repo, a.url, 'an upload Location that is not a URL'); }
    // the upload session stays on the registry: credentials go with it
    if (u.host !== repo.registry || u.protocol !== 'https:') throw this.protocol(repo, a.url, `an upload Location on another host (${shownUrl(u.href)})`);
    return u.href;
  }

  private protocol(repo: OciRepository, url: string, what: string): RegistryError {
    return new RegistryError('protocol', `unexpected answer from ${repo.registry} for ${repositoryName(repo)}: ${what} (${shownUrl(url)})`, { host: repo.registry, url: shownUrl(url) });
  }
}

function pull(repo: OciRepository): string {
  return `repository:${repo.repository}:pull`;
}
function push(repo: OciRepository): string {
  return `repository:${repo.repository}:pull,push`;
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function isDigest(reference: string): boolean {
  return reference.includes(':');
}

function checkReference(repo: OciRepository, reference: string): void {
  const problem = isDigest(reference) ? digestProblem(reference) : tagProblem(reference);
  if (problem) throw new RegistryError('invalid-address', `invalid manifest reference for ${repositoryName(repo)}: ${problem}`, { host: repo.registry });
}

function checkDigest(repo: OciRepository, digest: string): void {
  const problem = digestProblem(digest);
  if (problem) throw new RegistryError('invalid-address', `invalid blob digest for ${repositoryName(repo)}: ${problem}`, { host: repo.registry });
}

function withQuery(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.href;
}

/** The `rel="next"` target of a Link header, absolute. */
export function nextLink(header: string | undefined, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m && /(?:^|;)\s*rel\s*=\s*"?next"?\s*(?:;|$)/i.test(m[2])) {
      try { return new URL(m[1], base).href; } catch { return undefined; }
    }
  }
  return undefined;
}

function slice(source: BlobSource, start: number, end: number): Buffer | Readable {
  if (Buffer.isBuffer(source)) return source.subarray(start, end + 1);
  return createReadStream(source.path, { start, end });
}

function flatten(h: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

async function drain(res: Dispatcher.ResponseData): Promise<void> {
  await res.body.dump({ limit: MAX_ERROR_BODY }).catch(() => undefined);
}

function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function readText(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body) {
      total += (chunk as Buffer).length;
      if (total > max) break;
      chunks.push(chunk as Buffer);
    }
  } catch { /* what arrived is enough for a message */ }
  discard(res.body);
  return Buffer.concat(chunks).toString('utf8');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RegistryError('aborted', 'cancelled'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); reject(new RegistryError('aborted', 'cancelled')); }, { once: true });
  });
}
