// The output directory: the static-website layout `tofu providers mirror` writes
//   OUT/HOST/NAMESPACE/TYPE/index.json   {"versions":{"V":{}}}
//   OUT/HOST/NAMESPACE/TYPE/V.json       {"archives":{"os_arch":{"url":"terraform-provider-TYPE_V_OS_ARCH.zip","hashes":[…]}}}
// with the zips beside them. Existing versions/platforms are always kept (merge). Every JSON
// file is written atomically (temp + rename), archives are renamed into place only after
// verification, and the JSON is written after the archive it lists, so a crash at any point
// leaves a valid mirror. The lock, the archive stamps and the sweep of an interrupted run's temp
// files are the output directory's (fstree/outdir.ts), shared with the module mirror.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { hostnameToASCII } from '../addresses';
import { OutputDir, readJsonObject as readJson, writeJsonAtomic } from '../fstree/outdir';
import { archiveFilename, insideRoot, safeHostname, safeName, safePlatform, safeVersion } from '../fstree/safe-paths';
import type { ProviderAddress } from '../providersources/types';

export { LOCK_NAME, STATE_NAME, MirrorLockedError, writeJsonAtomic } from '../fstree/outdir';

export interface ArchiveEntry {
  url: string;
  hashes: string[];
}

export class MirrorOutput {
  private constructor(readonly out: string, private readonly dir: OutputDir) {}

  /** Creates OUT if needed and takes its lock (throws MirrorLockedError when another run holds it). */
  static async open(out: string): Promise<MirrorOutput> {
    return new MirrorOutput(out, await OutputDir.open(out));
  }

  close(): Promise<void> { return this.dir.close(); }

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
    await this.dir.prepareDir(dir);
    return join(dir, `.${name}.${randomBytes(6).toString('hex')}.part`);
  }

  /** The sha256 recorded for `path` when its size and mtime are unchanged since it was verified. */
  knownSha256(path: string): Promise<string | undefined> { return this.dir.knownSha256(path); }

  /** Records the verified sha256 of an archive in OUT (with its current size and mtime). */
  remember(path: string, sha256: string): Promise<void> { return this.dir.remember(path, sha256); }

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

  /** The versions index.json lists for a provider (none when it is missing or unreadable). */
  async listedVersions(a: ProviderAddress): Promise<string[]> {
    const doc = await readJson(insideRoot(this.providerDir(a), 'index.json')).catch(() => undefined);
    const versions = doc?.versions;
    return versions && typeof versions === 'object' ? Object.keys(versions) : [];
  }

  /**
   * Moves a verified temp archive into place and lists it in V.json and index.json (in that
   * order). Updates to one provider's files are serialized; other providers proceed in parallel.
   */
  async place(a: ProviderAddress, version: string, platform: string, tempFile: string | undefined, hashes: string[]): Promise<void> {
    safePlatform(platform);
    const { dir, name, path } = this.archivePath(a, version, platform);
    await this.dir.serial(dir, async () => {
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

  /** Removes an interrupted run's leftovers from a provider directory (once per run). */
  sweep(dir: string): Promise<void> { return this.dir.sweep(dir); }
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
