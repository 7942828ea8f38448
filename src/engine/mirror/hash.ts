// Provider package hashes exactly as OpenTofu computes them (internal/getproviders/hash.go):
//
//   zh:  lowercase hex sha256 of the .zip file itself (PackageHashLegacyZipSHA).
//   h1:  Go's golang.org/x/mod/sumdb/dirhash Hash1 as applied by dirhash.HashZip to the archive
//        (PackageHashV1 on a PackageLocalArchive): sort the entry names (byte order, as Go's
//        sort.Strings), one line per entry `hex(sha256(content)) + "  " + name + "\n"`, then
//        "h1:" + base64(sha256(all lines)).
//
// Directory entries. dirhash.HashZip lists EVERY entry of the zip's central directory, so a
// directory entry such as "docs/" becomes a line with the sha256 of empty content
// (e3b0c442…b855). OpenTofu's unpacked-directory path (dirhash.HashDir) only walks regular
// files, so the same package unpacked hashes WITHOUT those lines. We follow HashZip — that is what
// `tofu providers mirror` writes for an archive and what `tofu init` checks an archive against —
// and `hashDirectoryEntries` in the tests pins this choice. Entry names are the raw bytes from
// the central directory (no CP437/UTF-8 re-decoding, no Info-ZIP unicode-path extra field),
// like Go's archive/zip. Duplicate names: Go keeps one map entry per name (the last one), so
// every occurrence hashes the content of the last entry with that name; we do the same.
//
// Streaming: the zip is read through yauzl with lazy entries and each entry is piped through a
// sha256; nothing is held in memory but the list of entry names. While downloading, zh: and the
// size come from the bytes as they are written (see download.ts); h1: needs the central
// directory at the end of the file, so it is a second pass over the file on disk (page cache).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import * as yauzl from 'yauzl';

/** `h1:` of a package without any entries (sha256 of the empty string, base64). */
export const EMPTY_H1 = 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';

/** Total uncompressed size h1OfZip accepts (real provider packages are well under 1 GiB). */
export const MAX_UNCOMPRESSED_BYTES = 16 * 1024 ** 3;

export interface PackageHashes {
  h1: string;
  zh: string;
  /** Size of the archive in bytes. */
  size: number;
}

/** sha256 (hex) and size of a file, streamed. */
export async function sha256File(path: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  let size = 0;
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), new Writable({
    write(chunk: Buffer, _enc, cb) { h.update(chunk); size += chunk.length; cb(); },
  }), { signal });
  return { sha256: h.digest('hex'), size };
}

/** `zh:` of an archive file. */
export async function zipHashOfFile(path: string, signal?: AbortSignal): Promise<string> {
  return 'zh:' + (await sha256File(path, signal)).sha256;
}

/** Turns a hex sha256 (as registries report it) into a `zh:` hash. */
export function zhFromSha256(hex: string): string {
  return 'zh:' + hex.toLowerCase();
}

/** `h1:` of a zip archive, per dirhash.HashZip + Hash1. Throws when the file is not a readable zip. */
export async function h1OfZip(path: string, signal?: AbortSignal, maxUncompressedBytes = MAX_UNCOMPRESSED_BYTES): Promise<string> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true });
  try {
    const entries: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      signal?.throwIfAborted();
      // yauzl holds every entry to its declared size (validateEntrySizes), so this bounds the
      // work of hashing a hostile archive (a "zip bomb" from an unverified source).
      declared += entry.uncompressedSize;
      if (declared > maxUncompressedBytes) throw new Error(`${path} unpacks to more than ${maxUncompressedBytes} bytes; refusing to hash it`);
      // Keep a private copy of the raw name: Go's file.Name is the raw bytes.
      (entry as { fileNameRaw: Buffer }).fileNameRaw = Buffer.from(entry.fileNameRaw);
      entries.push(entry);
    }
    // dirhash.HashZip: names in central-directory order, then map name -> last entry with that name.
    const byName = new Map<string, yauzl.Entry>();
    for (const e of entries) byName.set(e.fileNameRaw.toString('latin1'), e);
    const names = entries.map((e) => e.fileNameRaw).sort(Buffer.compare);
    const outer = createHash('sha256');
    const contentHashes = new Map<yauzl.Entry, string>();
    for (const name of names) {
      if (name.includes(0x0a)) throw new Error(`dirhash: filenames with newlines are not supported (${path})`);
      const entry = byName.get(name.toString('latin1'))!;
      let hex = contentHashes.get(entry);
      if (hex === undefined) {
        hex = await hashEntry(zip, entry, signal);
        contentHashes.set(entry, hex);
      }
      outer.update(hex + '  ');
      outer.update(name);
      outer.update('\n');
    }
    return 'h1:' + outer.digest('base64');
  } finally {
    zip.close();
  }
}

async function hashEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, signal?: AbortSignal): Promise<string> {
  if (entry.isEncrypted()) throw new Error(`zip entry ${entry.fileNameRaw.toString('utf8')} is encrypted`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new Error(`zip entry ${entry.fileNameRaw.toString('utf8')} uses unsupported compression method ${entry.compressionMethod}`);
  }
  const h = createHash('sha256');
  const stream = await zip.openReadStreamPromise(entry);
  await pipeline(stream, new Writable({ write(chunk: Buffer, _e, cb) { h.update(chunk); cb(); } }), { signal });
  return h.digest('hex');
}

/** Both hashes of an archive on disk: zh: (whole file) and h1: (entries). */
export async function hashPackage(path: string, signal?: AbortSignal): Promise<PackageHashes> {
  const [{ sha256, size }, h1] = await Promise.all([sha256File(path, signal), h1OfZip(path, signal)]);
  return { h1, zh: 'zh:' + sha256, size };
}

/** The hash schemes we can check; others (future schemes) are ignored, like OpenTofu does. */
export function isSupportedHash(h: string): boolean {
  return /^h1:[A-Za-z0-9+/]{43}=$/.test(h) || /^zh:[0-9a-f]{64}$/.test(h);
}

/** True when `actual` satisfies at least one supported hash in `allowed` (PackageMatchesAnyHash). */
export function matchesAnyHash(actual: { h1: string; zh: string }, allowed: readonly string[]): boolean {
  return allowed.some((h) => h === actual.h1 || h === actual.zh);
}

/**
 * `h1:` of a package as `tofu init` and `tofu providers lock` record it in the lock file: they
 * unpack the archive (go-getter's zip decompressor) and hash the directory (dirhash.HashDir), not
 * the archive (HashZip, what h1OfZip computes and what a mirror lists). The two differ only for a
 * zip with directory entries (no line in HashDir), names that unpacking normalises ("./a",
 * "a//b") or the same name twice (one file). Any other zip takes the h1OfZip path; pass its result
 * as `zipH1` when it is already known, so an ordinary package is hashed once.
 */
export async function h1OfUnpackedZip(path: string, signal?: AbortSignal, zipH1?: string, maxUncompressedBytes = MAX_UNCOMPRESSED_BYTES): Promise<string> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true });
  try {
    const files = new Map<string, yauzl.Entry>(); // unpacked name (latin1 = raw bytes) → last entry written there
    let plain = true;
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      signal?.throwIfAborted();
      declared += entry.uncompressedSize;
      if (declared > maxUncompressedBytes) throw new Error(`${path} unpacks to more than ${maxUncompressedBytes} bytes; refusing to hash it`);
      const raw = Buffer.from(entry.fileNameRaw).toString('latin1');
      const name = unpackedName(raw);
      if (name === undefined) throw new Error(`zip entry ${JSON.stringify(raw)} would be unpacked outside the package directory (${path})`);
      if (name === '' || raw.endsWith('/')) { plain = false; continue; } // a directory: created, never hashed
      if (name !== raw || files.has(name)) plain = false;
      files.set(name, entry);
    }
    if (plain) return zipH1 ?? await h1OfZip(path, signal, maxUncompressedBytes);
    const lines: Array<{ name: Buffer; hex: string }> = [];
    for (const [name, entry] of files) lines.push({ name: Buffer.from(name, 'latin1'), hex: await hashEntry(zip, entry, signal) });
    return hash1(lines, path);
  } finally {
    zip.close();
  }
}

/** Where go-getter writes a zip entry, relative to the package directory; undefined for "..". */
function unpackedName(raw: string): string | undefined {
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  return parts.includes('..') ? undefined : parts.join('/');
}

/**
 * `h1:` of an unpacked package directory (a filesystem mirror's HOST/NS/TYPE/VERSION/OS_ARCH/):
 * dirhash.HashDir — every file below it (symlinks read through), names relative with "/".
 */
export async function h1OfDirectory(dir: string, signal?: AbortSignal): Promise<string> {
  const lines: Array<{ name: Buffer; hex: string }> = [];
  const walk = async (rel: string): Promise<void> => {
    for (const e of await readdir(rel ? join(dir, rel) : dir, { withFileTypes: true })) {
      signal?.throwIfAborted();
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(name);
      else lines.push({ name: Buffer.from(name), hex: (await sha256File(join(dir, name), signal)).sha256 });
    }
  };
  await walk('');
  return hash1(lines, dir);
}

/** dirhash.Hash1 over (name, sha256 hex) pairs: sorted by name bytes, "hex  name\n" each. */
function hash1(lines: Array<{ name: Buffer; hex: string }>, where: string): string {
  const outer = createHash('sha256');
  for (const { name, hex } of lines.sort((a, b) => Buffer.compare(a.name, b.name))) {
    if (name.includes(0x0a)) throw new Error(`dirhash: filenames with newlines are not supported (${where})`);
    outer.update(`${hex}  `);
    outer.update(name);
    outer.update('\n');
  }
  return 'h1:' + outer.digest('base64');
}
