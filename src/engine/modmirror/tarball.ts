// Deterministic .tar.gz of a module package: the same files give the same bytes, whenever and
// wherever they were unpacked. Entries sorted by path; directories 0755; files 0644, or 0755 when
// any execute bit is set (git's normalisation); symbolic links kept when they stay inside the
// package, as text and as the kernel resolves them (fetched packages hold none: fetch.ts unpacks
// links as plain files, as tofu does); uid/gid 0, no user/group names, mtime 0; a PAX header only for names ustar cannot hold
// (its content is just the path). gzip level 9 with the header's OS byte fixed to Unix.
//
// A small writer rather than the `tar` dependency: node-tar takes modes, mtimes and the entry
// order from the file system (readdir order, stat modes), so normalising them would mean hooking
// into its internals; this writer is ~100 lines of ustar that `tar`, go-getter and node-tar read.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';

const SMALL_FILE = 1024 * 1024;

interface Entry { name: string; type: 'dir' | 'file' | 'symlink'; abs: string; link?: string }

export interface PackResult {
  sha256: string;
  bytes: number;
  entries: number;
}

export interface PackOptions {
  signal?: AbortSignal;
  /** Small files whose path (relative, `/`-separated) passes this are handed to `files` as read (one read serves both). */
  keep?: (name: string) => boolean;
  files?: Map<string, Buffer>;
}

/** Writes the package below `root` to `dest` (created or replaced); refuses links leaving the package. */
export async function packDirectory(root: string, dest: string, opts: PackOptions = {}): Promise<PackResult> {
  const entries = await collect(root);
  const sha = createHash('sha256');
  let bytes = 0;
  let first = true;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      // gzip's OS byte says where zlib was built; 3 (Unix) everywhere keeps the bytes identical.
      if (first && chunk.length >= 10) { chunk = Buffer.from(chunk); chunk[9] = 3; first = false; }
      sha.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  // The file is opened before the pipeline starts: a write stream opened lazily could still create
  // `dest` after a cancelled pipeline has rejected and the caller has removed its temp file.
  const out = await fs.open(dest, 'w');
  await pipeline(Readable.from(tarStream(entries, opts)), createGzip({ level: constants.Z_BEST_COMPRESSION }), tap,
    out.createWriteStream(), { signal: opts.signal });
  return { sha256: sha.digest('hex'), bytes, entries: entries.length };
}

/** The package's entries by name (types from the directory listing: files are opened once, when written). */
async function collect(root: string): Promise<Entry[]> {
  const out: Entry[] = [];
  const realRoot = await fs.realpath(root);
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const d of await fs.readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, d.name);
      const name = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        out.push({ name: `${name}/`, type: 'dir', abs });
        await walk(abs, name);
      } else if (d.isFile()) {
        out.push({ name, type: 'file', abs });
      } else if (d.isSymbolicLink()) {
        const link = (await fs.readlink(abs)).replace(/\\/g, '/');
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(name), link));
        if (path.posix.isAbsolute(link) || target === '..' || target.startsWith('../')) {
          throw new Error(`refusing to pack ${name}: its link target ${link} is outside the package`);
        }
        // "inside" as text is not enough: an earlier link in the target's path may lead out
        const real = await fs.realpath(abs).catch(() => undefined);
        const rel = real === undefined ? undefined : path.relative(realRoot, real);
        if (rel === undefined || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
          throw new Error(`refusing to pack ${name}: its link target ${link} ${real === undefined ? 'cannot be resolved' : 'resolves outside the package'}`);
        }
        out.push({ name, type: 'symlink', abs, link });
      } else {
        throw new Error(`refusing to pack ${name}: not a file, directory or symbolic link`);
      }
    }
  };
  await walk(root, '');
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function* tarStream(entries: Entry[], opts: PackOptions): AsyncGenerator<Buffer> {
  for (const e of entries) {
    const fh = e.type === 'file' ? await fs.open(e.abs, 'r') : undefined;
    try {
      const st = fh && (await fh.stat());
      const size = st?.size ?? 0;
      const mode = e.type === 'dir' ? 0o755 : e.type === 'symlink' ? 0o777 : st!.mode & 0o111 ? 0o755 : 0o644;
      const long: string[] = [];
      const split = splitName(e.name);
      if (!split) long.push(paxRecord('path', e.name));
      if (e.link !== undefined && Buffer.byteLength(e.link) > 100) long.push(paxRecord('linkpath', e.link));
      if (long.length) {
        const body = Buffer.from(long.join(''));
        yield header({ name: paxName(e.name), size: body.length, mode: 0o644, type: 'x' });
        yield body;
        yield padding(body.length);
      }
      const [prefix, name] = split ?? ['', truncate(e.name, 100)];
      const type = e.type === 'dir' ? '5' : e.type === 'symlink' ? '2' : '0';
      yield header({ name, prefix, size, mode, type, link: e.link && truncate(e.link, 100) });
      if (!fh) continue;
      let seen = 0;
      if (size <= SMALL_FILE) {
        // most files of a module are small: one read, which the index may use too
        const data = await fh.readFile();
        seen = data.length;
        if (opts.keep?.(e.name)) opts.files?.set(e.name, data);
        yield data;
      } else {
        for await (const chunk of fh.createReadStream({ autoClose: false })) {
          seen += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
      }
      if (seen !== size) throw new Error(`${e.name} changed while it was packed`);
      yield padding(size);
    } finally {
      await fh?.close();
    }
  }
  yield Buffer.alloc(1024); // two zero blocks end the archive
}

/** ustar's 100-byte name plus 155-byte prefix, split at a slash; undefined when it does not fit. */
function splitName(name: string): [string, string] | undefined {
  if (Buffer.byteLength(name) <= 100) return ['', name];
  for (let i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && rest && Buffer.byteLength(rest) <= 100) return [prefix, rest];
  }
  return undefined;
}

function truncate(s: string, bytes: number): string {
  let out = s;
  while (Buffer.byteLength(out) > bytes) out = out.slice(0, -1);
  return out;
}

function paxName(name: string): string {
  return `PaxHeaders/${truncate(name.replace(/\/$/, '').split('/').pop() ?? '', 80)}`;
}

/** "LEN key=value\n" where LEN counts the whole record, its own digits included. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(rest) + 1;
  while (String(len).length + Buffer.byteLength(rest) !== len) len++;
  return `${len}${rest}`;
}

function header(h: { name: string; prefix?: string; size: number; mode: number; type: string; link?: string }): Buffer {
  const b = Buffer.alloc(512);
  b.write(h.name, 0, 100, 'utf8');
  octal(b, 100, 8, h.mode);
  octal(b, 108, 8, 0); // uid
  octal(b, 116, 8, 0); // gid
  octal(b, 124, 12, h.size);
  octal(b, 136, 12, 0); // mtime
  b.fill(0x20, 148, 156); // checksum counts as spaces while it is computed
  b.write(h.type, 156, 1, 'latin1');
  if (h.link) b.write(h.link, 157, 100, 'utf8');
  b.write('ustar\0', 257, 6, 'latin1');
  b.write('00', 263, 2, 'latin1');
  octal(b, 329, 8, 0); // devmajor
  octal(b, 337, 8, 0); // devminor
  if (h.prefix) b.write(h.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of b) sum += byte;
  b.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return b;
}

function octal(b: Buffer, offset: number, width: number, n: number): void {
  b.write(`${n.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'latin1');
}

function padding(size: number): Buffer {
  return Buffer.alloc((512 - (size % 512)) % 512);
}
