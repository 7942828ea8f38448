// The module package `publish-module` pushes: a zip of DIR exactly as `tofu init` unpacks it (the
// zip's root is the module's root, subdirectories are further modules), built deterministically so
// that the same files always give the same bytes — and so the same blob and manifest digests,
// and nothing to upload when nothing changed:
// - entries sorted by their `/`-separated path (byte order), directories as "dir/" entries;
// - fixed DOS time (1980-01-01 00:00), fixed modes (files 0644, or 0755 when any execute bit is
//   set — git's normalisation; directories 0755), "made by" Unix, UTF-8 names flagged;
// - no extra fields, no comments, no data descriptors; deflate level 9 (stored when empty).
// Never in it: `.git/` and `.terraform/` (any depth), state files (*.tfstate, *.tfstate.backup,
// .terraform.tfstate.lock.info, terraform.tfstate.d/), and what a `.gitignore` or
// `.terraformignore` in DIR excludes (gitignore rules, by the `ignore` package). A symbolic link
// is stored as the file it points to when that file is inside DIR; any other link is refused.
//
// A small writer rather than a zip library: the ones at hand add extended-timestamp extra fields
// or take times and modes from the file system (yazl 3, archiver), which is what must not vary.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { deflateRawSync, constants } from 'node:zlib';
import ignore from 'ignore';
import { crc32 } from '../archives';

/** A package larger than this (uncompressed) is refused: module packages are configuration. */
export const MAX_PACKAGE_BYTES = 256 * 1024 * 1024;
/** Without zip64 a zip holds at most 65,535 entries. */
const MAX_ENTRIES = 65_535;
const MAX_DEPTH = 64;

const ALWAYS_LEFT_OUT_DIRS = new Set(['.git', '.terraform', 'terraform.tfstate.d']);
const STATE_FILE = /(?:\.tfstate|\.tfstate\.backup|^\.terraform\.tfstate\.lock\.info)$/;

export interface PackageEntry { name: string; dir: boolean; abs: string; mode: number }

export interface ModulePackageZip {
  /** "sha256:…" of the zip: the layer's (blob's) digest. */
  digest: string;
  size: number;
  /** Entry names in the zip, in order. */
  entries: string[];
  /** Paths (relative, "/") left out by an ignore file or the fixed rules, directories once. */
  ignored: string[];
}

export class ModulePackageError extends Error {}

/** What goes into the package of `dir`, sorted: the fixed rules and DIR's ignore files applied. */
export async function packageEntries(dir: string): Promise<{ entries: PackageEntry[]; ignored: string[] }> {
  const root = path.resolve(dir);
  const rootReal = await fs.realpath(root);
  const ig = ignore();
  for (const name of ['.gitignore', '.terraformignore']) {
    const text = await fs.readFile(path.join(root, name), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    ig.add(text);
  }
  const entries: PackageEntry[] = [];
  const ignored: string[] = [];
  const walk = async (abs: string, rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) throw new ModulePackageError(`${abs}: directories nest more than ${MAX_DEPTH} deep`);
    const dirents = await fs.readdir(abs, { withFileTypes: true });
    for (const d of dirents) {
      const name = rel ? `${rel}/${d.name}` : d.name;
      const full = path.join(abs, d.name);
      let isDir = d.isDirectory();
      let isFile = d.isFile();
      if (d.isSymbolicLink()) {
        const target = await fs.realpath(full).catch(() => undefined);
        const inside = target !== undefined && (target === rootReal || target.startsWith(rootReal + path.sep));
        const st = target ? await fs.stat(target) : undefined;
        if (!inside || !st?.isFile()) throw new ModulePackageError(`${full} is a symbolic link ${inside ? 'to a directory' : 'leading outside the package'}; a module package holds only files and directories`);
        isFile = true;
        isDir = false;
      }
      if (!isDir && !isFile) continue; // sockets, fifos: nothing tofu reads
      const leftOut = (isDir && ALWAYS_LEFT_OUT_DIRS.has(d.name)) || (isFile && STATE_FILE.test(d.name)) || ig.ignores(isDir ? `${name}/` : name);
      if (leftOut) { ignored.push(isDir ? `${name}/` : name); continue; }
      if (isDir) {
        entries.push({ name: `${name}/`, dir: true, abs: full, mode: 0o755 });
        await walk(full, name, depth + 1);
      } else {
        const st = await fs.stat(full);
        entries.push({ name, dir: false, abs: full, mode: st.mode & 0o111 ? 0o755 : 0o644 });
      }
      if (entries.length > MAX_ENTRIES) throw new ModulePackageError(`${root} has more than ${MAX_ENTRIES} files and directories`);
    }
  };
  await walk(root, '', 0);
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  entries.sort((a, b) => byBytes(a.name, b.name));
  return { entries, ignored: ignored.sort(byBytes) };
}

/** Builds the package zip of `dir` at `dest` (replaced). Same files → same bytes. */
export async function buildModulePackage(dir: string, dest: string): Promise<ModulePackageZip> {
  const { entries, ignored } = await packageEntries(dir);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  let total = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = e.dir ? Buffer.alloc(0) : await fs.readFile(e.abs);
    total += data.length;
    if (total > MAX_PACKAGE_BYTES) throw new ModulePackageError(`${dir} holds more than ${MAX_PACKAGE_BYTES} bytes of files; a module package is limited to that`);
    const method = data.length ? 8 : 0;
    const payload = method ? deflateRawSync(data, { level: constants.Z_BEST_COMPRESSION }) : data;
    if (offset + payload.length > 0xfffffff0) throw new ModulePackageError(`the package of ${dir} would need zip64`);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate, directories)
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10); // 00:00:00
    local.writeUInt16LE(0x0021, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(payload.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // no extra field
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, 2.0: external attributes hold the mode
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt16LE(0, 12);
    cd.writeUInt16LE(0x0021, 14);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(payload.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    // extra length, comment length, disk number, internal attributes: 0
    cd.writeUInt32LE(((((e.dir ? 0o040000 : 0o100000) | e.mode) << 16) | (e.dir ? 0x10 : 0)) >>> 0, 38);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, name, payload);
    central.push(cd, name);
    offset += local.length + name.length + payload.length;
  }
  const cdBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  const zip = Buffer.concat([...parts, cdBytes, end]);
  await fs.writeFile(dest, zip);
  return { digest: `sha256:${createHash('sha256').update(zip).digest('hex')}`, size: zip.length, entries: entries.map((e) => e.name), ignored };
}
