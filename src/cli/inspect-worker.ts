// A helper thread of `inspect` (inspect-parallel.ts): renders chunks of the file list it is given,
// taken from the shared counter, and sends each to the main thread. dist/inspect-worker.js.
import { parentPort, workerData } from 'node:worker_threads';
import { InspectWorkerData, InspectWorkerMessage, renderChunks, warmUp } from './inspect-parallel';

const data = workerData as InspectWorkerData;
warmUp(data.targets);
renderChunks(data.targets, data.json, new Int32Array(data.counter), (chunk, files) => parentPort!.postMessage({ chunk, files } satisfies InspectWorkerMessage));
parentPort!.postMessage('done' satisfies InspectWorkerMessage);
