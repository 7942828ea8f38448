// The output directory of a mirror run, shared by the provider mirror and the module mirror (they
// can write the same OUT): one lock file keeps any two runs apart; the stamps of the archives this
// tool verified (size + mtime + sha256, plus what the caller learned from the file) let an
// unchanged re-run skip re-reading them; updates to one key are serialized; temp files of an
// interrupted run are swept. A stale lock (dead pid on this machine) is taken over.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join, relative, sep } from 'node:path';
import { parseJsonBounded } from '../net/json-depth';

export const LOCK_NAME = '.tofu-registry-mirror.lock';
/** size + mtime + sha256 of archives this tool verified, so an unchanged re-run need not re-hash them. */
export const STATE_NAME = '.tofu-registry-mirror-state.json';

interface FileStamp { size: number; mtimeMs: number; sha256: string; data?: unknown }

export class MirrorLockedError extends Error {
  constructor(readonly lockFile: string, detail: string) {
    super(`${lockFile} is held by another mirror run (${detail}); wait for it to finish, or delete the lock file if it is stale`);
    this.name = 'MirrorLockedError';
  }
}

export class OutputDir {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly swept = new Map<string, Promise<void>>();
  private released = false;
  private state: Record<string, FileStamp> = {};
  private stateChanged = false;

  private constructor(readonly out: string, private readonly lockFile: string) {}

  /** Creates OUT if needed and takes its lock (throws MirrorLockedError when another run holds it). */
  static async open(out: string): Promise<OutputDir> {
    await fs.mkdir(out, { recursive: true });
    const lockFile = join(out, LOCK_NAME);
    const info = JSON.stringify({ pid: process.pid, host: osHostname(), started: new Date().toISOString() });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fs.writeFile(lockFile, info, { flag: 'wx' });
        const o = new OutputDir(out, lockFile);
        try {
          const st = JSON.parse(await fs.readFile(join(out, STATE_NAME), 'utf8'));
          if (st && typeof st === 'object' && !Array.isArray(st)) o.state = st;
        } catch { /* none yet, or unreadable: everything gets re-checked once */ }
        return o;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let holder: { pid?: number; host?: string } = {};
      try { holder = JSON.parse(await fs.readFile(lockFile, 'utf8')); } catch { /* half-written or gone: treat as stale */ }
      if (holder.host && holder.host !== osHostname()) throw new MirrorLockedError(lockFile, `pid ${holder.pid} on ${holder.host}`);
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new MirrorLockedError(lockFile, `pid ${holder.pid}`);
      }
      if (typeof holder.pid === 'number' && holder.pid === process.pid) throw new MirrorLockedError(lockFile, 'this process');
      await fs.rm(lockFile, { force: true }); // stale: its process is gone
    }
    throw new MirrorLockedError(lockFile, 'could not take the lock');
  }

  /** Waits for queued updates, saves the stamps and releases the lock. */
  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await Promise.allSettled([...this.queues.values()]);
    if (this.stateChanged) await writeJsonAtomic(join(this.out, STATE_NAME), this.state).catch(() => undefined);
    await fs.rm(this.lockFile, { force: true });
  }

  /** The sha256 (and the data remembered with it) of `path`, when its size and mtime are unchanged since. */
  async knownStamp(path: string): Promise<{ sha256: string; data?: unknown } | undefined> {
    const rec = this.state[relativeKey(this.out, path)];
    if (!rec) return undefined;
    const st = await fs.stat(path).catch(() => undefined);
    return st && st.isFile() && st.size === rec.size && st.mtimeMs === rec.mtimeMs ? { sha256: rec.sha256, data: rec.data } : undefined;
  }

  /** The recorded stamp of `path` whatever the file looks like now (to re-verify a touched file). */
  recorded(path: string): { sha256: string; data?: unknown } | undefined {
    const rec = this.state[relativeKey(this.out, path)];
    return rec && { sha256: rec.sha256, data: rec.data };
  }

  async knownSha256(path: string): Promise<string | undefined> {
    return (await this.knownStamp(path))?.sha256;
  }

  /** Records the verified sha256 of an archive in OUT (with its current size and mtime). */
  async remember(path: string, sha256: string, data?: unknown): Promise<void> {
    const st = await fs.stat(path).catch(() => undefined);
    if (!st) return;
    this.state[relativeKey(this.out, path)] = { size: st.size, mtimeMs: st.mtimeMs, sha256, ...(data === undefined ? {} : { data }) };
    this.stateChanged = true;
  }

  /** Drops the stamp of a file this run removed from OUT. */
  forget(path: string): void {
    if (delete this.state[relativeKey(this.out, path)]) this.stateChanged = true;
  }

  /** Runs `fn` after every earlier call with the same key (one writer per index file); other keys proceed in parallel. */
  serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.queues.set(key, next.catch(() => undefined));
    return next;
  }

  /**
   * Removes leftovers (`.part` downloads, `.tmp` JSON) of an interrupted run from a directory,
   * once per run. Every writer awaits this before it touches the directory, so the sweep never
   * races with this run's own temp files; the lock keeps other runs out.
   */
  sweep(dir: string): Promise<void> {
    let p = this.swept.get(dir);
    if (!p) {
      p = (async () => {
        let names: string[];
        try { names = await fs.readdir(dir); } catch { return; } // not created yet: nothing to sweep
        for (const f of names) {
          if (f.startsWith('.') && (f.endsWith('.part') || f.endsWith('.tmp'))) await fs.rm(join(dir, f), { force: true });
        }
      })();
      this.swept.set(dir, p);
    }
    return p;
  }

  /** mkdir -p, and once per run the sweep of that directory. */
  async prepareDir(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true });
    await this.sweep(dir);
  }
}

function relativeKey(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A JSON object from a file in OUT, undefined when the file does not exist; invalid JSON throws (never dropped silently). */
export async function readJsonObject(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const doc = parseJsonBounded(text);
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a JSON object');
    return doc as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${file} is not valid mirror JSON (${(err as Error).message}); fix or remove it — existing entries are never dropped silently`);
  }
}

/** Writes JSON via a temp file in the same directory, then rename: readers see old or new, never half. */
export async function writeJsonAtomic(file: string, data: unknown): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(data, null, 2) + '\n');
}

/**
 * Replaces `file` with `text` through a temp file in the same directory and a rename: readers (and
 * a process killed half-way) see the old content or the new, never a mix. `mode` applies to a new file.
 */
export async function writeFileAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  const tmp = join(file, '..', `.${file.split(/[\\/]/).pop()}.${randomBytes(6).toString('hex')}.tmp`);
  const current = await fs.stat(file).then((st) => st.mode & 0o777, () => mode);
  const fh = await fs.open(tmp, 'wx', current);
  try {
    // No fsync: rename is atomic for readers and against a killed process; a per-file fsync
    // serialized behind each provider's queue tripled the time of a parallel run on a busy disk.
    await fh.writeFile(text);
  } catch (err) {
    await fh.close();
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
