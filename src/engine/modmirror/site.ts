// The module site inside OUT (layout in paths.ts), on the output directory the provider mirror
// uses too (one lock, archive stamps, sweep of an interrupted run's temp files). Writes are
// ordered so that a crash at any point leaves a valid site: the archive is renamed into place
// complete, then `download` is written, then the version is added to `versions` — each JSON file
// atomically (temp + rename), `versions` updates serialized per module, and existing versions are
// kept (merge) — except one whose site copy turned out unusable and could not be replaced, which
// is taken off (withdraw). A version is listed only once its archive and `download` are in place.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { sha256File } from '../providerpkg/hash';
import { OutputDir, readJsonObject, writeJsonAtomic } from '../fstree/outdir';
import { safeHostname } from '../fstree/safe-paths';
import { unpackArchive } from '../modulepkg/fetch';
import { compareVersions, parseVersion } from '../versions/version';
import { indexPackage, PackageIndex } from './calls';
import { MODULES_DIR, siteLocation, subdirOfSiteLocation, VersionPaths } from './paths';

/** What the site remembers with an archive: the origin location's `//subdir` and the package's module calls. */
export interface ArchiveFacts {
  /** Undefined when neither the stamps nor `download` say it (the origin must be asked). */
  subdir?: string;
  index: PackageIndex;
}

export class ModuleSite {
  private constructor(readonly out: string, private readonly dir: OutputDir, private readonly work: string) {}

  /** Takes OUT's lock; `work` is a private scratch directory (for re-reading archives the stamps do not know). */
  static async open(out: string, work: string): Promise<ModuleSite> {
    return new ModuleSite(out, await OutputDir.open(out), work);
  }

  close(): Promise<void> { return this.dir.close(); }

  /**
   * The facts of the archive already in the site when it is intact, else undefined. Unchanged
   * since this tool wrote it (size + mtime): trusted as is; touched: its sha256 must still match;
   * unknown (stamps lost): it must unpack cleanly, and its module calls are read again.
   */
  async intact(p: VersionPaths, signal?: AbortSignal): Promise<ArchiveFacts | undefined> {
    const stamp = await this.dir.knownStamp(p.archive);
    if (stamp && isFacts(stamp.data)) return stamp.data;
    if (!(await fs.stat(p.archive).catch(() => undefined))?.isFile()) return undefined;
    await this.dir.sweep(p.moduleDir);
    const sha256 = (await sha256File(p.archive, signal)).sha256;
    const rec = this.dir.recorded(p.archive);
    let facts: ArchiveFacts | undefined;
    if (rec && isFacts(rec.data)) facts = rec.sha256 === sha256 ? rec.data : undefined;
    else facts = await this.reread(p);
    if (facts) await this.dir.remember(p.archive, sha256, facts);
    return facts;
  }

  private async reread(p: VersionPaths): Promise<ArchiveFacts | undefined> {
    const scratch = await fs.mkdtemp(join(this.work, 'reread-'));
    try {
      await unpackArchive(p.archive, scratch);
      const index = await indexPackage(scratch);
      const doc = await readJsonObject(p.downloadFile).catch(() => undefined);
      const subdir = subdirOfSiteLocation(doc?.location, p.archiveName.slice(0, -'.tar.gz'.length));
      return { index, ...(subdir === undefined ? {} : { subdir }) };
    } catch {
      return undefined; // not a readable package: fetched again
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  }

  /** A fresh temp path beside the archive (`.part`: swept by the next run if this one dies). */
  async tempArchive(p: VersionPaths): Promise<string> {
    await this.dir.prepareDir(p.moduleDir);
    return join(p.moduleDir, `.${p.archiveName}.${randomBytes(6).toString('hex')}.part`);
  }

  /** Moves a packed archive into place, remembers it, then writes `download` and lists the version. */
  async place(p: VersionPaths, version: string, temp: string, sha256: string, facts: ArchiveFacts & { subdir: string }): Promise<void> {
    await fs.rename(temp, p.archive);
    await this.dir.remember(p.archive, sha256, facts);
    await this.publish(p, version, facts.subdir);
  }

  /** The versions the site lists for the module of `p` (none when its `versions` is missing or not one). */
  async listed(p: VersionPaths): Promise<string[]> {
    const doc = await readJsonObject(p.versionsFile).catch(() => undefined);
    try { return doc ? versionList(doc, p.versionsFile).map((v) => v.version) : []; } catch { return []; }
  }

  /** Writes `download` and lists the version in `versions`, each only when it is not already right. */
  async publish(p: VersionPaths, version: string, subdir: string): Promise<void> {
    const location = siteLocation(version, subdir);
    await this.dir.prepareDir(p.versionDir);
    const current = await readJsonObject(p.downloadFile).catch(() => undefined);
    if (current?.location !== location || Object.keys(current).length !== 1) await writeJsonAtomic(p.downloadFile, { location });
    await this.dir.serial(p.moduleDir, async () => {
      await this.dir.prepareDir(p.moduleDir);
      const doc = (await readJsonObject(p.versionsFile)) ?? { modules: [{ versions: [] }] };
      const list = versionList(doc, p.versionsFile);
      if (list.some((v) => v.version === version)) return;
      list.push({ version });
      list.sort(byVersion);
      await writeJsonAtomic(p.versionsFile, doc);
    });
  }

  /**
   * Takes a version off the site (its copy is unusable and could not be replaced: a version that
   * failed is never listed). Unlisted first, so that a crash half-way still leaves a valid site,
   * then its `download`, then — when `archive` — the archive and its stamp. Whether anything of
   * the version was there.
   */
  async withdraw(p: VersionPaths, version: string, archive: boolean): Promise<boolean> {
    let found = false;
    await this.dir.serial(p.moduleDir, async () => {
      const doc = await readJsonObject(p.versionsFile);
      if (!doc) return;
      const list = versionList(doc, p.versionsFile);
      const i = list.findIndex((v) => v.version === version);
      if (i < 0) return;
      list.splice(i, 1);
      found = true;
      await writeJsonAtomic(p.versionsFile, doc); // possibly an empty list: still a valid answer
    });
    for (const f of [p.downloadFile, ...(archive ? [p.archive] : [])]) {
      if (await fs.rm(f).then(() => true, (err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return false; throw err; })) found = true;
    }
    await fs.rmdir(p.versionDir).catch(() => undefined); // only when empty
    if (archive) this.dir.forget(p.archive);
    return found;
  }

  /** The origin hosts the site serves (directory names under OUT/modules). */
  async hosts(): Promise<string[]> {
    const names = await fs.readdir(join(this.out, MODULES_DIR), { withFileTypes: true }).catch(() => []);
    return names.filter((d) => d.isDirectory() && isHostDir(d.name)).map((d) => d.name).sort();
  }
}

function isHostDir(name: string): boolean {
  try { return safeHostname(name) === name; } catch { return false; }
}

function isFacts(data: unknown): data is ArchiveFacts {
  const d = data as ArchiveFacts | undefined;
  return !!d && typeof d === 'object' && (d.subdir === undefined || typeof d.subdir === 'string')
    && !!d.index && typeof d.index.dirs === 'object' && d.index.dirs !== null;
}

/** The `versions` list of a versions document (an unexpected shape is an error: never dropped silently). */
function versionList(doc: Record<string, unknown>, file: string): Array<{ version: string }> {
  const modules = doc.modules;
  const list = Array.isArray(modules) && modules[0] && typeof modules[0] === 'object' ? (modules[0] as { versions?: unknown }).versions : undefined;
  if (!Array.isArray(list) || !list.every((v) => v && typeof v === 'object' && typeof (v as { version?: unknown }).version === 'string')) {
    throw new Error(`${file} is not a module versions document ({"modules":[{"versions":[{"version":…}]}]}); fix or remove it — existing entries are never dropped silently`);
  }
  return list as Array<{ version: string }>;
}

/** Oldest first by version precedence; anything unparseable after, in text order. */
function byVersion(a: { version: string }, b: { version: string }): number {
  const x = parseVersion(a.version, 'module');
  const y = parseVersion(b.version, 'module');
  if (typeof x !== 'string' && typeof y !== 'string') return compareVersions(x, y) || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0);
  if (typeof x !== 'string') return -1;
  if (typeof y !== 'string') return 1;
  return a.version < b.version ? -1 : a.version > b.version ? 1 : 0;
}
