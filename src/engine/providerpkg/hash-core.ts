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
// Checksums. Go's archive/zip checks every entry it reads to the end against the CRC-32 the
// central directory records (checksumReader.Read), and `tofu` refuses a package where one differs
// ("zip: checksum error"): with a data descriptor (flag bit 3) the descriptor's CRC-32 and the
// content's must both equal it, zero or not; without one, the content's must, unless it is 0 ("not
// set"). A directory entry (name ending in "/") is never read, so never checked — and one that
// claims content is "not a valid zip file". Like Go, only the last entry of a name counts for h1:
// (the one dirhash.HashZip opens); go-getter's unpacking reads every file entry in turn, so
// unpackedZipLines checks them all. yauzl checks none of this itself: we compute the CRC-32 beside
// the sha256. Its cost is not nothing: zlib.crc32 runs at ≈ 4 GB/s against SHA-256's ≈ 1.6 GB/s
// (SHA-NI), so h1: of stored bytes takes ≈ 35–45 % more CPU; for deflated ones inflating dominates
// (≈ 4 %). See docs/performance.md.
//
// Hostile archives (a registry signs its own sums, so a signature proves nothing about the zip):
// the central directory is walked one entry at a time through archives/ZipCensus — at most
// MAX_PROVIDER_ENTRIES entries (checked against the end record before the first one is read),
// overlapping entries refused, declared sizes held to the cap and the ratio limit — and each entry
// is hashed as it is reached; nothing is kept per entry but its name and hash.
//
// This file is the implementation; hash.ts runs it on worker threads (hash-pool.ts), where files
// are read synchronously (no thread-pool round trip per read), or in the calling thread.
//
// Streaming: the zip is read through yauzl with lazy entries and each entry is piped through a
// sha256 (yauzl inflates with zlib's stream: 16 KiB pieces, back-pressure, each entry held to
// its declared size); nothing is held in memory but the entry names and their hashes. On a worker
// thread a stored entry (a provider binary often is) skips the stream: its bytes are read from the
// file synchronously into one buffer and hashed (hashRangeSync; h1: ≈ 15–20 % less CPU). While downloading, zh: and the
// size come from the bytes as they are written (see download.ts); h1: needs the central
// directory at the end of the file, so it is a second pass over the file on disk (page cache).
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { close, closeSync, createReadStream, fstat, fstatSync, open, openSync, read, readSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import * as yauzl from 'yauzl';
import { crc32, ZipCensus, ZipLimitError } from '../archives';

/** Total uncompressed size h1OfZip accepts (real provider packages are well under 1 GiB). */
export const MAX_UNCOMPRESSED_BYTES = 16 * 1024 ** 3;

/**
 * Entries a provider package may have. Real ones have one to five (the plugin binary, LICENSE,
 * README, CHANGELOG); 1024 leaves room for any packaging of docs or plugins, while the work a
 * hostile central directory can cause stays trivial (≈ 1 ms of walking, KBs of names).
 */
export const MAX_PROVIDER_ENTRIES = 1024;

/** Reads of 512 KiB: yauzl's own reader reads 16 KiB at a time, one after the other. */
const READ_CHUNK = 512 * 1024;

/**
 * sha256 (hex) and size of a file, streamed. `sync`: read synchronously into one reused buffer (for
 * a worker thread, which has nothing else to do meanwhile).
 */
export async function sha256FileHere(path: string, signal?: AbortSignal, sync = false): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  let size = 0;
  if (sync) {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let n; (n = readSync(fd, buf, 0, buf.length, size)) > 0; size += n) h.update(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    return { sha256: h.digest('hex'), size };
  }
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), new Writable({
    write(chunk: Buffer, _enc, cb) { h.update(chunk); size += chunk.length; cb(); },
  }), { signal });
  return { sha256: h.digest('hex'), size };
}

interface FileReader extends yauzl.RandomAccessReader {
  /** Reads are synchronous (a worker thread). */
  readonly sync: boolean;
  hashRangeSync(hash: Hash, start: number, length: number, signal?: AbortSignal): number;
  readUpTo(length: number, position: number): Promise<Buffer>;
}
type ReaderClass = new (fd: number, sync: boolean) => FileReader;

/** Reads of a stored entry's bytes on a worker thread (hashRangeSync). */
const SYNC_HASH_CHUNK = 1024 * 1024;
let readerClass: ReaderClass | undefined;

/**
 * yauzl's RandomAccessReader over a file descriptor, in READ_CHUNK reads, synchronous or not. Made
 * on first use: `yauzl` loads lazily in the bundles (activation must not load it).
 */
function fileReader(): ReaderClass {
  return (readerClass ??= class FileRangeReader extends yauzl.RandomAccessReader {
    private closed = false;
    constructor(private readonly fd: number, readonly sync: boolean) { super(); }

    override _readStreamForRange(start: number, end: number): Readable {
      let pos = start;
      const reader = this;
      return new Readable({
        highWaterMark: READ_CHUNK,
        read() {
          const n = Math.min(READ_CHUNK, end - pos);
          if (n <= 0) { this.push(null); return; }
          const buf = Buffer.allocUnsafe(n);
          reader.readAt(buf, 0, n, pos, (err, got) => {
            if (err) return this.destroy(err);
            if (got === 0) return this.destroy(new Error('unexpected end of file'));
            pos += got;
            this.push(got === n ? buf : buf.subarray(0, got));
          });
        },
      });
    }

    override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
      const more = (err: Error | null, got: number): void => {
        if (err) return callback(err);
        if (got === length) return callback(null);
        if (got === 0) return callback(new Error('unexpected end of file'));
        offset += got; position += got; length -= got;
        this.readAt(buffer, offset, length, position, more);
      };
      this.readAt(buffer, offset, length, position, more);
    }

    /**
     * Hashes bytes [start, start + length) with synchronous reads into one buffer: a stored entry's
     * bytes as they are, without a stream per entry (only in a synchronous reader: a worker thread).
     * Returns their CRC-32.
     */
    hashRangeSync(hash: Hash, start: number, length: number, signal?: AbortSignal): number {
      if (!this.sync) throw new Error('hashRangeSync needs a synchronous reader');
      const buf = Buffer.allocUnsafe(Math.min(SYNC_HASH_CHUNK, Math.max(1, length)));
      let crc = 0;
      for (let pos = start, end = start + length; pos < end;) {
        signal?.throwIfAborted();
        const got = readSync(this.fd, buf, 0, Math.min(buf.length, end - pos), pos);
        if (got === 0) throw new Error('unexpected end of file');
        const bytes = got === buf.length ? buf : buf.subarray(0, got);
        hash.update(bytes);
        crc = crc32(bytes, crc);
        pos += got;
      }
      return crc;
    }

    /** Up to `length` bytes at `position`: fewer when the file ends first. */
    async readUpTo(length: number, position: number): Promise<Buffer> {
      const buf = Buffer.alloc(length);
      let have = 0;
      while (have < length) {
        const got = await new Promise<number>((resolve, reject) =>
          this.readAt(buf, have, length - have, position + have, (err, n) => (err ? reject(err) : resolve(n))));
        if (got === 0) break;
        have += got;
      }
      return buf.subarray(0, have);
    }

    override close(callback: (err: Error | null) => void): void {
      if (this.closed) return callback(null);
      this.closed = true;
      if (this.sync) { try { closeSync(this.fd); callback(null); } catch (err) { callback(err as Error); } } else close(this.fd, (err) => callback(err));
    }

    private readAt(buf: Buffer, offset: number, length: number, position: number, cb: (err: Error | null, got: number) => void): void {
      if (!this.sync) return read(this.fd, buf, offset, length, position, (err, got) => cb(err, got));
      let got: number;
      try { got = readSync(this.fd, buf, offset, length, position); } catch (err) { return cb(err as Error, 0); }
      cb(null, got);
    }
  });
}

/** The zip at `path` through fileReader (the caller closes it), and the file's size. */
async function openZip(path: string, sync: boolean): Promise<{ zip: yauzl.ZipFile; size: number; reader: FileReader }> {
  const fd = sync ? openSync(path, 'r') : await promisify(open)(path, 'r');
  const reader = new (fileReader())(fd, sync);
  try {
    const size = sync ? fstatSync(fd).size : (await promisify(fstat)(fd)).size;
    return { zip: await yauzl.fromRandomAccessReaderPromise(reader, size, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true }), size, reader };
  } catch (err) {
    reader.close(() => undefined);
    throw err;
  }
}

/** Calls `each` for every entry of the zip in turn (the census checks each first); nothing is kept. */
async function walkZip(path: string, sync: boolean, maxUncompressedBytes: number, signal: AbortSignal | undefined,
  each: (entry: yauzl.Entry, index: number, zip: yauzl.ZipFile, reader: FileReader) => Promise<void> | void): Promise<void> {
  const { zip, size, reader } = await openZip(path, sync);
  try {
    const census = new ZipCensus(zip.entryCount, { maxEntries: MAX_PROVIDER_ENTRIES, maxBytes: maxUncompressedBytes, archiveBytes: size });
    let index = 0;
    for await (const entry of zip.eachEntry()) {
      signal?.throwIfAborted();
      census.add(entry);
      await each(entry, index++, zip, reader);
    }
  } catch (err) {
    throw err instanceof ZipLimitError ? new Error(`${path} ${err.message}; refusing to hash it`) : err;
  } finally {
    zip.close();
  }
}

/** `h1:` of a zip archive, per dirhash.HashZip + Hash1. Throws when the file is not a readable zip. */
export async function h1OfZipHere(path: string, signal?: AbortSignal, maxUncompressedBytes = MAX_UNCOMPRESSED_BYTES, sync = false): Promise<string> {
  const lines: Array<{ name: Buffer; hex: string }> = [];
  const last = new Map<string, Hashed>(); // name (latin1 = raw bytes) → the last entry with that name, hashed
  await walkZip(path, sync, maxUncompressedBytes, signal, async (entry, _index, zip, reader) => {
    // a private copy of the raw name: Go's file.Name is the raw bytes
    const name = Buffer.from(entry.fileNameRaw);
    if (name.includes(0x0a)) throw new Error(`dirhash: filenames with newlines are not supported (${path})`);
    last.set(name.toString('latin1'), await hashEntry({ path, zip, reader, signal }, entry));
    lines.push({ name, hex: '' });
  });
  // dirhash.HashZip: names in central-directory order, each opened through a map name -> last entry
  // with that name; Hash1 reads them in name order (latin1 strings compare as their bytes), so its
  // error is the first failed name's
  const failed = [...last].filter(([, h]) => h.error).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (failed.length) throw failed[0][1].error;
  for (const line of lines) line.hex = last.get(line.name.toString('latin1'))!.hex;
  return hash1(lines, path);
}

/**
 * The dirhash.HashDir lines of a zip unpacked as go-getter unpacks it (see h1OfUnpackedZip in
 * hash.ts), or 'plain' when unpacking changes nothing (no directory entries, no names it
 * normalises, no name twice): then they are the HashZip lines and h1OfZip is the answer. A first
 * walk reads the names only; a second one hashes, when the answer is not 'plain' — every file entry,
 * also one a later entry overwrites, since go-getter reads each (and Go checks its CRC-32).
 */
export async function unpackedZipLines(path: string, signal?: AbortSignal, maxUncompressedBytes = MAX_UNCOMPRESSED_BYTES): Promise<Array<{ name: Buffer; hex: string }> | 'plain'> {
  const written = new Map<string, number>(); // unpacked name (latin1 = raw bytes) → index of the last entry written there
  let plain = true;
  await walkZip(path, false, maxUncompressedBytes, signal, (entry, index) => {
    const raw = Buffer.from(entry.fileNameRaw).toString('latin1');
    const name = unpackedName(raw);
    if (name === undefined) throw new Error(`zip entry ${JSON.stringify(raw)} would be unpacked outside the package directory (${path})`);
    if (name === '' || raw.endsWith('/')) { plain = false; return; } // a directory: created, never hashed
    if (name !== raw || written.has(name)) plain = false;
    written.set(name, index);
  });
  if (plain) return 'plain';
  const lines: Array<{ name: Buffer; hex: string }> = [];
  await walkZip(path, false, maxUncompressedBytes, signal, async (entry, index, zip, reader) => {
    const raw = Buffer.from(entry.fileNameRaw).toString('latin1');
    const name = unpackedName(raw);
    if (!name || raw.endsWith('/')) return; // a directory: created, never read
    // go-getter reads (and Go checks) every file it writes, also one a later entry overwrites
    const { hex, error } = await hashEntry({ path, zip, reader, signal }, entry);
    if (error) throw error;
    if (written.get(name) === index) lines.push({ name: Buffer.from(name, 'latin1'), hex });
  });
  return lines;
}

/**
 * The files of a zip as go-getter unpacks it: names relative to the package directory, directories
 * left out, a name written twice listed once. Throws for an unreadable zip or an entry that would
 * be unpacked outside the package directory (what tofu init refuses too).
 */
export async function unpackedZipFiles(path: string, signal?: AbortSignal): Promise<string[]> {
  const files = new Set<string>();
  await walkZip(path, false, MAX_UNCOMPRESSED_BYTES, signal, (entry) => {
    const raw = Buffer.from(entry.fileNameRaw).toString('utf8');
    const name = unpackedName(raw);
    if (name === undefined) throw new Error(`zip entry ${JSON.stringify(raw)} would be unpacked outside the package directory (${path})`);
    if (name !== '' && !raw.endsWith('/')) files.add(name);
  });
  return [...files];
}

/** Where go-getter writes a zip entry, relative to the package directory; undefined for "..". */
function unpackedName(raw: string): string | undefined {
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  return parts.includes('..') ? undefined : parts.join('/');
}

/** dirhash.Hash1 over (name, sha256 hex) pairs: sorted by name bytes, "hex  name\n" each. */
export function hash1(lines: Array<{ name: Buffer; hex: string }>, where: string): string {
  const outer = createHash('sha256');
  for (const { name, hex } of lines.sort((a, b) => Buffer.compare(a.name, b.name))) {
    if (name.includes(0x0a)) throw new Error(`dirhash: filenames with newlines are not supported (${where})`);
    outer.update(`${hex}  `);
    outer.update(name);
    outer.update('\n');
  }
  return 'h1:' + outer.digest('base64');
}

/** One walk over one zip: where an entry's bytes are read from. */
interface Walk { path: string; zip: yauzl.ZipFile; reader: FileReader; signal?: AbortSignal }

/**
 * An entry's content hash (hex sha256), or the error Go's archive/zip gives for it once read to the
 * end (see "Checksums" above): the caller decides whether that entry is one Go reads.
 */
interface Hashed { hex: string; error?: Error }

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** General purpose flag bit 3: sizes and CRC-32 follow the data in a data descriptor. */
const FLAG_DATA_DESCRIPTOR = 0x8;
const DATA_DESCRIPTOR_SIGNATURE = 0x08074b50;

async function hashEntry(w: Walk, entry: yauzl.Entry): Promise<Hashed> {
  const raw = entry.fileNameRaw;
  if (raw[raw.length - 1] === 0x2f) {
    // a directory: Go checks its local header and reads nothing (zip.File.Open's dirReader)
    await w.zip.readLocalFileHeaderPromise(entry, { minimal: true });
    if (entry.uncompressedSize === 0) return { hex: EMPTY_SHA256 };
    return { hex: '', error: new Error(`${w.path}: zip entry ${shownName(entry)} is a directory with ${entry.uncompressedSize} bytes of content (zip: not a valid zip file)`) };
  }
  if (entry.isEncrypted()) throw new Error(`zip entry ${entry.fileNameRaw.toString('utf8')} is encrypted`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new Error(`zip entry ${entry.fileNameRaw.toString('utf8')} uses unsupported compression method ${entry.compressionMethod}`);
  }
  const h = createHash('sha256');
  let crc = 0;
  let dataStart: number | undefined;
  if (entry.compressionMethod === 0 && w.reader.sync) {
    // A stored entry on a worker: its bytes hashed straight from the file (yauzl has checked, as for
    // its stream, that both sizes agree and that the local header and data lie inside the file).
    dataStart = (await w.zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart;
    crc = w.reader.hashRangeSync(h, dataStart, entry.compressedSize, w.signal);
  } else {
    const stream = await w.zip.openReadStreamPromise(entry);
    await pipeline(stream, new Writable({ write(chunk: Buffer, _e, cb) { h.update(chunk); crc = crc32(chunk, crc); cb(); } }), { signal: w.signal });
  }
  const hex = h.digest('hex');
  const error = await checksumError(w, entry, crc, dataStart);
  return error ? { hex, error } : { hex };
}

/**
 * Go's check once an entry has been read to the end (archive/zip checksumReader.Read): the CRC-32
 * `actual` of its content against the central directory's, and the data descriptor's when flag
 * bit 3 says there is one (12 bytes after the data, 16 with its optional signature).
 */
async function checksumError(w: Walk, entry: yauzl.Entry, actual: number, dataStart?: number): Promise<Error | undefined> {
  const recorded = entry.crc32;
  const hex8 = (n: number) => n.toString(16).padStart(8, '0');
  const mismatch = (what: string) => new Error(`${w.path}: zip entry ${shownName(entry)}: CRC-32 mismatch (${what}; zip: checksum error)`);
  if (entry.generalPurposeBitFlag & FLAG_DATA_DESCRIPTOR) {
    dataStart ??= (await w.zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart;
    const d = await w.reader.readUpTo(16, dataStart + entry.compressedSize);
    const signed = d.length >= 4 && d.readUInt32LE(0) === DATA_DESCRIPTOR_SIGNATURE;
    if (d.length < (signed ? 16 : 12)) return new Error(`${w.path}: zip entry ${shownName(entry)}: its data descriptor is cut short by the end of the file (unexpected EOF)`);
    const described = d.readUInt32LE(signed ? 4 : 0);
    if (described !== recorded) return mismatch(`the data descriptor says ${hex8(described)}, the central directory ${hex8(recorded)}`);
  } else if (recorded === 0) {
    return undefined; // not set: Go does not check
  }
  return actual === recorded ? undefined : mismatch(`the content's is ${hex8(actual)}, the central directory says ${hex8(recorded)}`);
}

/** An entry's name in a message: quoted, control characters escaped. */
function shownName(entry: yauzl.Entry): string {
  return JSON.stringify(entry.fileNameRaw.toString('utf8'));
}

/** Both hashes of an archive, in this thread: zh: (whole file) and h1: (entries), read concurrently. */
export async function hashPackageHere(path: string, signal?: AbortSignal, sync = false): Promise<{ h1: string; zh: string; size: number }> {
  const [{ sha256, size }, h1] = await Promise.all([sha256FileHere(path, signal, sync), h1OfZipHere(path, signal, MAX_UNCOMPRESSED_BYTES, sync)]);
  return { h1, zh: 'zh:' + sha256, size };
}
