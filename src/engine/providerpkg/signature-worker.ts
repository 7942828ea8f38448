// Worker-thread entry of the signature checks (signature.ts, startSignatureWorker): loads openpgp
// as soon as the thread starts — on another core, while the thread that started it does the
// network — then verifies one detached signature per message with the same code as in-thread.
// Built to dist/signature-worker.js for the bundles (scripts/build.mjs) and compiled beside
// signature.js in out/. Errors travel back as messages; the thread itself never throws.
import { parentPort } from 'node:worker_threads';
import { loadOpenPgp, SigningKey, verifyDetachedSignatureHere } from './signature';

// Touching one export is what loads it: the bundles hand out a stub that requires the vendor file on first use.
const loaded = loadOpenPgp().then((m) => m.readSignature).catch(() => undefined);
void loaded.then(() => parentPort?.postMessage({ ready: true }));
parentPort?.on('message', (msg: { id: number; document: Uint8Array; signature: Uint8Array; keys: SigningKey[] }) => {
  verifyDetachedSignatureHere(msg.document, msg.signature, msg.keys).then(
    (result) => parentPort!.postMessage({ id: msg.id, result }),
    (err: unknown) => parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
