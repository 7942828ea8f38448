// What machine a bench run measured, printed at the top of `npm run bench` (and usable by any
// suite): the figures of a run only mean something next to the CPU, the cores, the load and Node.
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
  memoryGb: number;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() || 'unknown CPU',
    cores: list.length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    memoryGb: totalmem() / 2 ** 30,
  };
}

/** "load average 3.21 / 2.10 / 1.05 (1, 5, 15 min) on 2 cores": what else the machine was doing. */
export function loadText(cores = cpus().length): string {
  const [a, b, c] = loadavg();
  return `load average ${a.toFixed(2)} / ${b.toFixed(2)} / ${c.toFixed(2)} (1, 5, 15 min) on ${cores} cores`;
}

/** The header lines of a bench run. */
export function machineHeader(m: Machine = machine()): string[] {
  return [
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb.toFixed(1)} GiB, ${m.platform}, Node ${m.node}`,
    `at start: ${loadText(m.cores)}`,
  ];
}

/**
 * Time this thread has spent waiting for a core, in ms (Linux: /proc/thread-self/schedstat, its
 * second field, the scheduler's run_delay; 0 elsewhere). On a machine shared with other work, a
 * run's wall time is its own time plus this wait: subtracting it gives the run's "ready time",
 * what the same run takes when a core is free whenever it is ready to run. Latency, I/O and the
 * CPU time itself (slowed by shared caches) all stay in it.
 */
export function runqueueWaitMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

/** What bench/ready-preload.ts writes to a child's stderr at exit, before the wait in ms. */
export const READY_MARK = '\n@bench-runqueue-wait-ms ';

export interface ReadyTimed<T> { value: T; wallMs: number; waitMs: number; readyMs: number }

/** Runs fn and measures its wall time and this thread's wait for a core meanwhile (see runqueueWaitMs). */
export async function readyTimed<T>(fn: () => T | Promise<T>): Promise<ReadyTimed<T>> {
  const w0 = runqueueWaitMs();
  const t0 = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t0;
  const waitMs = Math.max(0, Math.min(wallMs, runqueueWaitMs() - w0));
  return { value, wallMs, waitMs, readyMs: wallMs - waitMs };
}

/** The same, for synchronous work (per-call timings in a loop). */
export function readyTimedSync<T>(fn: () => T): ReadyTimed<T> {
  const w0 = runqueueWaitMs();
  const t0 = performance.now();
  const value = fn();
  const wallMs = performance.now() - t0;
  const waitMs = Math.max(0, Math.min(wallMs, runqueueWaitMs() - w0));
  return { value, wallMs, waitMs, readyMs: wallMs - waitMs };
}
