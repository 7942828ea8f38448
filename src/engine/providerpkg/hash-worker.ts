// Worker-thread entry of the hash pool (hash-pool.ts): runs hash-core.ts on one file per message.
// Built to dist/hash-worker.js for the bundles (scripts/build.mjs) and compiled beside hash-pool.js
// in out/. Errors travel back as messages; the thread itself never throws.
import { parentPort } from 'node:worker_threads';
import { h1OfZipHere, hashPackageHere, sha256FileHere } from './hash-core';
import type { HashTask } from './hash-pool';

async function run(task: HashTask): Promise<unknown> {
  switch (task.op) {
    // Synchronous reads: this thread has nothing else to do, and no thread-pool round trip per read.
    case 'sha256': return sha256FileHere(task.path, undefined, true);
    case 'h1': return h1OfZipHere(task.path, undefined, task.maxUncompressedBytes, true);
    case 'package': return hashPackageHere(task.path, undefined, true);
  }
}

parentPort?.postMessage({ ready: true });
parentPort?.on('message', (msg: { id: number; task: HashTask }) => {
  run(msg.task).then(
    (result) => parentPort!.postMessage({ id: msg.id, result }),
    (err: unknown) => parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
