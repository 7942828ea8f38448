// A keyed lookup with: single flight (concurrent callers share one promise), a memory cache with
// TTL, an optional on-disk copy (so a restarted editor answers at once), and brief caching of
// failures (never forever).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJsonBounded } from '../net/json-depth';
import { SharedFlight } from './flight';

export { SharedFlight } from './flight';

export interface CachedLookupOptions {
  /** Sub-directory of cacheDir for the disk copy; none → memory only. */
  diskDir?: string;
  ttlMs: number;
  /** How long a failure is remembered (default min(30 s, ttl)). */
  failureTtlMs?: number;
  /** Bumped when the stored shape changes. */
  version?: number;
  /**
   * Checks the shape of a value read from disk (a hand-edited file, one written by an older
   * version). An entry that fails it is ignored and removed, and the value is loaded again.
   */
  validate?: (value: unknown) => boolean;
}

interface Entry<T> { value?: T; error?: unknown; expires: number }

export class CachedLookup<T> {
  private readonly memory = new Map<string, Entry<T>>();
  private readonly inflight = new Map<string, SharedFlight<{ value: T; cached: boolean }>>();
  private generation = 0;

  constructor(private readonly opts: CachedLookupOptions) {}

  /** Memory hit without any async work (the hot path for editor features). */
  peek(key: string): T | undefined {
    const e = this.memory.get(key);
    return e && e.value !== undefined && e.expires > Date.now() ? e.value : undefined;
  }

  /**
   * The value of `key`: from memory, else from disk, else `load`ed (one load per key at a time,
   * shared by every caller). `signal` aborting stops this caller's wait at once (AbortError); the
   * load gets its own signal, aborted only when every caller waiting on it has stopped, and an
   * aborted load is remembered nowhere (the next get starts a fresh one).
   */
  async get(key: string, load: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<{ value: T; cached: boolean }> {
    const now = Date.now();
    const hit = this.memory.get(key);
    if (hit && hit.expires > now) {
      if (hit.error !== undefined) throw hit.error;
      return { value: hit.value as T, cached: true };
    }
    const running = this.inflight.get(key);
    if (running && !running.abandoned) return running.join(signal);
    const gen = this.generation;
    const flight: SharedFlight<{ value: T; cached: boolean }> = new SharedFlight(async (loadSignal) => {
      const fromDisk = await this.readDisk(key);
      if (fromDisk) {
        if (gen === this.generation) this.memory.set(key, { value: fromDisk.value, expires: fromDisk.expires });
        return { value: fromDisk.value, cached: true };
      }
      try {
        const value = await load(loadSignal);
        const expires = Date.now() + this.opts.ttlMs;
        if (gen === this.generation && this.opts.ttlMs > 0) {
          this.memory.set(key, { value, expires });
          await this.writeDisk(key, value, expires, gen);
        }
        return { value, cached: false };
      } catch (error) {
        // a cancelled load says nothing about the registry: not remembered as a failure
        const ttl = Math.min(this.opts.failureTtlMs ?? 30_000, this.opts.ttlMs);
        if (gen === this.generation && ttl > 0 && !loadSignal.aborted) this.memory.set(key, { error, expires: Date.now() + ttl });
        throw error;
      }
    });
    this.inflight.set(key, flight);
    const done = () => { if (this.inflight.get(key) === flight) this.inflight.delete(key); };
    flight.promise.then(done, done);
    return flight.join(signal);
  }

  /** Forget one key (memory and disk). */
  async invalidate(key: string): Promise<void> {
    this.memory.delete(key);
    const f = this.file(key);
    if (f) await rm(f, { force: true });
  }

  async clear(): Promise<void> {
    this.generation++;
    this.memory.clear();
    const dir = this.opts.diskDir;
    if (!dir) return;
    // A lookup started before the clear may be writing into the directory right now: a recursive
    // rm of it would then fail with ENOTEMPTY. Move it aside in one step (a write that lands
    // later recreates an empty directory, and drops its own file, see writeDisk), then remove it.
    const aside = `${dir}.cleared-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      await rename(dir, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
      return;
    }
    await rm(aside, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  }

  private file(key: string): string | undefined {
    if (!this.opts.diskDir) return undefined;
    return join(this.opts.diskDir, createHash('sha256').update(key).digest('hex').slice(0, 40) + '.json');
  }

  private async readDisk(key: string): Promise<{ value: T; expires: number } | undefined> {
    const f = this.file(key);
    if (!f) return undefined;
    let text: string;
    try {
      text = await readFile(f, 'utf8');
    } catch {
      return undefined; // none yet (or unreadable: the next write replaces it)
    }
    let doc: unknown;
    try { doc = parseJsonBounded(text); } catch { doc = undefined; }
    const d = doc as { key?: unknown; v?: unknown; expires?: unknown; value?: unknown } | undefined;
    const valid = !!d && typeof d === 'object' && !Array.isArray(d) && typeof d.key === 'string'
      && typeof d.v === 'number' && typeof d.expires === 'number' && d.value !== undefined && d.value !== null;
    if (!valid || (d.key === key && d.v === (this.opts.version ?? 1) && this.opts.validate && !this.opts.validate(d.value))) {
      await rm(f, { force: true }).catch(() => undefined);
      return undefined;
    }
    if (d.key !== key || d.v !== (this.opts.version ?? 1) || !((d.expires as number) > Date.now())) return undefined;
    // never trust a disk entry beyond the current TTL setting
    return { value: d.value as T, expires: Math.min(d.expires as number, Date.now() + this.opts.ttlMs) };
  }

  private async writeDisk(key: string, value: T, expires: number, gen: number): Promise<void> {
    const f = this.file(key);
    if (!f) return;
    try {
      // private: version lists of private registries are nobody else's business
      await mkdir(this.opts.diskDir!, { recursive: true, mode: 0o700 });
      const tmp = `${f}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(tmp, JSON.stringify({ key, v: this.opts.version ?? 1, expires, value }), { mode: 0o600 });
      await rename(tmp, f);
      // cleared meanwhile: this value belongs to the time before the clear
      if (gen !== this.generation) await rm(f, { force: true });
    } catch {
      // a read-only or full disk only costs us the warm start
    }
  }
}
