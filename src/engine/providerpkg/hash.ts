// Provider package hashes exactly as OpenTofu computes them (hash-core.ts has the algorithms and
// why they are what they are). Large files are hashed on worker threads (hash-pool.ts) so that the
// mirror's downloads, TLS and disk writes keep the main thread; small ones, and everything when no
// worker can start, are hashed in this thread. Same results either way.
//
// TOFU_REGISTRY_HASH_WORKERS=N caps the workers (0: none); configureHashing() does the same in code.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { HashPool, HashPoolOptions, HashPoolStats, HashPoolUnavailable, HashTask } from './hash-pool';
import { h1OfZipHere, hash1, hashPackageHere, MAX_UNCOMPRESSED_BYTES, sha256FileHere, unpackedZipLines } from './hash-core';

export { MAX_UNCOMPRESSED_BYTES, unpackedZipFiles } from './hash-core';

/** `h1:` of a package without any entries (sha256 of the empty string, base64). */
export const EMPTY_H1 = 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';

export interface PackageHashes {
  h1: string;
  zh: string;
  /** Size of the archive in bytes. */
  size: number;
}

export interface HashingOptions extends HashPoolOptions {
  /** Files smaller than this are hashed in this thread (a message round trip costs more). Default 1 MiB. */
  minWorkerBytes?: number;
}

let settings: HashingOptions = {};
let pool: HashPool | undefined;

function envWorkers(): number | undefined {
  const v = process.env.TOFU_REGISTRY_HASH_WORKERS;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** Changes how hashing runs (worker count, worker file, size threshold); stops the current workers. */
export async function configureHashing(options: HashingOptions): Promise<void> {
  settings = { ...options };
  const old = pool;
  pool = undefined;
  await old?.close();
}

/** Workers started and tasks they answered (for tests and the benchmark). */
export function hashingStats(): HashPoolStats {
  return pool?.stats() ?? { workers: 0, completed: 0, unavailable: false };
}

/**
 * Starts the hash workers now when a file of `bytes` will be hashed on them: called when a large
 * download's answer arrives, so the workers have loaded by the time its bytes are on disk.
 */
export function prestartHashing(bytes: number): void {
  if (bytes < (settings.minWorkerBytes ?? 1 << 20)) return;
  pool ??= new HashPool({ size: settings.size ?? envWorkers(), workerFile: settings.workerFile });
  pool.warm();
}

/** Runs `task` on a worker when the file is large enough and workers are available, else here. */
async function offThread<T>(task: HashTask, here: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const size = await stat(task.path).then((s) => s.size, () => -1);
  if (size < (settings.minWorkerBytes ?? 1 << 20)) return here();
  pool ??= new HashPool({ size: settings.size ?? envWorkers(), workerFile: settings.workerFile });
  try {
    return await pool.run<T>(task, signal);
  } catch (err) {
    if (err instanceof HashPoolUnavailable) return here();
    throw err;
  }
}

/** sha256 (hex) and size of a file, streamed. */
export function sha256File(path: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }> {
  return offThread({ op: 'sha256', path }, () => sha256FileHere(path, signal), signal);
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
export function h1OfZip(path: string, signal?: AbortSignal, maxUncompressedBytes = MAX_UNCOMPRESSED_BYTES): Promise<string> {
  return offThread({ op: 'h1', path, maxUncompressedBytes }, () => h1OfZipHere(path, signal, maxUncompressedBytes), signal);
}

/** Both hashes of an archive on disk: zh: (whole file) and h1: (entries). */
export function hashPackage(path: string, signal?: AbortSignal): Promise<PackageHashes> {
  return offThread({ op: 'package', path }, () => hashPackageHere(path, signal), signal);
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
  const lines = await unpackedZipLines(path, signal, maxUncompressedBytes);
  return lines === 'plain' ? zipH1 ?? h1OfZip(path, signal, maxUncompressedBytes) : hash1(lines, path);
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

/** The hash schemes we can check; others (future schemes) are ignored, like OpenTofu does. */
export function isSupportedHash(h: string): boolean {
  return /^h1:[A-Za-z0-9+/]{43}=$/.test(h) || /^zh:[0-9a-f]{64}$/.test(h);
}

/** True when `actual` satisfies at least one supported hash in `allowed` (PackageMatchesAnyHash). */
export function matchesAnyHash(actual: { h1: string; zh: string }, allowed: readonly string[]): boolean {
  return allowed.some((h) => h === actual.h1 || h === actual.zh);
}
