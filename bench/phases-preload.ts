// Preloaded (node -r) into a CLI process the mirror bench times: records, through undici's
// diagnostics channels (no change to the product), when the process made its first request, when
// its first and last archive downloads (.zip) were sent and finished, and at exit writes them with
// the process's CPU time to stderr after PHASES_MARK, as JSON. Times are ms since the process
// started (performance.timeOrigin), so Node's own start-up is inside the first figure.
import { subscribe } from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { PHASES_MARK } from './process-phases';
import type { ProcessPhases } from './process-phases';

if (isMainThread) {
  const phases: Partial<ProcessPhases> & { requests: number } = { preloadMs: performance.now(), requests: 0 };
  const isArchive = (req: unknown) => /\.zip(?:\?|$)/.test(String((req as { path?: string }).path ?? ''));
  subscribe('undici:request:create', (msg) => {
    const { request } = msg as { request: unknown };
    phases.requests++;
    phases.firstRequestMs ??= performance.now();
    if (isArchive(request)) phases.firstArchiveRequestMs ??= performance.now();
  });
  subscribe('undici:request:trailers', (msg) => {
    if (isArchive((msg as { request: unknown }).request)) phases.lastArchiveDoneMs = performance.now();
  });
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const all: ProcessPhases = { ...phases, preloadMs: phases.preloadMs!, exitMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 };
    try { writeSync(2, `${PHASES_MARK}${JSON.stringify(all)}\n`); } catch { /* stderr closed */ }
  });
}
