// Preloaded (node -r) into the CLI process the lock bench times: records, through undici's
// diagnostics channels (no change to the product), when the process sent its first request and
// when its last answer ended, and writes them at exit with the process's CPU time (every thread)
// to stderr after LOCK_PHASES_MARK, as JSON. Times are ms since the process started
// (performance.timeOrigin): Node's own start-up is inside each.
import { subscribe } from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

export const LOCK_PHASES_MARK = '\n@bench-lock-phases ';

export interface LockPhases {
  /** This preload ran: Node's start-up is over, no bundle of the CLI is loaded yet. */
  preloadMs: number;
  firstRequestMs?: number;
  lastAnswerMs?: number;
  exitMs: number;
  requests: number;
  /** User + system CPU of the whole process (every thread). */
  cpuMs: number;
}

// Only where the bench asks (BENCH_LOCK_PHASES=1): importing this module for its types records nothing.
if (isMainThread && process.env.BENCH_LOCK_PHASES === '1') {
  const phases = { preloadMs: performance.now(), requests: 0 } as Partial<LockPhases> & { requests: number };
  subscribe('undici:request:create', () => {
    phases.requests++;
    phases.firstRequestMs ??= performance.now();
  });
  subscribe('undici:request:trailers', () => { phases.lastAnswerMs = performance.now(); });
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const all = { ...phases, exitMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 };
    try { writeSync(2, `${LOCK_PHASES_MARK}${JSON.stringify(all)}\n`); } catch { /* stderr closed */ }
  });
}
