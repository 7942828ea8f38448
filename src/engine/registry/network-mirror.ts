// Client for the provider network mirror protocol, the way `tofu init` walks a mirror
// (internal/getproviders/http_mirror_source.go):
//   BASE/HOST/NAMESPACE/TYPE/index.json   → {"versions":{"V":{}}}
//   BASE/HOST/NAMESPACE/TYPE/V.json       → {"archives":{"os_arch":{"url","hashes"}}}
// `url` is resolved relative to the version JSON's own (final) URL; archives are downloaded
// without credentials and checked against `hashes` (any supported h1:/zh: must match).
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { hostnameToASCII } from '../addresses';
import { RegistryError } from '../net/errors';
import { downloadToFile } from '../providerpkg/download';
import { h1OfZip, isSupportedHash, matchesAnyHash, PackageHashes } from '../providerpkg/hash';
import { shownUrl } from '../net/http-errors';

export interface MirrorHttp {
  getJson(url: string, opts?: { maxBytes?: number; timeoutMs?: number; auth?: boolean; signal?: AbortSignal }):
    Promise<{ url: string; json: unknown }>;
  download(url: string, opts: { maxBytes: number; signal?: AbortSignal }):
    Promise<{ url: string; status: number; headers: Record<string, string | string[] | undefined>; body: Readable }>;
}

export interface MirrorProviderRef {
  host: string;
  namespace: string;
  type: string;
}

export interface MirrorArchive {
  /** Absolute download URL (resolved against the version JSON's URL). */
  url: string;
  /** `url` as written in the JSON. */
  rawUrl: string;
  hashes: string[];
}

export class NetworkMirrorClient {
  readonly baseUrl: string;

  constructor(baseUrl: string, private readonly http: MirrorHttp, private readonly opts: { timeoutMs?: number } = {}) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new RegistryError('invalid-address', `invalid network mirror URL ${JSON.stringify(shownUrl(baseUrl))}`);
    }
    if (u.protocol !== 'https:') throw new RegistryError('invalid-address', `network mirror URL must use https: ${shownUrl(baseUrl)}`, { url: shownUrl(baseUrl) });
    if (u.search || u.hash) throw new RegistryError('invalid-address', `network mirror URL must not have a query or fragment: ${shownUrl(baseUrl)}`, { url: shownUrl(baseUrl) });
    if (!u.pathname.endsWith('/')) u.pathname += '/';
    this.baseUrl = u.href;
  }

  providerUrl(p: MirrorProviderRef, file: string): string {
    // ':' of a host:port stays readable; the "./" keeps "localhost:8443/…" from parsing as a scheme.
    const seg = (s: string) => encodeURIComponent(s).replace(/%3A/gi, ':');
    return new URL(`./${seg(hostnameToASCII(p.host))}/${seg(p.namespace)}/${seg(p.type)}/${seg(file)}`, this.baseUrl).href;
  }

  /** Versions the mirror offers (index.json). A 404 means the mirror does not have the provider. */
  async listVersions(p: MirrorProviderRef, signal?: AbortSignal): Promise<string[]> {
    const url = this.providerUrl(p, 'index.json');
    const res = await this.get(url, p, signal);
    const versions = (res.json as { versions?: unknown })?.versions;
    if (!versions || typeof versions !== 'object' || Array.isArray(versions)) {
      throw new RegistryError('protocol', `invalid mirror index from ${shownUrl(res.url)}: "versions" must be an object`, { url: shownUrl(res.url), host: new URL(res.url).host });
    }
    return Object.keys(versions);
  }

  /** The archives of one version (V.json), with URLs resolved against the JSON's URL. */
  async listArchives(p: MirrorProviderRef, version: string, signal?: AbortSignal): Promise<Record<string, MirrorArchive>> {
    const url = this.providerUrl(p, `${version}.json`);
    const res = await this.get(url, p, signal);
    const archives = (res.json as { archives?: unknown })?.archives;
    if (!archives || typeof archives !== 'object' || Array.isArray(archives)) {
      throw new RegistryError('protocol', `invalid mirror version document from ${shownUrl(res.url)}: "archives" must be an object`, { url: shownUrl(res.url), host: new URL(res.url).host });
    }
    const out: Record<string, MirrorArchive> = {};
    for (const [platform, raw] of Object.entries(archives as Record<string, unknown>)) {
      const a = raw as { url?: unknown; hashes?: unknown };
      if (!a || typeof a.url !== 'string') {
        throw new RegistryError('protocol', `invalid mirror version document from ${shownUrl(res.url)}: archive ${platform} has no "url"`, { url: shownUrl(res.url) });
      }
      const hashes = Array.isArray(a.hashes) ? a.hashes.filter((h): h is string => typeof h === 'string') : [];
      out[platform] = { url: new URL(a.url, res.url).href, rawUrl: a.url, hashes };
    }
    return out;
  }

  /**
   * Downloads an archive to `dest` (no credentials) and checks it against `hashes` as `tofu init`
   * does: when at least one supported hash is listed, one must match. Removes `dest` on failure.
   */
  async fetchArchive(archive: MirrorArchive, dest: string, opts: { maxBytes: number; signal?: AbortSignal; onBytes?: (n: number, total?: number) => void }):
    Promise<PackageHashes & { verified: boolean }> {
    // zh: and the size come from the bytes as they were written; h1: needs the zip's directory.
    const { sha256, size } = await downloadToFile(this.http, archive.url, dest, opts);
    const zh = 'zh:' + sha256;
    let h1 = '';
    let unreadable = '';
    try {
      h1 = await h1OfZip(dest, opts.signal);
    } catch (err) {
      unreadable = (err as Error).message;
    }
    const hashes: PackageHashes = { h1, zh, size };
    const supported = archive.hashes.filter(isSupportedHash);
    if (supported.length && !matchesAnyHash(hashes, supported)) {
      await rm(dest, { force: true });
      throw new RegistryError('protocol',
        `archive ${shownUrl(archive.url)} does not match any of the mirror's hashes (${supported.join(', ')}); got ${h1 || '(not a readable zip)'} ${zh}`, { url: shownUrl(archive.url) });
    }
    if (unreadable) {
      await rm(dest, { force: true });
      throw new RegistryError('protocol', `archive ${shownUrl(archive.url)} is not a readable zip: ${unreadable}`, { url: shownUrl(archive.url) });
    }
    return { ...hashes, verified: supported.length > 0 };
  }

  private async get(url: string, p: MirrorProviderRef, signal?: AbortSignal): Promise<{ url: string; json: unknown }> {
    try {
      return await this.http.getJson(url, { maxBytes: 4 * 1024 * 1024, auth: true, signal, timeoutMs: this.opts.timeoutMs });
    } catch (err) {
      if (err instanceof RegistryError && err.status === 404) {
        throw new RegistryError('not-found', `the network mirror ${shownUrl(this.baseUrl)} has no provider ${p.host}/${p.namespace}/${p.type} (404 from ${shownUrl(url)})`, { url: shownUrl(url), status: 404, host: new URL(url).host, cause: err });
      }
      throw err;
    }
  }
}
