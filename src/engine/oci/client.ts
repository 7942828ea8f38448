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
import { RegistryError } from '../net/errors';
import { shownUrl, translateError } from '../net/http-errors';
import { parseJsonBounded } from '../net/json-depth';
import { digestProblem, OciRepository, repositoryName, sha256Digest, tagProblem } from '../addresses/oci-reference';
import { Answer, discard, drain, OciTransport, pull, push } from './transport';

export type { OciClientOptions } from './transport';

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

export class OciClient extends OciTransport {
  // ---- tags ----

  /**
   * Every tag of a repository, following `Link: <…>; rel="next"` pages (n = `pageSize`, default 1000,
   * per page; at most `maxPages`, default 100); [] when the repository does not exist (404).
   */
  async listTags(repo: OciRepository, opts: CallOptions & { maxPages?: number; pageSize?: number } = {}): Promise<string[]> {
    return (await this.listTagsChecked(repo, opts)).tags;
  }

  /**
   * listTags, saying how many names the registry listed that are not tags by the distribution
   * spec's grammar (`[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`): those are dropped — a name such as
   * `../../x` or one holding a newline is never shown, completed or put in a URL — with one log note.
   */
  async listTagsChecked(repo: OciRepository, opts: CallOptions & { maxPages?: number; pageSize?: number } = {}): Promise<{ tags: string[]; invalid: number }> {
    const tags: string[] = [];
    let invalid = 0;
    const seen = new Set<string>();
    let url = `${this.base(repo)}/tags/list?n=${opts.pageSize ?? 1000}`;
    for (let page = 0; ; page++) {
      if (page >= (opts.maxPages ?? 100)) {
        throw new RegistryError('too-large', `${repositoryName(repo)} lists more than ${(opts.maxPages ?? 100)} pages of tags (${shownUrl(url)})`, { host: repo.registry, url: shownUrl(url) });
      }
      seen.add(url);
      const a = await this.callAndRead({ method: 'GET', repo, url, scopes: [pull(repo)], idempotent: true, action: 'list the tags of', signal: opts.signal }, async (got) => {
        if (got.res.statusCode === 404) { await drain(got.res); return undefined; }
        await this.expect(got, [200], repo, 'list the tags of');
        return { url: got.url, headers: got.headers, doc: await this.readJson(got, repo, MAX_TAG_PAGE_BYTES, 'tag list') };
      });
      if (!a) return { tags, invalid };
      const list = (a.doc as { tags?: unknown })?.tags;
      if (list !== null && list !== undefined && !Array.isArray(list)) throw this.protocol(repo, a.url, 'the tag list is not a list');
      for (const t of (list ?? []) as unknown[]) {
        if (typeof t === 'string' && !tagProblem(t)) tags.push(t);
        else invalid++;
      }
      const next = nextLink(a.headers.link, a.url);
      if (!next) {
        if (invalid) this.log('warn', `${repositoryName(repo)}: ignored ${invalid} ${invalid === 1 ? 'name' : 'names'} in its tag list that ${invalid === 1 ? 'is not a tag' : 'are not tags'} by the distribution spec's grammar`);
        return { tags, invalid };
      }
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
    const { a, bytes } = await this.callAndRead({ method: 'GET', repo, url, scopes: [pull(repo)], headers: { accept }, idempotent: true, action: 'read the manifest of', signal: opts.signal }, async (got) => {
      await this.expect(got, [200], repo, `read the manifest ${reference} of`);
      return { a: got, bytes: await this.readCapped(got, repo, opts.maxBytes ?? MAX_MANIFEST_BYTES, 'manifest') };
    });
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
    const started = Date.now();
    // The whole read is bounded by its size (blobDeadlineMs below); the request's own deadline is
    // the transfer bound plus a margin, so that the size's bound, with its clearer message, ends it first.
    const a = await this.call({ method: 'GET', repo, url, scopes: [pull(repo)], idempotent: true, action: 'read a blob of', signal: opts.signal, deadlineMs: this.transferDeadlineMs + this.timeoutMs });
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
    const expected = blob.size ?? (Number.isFinite(declared) && declared >= 0 ? declared : limit);
    const allowedMs = this.blobDeadlineMs(expected);
    const deadline = setTimeout(() => {
      const floor = `${Math.round(this.minBlobBytesPerSecond / 1024)} KiB/s`;
      check.destroy(new RegistryError('timeout', `${repo.registry} sent ${what} too slowly: ${seen} of ${expected} bytes after ${((Date.now() - started) / 1000).toFixed(1)} s; `
        + `a blob of this size may take ${Math.round(allowedMs / 1000)} s (${this.timeoutMs / 1000} s to start, then at least ${floor}${allowedMs >= this.transferDeadlineMs ? `, ${Math.round(this.transferDeadlineMs / 60_000)} min at most` : ''})`,
      { host: repo.registry, url: shownUrl(a.url) }));
    }, Math.max(0, allowedMs - (Date.now() - started)));
    deadline.unref();
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
    check.on('close', () => { clearTimeout(deadline); if (!a.res.body.destroyed) discard(a.res.body); });
    return a.res.body.pipe(check);
  }

  /** Whole blob uploads and downloads: at most this long (transferDeadlineMs, default 30 min). */
  private get transferDeadlineMs(): number {
    return this.opts.transferDeadlineMs ?? 30 * 60_000;
  }

  private get minBlobBytesPerSecond(): number {
    return this.opts.minBlobBytesPerSecond ?? 64 * 1024;
  }

  /**
   * How long reading a blob of `size` bytes may take in all: the request timeout to get going,
   * then the size at the floor throughput — so a registry dripping a byte under every pause's
   * timeout cannot hold a small blob for the transfer bound — never more than that bound.
   */
  private blobDeadlineMs(size: number): number {
    return Math.min(this.transferDeadlineMs, this.timeoutMs + (size / this.minBlobBytesPerSecond) * 1000);
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
    const uploadOpts = { timeoutMs: Math.max(this.timeoutMs, 5 * 60_000), deadlineMs: this.transferDeadlineMs };
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

  protected verifyManifestDigest(repo: OciRepository, reference: string, bytes: Buffer, a: Answer): string {
    const header = a.headers['docker-content-digest'];
    const expected = isDigest(reference) ? reference : header && !digestProblem(header) ? header : undefined;
    const alg = expected?.split(':')[0] ?? 'sha256';
    const got = `${alg}:${createHash(alg).update(bytes).digest('hex')}`;
    if (expected && got !== expected) throw this.protocol(repo, a.url, `the manifest ${reference} does not match its digest ${expected} (the content is ${got})`);
    return alg === 'sha256' ? got : sha256Digest(bytes);
  }
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
