// The output directory: the static-website layout `tofu providers mirror` writes
//   OUT/HOST/NAMESPACE/TYPE/index.json   {"versions":{"V":{}}}
//   OUT/HOST/NAMESPACE/TYPE/V.json       {"archives":{"os_arch":{"url":"terraform-provider-TYPE_V_OS_ARCH.zip","hashes":[…]}}}
// with the zips beside them. Existing versions/platforms are always kept (merge). Every JSON
// file is written atomically (temp + rename), archives are renamed into place only after
// verification, and the JSON is written after the archive it lists, so a crash at any point
// leaves a valid mirror. A lock file in OUT keeps two runs apart; a stale one (dead pid on this
// machine) is taken over.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join, relative, sep } from 'node:path';
import { hostnameToASCII } from '../addresses';
import { archiveFilename, insideRoot, safeHostname, safeName, safePlatform, safeVersion } from './paths';
import type { ProviderAddress } from './types';

export const LOCK_NAME = '.tofu-registry-mirror.lock';
/** size + mtime + sha256 of archives this tool verified, so an unchanged re-run need not re-hash them. */
export const STATE_NAME = '.tofu-registry-mirror-state.json';

interface FileStamp { size: number; mtimeMs: number; sha256: string }

export interface ArchiveEntry {
  url: string;
  hashes: string[];
}

export class MirrorLockedError extends Error {
  constructor(readonly lockFile: string, detail: string) {
    super(`${lockFile} is held by another mirror run (${detail}); wait for it to finish, or delete the lock file if it is stale`);
    this.name = 'MirrorLockedError';
  }
}

export class MirrorOutput {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly swept = new Map<string, Promise<void>>();
  private released = false;
  private state: Record<string, FileStamp> = {};
  private stateChanged = false;

  private constructor(readonly out: string, private readonly lockFile: string) {}

  /** Creates OUT if needed and takes its lock (throws MirrorLockedError when another run holds it). */
  static async open(out: string): Promise<MirrorOutput> {
    await fs.mkdir(out, { recursive: true });
    const lockFile = join(out, LOCK_NAME);
    const info = JSON.stringify({ pid: process.pid, host: osHostname(), started: new Date().toISOString() });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fs.writeFile(lockFile, info, { flag: 'wx' });
        const o = new MirrorOutput(out, lockFile);
        try {
          const st = JSON.parse(await fs.readFile(join(out, STATE_NAME), 'utf8'));
          if (st && typeof st === 'object' && !Array.isArray(st)) o.state = st;
        } catch { /* none yet, or unreadable: everything gets re-hashed once */ }
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

  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await Promise.allSettled([...this.queues.values()]);
    if (this.stateChanged) await writeJsonAtomic(join(this.out, STATE_NAME), this.state).catch(() => undefined);
    await fs.rm(this.lockFile, { force: true });
  }

  providerDir(a: ProviderAddress): string {
    return insideRoot(this.out, safeHostname(hostnameToASCII(a.host)), safeName('namespace', a.namespace), safeName('type', a.type));
  }

  /** Final path and file name of an archive. */
  archivePath(a: ProviderAddress, version: string, platform: string): { dir: string; name: string; path: string } {
    const dir = this.providerDir(a);
    const name = archiveFilename(a.type, version, platform);
    return { dir, name, path: insideRoot(dir, name) };
  }

  /** A fresh temp path beside the final one; `.part` files are removed by the next run. */
  async tempPath(a: ProviderAddress, name: string): Promise<string> {
    const dir = this.providerDir(a);
    await this.prepareDir(dir);
    return join(dir, `.${name}.${randomBytes(6).toString('hex')}.part`);
  }

  /** The sha256 recorded for `path` when its size and mtime are unchanged since it was verified. */
  async knownSha256(path: string): Promise<string | undefined> {
    const rec = this.state[relativeKey(this.out, path)];
    if (!rec) return undefined;
    const st = await fs.stat(path).catch(() => undefined);
    return st && st.isFile() && st.size === rec.size && st.mtimeMs === rec.mtimeMs ? rec.sha256 : undefined;
  }

  /** Records the verified sha256 of an archive in OUT (with its current size and mtime). */
  async remember(path: string, sha256: string): Promise<void> {
    const st = await fs.stat(path).catch(() => undefined);
    if (!st) return;
    this.state[relativeKey(this.out, path)] = { size: st.size, mtimeMs: st.mtimeMs, sha256 };
    this.stateChanged = true;
  }

  /** The archives V.json lists (empty when the file does not exist). Throws on invalid JSON. */
  async readArchives(a: ProviderAddress, version: string): Promise<Record<string, ArchiveEntry>> {
    const file = insideRoot(this.providerDir(a), `${safeVersion(version)}.json`);
    const doc = await readJson(file);
    const archives = doc?.archives;
    if (!archives || typeof archives !== 'object') return {};
    const out: Record<string, ArchiveEntry> = {};
    for (const [platform, v] of Object.entries(archives as Record<string, unknown>)) {
      const e = v as { url?: unknown; hashes?: unknown };
      if (e && typeof e.url === 'string') {
        out[platform] = { url: e.url, hashes: Array.isArray(e.hashes) ? e.hashes.filter((h): h is string => typeof h === 'string') : [] };
      }
    }
    return out;
  }

  /**
   * Moves a verified temp archive into place and lists it in V.json and index.json (in that
   * order). Updates to one provider's files are serialized; other providers proceed in parallel.
   */
  async place(a: ProviderAddress, version: string, platform: string, tempFile: string | undefined, hashes: string[]): Promise<void> {
    safePlatform(platform);
    const { dir, name, path } = this.archivePath(a, version, platform);
    await this.serial(dir, async () => {
      if (tempFile) await fs.rename(tempFile, path);
      const zh = hashes.find((h) => h.startsWith('zh:'));
      if (zh) await this.remember(path, zh.slice(3));
      const versionFile = insideRoot(dir, `${safeVersion(version)}.json`);
      const vdoc = (await readJson(versionFile)) ?? {};
      const archives = (vdoc.archives && typeof vdoc.archives === 'object' ? vdoc.archives : {}) as Record<string, unknown>;
      archives[platform] = { url: name, hashes };
      vdoc.archives = sortKeys(archives);
      await writeJsonAtomic(versionFile, vdoc);
      const indexFile = insideRoot(dir, 'index.json');
      const idoc = (await readJson(indexFile)) ?? {};
      const versions = (idoc.versions && typeof idoc.versions === 'object' ? idoc.versions : {}) as Record<string, unknown>;
      if (!versions[version]) {
        versions[version] = {};
        idoc.versions = sortKeys(versions);
        await writeJsonAtomic(indexFile, idoc);
      }
    });
  }

  private async serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.queues.set(key, next.catch(() => undefined));
    return next;
  }

  /** mkdir -p, and once per run remove leftovers of interrupted runs (see sweep). */
  private async prepareDir(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true });
    await this.sweep(dir);
  }

  /**
   * Removes leftovers (`.part` downloads, `.tmp` JSON) of an interrupted run from a provider
   * directory, once per run. Every target awaits this before it touches the directory, so the
   * sweep never races with this run's own temp files; the lock keeps other runs out.
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

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const doc = JSON.parse(text);
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

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
