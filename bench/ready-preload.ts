// Preloaded (node -r) into a child process the bench times (bench/floors.ts, timedNode): at exit
// it writes how long the main thread waited for a core (machine.ts, runqueueWaitMs) to stderr, so
// the parent can take that wait off the process's wall time. Nothing else in the process changes.
import { writeSync } from 'node:fs';
import { READY_MARK, runqueueWaitMs } from './machine';

process.on('exit', () => {
  try { writeSync(2, `${READY_MARK}${runqueueWaitMs()}\n`); } catch { /* stderr closed: the parent reads no wait */ }
});
