// A small pool of worker threads for the CPU-heavy part of mirroring: h1: inflates and hashes every
// entry of a provider zip, zh: hashes the whole file. Work runs beside the downloads on other cores
// instead of blocking the thread that does the network I/O.
//
// The worker is hash-worker.js next to this module: dist/hash-worker.js beside the bundles
// (scripts/build.mjs), out/src/engine/providerpkg/hash-worker.js when compiled. Workers start on first
// use (as many as the cores but one, at most 4), keep the process alive only while they have a
// task, and are replaced after a crash or a cancelled task. When no worker can start (file
// missing, threads unavailable) the pool reports itself unavailable and hash.ts hashes in this
// thread instead.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export type HashTask =
  | { op: 'sha256'; path: string }
  | { op: 'h1'; path: string; maxUncompressedBytes?: number }
  | { op: 'package'; path: string };

/** The pool cannot run tasks (no worker could start): hash in this thread. */
export class HashPoolUnavailable extends Error {}

interface Pending {
  id: number;
  task: HashTask;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
  /** The worker's script loaded and said so (its first message). */
  ready: boolean;
  /** We stopped it (cancel, close): its exit is not a failure. */
  stopped?: boolean;
}

export interface HashPoolOptions {
  /** Most workers at once (default: the cores available but one, at least 1, at most 4). 0: never use workers. */
  size?: number;
  /** The worker entry file (default: hash-worker.js beside this module). */
  workerFile?: string;
}

export interface HashPoolStats {
  workers: number;
  /** Tasks answered by a worker. */
  completed: number;
  /** Whether the pool gave up on workers (they could not start). */
  unavailable: boolean;
}

export class HashPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private completed = 0;
  private unavailable = false;

  constructor(private readonly opts: HashPoolOptions = {}) {}

  get size(): number {
    // One core stays with the thread that downloads (TLS, disk writes), which feeds the workers.
    return this.opts.size ?? Math.max(1, Math.min(availableParallelism() - 1, 4));
  }

  stats(): HashPoolStats {
    return { workers: this.slots.length, completed: this.completed, unavailable: this.unavailable || this.size === 0 };
  }

  /** Runs a task on a worker. Rejects with HashPoolUnavailable when workers cannot be used. */
  run<T>(task: HashTask, signal?: AbortSignal): Promise<T> {
    if (this.unavailable || this.size === 0) return Promise.reject(new HashPoolUnavailable('hash workers are not available'));
    signal?.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { id: this.nextId++, task, resolve: resolve as (v: unknown) => void, reject, signal };
      if (signal) {
        p.onAbort = () => this.cancel(p);
        signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.queue.push(p);
      this.dispatch();
    });
  }

  /**
   * Starts the workers before their first task (idempotent): loading a worker's script takes tens
   * of ms of its own thread, which a caller that knows hashing will follow can take out of the way.
   */
  warm(): void {
    while (!this.unavailable && this.slots.length < this.size && this.spawn()) { /* spawned one */ }
  }

  /** Stops every worker (pending tasks are rejected). */
  async close(): Promise<void> {
    for (const p of this.queue.splice(0)) this.settle(p, new HashPoolUnavailable('the hash pool was closed'));
    await Promise.all(this.slots.splice(0).map((s) => {
      s.stopped = true;
      if (s.busy) this.settle(s.busy, new HashPoolUnavailable('the hash pool was closed'));
      return s.worker.terminate();
    }));
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const p = this.queue.shift()!;
      slot.busy = p;
      slot.worker.ref(); // a task in flight keeps the process alive
      slot.worker.postMessage({ id: p.id, task: p.task });
    }
  }

  private spawn(): Slot | undefined {
    let worker: Worker;
    try {
      // A small young generation: the worker's read buffers are collected often (its peak memory
      // counts in the mirror's RSS budget).
      worker = new Worker(this.opts.workerFile ?? join(__dirname, 'hash-worker.js'), { resourceLimits: { maxYoungGenerationSizeMb: 1 } });
    } catch {
      this.giveUp();
      return undefined;
    }
    const slot: Slot = { worker, ready: false };
    worker.unref();
    worker.on('message', (msg: { id?: number; ready?: true; result?: unknown; error?: string }) => {
      if (msg.ready) { slot.ready = true; return; }
      const p = slot.busy;
      if (!p || p.id !== msg.id) return;
      slot.busy = undefined;
      worker.unref();
      this.completed++;
      this.settle(p, msg.error !== undefined ? new Error(msg.error) : undefined, msg.result);
      this.dispatch();
    });
    const lost = () => {
      if (slot.stopped) return;
      slot.stopped = true;
      this.remove(slot);
      const p = slot.busy;
      slot.busy = undefined;
      // A worker whose script never loaded means workers cannot start here: hash in this thread from now on.
      if (!slot.ready) this.giveUp(p);
      else if (p) this.settle(p, new HashPoolUnavailable('the hash worker stopped'));
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.slots.push(slot);
    return slot;
  }

  private giveUp(also?: Pending): void {
    this.unavailable = true;
    const rejected = [...(also ? [also] : []), ...this.queue.splice(0)];
    for (const p of rejected) this.settle(p, new HashPoolUnavailable('hash workers could not start'));
  }

  private remove(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private cancel(p: Pending): void {
    const queued = this.queue.indexOf(p);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = this.slots.find((s) => s.busy === p);
    if (slot) {
      // Stop the work (it may be gigabytes of inflating); a new worker takes the next task.
      slot.busy = undefined;
      slot.stopped = true;
      this.remove(slot);
      void slot.worker.terminate();
    }
    this.settle(p, p.signal?.reason ?? new DOMException('The operation was aborted', 'AbortError'));
    this.dispatch();
  }

  private settle(p: Pending, error?: unknown, result?: unknown): void {
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    p.onAbort = undefined;
    if (error !== undefined) p.reject(error);
    else p.resolve(result);
  }
}
