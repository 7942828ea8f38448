// Streams an archive to a temp file while hashing it (sha256 → zh:, and the size), with a size
// cap, cancellation and a progress callback. The temp file is removed on any failure.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { shownUrl } from '../net/http-errors';
import { prestartHashing } from './hash';

export interface DownloadResponse {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/**
 * What the mirror needs from the engine's HTTP client (credential-free for archives). download()
 * rejects any status other than 200, so the response here is always a 200.
 */
export interface ArchiveDownloader {
  download(url: string, opts: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadResponse>;
}

export interface StreamedFile {
  sha256: string;
  size: number;
}

const WRITE_BATCH = 256 * 1024;

export class DownloadTooLargeError extends Error {}
/** The body ended before the announced Content-Length. */
export class DownloadTruncatedError extends Error {}

/** Runs `fn` when a slot is free (a limiter: fstree's Limiter, which this folder cannot import). */
export type TransferSlot = <R>(fn: () => Promise<R>) => Promise<R>;

/**
 * An answer that waited longer than this for its transfer slot is dropped and asked for again in
 * the slot: a server may close a connection it could not send on for a while (send and idle
 * timeouts of 20–60 s are common), and the waiting answer holds a connection and its buffers.
 */
export const REASK_AFTER_MS = 5_000;

export async function downloadToFile(http: ArchiveDownloader, url: string, dest: string, opts: {
  maxBytes: number;
  signal?: AbortSignal;
  onBytes?: (received: number, total?: number) => void;
  /**
   * The slot the body's transfer takes. The request is sent before it, so the answer's latency
   * passes while other transfers hold the slots: without it, every slot sat idle for one round
   * trip between two archives. Absent: request and transfer run at once.
   */
  transfer?: TransferSlot;
  /** How long an answer may wait for `transfer` before it is asked for again (default REASK_AFTER_MS). */
  reaskAfterMs?: number;
}): Promise<StreamedFile> {
  const hash = createHash('sha256');
  const shown = shownUrl(url);
  let size = 0;
  let total: number | undefined;
  // Opened before the request: nothing may be awaited between the response and reading its body
  // (an error of an unread body would have no listener).
  const file = await fs.open(dest, 'wx');
  try {
    try {
      const ask = async () => {
        const res = await http.download(url, { maxBytes: opts.maxBytes, signal: opts.signal });
        const lenHeader = res.headers['content-length'];
        total = typeof lenHeader === 'string' && /^\d+$/.test(lenHeader) ? Number(lenHeader) : undefined;
        if (total !== undefined && total > opts.maxBytes) {
          res.body.destroy();
          throw new DownloadTooLargeError(`${shown} is ${total} bytes, over the ${opts.maxBytes}-byte limit`);
        }
        return res;
      };
      let res = await ask();
      if (opts.transfer) {
        // The body waits unread (paused: TCP holds the server back) until a transfer slot is free;
        // an error meanwhile is kept for the read below instead of going unheard.
        const asked = performance.now();
        let early: unknown;
        const keep = (err: unknown) => { early ??= err; };
        res.body.on('error', keep);
        return await opts.transfer(async () => {
          if (early === undefined && performance.now() - asked <= (opts.reaskAfterMs ?? REASK_AFTER_MS)) return drain(res);
          res.body.off('error', keep);
          res.body.destroy();
          res = await ask();
          return drain(res);
        });
      }
      return await drain(res);
    } finally {
      await file.close();
    }
  } catch (err) {
    await fs.rm(dest, { force: true });
    if (!(err instanceof DownloadTruncatedError) && !opts.signal?.aborted && total !== undefined && size < total) {
      throw new DownloadTruncatedError(`${shown} ended after ${size} of ${total} bytes: ${withoutUrl((err as Error).message, [url, shown])}`);
    }
    throw err;
  }

  async function drain(res: DownloadResponse): Promise<StreamedFile> {
    if (total !== undefined) prestartHashing(total); // its h1: follows on a worker
    let lastReport = 0;
    // The body's chunks (TLS records, ~16 KiB) are hashed as they arrive and written in batches
    // of 256 KiB with one writev each: no stream stage, thread-pool round trip or syscall per chunk.
    let batch: Buffer[] = [];
    let batched = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > opts.maxBytes) throw new DownloadTooLargeError(`${shown} is over the ${opts.maxBytes}-byte limit`);
      hash.update(chunk);
      batch.push(chunk);
      batched += chunk.length;
      if (batched >= WRITE_BATCH) {
        await writeAll(file, batch);
        batch = [];
        batched = 0;
      }
      if (opts.onBytes && (size - lastReport > 256 * 1024)) { lastReport = size; opts.onBytes(size, total); }
    }
    await writeAll(file, batch);
    opts.signal?.throwIfAborted();
    opts.onBytes?.(size, total);
    if (total !== undefined && size !== total) throw new DownloadTruncatedError(`${shown} sent ${size} bytes, but announced ${total}`);
    return { sha256: hash.digest('hex'), size };
  }
}

/** Writes every byte of `chunks` at the file's position (writev may write less than asked). */
async function writeAll(file: FileHandle, chunks: Buffer[]): Promise<void> {
  let rest = chunks;
  while (rest.length) {
    const want = rest.reduce((n, c) => n + c.length, 0);
    let { bytesWritten } = await file.writev(rest);
    if (bytesWritten >= want) return;
    const left: Buffer[] = [];
    for (const c of rest) {
      if (bytesWritten >= c.length) { bytesWritten -= c.length; continue; }
      left.push(bytesWritten ? c.subarray(bytesWritten) : c);
      bytesWritten = 0;
    }
    rest = left;
  }
}

/**
 * An error message with the URL taken out ("response from URL was truncated: …" → "response was
 * truncated: …"), for messages that already start with the URL: it is said once.
 */
export function withoutUrl(message: string, urls: string[]): string {
  let out = message;
  for (const u of [...new Set(urls)].sort((a, b) => b.length - a.length)) {
    const re = u.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`\\s*\\(${re}\\)`, 'g'), '')
      .replace(new RegExp(`\\s+(?:from|to|for|of|at)\\s+${re}`, 'g'), '')
      .split(u).join('it');
  }
  return out.trim();
}
