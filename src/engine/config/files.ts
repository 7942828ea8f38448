// OpenTofu's file rules: which files are configuration, `.tofu` over `.tf` (and `.tofu.json` over
// `.tf.json`) of the same base name in one directory, override files, and directory walking.
import { promises as fs, statSync, Stats } from 'node:fs';
import * as path from 'node:path';
import { entryPath, FS_CONCURRENCY, mapLimit, readText, TreeVisitor, walkTree, walkTreeSync, withOpenFile } from '../fstree';
import { ConfigFile } from './ast';
import { extractFile, FileSummary } from './extract';
import { parseJsonConfig } from './json';
import { parseHcl, ParseOptions } from './parser';

const EXTENSIONS = ['.tofu.json', '.tf.json', '.tofu', '.tf'];
const SKIP_DIRS = new Set(['.terraform', '.git', 'node_modules']);

/** The configuration extension of a file name ('.tf', '.tofu', '.tf.json', '.tofu.json') or null. */
export function configExtension(p: string): string | null {
  return extensionOfName(path.basename(p));
}

export function isConfigFileName(p: string): boolean {
  return isConfigEntryName(path.basename(p));
}

/** configExtension of a name without directories. */
function extensionOfName(name: string): string | null {
  for (const ext of EXTENSIONS) if (name.length > ext.length && name.endsWith(ext)) return ext;
  return null;
}

/**
 * isConfigFileName of a directory entry's name: a walk asks it of every entry, and basename
 * would only give the name back.
 */
function isConfigEntryName(name: string): boolean {
  // Editor backups / hidden files are ignored by OpenTofu too.
  if (name.startsWith('.') || name.startsWith('#') || name.endsWith('~')) return false;
  return extensionOfName(name) !== null;
}

/** `override.tf`, `foo_override.tf` (and the .tofu / .json variants). */
export function isOverrideFile(p: string): boolean {
  const ext = configExtension(p);
  if (!ext) return false;
  const stem = path.basename(p).slice(0, -ext.length);
  return stem === 'override' || stem.endsWith('_override');
}

export function isJsonConfigFile(p: string): boolean {
  const ext = configExtension(p);
  return ext === '.tf.json' || ext === '.tofu.json' || (ext === null && p.endsWith('.json'));
}

/** Parses by file name: JSON syntax for `.tf.json` / `.tofu.json`, native syntax otherwise. */
export function parseConfig(text: string, p: string, opts: ParseOptions = {}): ConfigFile {
  // The JSON syntax parser takes no scope: it always builds the whole tree.
  return isJsonConfigFile(p) ? parseJsonConfig(text) : parseHcl(text, opts);
}

/** The `.tofu` (`.tofu.json`) twin that takes precedence over a `.tf` (`.tf.json`) file, or null. */
export function tofuTwin(f: string): string | null {
  const ext = configExtension(f);
  if (ext === '.tf') return f.slice(0, -3) + '.tofu';
  if (ext === '.tf.json') return f.slice(0, -8) + '.tofu.json';
  return null;
}

/**
 * Applies `.tofu` precedence to file names of ONE directory: returns the files OpenTofu loads and
 * the ones it ignores because a `.tofu` (`.tofu.json`) twin exists.
 */
export function applyTofuPrecedence(files: string[]): { used: string[]; shadowed: string[] } {
  const present = new Set(files.map((f) => path.resolve(f)));
  const used: string[] = [];
  const shadowed: string[] = [];
  for (const f of files) {
    const twin = tofuTwin(f);
    if (twin && present.has(path.resolve(twin))) shadowed.push(f);
    else used.push(f);
  }
  return { used, shadowed };
}

export interface LoadedFile {
  path: string;
  text: string;
  file: ConfigFile;
  summary: FileSummary;
  /** An override file (merged over the others by OpenTofu). */
  override: boolean;
}

export async function loadFile(p: string): Promise<LoadedFile> {
  const text = await readText(p);
  const file = parseConfig(text, p);
  return { path: p, text, file, summary: extractFile(file, text), override: isOverrideFile(p) };
}

/**
 * The configuration files of one directory (not recursive), in name order, with `.tofu`
 * precedence applied. Override files are included and marked (`override: true`); callers that
 * merge configuration apply them after the others.
 */
export async function loadConfigDir(dir: string): Promise<{ files: LoadedFile[]; shadowed: string[] }> {
  const entries = await withOpenFile(() => fs.readdir(dir, { withFileTypes: true }));
  const names = entries.filter((e) => (e.isFile() || e.isSymbolicLink()) && isConfigFileName(e.name)).map((e) => path.join(dir, e.name)).sort();
  const { used, shadowed } = applyTofuPrecedence(names);
  const loaded = await mapLimit(used, FS_CONCURRENCY, async (p) => {
    try {
      return await loadFile(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EISDIR') return undefined; // a symbolic link to a directory
      throw err;
    }
  });
  return { files: loaded.filter((f): f is LoadedFile => f !== undefined), shadowed };
}

/**
 * Every configuration file under the given paths: files are taken as given, directories are
 * walked recursively (skipping .terraform/, .git/, node_modules/). Sorted, de-duplicated.
 * Rejects with an error naming the path when a path cannot be read.
 */
export async function findConfigFiles(paths: string[]): Promise<string[]> {
  const out = new Set<string>();
  await mapLimit(paths, FS_CONCURRENCY, async (p) => {
    let st;
    try {
      st = await fs.stat(p);
    } catch (err) {
      throw unreadablePath(p, err);
    }
    if (st.isDirectory()) await walkTree(p, configFileCollector(out));
    else out.add(p);
  });
  return [...out].sort();
}

/**
 * findConfigFiles for a process with nothing else to do meanwhile (the CLI's `inspect`): the same
 * files and errors, read synchronously (see fstree/walk-sync.ts for why that is faster there).
 */
export function findConfigFilesSync(paths: string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    let st: Stats;
    try {
      st = statSync(p);
    } catch (err) {
      throw unreadablePath(p, err);
    }
    if (st.isDirectory()) walkTreeSync(p, configFileCollector(out));
    else out.add(p);
  }
  return [...out].sort();
}

function unreadablePath(p: string, err: unknown): Error {
  return new Error(`cannot read ${p}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
}

/** Adds every configuration file of the walked tree to `out` (skipping .terraform/, .git/, node_modules/). */
function configFileCollector(out: Set<string>): TreeVisitor {
  return {
    directory(dir, entries, depth) {
      for (const e of entries) if (!e.isDirectory() && isConfigEntryName(e.name)) out.add(entryPath(dir, e.name, depth));
    },
    descend: (name) => !SKIP_DIRS.has(name),
    unreadable(dir, err) {
      throw new Error(`cannot read directory ${dir}: ${err.message}`);
    },
  };
}
