// Unpacking a module package archive (tar.gz, tar, zip) into a directory as tofu's installer
// would, with what a hostile archive must not get past: every path validated before anything is
// written, inflation as a capped stream, entry counts capped as they are read, and no link created.
import { once } from 'node:events';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pipeline as streamPipeline, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar';
import * as yauzl from 'yauzl';
import { inflateLimit, inflateLimitText, ZipCensus, ZipLimitError } from '../archives';
import { ModuleFetchError } from './fetch-error';

export type ArchiveKind = 'tar.gz' | 'zip' | 'tar';

/** Caps of one package: total extracted bytes and entries. */
export interface ExtractLimits { maxBytes: number; maxEntries: number }
type Limits = ExtractLimits;

/** A relative path inside an archive or a `//subdir`: no absolute paths, drive letters or `..`. */
export function safeRelativePath(p: string): string | undefined {
  if (p.includes('\0')) return undefined;
  const norm = p.replace(/\\/g, '/');
  if (norm.startsWith('/') || /^[A-Za-z]:/.test(norm)) return undefined;
  const parts = norm.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..')) return undefined;
  return parts.join('/');
}

/** Whether `p` is `root` or below it, as paths (links are not resolved: callers that need that use realpath). */
export function within(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The archive kind by its first bytes (gzip or zip magic), or undefined. */
export async function sniff(file: string): Promise<ArchiveKind | undefined> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    if (buf[0] === 0x1f && buf[1] === 0x8b) return 'tar.gz';
    if (buf.toString('latin1') === 'PK\x03\x04') return 'zip';
    return undefined;
  } finally {
    await fh.close();
  }
}

/*
 * Links. OpenTofu installs a module package with go-getter (v1.8.6, internal/getmodules/getter.go's
 * decompressors): its untar (decompress_tar.go) writes every entry that is not a directory with
 * copyReader, so a symbolic or hard link becomes an empty regular file (a link entry has no data);
 * its zip decompressor (decompress_zip.go) writes a link entry's data — the target's text — as a
 * regular file. The same here: no link is ever created, so nothing in a package can point outside
 * it, however its links chain (git checkouts get the same with core.symlinks=false, see git.ts).
 */
const LINK_TYPES = new Set(['SymbolicLink', 'Link']);
const TAR_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link',
  'ExtendedHeader', 'GlobalExtendedHeader', 'NextFileHasLongPath', 'NextFileHasLongLinkpath']);
/** Tar's own bytes per entry (header, a PAX header with a long name, padding) on top of the file data. */
const TAR_OVERHEAD_PER_ENTRY = 3 * 1024;

/** Paths of a package as its entries are listed: each must stay a directory or a file, and no path may go through a file. */
class PackagePaths {
  private readonly dirs = new Set<string>();
  /** Non-directories: true for a link (unpacked as an empty file) while the last entry there is one. */
  readonly files = new Map<string, boolean>();

  /** A problem with `rel` (an entry of this kind), or undefined. */
  add(rel: string, kind: 'dir' | 'file' | 'link', name: string, duplicatesAllowed: boolean): string | undefined {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (this.files.has(parent)) return `path ${JSON.stringify(name)} goes through ${this.files.get(parent) ? 'a symbolic link' : 'a file'}`;
      this.dirs.add(parent);
    }
    if (kind === 'dir') {
      if (this.files.has(rel)) return `path ${JSON.stringify(name)} is both a file and a directory`;
      this.dirs.add(rel);
      return undefined;
    }
    if (this.dirs.has(rel)) return `path ${JSON.stringify(name)} is both a file and a directory`;
    if (this.files.has(rel) && !duplicatesAllowed) return `duplicate entry ${JSON.stringify(name)}`;
    this.files.set(rel, kind === 'link');
    return undefined;
  }
}

/**
 * Feeds a tar (or tar.gz) file's tar stream to `sink` (a parser or an unpacker) and ends it: read
 * from disk, inflated by zlib as a stream (16 KiB pieces on the thread pool, with back-pressure —
 * never tar's own inflater, which inflates a whole read in memory), its running size held to the
 * cap and the ratio limit. Content compressed once more is refused (tar would inflate it again, in
 * memory). Reading stops at the archive's end-of-archive blocks, as Go's tar reader does for
 * tofu: whatever follows is never inflated (node-tar would keep it all in memory). `stopped()`
 * ends the read early with its error (a limit the sink's entries reached).
 */
async function feedTar(file: string, gzipped: boolean, archiveBytes: number, limits: Limits, refuse: (why: string) => Error,
  sink: tar.Parser, stopped: () => Error | undefined = () => undefined): Promise<void> {
  const limit = inflateLimit(limits.maxBytes, archiveBytes) + (limits.maxEntries + 2) * TAR_OVERHEAD_PER_ENTRY;
  let ended = false;
  sink.on('eof', () => { ended = true; });
  const closed = new Promise<void>((resolve, reject) => { sink.on('close', resolve); sink.on('error', reject); });
  closed.catch(() => undefined); // awaited below; an early throw must not leave it unhandled
  const source = createReadStream(file, { highWaterMark: 256 * 1024 });
  const inflated: Readable = gzipped ? streamPipeline(source, createGunzip(), () => undefined) : source;
  let seen = 0;
  try {
    for await (const chunk of inflated as AsyncIterable<Buffer>) {
      if (seen === 0 && chunk.length >= 4 && ((chunk[0] === 0x1f && chunk[1] === 0x8b) || chunk.readUInt32BE(0) === 0x28b52ffd)) {
        throw refuse('its content is compressed again');
      }
      seen += chunk.length;
      if (seen > limit) throw refuse(`it inflates to ${gzipped ? inflateLimitText(limits.maxBytes, archiveBytes) : `more than ${limit} bytes`}`);
      if (!sink.write(chunk)) await Promise.race([once(sink, 'drain'), closed]);
      const err = stopped();
      if (err) throw err;
      if (ended) break;
    }
  } finally {
    inflated.destroy();
    source.destroy();
  }
  sink.end();
  await closed;
  const err = stopped();
  if (err) throw err;
}

/**
 * Every tar entry is validated first (paths, types, sizes, counts — as the entries stream by,
 * nothing written); only then is the archive extracted, inflated again the same capped way.
 */
export async function extractTar(file: string, dest: string, url: string, limits: Limits, gzipped: boolean): Promise<void> {
  const archiveBytes = (await fs.stat(file)).size;
  const refuse = (why: string) => new ModuleFetchError(`refusing to extract the module package from ${url}: ${why}`, url);
  const byteLimit = inflateLimit(limits.maxBytes, archiveBytes);
  const problems: string[] = [];
  const paths = new PackagePaths();
  let total = 0, count = 0;
  let stop: Error | undefined;
  const parser = new tar.Parser({
    onReadEntry: (entry) => {
      entry.resume();
      if (stop) return;
      if (++count > limits.maxEntries) { stop = refuse(`more than ${limits.maxEntries} entries`); return; }
      total += entry.size ?? 0;
      if (total > byteLimit) { stop = refuse(`${inflateLimitText(limits.maxBytes, archiveBytes)} when extracted`); return; }
      const rel = safeRelativePath(entry.path);
      let problem: string | undefined;
      if (rel === undefined) problem = `unsafe path ${JSON.stringify(entry.path)}`;
      else if (!TAR_TYPES.has(entry.type)) problem = `entry ${JSON.stringify(entry.path)} has unsupported type ${entry.type}`;
      else if (rel !== '') problem = paths.add(rel, entry.type === 'Directory' ? 'dir' : LINK_TYPES.has(entry.type) ? 'link' : 'file', entry.path, true);
      if (problem && problems.push(problem) >= 3) stop = refuse(problems.join('; '));
    },
    // a damaged header ends the read (Go's tar reader, and so tofu, fails there too)
    onwarn: (code: string, message: string) => { if (code === 'TAR_ENTRY_INVALID') stop ??= refuse(`invalid tar data: ${message}`); },
  });
  try {
    await feedTar(file, gzipped, archiveBytes, limits, refuse, parser, () => stop);
  } catch (err) {
    throw err instanceof ModuleFetchError ? err : refuse(errorMessage(err));
  }
  if (problems.length) throw refuse(problems.join('; '));
  try {
    // mtimes are not kept (nobody reads them; setting them costs a call per file)
    await feedTar(file, gzipped, archiveBytes, limits, refuse,
      tar.x({ cwd: dest, strict: true, preservePaths: false, noChmod: true, noMtime: true, filter: (_p, e) => !('type' in e && LINK_TYPES.has(e.type)) }));
    for (const [rel, isLink] of paths.files) {
      if (!isLink) continue;
      await fs.mkdir(path.dirname(path.join(dest, rel)), { recursive: true });
      await fs.writeFile(path.join(dest, rel), '');
    }
  } catch (err) {
    throw err instanceof ModuleFetchError ? err : new ModuleFetchError(`cannot extract the module package from ${url}: ${errorMessage(err)}`, url);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Opens a zip lazily (one entry at a time, nothing kept) and calls `each` for every entry in turn. */
async function eachZipEntry(file: string, each: (e: yauzl.Entry, zip: yauzl.ZipFile) => Promise<void> | void): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z!))));
  try {
    for await (const e of zip.eachEntry()) await each(e, zip);
  } finally {
    zip.close();
  }
}

/**
 * Every zip entry is validated first, walking the central directory once with nothing kept per
 * entry but its name (the entry count capped as it is walked, overlapping or duplicated entries
 * refused, the declared sizes held to the cap and the ratio limit — yauzl holds each entry to its
 * declared size when inflating); then a second walk extracts them one at a time.
 */
export async function extractZip(file: string, dest: string, url: string, limits: Limits): Promise<void> {
  const archiveBytes = (await fs.stat(file)).size;
  const refuse = (why: string) => new ModuleFetchError(`refusing to extract the module package from ${url}: ${why}`, url);
  const problems: string[] = [];
  const paths = new PackagePaths();
  let census: ZipCensus | undefined;
  try {
    await eachZipEntry(file, (e, zip) => {
      census ??= new ZipCensus(zip.entryCount, { ...limits, archiveBytes });
      census.add(e);
      const rel = safeRelativePath(e.fileName);
      const problem = rel === undefined ? `unsafe path ${JSON.stringify(e.fileName)}`
        : rel === '' ? undefined : paths.add(rel, zipEntryIsDirectory(e) ? 'dir' : 'file', e.fileName, false);
      if (problem && problems.push(problem) >= 3) throw refuse(problems.join('; '));
    });
  } catch (err) {
    throw err instanceof ModuleFetchError ? err : refuse(err instanceof ZipLimitError ? `it ${err.message}` : errorMessage(err));
  }
  if (problems.length) throw refuse(problems.join('; '));
  try {
    await eachZipEntry(file, async (e, zip) => {
      const target = path.join(dest, safeRelativePath(e.fileName)!);
      if (!within(dest, target)) throw refuse(`unsafe path ${JSON.stringify(e.fileName)}`);
      if (zipEntryIsDirectory(e)) { await fs.mkdir(target, { recursive: true }); return; }
      // a symbolic link (mode 0120000) is written as what its data is: the target's text
      await fs.mkdir(path.dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(e), createWriteStream(target, { flags: 'wx' }));
    });
  } catch (err) {
    throw err instanceof ModuleFetchError ? err : new ModuleFetchError(`cannot extract the module package from ${url}: ${errorMessage(err)}`, url);
  }
}

function zipEntryIsDirectory(e: yauzl.Entry): boolean {
  return e.fileName.endsWith('/') || ((e.externalFileAttributes >>> 16) & 0o170000) === 0o040000;
}
