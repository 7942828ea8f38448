// The module calls a mirror follows: those of a configuration directory (override files merged as
// OpenTofu merges module blocks: an override's source / version replace the primary's), and an
// index of every directory of a fetched package, from which the calls `tofu init` would reach from
// one module directory (following local `./` `../` calls, never outside the package) are read.
import * as path from 'node:path';
import { extractFile } from '../config/extract';
import { applyTofuPrecedence, isConfigFileName, isOverrideFile, LoadedFile, loadConfigDir, parseConfig } from '../config/files';
import { FS_CONCURRENCY, mapLimit, readText, walkTree } from '../fstree';
import { globRegExp } from '../modulepkg/fetch';

export interface ModuleCallRecord {
  /** The module block's label. */
  name: string;
  /** The source when it is a literal string, else null. */
  source: string | null;
  /** The source as written (for messages about a source that is not a literal). */
  sourceText: string;
  /** The version constraint when it is a literal string, else null. */
  version: string | null;
  /** A `version` that is not a literal string, as written. */
  versionText?: string;
  /** File name (in the directory) and 1-based line of the block. */
  file: string;
  line: number;
}

/** Module calls of every configuration directory of a package, by directory relative to its root ('' = root). */
export interface PackageIndex {
  dirs: Record<string, ModuleCallRecord[]>;
}

/** The module calls of one configuration directory (not its subdirectories). */
export async function readModuleCalls(dir: string): Promise<ModuleCallRecord[]> {
  return callsOf((await loadConfigDir(dir)).files);
}

/** One directory's calls from its loaded files (override files merged last). */
function callsOf(files: Array<Pick<LoadedFile, 'path' | 'summary' | 'override'>>): ModuleCallRecord[] {
  const byName = new Map<string, ModuleCallRecord>();
  const ordered = [...files.filter((f) => !f.override), ...files.filter((f) => f.override)];
  for (const f of ordered) {
    for (const call of f.summary.modules) {
      const prev = byName.get(call.name);
      const record: ModuleCallRecord = {
        name: call.name,
        source: call.source?.literal ?? null,
        sourceText: call.source?.text ?? '',
        version: call.version?.literal ?? null,
        ...(call.version && call.version.literal === null ? { versionText: call.version.text } : {}),
        file: path.basename(f.path),
        line: call.range.start.line + 1,
      };
      if (!prev || !f.override) { byName.set(call.name, prev && !f.override ? prev : record); continue; }
      // configs.ModuleCall.merge: only what the override sets replaces the primary's
      if (call.source) Object.assign(prev, { source: record.source, sourceText: record.sourceText, file: record.file, line: record.line });
      if (call.version) {
        prev.version = record.version;
        if (record.versionText === undefined) delete prev.versionText;
        else prev.versionText = record.versionText;
      }
    }
  }
  return [...byName.values()];
}

/**
 * Whether a package file belongs in the index: a configuration file (by OpenTofu's naming rules)
 * in a directory findConfigDirs would visit (no hidden or node_modules directories, depth ≤ 12).
 */
export function indexedFile(name: string): boolean {
  const parts = name.split('/');
  return parts.length <= 13 && isConfigFileName(parts[parts.length - 1])
    && parts.slice(0, -1).every((p) => !p.startsWith('.') && p !== 'node_modules');
}

/** The index of a package from the contents of its indexed files (as packDirectory read them: no second read). */
export function indexFiles(files: Map<string, Buffer>): PackageIndex {
  return indexTexts(new Map([...files].map(([name, data]) => [name, data.toString('utf8')])));
}

function indexTexts(texts: Map<string, string>): PackageIndex {
  const byDir = new Map<string, string[]>();
  for (const name of texts.keys()) {
    if (!indexedFile(name)) continue;
    const dir = path.posix.dirname(name);
    const key = dir === '.' ? '' : dir;
    byDir.set(key, [...(byDir.get(key) ?? []), name]);
  }
  const dirs: PackageIndex['dirs'] = {};
  for (const [dir, names] of [...byDir].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const loaded = applyTofuPrecedence(names.sort()).used.map((name) => {
      const text = texts.get(name)!;
      return { path: name, summary: extractFile(parseConfig(text, name), text), override: isOverrideFile(name) };
    });
    dirs[dir] = callsOf(loaded);
  }
  return { dirs };
}

/**
 * The index of an unpacked package (an archive already in the site whose stamps are lost), the
 * same as indexFiles gives for it: one walk, then the indexed files read FS_CONCURRENCY at a time.
 */
export async function indexPackage(root: string): Promise<PackageIndex> {
  const names: string[] = [];
  await walkTree(root, {
    directory(dir, entries) {
      const rel = path.relative(root, dir).split(path.sep).join('/');
      for (const e of entries) {
        const name = rel ? `${rel}/${e.name}` : e.name;
        if (e.isFile() && indexedFile(name)) names.push(name); // regular files, as packDirectory hands them over
      }
    },
    descend: (name, depth) => depth <= 12 && !name.startsWith('.') && name !== 'node_modules', // as indexedFile
    unreadable() { /* nothing to index there */ },
  });
  const texts = await mapLimit(names, FS_CONCURRENCY, (name) => readText(path.join(root, name)));
  return indexTexts(new Map(names.map((name, i) => [name, texts[i]])));
}

export interface ReachedCall {
  /** Directory of the calling module, relative to the package root. */
  dir: string;
  call: ModuleCallRecord;
}

/**
 * The non-local calls tofu init would follow from the module in `start` (relative to the package
 * root): its own, and those of every local module reached through `./` / `../` sources. Local
 * paths that leave the package are returned in `escapes` (tofu init refuses them).
 */
export function reachableCalls(index: PackageIndex, start: string): { calls: ReachedCall[]; escapes: ReachedCall[] } {
  const calls: ReachedCall[] = [];
  const escapes: ReachedCall[] = [];
  const seen = new Set<string>();
  const queue = [normalizeDir(start)];
  while (queue.length) {
    const dir = queue.shift()!;
    if (seen.has(dir)) continue;
    seen.add(dir);
    for (const call of index.dirs[dir] ?? []) {
      const src = call.source;
      if (src !== null && (src.startsWith('./') || src.startsWith('../'))) {
        const target = path.posix.normalize(path.posix.join(dir || '.', src));
        if (target === '..' || target.startsWith('../')) escapes.push({ dir, call });
        else queue.push(normalizeDir(target));
      } else {
        calls.push({ dir, call });
      }
    }
  }
  return { calls, escapes };
}

/**
 * The index directory a `//subdir` names (glob patterns such as `*` matched against the indexed
 * directories, exactly one match as go-getter's SubdirGlob requires), or undefined.
 */
export function indexedDir(index: PackageIndex, subdir: string): string | undefined {
  const want = normalizeDir(subdir);
  if (!/[*?[]/.test(want)) return want in index.dirs ? want : undefined;
  const parts = want.split('/').map(globRegExp);
  const hits = Object.keys(index.dirs).filter((d) => {
    const segs = d === '' ? [] : d.split('/');
    return segs.length === parts.length && segs.every((s, i) => parts[i].test(s));
  });
  return hits.length === 1 ? hits[0] : undefined;
}

function normalizeDir(d: string): string {
  const n = path.posix.normalize(d.replace(/\\/g, '/') || '.');
  return n === '.' ? '' : n.replace(/\/$/, '');
}
