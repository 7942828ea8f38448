// The disk cache of what locking learned: (source, provider, version, platform) → the hashes a lock
// file records for that package, and (source, provider, version) → the signed SHA256SUMS (with the
// registry's checked `packages`: the hashes of every platform from one answer, one record). Both are
// facts about immutable bytes (a zh: is the archive's sha256, an h1: is derived from its contents),
// so they live long (90 days); what can change is who vouches for them, so the key names the source:
// the origin registry (with any CLI-configuration `host` block that redirects it) or the network
// mirror URL. A filesystem mirror is never cached (local files are re-hashed every time).
// Entries are checked when read (CachedLookup's validate): a damaged file is ignored and removed.
import { join } from 'node:path';
import { isSupportedHash } from '../providerpkg/hash';
import { CachedLookup } from '../discovery/cache';

/** What a lock file records for one package (one provider version on one platform). */
export interface PlatformHashes {
  /** h1: hashes (as `tofu init` records them: of the unpacked package; `packages` may list more). */
  h1: string[];
  /** zh: hashes (the archive's sha256), when the source vouches for them. */
  zh: string[];
  /** Archive size in bytes (0 when unknown, e.g. an unpacked filesystem mirror). */
  size: number;
  /** How they were learned. */
  via: 'download' | 'packages' | 'mirror' | 'fs-mirror' | 'oci-mirror';
}

/** A provider version's SHA256SUMS, as served, after its signature verified. */
export interface VersionSums {
  document: string;
  /** The OpenPGP key that signed it. */
  keyId: string;
  /** The registry's `packages` (checked against the document): every platform's hashes in one record. */
  packages?: Record<string, PlatformHashes>;
}

const TTL_MS = 90 * 24 * 3600 * 1000;
const MISS = Symbol('not cached');

const isStrings = (v: unknown, ok: (s: string) => boolean) => Array.isArray(v) && v.every((x) => typeof x === 'string' && ok(x));

export function isPlatformHashes(v: unknown): v is PlatformHashes {
  const o = v as Partial<PlatformHashes> | null;
  return !!o && typeof o === 'object' && isStrings(o.h1, (h) => h.startsWith('h1:') && isSupportedHash(h)) && (o.h1 as string[]).length > 0
    && isStrings(o.zh, (h) => h.startsWith('zh:') && isSupportedHash(h)) && typeof o.size === 'number' && o.size >= 0
    && ['download', 'packages', 'mirror', 'fs-mirror', 'oci-mirror'].includes(o.via as string);
}

export function isVersionSums(v: unknown): v is VersionSums {
  const o = v as Partial<VersionSums> | null;
  return !!o && typeof o === 'object' && typeof o.keyId === 'string' && typeof o.document === 'string'
    && (o.packages === undefined || (!!o.packages && typeof o.packages === 'object' && Object.values(o.packages).every(isPlatformHashes)));
}

/** Reads and writes the two tables; memory only without a cache directory. */
export class LockHashCache {
  private readonly platforms: CachedLookup<PlatformHashes>;
  private readonly versions: CachedLookup<VersionSums>;

  constructor(cacheDir?: string) {
    const disk = (sub: string) => (cacheDir ? join(cacheDir, sub) : undefined);
    // failureTtlMs 0: a miss (read without a value) is never remembered.
    this.platforms = new CachedLookup({ diskDir: disk('provider-hashes'), ttlMs: TTL_MS, failureTtlMs: 0, validate: isPlatformHashes });
    this.versions = new CachedLookup({ diskDir: disk('provider-sums'), ttlMs: TTL_MS, failureTtlMs: 0, validate: isVersionSums });
  }

  platform(source: string, address: string, version: string, platform: string): Promise<PlatformHashes | undefined> {
    return read(this.platforms, key(source, address, version, platform));
  }

  /** Keeps the first answer for a key (both are true of the same bytes). */
  async storePlatform(source: string, address: string, version: string, platform: string, value: PlatformHashes): Promise<void> {
    await this.platforms.get(key(source, address, version, platform), async () => value).catch(() => undefined);
  }

  sums(source: string, address: string, version: string): Promise<VersionSums | undefined> {
    return read(this.versions, key(source, address, version, 'SHA256SUMS'));
  }

  async storeSums(source: string, address: string, version: string, value: VersionSums): Promise<void> {
    await this.versions.get(key(source, address, version, 'SHA256SUMS'), async () => value).catch(() => undefined);
  }
}

function key(...parts: string[]): string {
  return JSON.stringify(['lock-hashes/1', ...parts]);
}

async function read<T>(lookup: CachedLookup<T>, k: string): Promise<T | undefined> {
  try {
    return (await lookup.get(k, () => Promise.reject(MISS))).value;
  } catch (err) {
    if (err === MISS) return undefined;
    throw err;
  }
}

const caches = new WeakMap<object, LockHashCache>();

/** One cache per engine (in its cache directory), shared by the CLI run, the editor's hovers and commands. */
export function lockHashCacheFor(engine: { options: { cacheDir?: string } }): LockHashCache {
  let c = caches.get(engine);
  if (!c) {
    c = new LockHashCache(engine.options.cacheDir);
    caches.set(engine, c);
  }
  return c;
}
