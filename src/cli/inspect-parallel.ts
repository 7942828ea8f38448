// `inspect` of a large tree on more than one core. Reading and parsing the files is all the work,
// each file alone: the main thread and up to MAX_HELPERS worker threads (inspect-worker.ts) take
// chunks of the sorted file list from one shared counter (so a helper that starts late, or a core
// that is busy elsewhere, simply takes fewer), each renders its chunks' files, and the main thread
// writes them in file order. Same output byte for byte as one thread: each file's text depends on
// that file alone. A helper that cannot start or fails leaves its chunks to the main thread.
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import type { Worker as WorkerType } from 'node:worker_threads';
import { humanFile, jsonFile, RenderedFile } from './inspect-render';
import { isJsonConfigFile, warmUpParser } from '../engine/config';

/** From this many files on, the parser is warmed up first (engine/config/warmup.ts): ≈ 1 ms that a long run earns back. */
export const WARM_UP_FILES = 100;
/** Below this many files one thread is faster: a helper costs ≈ 20–40 ms to start. */
export const PARALLEL_FILES = 400;
/** Files per chunk: small enough to balance the threads, large enough that the counter is rare. */
const CHUNK = 16;
/** Helper threads at most (each holds its own parser and heap: ≈ 30 MB). */
const MAX_HELPERS = 3;
/** At least this many files per thread, or fewer helpers. */
const FILES_PER_THREAD = 200;

export interface InspectTarget {
  shown: string;
  abs: string;
}

/** What a helper is given (workerData). */
export interface InspectWorkerData {
  targets: InspectTarget[];
  json: boolean;
  /** Int32Array[1] over it: the next chunk to take. */
  counter: SharedArrayBuffer;
}

/** A helper's message: one chunk rendered, or 'done' after its last. */
export type InspectWorkerMessage = { chunk: number; files: RenderedFile<string>[] } | 'done';

/** Renders targets[start, end). */
function renderChunk(targets: InspectTarget[], chunk: number, json: boolean): RenderedFile<string>[] {
  const out: RenderedFile<string>[] = [];
  const end = Math.min((chunk + 1) * CHUNK, targets.length);
  for (let i = chunk * CHUNK; i < end; i++) out.push(json ? jsonFile(targets[i].shown, targets[i].abs) : humanFile(targets[i].shown, targets[i].abs));
  return out;
}

/** Takes and renders chunks until none is left; `each` gets every rendered chunk. */
export function renderChunks(targets: InspectTarget[], json: boolean, counter: Int32Array, each: (chunk: number, files: RenderedFile<string>[]) => void): void {
  const chunks = Math.ceil(targets.length / CHUNK);
  for (let c = Atomics.add(counter, 0, 1); c < chunks; c = Atomics.add(counter, 0, 1)) each(c, renderChunk(targets, c, json));
}

/** The parser's first calls are its slowest: warmed up before a long run, on each thread. */
export function warmUp(targets: InspectTarget[]): void {
  if (targets.length >= WARM_UP_FILES) warmUpParser({ json: targets.some((t) => isJsonConfigFile(t.abs)), overview: true });
}

/** How many helper threads for `files` files on this machine (0: one thread). */
export function helpersFor(files: number, cores = availableParallelism()): number {
  if (files < PARALLEL_FILES) return 0;
  return Math.max(0, Math.min(cores - 1, MAX_HELPERS, Math.floor(files / FILES_PER_THREAD) - 1));
}

export interface RenderOptions {
  /** Helper threads (default: helpersFor the number of targets on this machine). */
  helpers?: number;
  /** The helpers' entry file (default: inspect-worker.js beside this module: dist/ when bundled). */
  workerFile?: string;
  /** false: this thread takes no chunk until the helpers are done (tests: what the helpers render). */
  mainThread?: boolean;
}

/**
 * Every target rendered, in the targets' order, on this thread alone or with helper threads; and
 * how many chunks the helpers rendered.
 */
export async function renderAll(targets: InspectTarget[], json: boolean, opts: RenderOptions = {}): Promise<{ files: RenderedFile<string>[]; helperChunks: number }> {
  const { helpers = helpersFor(targets.length), workerFile = path.join(__dirname, 'inspect-worker.js'), mainThread = true } = opts;
  const chunks = Math.ceil(targets.length / CHUNK);
  const results: (RenderedFile<string>[] | undefined)[] = new Array(chunks);
  const shared = new SharedArrayBuffer(4);
  const counter = new Int32Array(shared);
  const settled: Promise<void>[] = [];
  let helperChunks = 0;
  if (helpers > 0) {
    const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
    for (let i = 0; i < helpers; i++) {
      let worker: WorkerType;
      try {
        worker = new Worker(workerFile, { workerData: { targets, json, counter: shared } satisfies InspectWorkerData });
      } catch {
        break; // the main thread takes every chunk
      }
      settled.push(new Promise<void>((resolve) => {
        worker.on('message', (m: InspectWorkerMessage) => {
          if (m === 'done') resolve();
          else {
            results[m.chunk] = m.files;
            helperChunks++;
          }
        });
        // A helper that failed: the chunks it took and did not send are rendered below.
        worker.once('error', () => resolve());
        worker.once('exit', () => resolve());
      }));
    }
  }
  if (mainThread) {
    warmUp(targets);
    renderChunks(targets, json, counter, (c, files) => { results[c] = files; });
  }
  await Promise.all(settled);
  const files: RenderedFile<string>[] = [];
  for (let c = 0; c < chunks; c++) files.push(...(results[c] ?? renderChunk(targets, c, json)));
  return { files, helperChunks };
}
