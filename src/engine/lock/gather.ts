// Where a lock file's hashes come from, once per (provider, version, platform) for every directory
// of a run: the disk cache; the origin registry's `packages` (OpenTofu ≥ 1.12: every platform's
// hashes in one download answer, trusted only once every zh: matches the signed SHA256SUMS — no
// archive is downloaded); else the archive itself, fetched and verified by the mirror's sources
// (shasum, signed SHA256SUMS; a network mirror's own hashes) and hashed as `tofu init` records it.
// `--fs-mirror` packages are hashed in place. Archive downloads share one bound, requests another.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProviderAddress } from '../addresses';
import type { Limiter } from '../fstree';
import type { Engine } from '../engine';
import { h1OfUnpackedZip } from '../providerpkg/hash';
import { sourceFor } from '../providersources/source-for';
import { FetchSlots, fetchSlots, MirrorSource, MirrorStepError, ProviderPackageMeta, RegistrySource, SignedSums } from '../providersources/sources';
import { OciSource } from '../providersources/oci-source';
import { parseRepositoryTemplate } from '../addresses/oci-template';
import { checkPackages, checkSha256Sums, startSignatureWorker } from '../providerpkg/signature';
import type { MirrorTarget } from '../providersources/types';
import { shownUrl } from '../net/http-errors';
import { filesystemMirrorVersions } from '../registry/installation';
import { LockHashCache, PlatformHashes, VersionSums } from './cache';
import { findFsMirrorPackage } from '../providersources/fs-mirror';

/** Where `lock` takes providers from, as `tofu providers lock` (origin registries unless told otherwise). */
export type LockSource = { kind: 'registry' } | { kind: 'net-mirror'; url: string } | { kind: 'fs-mirror'; dir: string }
  | { kind: 'oci-mirror'; template: string };

export type GatherOutcome = 'cached' | 'packages' | 'downloaded' | 'hashed';

export interface GathererOptions {
  engine: Engine;
  source: LockSource;
  cache: LockHashCache;
  /** Parallel archive downloads (1 = everything one at a time). */
  concurrency: number;
  /** Where archives are downloaded to (removed by the caller). */
  tempDir: string;
  maxArchiveBytes: number;
  signal?: AbortSignal;
}

/** The first answer of a version: its metadata and, when it has `packages`, their checked hashes. */
interface Probe { platform: string; meta?: ProviderPackageMeta; error?: unknown; packages?: Map<string, PlatformHashes> }

export class HashGatherer {
  /** Archives downloaded and their bytes (a re-run with a warm cache downloads none). */
  readonly downloaded = { archives: 0, bytes: 0 };
  /** Listings that may be incomplete (a filesystem mirror directory past its bound): the run's notes say them. */
  readonly warnings = new Set<string>();
  private readonly requests: Limiter;
  /** What fetch() takes: a download slot for an archive's transfer alone (hashing and checks run outside it). */
  private readonly slots: FetchSlots;
  private readonly tasks = new Map<string, Promise<{ hashes: PlatformHashes; outcome: GatherOutcome }>>();
  private readonly probes = new Map<string, Promise<Probe>>();
  private readonly versionLists = new Map<string, Promise<string[]>>();
  private readonly origin?: RegistrySource;
  private readonly mirror?: MirrorSource;
  private readonly oci?: OciSource;
  private files = 0;
  private readonly writes = new Set<Promise<void>>();
  private readonly sumsReads = new Map<string, Promise<VersionSums | undefined>>();

  constructor(private readonly opts: GathererOptions) {
    // Concurrency 1 is one request at a time, downloads included; otherwise small JSON and
    // SHA256SUMS requests get more room than archives.
    this.slots = fetchSlots(opts.concurrency);
    this.requests = this.slots.request;
    if (opts.source.kind === 'registry') this.origin = sourceFor(opts.engine) as RegistrySource;
    if (opts.source.kind === 'net-mirror') this.mirror = sourceFor(opts.engine, opts.source.url) as MirrorSource;
    if (opts.source.kind === 'oci-mirror') this.oci = new OciSource(opts.engine.oci, parseRepositoryTemplate(opts.source.template));
  }

  /** The cache key's source: the origin registry (and a `host` block that redirects it) or the mirror. */
  sourceKey(addr: ProviderAddress): string {
    const s = this.opts.source;
    if (s.kind === 'net-mirror') return `net-mirror ${s.url}`;
    if (s.kind === 'fs-mirror') return `fs-mirror ${s.dir}`;
    if (s.kind === 'oci-mirror') return `oci-mirror ${s.template} ${this.opts.engine.ociCredentials.sourceKey(this.oci!.repository(addr))}`;
    const host = this.opts.engine.cliSettings().hosts.get(addr.host);
    return host ? `origin ${JSON.stringify(host.services)}` : 'origin';
  }

  /** Versions the source offers (origin registries: ignoring provider_installation, as tofu providers lock). */
  versions(addr: ProviderAddress): Promise<string[]> {
    let p = this.versionLists.get(addr.address);
    if (!p) {
      const s = this.opts.source;
      p = this.requests(async () => {
        if (s.kind === 'fs-mirror') {
          const list = await filesystemMirrorVersions(s.dir, addr);
          for (const w of list.warnings ?? []) this.warnings.add(w);
          return list.versions.map((v) => v.version);
        }
        if (s.kind === 'net-mirror') return this.mirror!.listVersions(addr, this.opts.signal);
        if (s.kind === 'oci-mirror') return this.oci!.listVersions(addr, this.opts.signal);
        startSignatureWorker(); // see probe()
        return (await this.opts.engine.listOriginProviderVersions(addr, { signal: this.opts.signal })).versions.map((v) => v.version);
      });
      this.versionLists.set(addr.address, p);
    }
    return p;
  }

  /** The hashes of one package, once per run whatever the number of directories that need it. */
  platform(addr: ProviderAddress, version: string, platform: string): Promise<{ hashes: PlatformHashes; outcome: GatherOutcome }> {
    const key = `${addr.address} ${version} ${platform}`;
    let p = this.tasks.get(key);
    if (!p) {
      p = this.gather({ provider: addr.address, address: addr, version, platform });
      this.tasks.set(key, p);
    }
    return p;
  }

  /** The signed SHA256SUMS of a version (origin registries only; from the cache or this run). */
  async sums(addr: ProviderAddress, version: string): Promise<VersionSums | undefined> {
    if (this.opts.source.kind !== 'registry') return undefined;
    return this.opts.cache.sums(this.sourceKey(addr), addr.address, version);
  }

  /** What the cache knows of other platforms of a version (for `packages` hashes and coverage). */
  async known(addr: ProviderAddress, version: string, platforms: Iterable<string>): Promise<Map<string, PlatformHashes>> {
    const out = new Map<string, PlatformHashes>();
    if (this.opts.source.kind === 'fs-mirror') return out;
    const fromPackages = (await this.sums(addr, version))?.packages ?? {};
    for (const p of new Set(platforms)) {
      const h = fromPackages[p] ?? await this.opts.cache.platform(this.sourceKey(addr), addr.address, version, p);
      if (h) out.set(p, h);
    }
    return out;
  }

  /**
   * Learns what the origin registry can tell about a version without downloading: its signed
   * SHA256SUMS and, with `packages`, every platform's hashes (both kept in the cache).
   */
  async learn(addr: ProviderAddress, version: string, platform: string): Promise<void> {
    if (this.opts.source.kind !== 'registry') return;
    const t: MirrorTarget = { provider: addr.address, address: addr, version, platform };
    const probe = await this.probe(t);
    if (probe.meta && !probe.packages) await this.rememberSums(t, probe.meta);
  }

  private async gather(t: MirrorTarget): Promise<{ hashes: PlatformHashes; outcome: GatherOutcome }> {
    const s = this.opts.source;
    if (s.kind === 'fs-mirror') return { hashes: await this.fromFilesystem(s.dir, t), outcome: 'hashed' };
    const src = this.sourceKey(t.address);
    // An origin registry's entry needs the version's SHA256SUMS too: without it, no need to look further.
    const sums = s.kind === 'registry' ? await this.cachedSums(t) : undefined;
    const cached = (s.kind !== 'registry' || sums) && (sums?.packages?.[t.platform] ?? await this.opts.cache.platform(src, t.provider, t.version, t.platform));
    if (cached) return { hashes: cached, outcome: 'cached' };
    if (s.kind === 'net-mirror') return { hashes: await this.fromMirror(t, src), outcome: 'downloaded' };
    if (s.kind === 'oci-mirror') return { hashes: await this.fromOci(t, src), outcome: 'downloaded' };
    const probe = await this.probe(t);
    const known = probe.packages?.get(t.platform);
    if (known) return { hashes: known, outcome: 'packages' };
    if (probe.platform === t.platform && probe.error) throw probe.error;
    const meta = probe.platform === t.platform && probe.meta ? probe.meta : await this.requests(() => this.origin!.metadata(t, this.opts.signal));
    const hashes = await this.download(t, meta);
    await this.rememberSums(t, meta);
    this.store(src, t, t.platform, hashes);
    return { hashes, outcome: 'downloaded' };
  }

  /** Waits for the cache writes of this run (they never hold up the work itself). */
  async flush(): Promise<void> {
    while (this.writes.size) await Promise.all([...this.writes]);
  }

  private store(src: string, t: MirrorTarget, platform: string, hashes: PlatformHashes): void {
    this.later(this.opts.cache.storePlatform(src, t.provider, t.version, platform, hashes));
  }

  /** A cache write that nothing in this run waits for (flush() does, at the end). */
  private later(w: Promise<void>): void {
    this.writes.add(w);
    void w.finally(() => this.writes.delete(w));
  }

  private cachedSums(t: MirrorTarget): Promise<VersionSums | undefined> {
    const key = `${t.provider} ${t.version}`;
    let p = this.sumsReads.get(key);
    if (!p) {
      p = this.opts.cache.sums(this.sourceKey(t.address), t.provider, t.version);
      this.sumsReads.set(key, p);
    }
    return p;
  }

  /**
   * The download answer of the first platform asked for a version. With `packages`, checked against
   * the signed SHA256SUMS, it answers every platform: a contradiction fails the whole provider.
   */
  private probe(t: MirrorTarget): Promise<Probe> {
    const key = `${t.provider} ${t.version}`;
    let p = this.probes.get(key);
    if (!p) {
      // The origin's SHA256SUMS are signed: openpgp loads on a worker thread from the run's first
      // question to the registry, not on this thread when the first signature arrives (issue 32).
      // A run that needs nothing from the registry (all locked and cached) starts no worker.
      startSignatureWorker();
      p = (async (): Promise<Probe> => {
        let meta: ProviderPackageMeta;
        try {
          meta = await this.requests(() => this.origin!.metadata(t, this.opts.signal));
        } catch (error) {
          return { platform: t.platform, error };
        }
        if (!meta.packages) return { platform: t.platform, meta };
        const sums = await this.origin!.signedSums(meta, this.opts.signal, this.slots);
        const listed = checkSha256Sums(sums.document, meta.filename, meta.shasum);
        if (listed) throw new MirrorStepError('sha256sums', `${listed} (${shownUrl(meta.shasumsUrl)})`);
        const contradiction = checkPackages(sums.document, { ...meta, packages: meta.packages });
        if (contradiction) throw new MirrorStepError('packages', `the registry's answer for ${t.provider} ${t.version} is refused: ${contradiction} (${shownUrl(meta.shasumsUrl)})`);
        const packages = new Map<string, PlatformHashes>();
        for (const [platform, pkg] of Object.entries(meta.packages)) {
          const h1 = pkg.hashes.filter((h) => h.startsWith('h1:'));
          if (!h1.length) continue; // this platform's h1: comes from its archive
          packages.set(platform, { h1, zh: pkg.hashes.filter((h) => h.startsWith('zh:')), size: pkg.size, via: 'packages' });
        }
        this.storeSums(t, sums, packages); // one record for the whole answer
        return { platform: t.platform, meta, packages };
      })();
      this.probes.set(key, p);
    }
    return p;
  }

  private async download(t: MirrorTarget, meta: ProviderPackageMeta): Promise<PlatformHashes> {
    const dest = join(this.opts.tempDir, `${++this.files}.zip`);
    try {
      const res = await this.origin!.fetch(t, { meta, dest, maxBytes: this.opts.maxArchiveBytes, signal: this.opts.signal, slots: this.slots });
      this.count(res.hashes.size);
      const installed = await this.unpackedH1(dest, res.hashes.h1, meta.downloadUrl);
      const listed = meta.packages?.[t.platform]?.hashes.filter((h) => h.startsWith('h1:')) ?? [];
      return { h1: [...new Set([installed, ...listed])], zh: [res.hashes.zh], size: res.hashes.size, via: 'download' };
    } finally {
      await fs.rm(dest, { force: true });
    }
  }

  private async fromMirror(t: MirrorTarget, src: string): Promise<PlatformHashes> {
    const dest = join(this.opts.tempDir, `${++this.files}.zip`);
    try {
      const listed = (await this.requests(() => this.mirror!.archive(t, this.opts.signal))).hashes;
      const res = await this.mirror!.fetch(t, { dest, maxBytes: this.opts.maxArchiveBytes, signal: this.opts.signal, slots: this.slots });
      this.count(res.hashes.size);
      const installed = await this.unpackedH1(dest, res.hashes.h1, this.opts.source.kind === 'net-mirror' ? this.opts.source.url : '');
      // As `tofu providers lock -net-mirror`: the package's own h1:, plus the mirror's hashes it matched.
      const hashes: PlatformHashes = {
        h1: [...new Set([installed, ...(listed.includes(res.hashes.h1) ? [res.hashes.h1] : [])])],
        zh: listed.includes(res.hashes.zh) ? [res.hashes.zh] : [], size: res.hashes.size, via: 'mirror',
      };
      this.store(src, t, t.platform, hashes);
      return hashes;
    } finally {
      await fs.rm(dest, { force: true });
    }
  }

  /** As `tofu init` records a package from an oci_mirror: its h1: (unpacked) and zh: = the blob's sha256, which it checked. */
  private async fromOci(t: MirrorTarget, src: string): Promise<PlatformHashes> {
    const dest = join(this.opts.tempDir, `${++this.files}.zip`);
    try {
      const res = await this.oci!.fetch(t, { dest, maxBytes: this.opts.maxArchiveBytes, signal: this.opts.signal, slots: this.slots });
      this.count(res.hashes.size);
      const installed = await this.unpackedH1(dest, res.hashes.h1, this.oci!.label);
      const hashes: PlatformHashes = { h1: [installed], zh: [res.hashes.zh], size: res.hashes.size, via: 'oci-mirror' };
      this.store(src, t, t.platform, hashes);
      return hashes;
    } finally {
      await fs.rm(dest, { force: true });
    }
  }

  private async fromFilesystem(dir: string, t: MirrorTarget): Promise<PlatformHashes> {
    const found = await findFsMirrorPackage(dir, t.address, t.version, t.platform);
    if (!found) throw new MirrorStepError('metadata', `the filesystem mirror ${dir} has no ${t.platform} package of ${t.provider} ${t.version}`);
    try {
      return { h1: [await found.h1(this.opts.signal)], zh: [], size: found.size, via: 'fs-mirror' };
    } catch (err) {
      throw new MirrorStepError('archive', `${pathToFileURL(found.path).href} could not be hashed: ${(err as Error).message}`);
    }
  }

  private async unpackedH1(file: string, zipH1: string, url: string): Promise<string> {
    try {
      return await h1OfUnpackedZip(file, this.opts.signal, zipH1);
    } catch (err) {
      throw new MirrorStepError('archive', `archive ${shownUrl(url)} cannot be unpacked as tofu init would: ${(err as Error).message}`);
    }
  }

  private count(bytes: number): void {
    this.downloaded.archives++;
    this.downloaded.bytes += bytes;
  }

  private async rememberSums(t: MirrorTarget, meta: ProviderPackageMeta): Promise<void> {
    // Already verified by fetch(): the documents are held by the source, so this sends nothing.
    this.storeSums(t, await this.origin!.signedSums(meta, this.opts.signal));
  }

  private storeSums(t: MirrorTarget, sums: SignedSums, packages?: Map<string, PlatformHashes>): void {
    this.later(this.opts.cache.storeSums(this.sourceKey(t.address), t.provider, t.version, {
      document: sums.document, keyId: sums.keyId, ...(packages?.size ? { packages: Object.fromEntries(packages) } : {}),
    }));
  }
}
