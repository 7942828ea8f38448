// Where archives come from: the provider's origin registry (providers.v1: shasum, SHA256SUMS and
// its OpenPGP signature) or an existing network mirror (hashes in the version JSON). Each source
// downloads into a temp file and verifies it; a failure names the step.
import { promises as fs } from 'node:fs';
import type { Readable } from 'node:stream';
import { RegistryError } from '../net/errors';
import { shownUrl } from '../net/http-errors';
import { MirrorArchive, NetworkMirrorClient } from '../registry/network-mirror';
import { unlimited } from './slots';
import type { FetchSlots } from './slots';
import { downloadToFile, DownloadTooLargeError, DownloadTruncatedError } from '../providerpkg/download';
import type { RegistryPackage } from '../registry/providers';
import { h1OfUnpackedZip, h1OfZip, isSupportedHash, matchesAnyHash, PackageHashes, sha256File } from '../providerpkg/hash';
import { archiveFilename, safeFilename, UnsafePathError } from '../fstree/safe-paths';
import { checkPackages, checkSha256Sums, preloadOpenPgp, SignatureCheck, SigningKey, verifyDetachedSignature } from '../providerpkg/signature';
import { errorText } from './types';
import type { MirrorStep, MirrorTarget, ProviderAddress } from './types';

export { errorText };

export class MirrorStepError extends Error {
  constructor(readonly step: MirrorStep, message: string) {
    super(message);
    this.name = 'MirrorStepError';
  }
}

export interface FetchContext {
  /** The registry's download answer, when the caller already has it (origin registries only). */
  meta?: ProviderPackageMeta;
  /** Temp file to download into (beside the final file). */
  dest: string;
  /** The final archive path, when a file already exists there (left by an interrupted run). */
  existing?: string;
  maxBytes: number;
  signal?: AbortSignal;
  onBytes?: (received: number, total?: number) => void;
  /**
   * Slots shared by the caller's concurrent fetches: `request` for small requests (download
   * answers, SHA256SUMS), `download` for the archive transfer alone — so a fetch that is hashing
   * or verifying what it downloaded no longer holds a download slot. Unlimited when absent.
   */
  slots?: FetchSlots;
}

export { fetchSlots, smallRequestLimit, unlimited } from './slots';
export type { FetchSlots } from './slots';

export interface FetchResult {
  hashes: PackageHashes;
  /** False when the file already in OUT was verified and kept (nothing downloaded). */
  downloaded: boolean;
}

/** An archive before its download: file name, zh: (signed SHA256SUMS or the source mirror's listing), size when known. */
export interface ArchiveDescription { filename: string; zh?: string; size?: number }

export interface ArchiveSource {
  readonly label: string;
  listVersions(addr: ProviderAddress, signal?: AbortSignal): Promise<string[]>;
  fetch(target: MirrorTarget, ctx: FetchContext): Promise<FetchResult>;
  /** The archive's file name and expected zh: hash without downloading it (steps as fetch names them). */
  describe(target: MirrorTarget, opts: { signal?: AbortSignal; slots?: FetchSlots }): Promise<ArchiveDescription>;
}

/** Package metadata as the registry engine returns it (providers.v1 download endpoint). */
export interface ProviderPackageMeta {
  filename: string;
  downloadUrl: string;
  shasum: string;
  shasumsUrl: string;
  shasumsSignatureUrl: string;
  signingKeys: Array<{ keyId?: string; asciiArmor: string }>;
  os: string;
  arch: string;
  /** OpenTofu ≥ 1.12: every platform's hashes and size (validated by the providers.v1 client). */
  packages?: Record<string, RegistryPackage>;
}

export interface RegistryLike {
  listProviderVersions(addr: ProviderAddress, opts?: { signal?: AbortSignal }): Promise<unknown>;
  getProviderPackage(addr: ProviderAddress, version: string, os: string, arch: string, opts?: { signal?: AbortSignal }): Promise<ProviderPackageMeta>;
  http: {
    /** The request timeout (HttpClient.timeoutMs); small documents get a deadline of 4× this. */
    readonly timeoutMs?: number;
    download(url: string, opts: { maxBytes: number; signal?: AbortSignal; deadlineMs?: number }):
      Promise<{ url: string; status: number; headers: Record<string, string | string[] | undefined>; body: Readable }>;
  };
}

/** The version strings out of whatever shape listProviderVersions returns. */
export function versionStrings(result: unknown): string[] {
  const list = Array.isArray(result) ? result : (result as { versions?: unknown })?.versions;
  if (!Array.isArray(list)) return [];
  return list.map((v) => (typeof v === 'string' ? v : (v as { version?: unknown })?.version))
    .filter((v): v is string => typeof v === 'string');
}

const SUMS_MAX = 1024 * 1024;
const SIG_MAX = 64 * 1024;

/** SHA256SUMS of one provider version, its detached signature verified with the registry's keys. */
export interface SignedSums {
  /** The document as served (archive name → lower-case sha256 via parseSha256Sums). */
  document: string;
  /** The key that made the signature (upper-case hex key id). */
  keyId: string;
}

/** Archives from the provider's origin registry, verified by shasum, SHA256SUMS and signature. */
export class RegistrySource implements ArchiveSource {
  readonly label = 'origin registry';
  private readonly documents = new Map<string, Promise<{ doc: Buffer; sig: Buffer }>>();
  private readonly signatures = new Map<string, Promise<SignatureCheck>>();
  private readonly metas = new Map<string, Promise<ProviderPackageMeta>>();

  constructor(private readonly registry: RegistryLike) {}

  /** The file name and the zh: hash SHA256SUMS lists for it, the signature verified (no archive download). */
  async describe(t: MirrorTarget, opts: { signal?: AbortSignal; slots?: FetchSlots } = {}): Promise<ArchiveDescription> {
    const key = `${t.provider} ${t.version} ${t.platform}`;
    const meta = this.metas.get(key) ?? (opts.slots?.request ?? unlimited)(() => this.metadata(t, opts.signal));
    if (!this.metas.has(key)) { this.metas.set(key, meta); meta.catch(() => this.metas.delete(key)); }
    const m = await meta;
    await this.checkedSums(m, String(m.shasum ?? '').toLowerCase(), opts.signal, opts.slots);
    return { filename: m.filename, zh: `zh:${String(m.shasum ?? '').toLowerCase()}` };
  }

  /** The signed SHA256SUMS, checked to list the archive with `shasum` and to agree with `packages`. */
  private async checkedSums(m: ProviderPackageMeta, shasum: string, signal?: AbortSignal, slots?: FetchSlots): Promise<SignedSums> {
    const sums = await this.signedSums(m, signal, slots);
    const listed = checkSha256Sums(sums.document, m.filename, shasum);
    if (listed) throw new MirrorStepError('sha256sums', `${listed} (${shownUrl(m.shasumsUrl)})`);
    const contradiction = m.packages && checkPackages(sums.document, { filename: m.filename, os: m.os, arch: m.arch, packages: m.packages });
    if (contradiction) throw new MirrorStepError('packages', `${contradiction} (${shownUrl(m.shasumsUrl)})`);
    return sums;
  }

  async listVersions(addr: ProviderAddress, signal?: AbortSignal): Promise<string[]> {
    return versionStrings(await this.registry.listProviderVersions(addr, { signal }));
  }

  /** The providers.v1 download answer for one platform (step 'metadata', or 'path' for an unsafe filename). */
  async metadata(t: MirrorTarget, signal?: AbortSignal): Promise<ProviderPackageMeta> {
    const [os, arch] = t.platform.split('_');
    let meta: ProviderPackageMeta;
    try {
      meta = await this.registry.getProviderPackage(t.address, t.version, os, arch, { signal });
    } catch (err) {
      throw new MirrorStepError(/unsafe filename/.test(errorText(err)) ? 'path' : 'metadata', errorText(err));
    }
    try {
      safeFilename(meta.filename);
    } catch (err) {
      throw new MirrorStepError('path', (err as UnsafePathError).message);
    }
    return meta;
  }

  /**
   * SHA256SUMS of the version `meta` belongs to, once its signature verified (steps 'sha256sums',
   * 'signature'); fetched and verified once per document for every platform and caller. `slots`
   * bound the two requests (the caller's request slots); the signature check runs outside them.
   */
  async signedSums(meta: ProviderPackageMeta, signal?: AbortSignal, slots?: FetchSlots): Promise<SignedSums> {
    let docs: { doc: Buffer; sig: Buffer };
    try {
      docs = await this.fetchDocuments(meta, signal, slots);
    } catch (err) {
      throw new MirrorStepError(err instanceof MirrorStepError ? err.step : 'sha256sums', errorText(err));
    }
    const sig = await this.verify(meta, docs);
    if (!sig.ok) throw new MirrorStepError('signature', `${sig.message} (${shownUrl(meta.shasumsSignatureUrl)})`);
    return { document: docs.doc.toString('utf8'), keyId: sig.keyId };
  }

  async fetch(t: MirrorTarget, ctx: FetchContext): Promise<FetchResult> {
    const slots = ctx.slots ?? { request: unlimited, download: unlimited };
    const meta = ctx.meta ?? await (this.metas.get(`${t.provider} ${t.version} ${t.platform}`) ?? slots.request(() => this.metadata(t, ctx.signal)));
    const shasum = String(meta.shasum ?? '').toLowerCase();
    const documents = this.fetchDocuments(meta, ctx.signal, slots);
    documents.catch(() => undefined); // awaited below; don't let an early failure go unhandled
    const pkg = meta.packages?.[t.platform];

    // An archive already at the final name (an interrupted run placed it but did not list it) is
    // kept when it has the registry's shasum; it is still checked against SHA256SUMS + signature.
    let file = ctx.dest;
    let sha256: string;
    let size: number;
    let downloaded = true;
    const existing = ctx.existing ? await sha256File(ctx.existing, ctx.signal).catch(() => undefined) : undefined;
    if (existing && existing.sha256 === shasum) {
      ({ sha256, size } = existing);
      file = ctx.existing!;
      downloaded = false;
    } else {
      // `packages` gives the size: a longer body is cut off instead of downloaded in full.
      ({ sha256, size } = await downloadInSlots(slots, () => downloadStep(this.registry.http, meta.downloadUrl, { ...ctx, maxBytes: Math.min(ctx.maxBytes, pkg?.size ?? Infinity) }, slots)));
      if (sha256 !== shasum) {
        throw new MirrorStepError('shasum', `archive ${shownUrl(meta.downloadUrl)} has sha256 ${sha256}, but the registry reports shasum ${shasum || '(none)'}`);
      }
    }
    // h1: (a worker thread inflates every entry) runs while SHA256SUMS and its signature are checked.
    const h1Pending = h1OfZip(file, ctx.signal);
    h1Pending.catch(() => undefined);
    try {
      let docs: { doc: Buffer; sig: Buffer };
      try {
        docs = await documents;
      } catch (err) {
        throw new MirrorStepError(err instanceof MirrorStepError ? err.step : 'sha256sums', errorText(err));
      }
      const listed = checkSha256Sums(docs.doc.toString('utf8'), meta.filename, shasum);
      if (listed) throw new MirrorStepError('sha256sums', `${listed} (${shownUrl(meta.shasumsUrl)})`);
      await this.checkedSums(meta, shasum, ctx.signal);
      if (pkg && size !== pkg.size) {
        throw new MirrorStepError('size', `archive ${shownUrl(meta.downloadUrl)} is ${size} bytes, but the registry's "packages" says ${pkg.size}`);
      }
    } catch (err) {
      await h1Pending.catch(() => undefined); // it reads the file, which the caller removes next
      throw err;
    }
    let h1: string;
    try {
      h1 = await h1Pending;
    } catch (err) {
      throw new MirrorStepError('archive', `archive ${shownUrl(meta.downloadUrl)} is not a readable zip: ${errorText(err)}`);
    }
    const claimed = pkg?.hashes.filter((h) => h.startsWith('h1:')) ?? [];
    // A registry may compute h1: from the archive or from the unpacked package; either must match.
    if (claimed.length && !claimed.includes(h1) && !claimed.includes(await h1OfUnpackedZip(file, ctx.signal, h1))) {
      throw new MirrorStepError('packages', `archive ${shownUrl(meta.downloadUrl)} has ${h1}, but the registry's "packages" says ${claimed.join(', ')}`);
    }
    return { hashes: { h1, zh: 'zh:' + sha256, size }, downloaded };
  }

  /** SHA256SUMS and SHA256SUMS.sig, fetched once per URL pair (shared by every platform). */
  private fetchDocuments(meta: ProviderPackageMeta, signal?: AbortSignal, slots?: FetchSlots): Promise<{ doc: Buffer; sig: Buffer }> {
    const key = `${meta.shasumsUrl}\n${meta.shasumsSignatureUrl}`;
    let p = this.documents.get(key);
    if (!p) {
      const doc = () => fetchSmall(this.registry.http, meta.shasumsUrl, SUMS_MAX, signal).catch((err) => {
        throw new MirrorStepError('sha256sums', `could not fetch SHA256SUMS: ${errorText(err)}`);
      });
      const sig = () => fetchSmall(this.registry.http, meta.shasumsSignatureUrl, SIG_MAX, signal).catch((err) => {
        throw new MirrorStepError('signature', `could not fetch SHA256SUMS.sig: ${errorText(err)}`);
      });
      // A signed SHA256SUMS is one small request slot: the document and its signature are sent
      // together (one round trip, not two slots: with 10 providers' pairs in 16 slots, the lock
      // run's `packages` path took a fifth round trip), or one after the other at concurrency 1.
      p = (slots?.request ?? unlimited)(async () => {
        if (slots?.serial) return { doc: await doc(), sig: await sig() };
        const both = Promise.all([doc(), sig()]);
        preloadOpenPgp(); // the signature check follows their answers
        const [d, s] = await both;
        return { doc: d, sig: s };
      });
      this.documents.set(key, p);
      p.catch(() => this.documents.delete(key)); // a failure (or cancellation) is retried next time
    }
    return p;
  }

  private verify(meta: ProviderPackageMeta, docs: { doc: Buffer; sig: Buffer }): Promise<SignatureCheck> {
    const keys: SigningKey[] = (meta.signingKeys ?? []).map((k) => ({ keyId: k.keyId, asciiArmor: k.asciiArmor }));
    const key = `${meta.shasumsUrl}\n${meta.shasumsSignatureUrl}\n${keys.map((k) => k.asciiArmor).join('\n')}`;
    let p = this.signatures.get(key);
    if (!p) {
      p = verifyDetachedSignature(docs.doc, docs.sig, keys);
      this.signatures.set(key, p);
    }
    return p;
  }
}

/** Archives from an existing network mirror (--from-mirror), verified against its hashes. */
export class MirrorSource implements ArchiveSource {
  readonly label: string;
  private readonly versionDocs = new Map<string, Promise<Record<string, MirrorArchive>>>();

  constructor(private readonly client: NetworkMirrorClient, private readonly http: RegistryLike['http']) {
    this.label = `network mirror ${shownUrl(client.baseUrl)}`;
  }

  listVersions(addr: ProviderAddress, signal?: AbortSignal): Promise<string[]> {
    return this.client.listVersions(addr, signal);
  }

  /** The mirror's entry for one archive (its version JSON is fetched once per version). */
  async archive(t: MirrorTarget, signal?: AbortSignal): Promise<MirrorArchive> {
    const key = `${t.provider}@${t.version}`;
    let doc = this.versionDocs.get(key);
    if (!doc) {
      doc = this.client.listArchives(t.address, t.version, signal);
      this.versionDocs.set(key, doc);
      doc.catch(() => this.versionDocs.delete(key));
    }
    let archive: MirrorArchive | undefined;
    try {
      archive = (await doc)[t.platform];
    } catch (err) {
      throw new MirrorStepError('metadata', errorText(err));
    }
    if (!archive) throw new MirrorStepError('metadata', `${this.label} has no ${t.platform} archive of ${t.provider} ${t.version}`);
    return archive;
  }

  /** The archive's file name (the last segment of its URL, when that is a plain file name) and the zh: hash the mirror lists. */
  async describe(t: MirrorTarget, opts: { signal?: AbortSignal; slots?: FetchSlots } = {}): Promise<ArchiveDescription> {
    const archive = await (opts.slots?.request ?? unlimited)(() => this.archive(t, opts.signal));
    const last = decodeURIComponent(new URL(archive.url).pathname.split('/').pop() ?? '');
    let filename: string;
    try { filename = safeFilename(last); } catch { filename = archiveFilename(t.address.type, t.version, t.platform); }
    const zh = archive.hashes.filter((h) => h.startsWith('zh:'));
    return { filename, ...(zh.length === 1 ? { zh: zh[0] } : {}) };
  }

  async fetch(t: MirrorTarget, ctx: FetchContext): Promise<FetchResult> {
    const slots = ctx.slots ?? { request: unlimited, download: unlimited };
    const archive = await slots.request(() => this.archive(t, ctx.signal));
    const expected = archive.hashes.filter(isSupportedHash);
    if (!expected.length && !t.locks?.length) {
      throw new MirrorStepError('mirror-hash', `${this.label} lists no h1:/zh: hashes for ${shownUrl(archive.url)}; refusing an unverifiable archive`);
    }
    let file = ctx.dest;
    let downloaded = true;
    let sha: { sha256: string; size: number } | undefined;
    if (ctx.existing) {
      const got = await sha256File(ctx.existing, ctx.signal).catch(() => undefined);
      if (got && expected.includes('zh:' + got.sha256)) { sha = got; file = ctx.existing; downloaded = false; }
    }
    sha ??= await downloadInSlots(slots, () => downloadStep(this.http, archive.url, ctx, slots));
    const zh = 'zh:' + sha.sha256;
    // When the mirror lists no h1: hash, a zh: mismatch is decisive: do not unpack what it sent.
    if (expected.length && !expected.includes(zh) && !expected.some((h) => h.startsWith('h1:'))) {
      throw new MirrorStepError('mirror-hash', `archive ${shownUrl(archive.url)} matches none of the source mirror's hashes (${expected.join(', ')}); got ${zh}`);
    }
    let h1: string | undefined;
    let h1Error = '';
    try {
      h1 = await h1OfZip(file, ctx.signal);
    } catch (err) {
      h1Error = errorText(err);
    }
    if (expected.length && !matchesAnyHash({ h1: h1 ?? '', zh }, expected)) {
      throw new MirrorStepError('mirror-hash', `archive ${shownUrl(archive.url)} matches none of the source mirror's hashes (${expected.join(', ')}); got ${h1 ?? '(not a readable zip)'} ${zh}`);
    }
    if (!h1) throw new MirrorStepError('archive', `archive ${shownUrl(archive.url)} is not a readable zip: ${h1Error}`);
    const hashes = { h1, zh, size: sha.size };
    return { hashes, downloaded };
  }
}

/** An archive download in the caller's slots: sent ahead when they allow it (not at concurrency 1), else in a download slot. */
const downloadInSlots = <R>(slots: FetchSlots, fn: () => Promise<R>): Promise<R> => (slots.ahead ?? slots.download)(fn);

async function downloadStep(http: RegistryLike['http'], url: string, ctx: FetchContext, slots?: FetchSlots): Promise<{ sha256: string; size: number }> {
  try {
    return await downloadToFile(http, url, ctx.dest, { maxBytes: ctx.maxBytes, signal: ctx.signal, onBytes: ctx.onBytes, transfer: slots?.ahead && slots.download });
  } catch (err) {
    if (ctx.signal?.aborted) throw new MirrorStepError('cancelled', 'cancelled');
    if (err instanceof DownloadTooLargeError || (err instanceof RegistryError && err.code === 'too-large')) {
      throw new MirrorStepError('size', errorText(err));
    }
    if (err instanceof DownloadTruncatedError) throw new MirrorStepError('size', `archive ${errorText(err)}`);
    throw new MirrorStepError('download', errorText(err));
  } finally {
    if (ctx.signal?.aborted) await fs.rm(ctx.dest, { force: true });
  }
}

/**
 * SHA256SUMS / SHA256SUMS.sig: small documents, so the whole transfer must finish within 4× the
 * request timeout (not the 30-minute archive deadline): a server trickling bytes fails fast.
 * http.download already rejects statuses other than 200 and enforces maxBytes.
 */
async function fetchSmall(http: RegistryLike['http'], url: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const res = await http.download(url, { maxBytes, signal, deadlineMs: 4 * (http.timeoutMs ?? 15_000) });
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
