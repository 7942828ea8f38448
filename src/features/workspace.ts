// Workspace scans both adapters make: the configuration directories under the workspace folders
// (capped by tofuRegistry.maxConfigDirs, never silently), and the registry module sources already
// used there (for cheap source completion).
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { parseModuleSource } from '../engine/addresses';
import { mapLimit, readTextCapped } from '../engine/fstree';
import { ConfigDirScan, scanConfigDirs } from '../engine/mirror/requirements';
import type { FeatureLog } from './context';
import type { FeatureSettings } from './settings';

/** The configuration directories under `roots`; each warning (a walk cut short) goes to the log. */
export async function scanFeatureDirs(roots: readonly string[], s: Pick<FeatureSettings, 'maxConfigDirs'>,
  log: Pick<FeatureLog, 'warn'>): Promise<ConfigDirScan> {
  const scan = await scanConfigDirs(roots, { maxDirs: s.maxConfigDirs });
  for (const w of scan.warnings) log.warn(`workspace scan: ${w}`);
  return scan;
}

const SOURCE_RE = /^\s*source\s*=\s*"([^"\n]+)"/gm;

/** The `source = "…"` strings of one file's text (a cheap regular expression, no parse). */
export function sourceStrings(text: string): string[] {
  return [...text.matchAll(SOURCE_RE)].map((m) => m[1]);
}

/** Files scanned at most for source strings, and the largest one read (a generated or vendored .tf is skipped). */
export const MAX_SCAN_FILES = 500;
export const MAX_SCAN_FILE_BYTES = 512 * 1024;

/**
 * The `source` strings of the *.tf / *.tofu files of the configuration directories under `roots`
 * (at most 200 directories and MAX_SCAN_FILES files, each read once, capped), for KnownSources
 * where the editor has no file search of its own.
 */
export async function scanSourceStrings(roots: readonly string[], log: Pick<FeatureLog, 'warn'>): Promise<string[]> {
  const scan = await scanFeatureDirs(roots, { maxConfigDirs: 200 }, log);
  const files: string[] = [];
  await mapLimit(scan.dirs, 8, async (dir) => {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (/\.(?:tf|tofu)$/.test(name) && files.length < MAX_SCAN_FILES) files.push(path.join(dir, name));
    }
  });
  const out: string[] = [];
  await mapLimit(files, 8, async (f) => {
    const text = await readTextCapped(f, MAX_SCAN_FILE_BYTES).catch(() => undefined);
    if (text !== undefined) out.push(...sourceStrings(text));
  });
  return out;
}

const RESCAN_AFTER_MS = 60_000;

/**
 * Registry module sources the user already uses: the open documents' plus one bounded scan of the
 * workspace (`scan` lists the source strings of its files; the adapter knows how to find them).
 * The scan never runs before the first source completion (which waits for it); afterwards
 * answers come from the last scan at once while a stale one (older than a minute) is refreshed in
 * the background.
 */
export class KnownSources {
  private scanned: { at: number; sources: Set<string> } | undefined;
  private scanning: Promise<void> | undefined;

  constructor(private readonly scan: () => Promise<Iterable<string>>, private readonly log: Pick<FeatureLog, 'warn'>) {}

  async get(open: Iterable<string | null | undefined>): Promise<Set<string>> {
    const out = new Set<string>();
    const add = (s: string | null | undefined) => {
      if (!s) return;
      const p = parseModuleSource(s);
      if (p.kind !== 'registry') return;
      out.add(p.address);
      // namespaces/names already in use are offered as prefixes too
      const host = p.address === p.fullAddress ? `${p.host}/` : '';
      out.add(`${host}${p.namespace}/`);
    };
    for (const s of open) add(s);
    if (!this.scanned || Date.now() - this.scanned.at > RESCAN_AFTER_MS) {
      this.scanning ??= this.rescan().finally(() => { this.scanning = undefined; });
      if (!this.scanned) await this.scanning;
    }
    for (const s of this.scanned?.sources ?? []) add(s);
    return out;
  }

  private async rescan(): Promise<void> {
    const sources = new Set<string>();
    try {
      for (const s of await this.scan()) sources.add(s);
    } catch (err) {
      this.log.warn(`workspace scan for module sources failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.scanned = { at: Date.now(), sources };
  }
}
