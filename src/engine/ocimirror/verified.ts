// What a source vouched for about a package (its file name and zh: hash, from the signed SHA256SUMS
// or the source mirror's listing), kept in the CLI's disk cache like the lock engine's hashes: facts
// about a published release's immutable bytes. An unchanged `mirror --oci` re-run then compares the
// registry's digests with them without asking the origin again.
import { join } from 'node:path';
import { CachedLookup } from '../discovery/cache';
import type { ArchiveDescription } from '../providersources/sources';

const TTL_MS = 90 * 24 * 3600 * 1000;

interface Verified { filename: string; zh: string; size?: number }

function isVerified(v: unknown): v is Verified {
  const o = v as Partial<Verified> | null;
  return !!o && typeof o.filename === 'string' && typeof o.zh === 'string' && /^zh:[0-9a-f]{64}$/.test(o.zh)
    && (o.size === undefined || (Number.isSafeInteger(o.size) && o.size >= 0));
}

const NOT_KEPT = new Error('a description without a zh: hash is not kept');

export class VerifiedPackages {
  private readonly lookup: CachedLookup<Verified>;
  private readonly writes = new Set<Promise<void>>();

  constructor(cacheDir?: string) {
    this.lookup = new CachedLookup({ diskDir: cacheDir ? join(cacheDir, 'oci-mirror-verified') : undefined, ttlMs: TTL_MS, failureTtlMs: 0, validate: isVerified });
  }

  private key(parts: string[]): string {
    return JSON.stringify(['oci-verified/1', ...parts]);
  }

  /** After a download verified the package: its file name, zh: and size (replacing what was kept). */
  remember(key: string[], value: Verified): void {
    const k = this.key(key);
    const write = this.lookup.invalidate(k).then(() => this.lookup.get(k, async () => value)).then(() => undefined, () => undefined);
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Waits for what remember() writes. */
  async flush(): Promise<void> {
    while (this.writes.size) await Promise.all([...this.writes]);
  }

  /** The cached description for `key`, else `describe()` (kept when it has a zh: hash). */
  async get(key: string[], describe: () => Promise<ArchiveDescription>): Promise<ArchiveDescription> {
    let fresh: ArchiveDescription | undefined;
    try {
      return (await this.lookup.get(this.key(key), async () => {
        fresh = await describe();
        if (!fresh.zh) throw NOT_KEPT;
        return { filename: fresh.filename, zh: fresh.zh };
      })).value;
    } catch (err) {
      if (err === NOT_KEPT && fresh) return fresh;
      throw err;
    }
  }
}
