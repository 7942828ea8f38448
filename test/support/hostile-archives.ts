// Hostile archives for the hostile-registry suite (test/unit/hostile/), made cheaply at test time:
// gzip bombs built from one deflated megabyte of zeros repeated (a valid stream, CRC and all, of
// gigabytes that takes a megabyte or so), zips whose central directory lists a million entries or
// entries that share their data, tar packages whose links chain out — and the CLI run as a child
// process with its peak RSS measured.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { BuiltRelease, PackageFiles, providerDefinition, signDetached, SigningIdentity } from './provider-packages';
import type { TestRegistry } from './registry-server';
import { tempDir } from './temp';

const MiB = 1024 * 1024;

// The shipped bundle when built (npm run build), else tsc's output of the same entry point.
const DIST_CLI = join(__dirname, '..', '..', '..', 'dist', 'cli.js');
export const CLI = existsSync(DIST_CLI) ? DIST_CLI : join(__dirname, '..', '..', 'src', 'cli.js');
const PRELOAD = join(__dirname, 'peak-rss-preload.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak RSS of the child in bytes (NaN when it died without reporting: a crash). */
  peakRss: number;
  ms: number;
}

/** Runs `tofu-registry ARGS` as a child process (HOME and TMPDIR private) and measures its peak RSS. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliRun> {
  const scratch = tempDir('hostile-cli-');
  const rssFile = join(scratch, 'peak-rss');
  const env = { PATH: process.env.PATH, HOME: scratch, TMPDIR: scratch, TOFU_TEST_PEAK_RSS_FILE: rssFile, ...opts.env };
  const started = Date.now();
  const child = spawn(process.execPath, ['--require', PRELOAD, CLI, ...args], { cwd: opts.cwd ?? scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  return new Promise((resolve) => child.on('close', (code, signal) => {
    clearTimeout(timer);
    const peakRss = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) : NaN;
    resolve({ code, signal, stdout, stderr, peakRss, ms: Date.now() - started });
  }));
}

/** "123 MB" for messages. */
export function mb(bytes: number): string {
  return `${Math.round(bytes / MiB)} MB`;
}

/** No stack trace, no crash report: what a user must never see. */
export function assertNoCrash(run: CliRun): string | undefined {
  if (run.signal) return `killed by ${run.signal}`;
  if (/^\s+at .+[(:]\d+/m.test(run.stderr + run.stdout) || /FATAL ERROR|Maximum call stack|heap out of memory/.test(run.stderr)) return `crashed:\n${run.stderr.slice(0, 2000)}`;
  return undefined;
}

/**
 * Writes a gzip file whose content is `head`, then `unit` `count` times, then `tail` — `unit`
 * deflated once and repeated, so gigabytes of a repetitive unit (zeros) cost about a megabyte and
 * a few hundred ms (mostly the CRC). Every piece is deflated on its own and flushed to a byte
 * boundary (no reference reaches before it), so the pieces concatenate into one valid stream.
 */
export async function writeGzipBomb(path: string, head: Buffer, unit: Buffer, count: number, tail: Buffer): Promise<number> {
  const flushed = (b: Buffer) => deflateRawSync(b, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const packed = flushed(unit);
  const out = createWriteStream(path);
  const write = (b: Buffer) => (out.write(b) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  let size = 0;
  const put = async (b: Buffer) => { size += b.length; await write(b); };
  await put(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
  let crc = crc32(head);
  await put(flushed(head));
  for (let i = 0; i < count; i++) {
    crc = crc32(unit, crc);
    await put(packed);
  }
  crc = crc32(tail, crc);
  await put(deflateRawSync(tail, { level: 9 })); // the final block
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((head.length + unit.length * count + tail.length) % 2 ** 32, 4);
  await put(trailer);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return size;
}

/** A gzip of `head`, `zeros` zero bytes (whole mebibytes) and `tail`: see writeGzipBomb. */
export function writeGzipOfZeros(path: string, head: Buffer, zeros: number, tail: Buffer): Promise<number> {
  if (zeros % MiB) throw new Error('zeros must be whole mebibytes');
  return writeGzipBomb(path, head, Buffer.alloc(MiB), zeros / MiB, tail);
}

/** A ustar header block (name, size, type '0' file / '5' directory / '2' symbolic link / 'L' GNU long name, link target). */
export function tarHeader(name: string, size: number, type: '0' | '2' | '5' | 'L' = '0', linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  const put = (offset: number, length: number, value: string) => h.write(value.slice(0, length), offset, length, 'utf8');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0') + '\0';
  put(0, 100, name);
  put(100, 8, octal(type === '5' ? 0o755 : 0o644, 8));
  put(108, 8, octal(0, 8));
  put(116, 8, octal(0, 8));
  put(124, 12, octal(size, 12));
  put(136, 12, octal(0, 12));
  put(148, 8, '        ');
  put(156, 1, type);
  put(157, 100, linkname);
  put(257, 6, 'ustar\0');
  put(263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  put(148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

export interface ZipDirectoryBomb {
  /** Central directory records to write. */
  entries: number;
  /** Every record points at the one local entry (offset 0): "duplicated" entries sharing their data. */
  shared?: boolean;
  /** Declared uncompressed size of the shared entry's data (deflated zeros), default 0 (an empty stored file). */
  sharedZeros?: number;
}

/**
 * A zip whose central directory lists `entries` records (zip64 end records past 65535), streamed
 * to disk: a million records take ≈ 54 MB and well under a second. With `shared`, every record
 * names the same local entry (whose data may be deflated zeros): what a hostile "duplicated
 * entries" or overlapping-entries zip does.
 */
export async function writeZipDirectoryBomb(path: string, spec: ZipDirectoryBomb): Promise<number> {
  const out = createWriteStream(path);
  let offset = 0;
  const write = (b: Buffer) => {
    offset += b.length;
    return out.write(b) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  };
  const zeros = spec.sharedZeros ?? 0;
  const data = zeros ? deflateRawSync(Buffer.alloc(zeros), { level: 9 }) : Buffer.alloc(0);
  const crc = zeros ? crc32(Buffer.alloc(zeros)) : 0;
  const method = zeros ? 8 : 0;
  const name0 = Buffer.from('p0000000');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(method, 8);
  local.writeUInt16LE(0x21, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(zeros, 22);
  local.writeUInt16LE(name0.length, 26);
  const localEntries = spec.shared ? 1 : spec.entries;
  const localSize = 30 + name0.length + data.length;
  for (let i = 0; i < localEntries; i++) {
    await write(local);
    await write(Buffer.from(`p${i.toString(16).padStart(7, '0')}`));
    await write(data);
  }
  const cdStart = offset;
  const batch = 4096;
  for (let i = 0; i < spec.entries; i += batch) {
    const n = Math.min(batch, spec.entries - i);
    const buf = Buffer.alloc(n * (46 + 8));
    for (let j = 0; j < n; j++) {
      const k = i + j;
      const r = j * 54;
      buf.writeUInt32LE(0x02014b50, r);
      buf.writeUInt16LE(0x031e, r + 4);
      buf.writeUInt16LE(20, r + 6);
      buf.writeUInt16LE(method, r + 10);
      buf.writeUInt16LE(0x21, r + 14);
      buf.writeUInt32LE(crc, r + 16);
      buf.writeUInt32LE(data.length, r + 20);
      buf.writeUInt32LE(zeros, r + 24);
      buf.writeUInt16LE(8, r + 28);
      buf.writeUInt32LE((0o100644 << 16) >>> 0, r + 38);
      buf.writeUInt32LE(spec.shared ? 0 : k * localSize, r + 42);
      buf.write(`p${k.toString(16).padStart(7, '0')}`, r + 46, 'latin1');
    }
    await write(buf);
  }
  const cdSize = offset - cdStart;
  const zip64 = spec.entries > 0xfffe;
  if (zip64) {
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE(45, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeBigUInt64LE(BigInt(spec.entries), 24);
    rec.writeBigUInt64LE(BigInt(spec.entries), 32);
    rec.writeBigUInt64LE(BigInt(cdSize), 40);
    rec.writeBigUInt64LE(BigInt(cdStart), 48);
    const recOffset = offset;
    await write(rec);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeBigUInt64LE(BigInt(recOffset), 8);
    loc.writeUInt32LE(1, 16);
    await write(loc);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(zip64 ? 0xffff : spec.entries, 8);
  eocd.writeUInt16LE(zip64 ? 0xffff : spec.entries, 10);
  eocd.writeUInt32LE(zip64 ? 0xffffffff : cdSize, 12);
  eocd.writeUInt32LE(zip64 ? 0xffffffff : cdStart, 16);
  await write(eocd);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return offset;
}

/**
 * Serves one provider version whose only package (for `platform`) is the zip at `zipPath`, with a
 * correctly signed SHA256SUMS (a hostile registry signs its own sums): the signature holds, the zip
 * is what is hostile.
 */
export async function serveHostileProvider(reg: TestRegistry, files: PackageFiles, key: SigningIdentity,
  spec: { namespace: string; type: string; version: string; platform: string; zipPath: string }): Promise<void> {
  const { namespace, type, version, platform, zipPath } = spec;
  const [os, arch] = platform.split('_');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(zipPath)) hash.update(chunk as Buffer);
  const sha256 = hash.digest('hex');
  const filename = `terraform-provider-${type}_${version}_${platform}.zip`;
  const shasumsName = `terraform-provider-${type}_${version}_SHA256SUMS`;
  const shasums = Buffer.from(`${sha256}  ${filename}\n`);
  const rel: BuiltRelease = {
    namespace, type, version, shasumsName, shasums, signature: await signDetached(shasums, key),
    packages: [{ namespace, type, version, os, arch, platform, filename, path: zipPath, sha256, size: statSync(zipPath).size }],
  };
  files.add(rel);
  reg.addProvider(providerDefinition(files, [rel], [key]));
}

/** A configuration directory requiring `source` at `version`. */
export function providerConfig(parent: string, name: string, source: string, version: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    p = {\n      source  = "${source}"\n      version = "${version}"\n    }\n  }\n}\n`);
  return dir;
}
