// The registry's SHA256SUMS document and its detached OpenPGP signature, checked the way
// OpenTofu's package_authentication.go does: the signature must verify with one of the
// registry's gpg_public_keys, and the document must list the archive's filename with the same
// sha256 the registry reported as `shasum`.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type * as OpenPgp from 'openpgp';
import { errorText } from '../net/http-errors';

// openpgp is large; load it on first use so the extension's activation does not pay for it.
let openpgpModule: Promise<typeof OpenPgp> | undefined;
export const loadOpenPgp = (): Promise<typeof OpenPgp> => (openpgpModule ??= import('openpgp'));

let preloading = false;
/**
 * Loads openpgp on the next idle turn of the event loop: for a caller that has just sent the
 * requests for a SHA256SUMS and its signature, so that loading the module (≈ 80 ms of CPU in a
 * CLI process) runs while their answers are on the way instead of after they came. Touching one
 * export is what loads it: the bundles hand out a stub that requires the vendor file on first use.
 */
export function preloadOpenPgp(): void {
  if (preloading || signatureWorker?.usable) return; // the worker loads it, off this thread
  preloading = true;
  setImmediate(() => { loadOpenPgp().then((m) => m.readSignature, () => undefined); });
}

interface PendingCheck { resolve: (c: SignatureCheck) => void; reject: (e: unknown) => void }

/**
 * One worker thread for the signature checks of a run (signature-worker.js beside this module:
 * dist/ for the bundles, out/ when compiled). It loads openpgp as it starts (≈ 50–80 ms of CPU
 * in a fresh process, and openpgp's first checks run cold), on another core while this thread
 * does the network, and the checks no longer block this thread's event loop. When the worker
 * cannot start or stops, the checks run in this thread, with the same code and outcome.
 */
class SignatureWorker {
  usable = true;
  /** Checks the worker answered. */
  answered = 0;
  private readonly pending = new Map<number, PendingCheck>();
  private nextId = 1;
  private readonly worker: Worker;

  constructor(file: string) {
    this.worker = new Worker(file);
    this.worker.on('message', (msg: { id?: number; result?: SignatureCheck; error?: string }) => {
      const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id!);
      this.answered++;
      if (!this.pending.size) this.worker.unref();
      if (msg.error !== undefined) p.reject(new Error(msg.error));
      else p.resolve(msg.result!);
    });
    const lost = () => {
      this.usable = false;
      for (const p of this.pending.values()) p.reject(new SignatureWorkerGone());
      this.pending.clear();
    };
    this.worker.on('error', lost);
    this.worker.on('exit', lost);
    this.worker.unref(); // never keeps the process alive while idle (after the listeners: they ref it)
  }

  verify(document: Uint8Array, signature: Uint8Array, keys: readonly SigningKey[]): Promise<SignatureCheck> {
    return new Promise<SignatureCheck>((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.worker.ref(); // a check in flight keeps the process alive until its answer
      this.worker.postMessage({ id, document, signature, keys: keys.map((k) => ({ keyId: k.keyId, asciiArmor: k.asciiArmor })) });
    });
  }

  stop(): Promise<number> {
    this.usable = false;
    return this.worker.terminate();
  }
}

class SignatureWorkerGone extends Error {}

let signatureWorker: SignatureWorker | undefined;

/**
 * Starts the signature worker (once per process) for a run that will check signatures: a
 * process-long job such as `lock` calls it when it starts, so that openpgp is loaded by the time
 * the first SHA256SUMS arrives. `workerFile` is for tests (default: signature-worker.js beside this module).
 */
export function startSignatureWorker(workerFile = join(__dirname, 'signature-worker.js')): boolean {
  if (signatureWorker?.usable) return true;
  try {
    signatureWorker = new SignatureWorker(workerFile);
    return true;
  } catch {
    return false; // threads unavailable: checks run in this thread
  }
}

/** Stops the signature worker (tests); later checks run in this thread until it is started again. */
export async function stopSignatureWorker(): Promise<void> {
  const w = signatureWorker;
  signatureWorker = undefined;
  await w?.stop();
}

/** Whether checks go to the worker now, and how many it answered (tests, the benchmark). */
export function signatureWorkerStats(): { running: boolean; answered: number } {
  return { running: !!signatureWorker?.usable, answered: signatureWorker?.answered ?? 0 };
}

/** Parses `hex  filename` lines (extra whitespace tolerated, like Go's bytes.Fields). */
export function parseSha256Sums(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length > 1 && !out.has(parts[1])) out.set(parts[1], parts[0].toLowerCase());
  }
  return out;
}

/**
 * The zh: hashes a lock file records from a signed SHA256SUMS: one per line, every archive of the
 * version (signatureAuthentication.acceptableHashes). As there, a document with any line that is
 * not `<64 hex> <name>` is not taken for a checksums file at all: no hashes.
 */
export function zipHashesOfSums(document: string): string[] {
  const out: string[] = [];
  for (const line of document.split('\n')) {
    const parts = line.trim().split(/\s+/).filter(Boolean);
    if (!parts.length) continue;
    if (parts.length < 2 || !/^[0-9a-fA-F]{64}$/.test(parts[0])) return [];
    out.push('zh:' + parts[0].toLowerCase());
  }
  return out;
}

/**
 * Checks that SHA256SUMS lists `filename` with `sha256` (hex). Returns null when it does, or
 * the reason it does not (one line, for the report).
 */
export function checkSha256Sums(document: string, filename: string, sha256: string): string | null {
  const got = parseSha256Sums(document).get(filename);
  if (got === undefined) return `SHA256SUMS has no SHA-256 hash for "${filename}"`;
  if (!/^[0-9a-f]{64}$/.test(got)) return `SHA256SUMS has an invalid SHA-256 hash "${got}" for "${filename}"`;
  if (got !== sha256.toLowerCase()) return `SHA256SUMS lists ${got} for "${filename}", expected ${sha256.toLowerCase()}`;
  return null;
}

export interface SigningKey {
  keyId?: string;
  asciiArmor: string;
}

export type SignatureCheck =
  | { ok: true; keyId: string }
  | { ok: false; reason: 'unknown-key' | 'bad-signature' | 'no-keys' | 'malformed'; message: string };

// A registry lists the same key for every provider version: parse each armored key once.
const parsedKeys = new Map<string, Promise<OpenPgp.PublicKey[]>>();
function readPublicKeys(openpgp: typeof OpenPgp, armor: string): Promise<OpenPgp.PublicKey[]> {
  let p = parsedKeys.get(armor);
  if (!p) {
    p = openpgp.readKeys({ armoredKeys: armor }).then((list) => list.map((key) => key.toPublic()));
    if (parsedKeys.size >= 64) parsedKeys.delete(parsedKeys.keys().next().value!);
    parsedKeys.set(armor, p);
    p.catch(() => parsedKeys.delete(armor));
  }
  return p;
}

/**
 * Verifies the detached signature (binary or ASCII-armored) of `document` with any of `keys`: on
 * the signature worker when one runs (startSignatureWorker), else in this thread.
 */
export async function verifyDetachedSignature(document: Uint8Array, signatureBytes: Uint8Array,
  keys: readonly SigningKey[]): Promise<SignatureCheck> {
  if (signatureWorker?.usable) {
    try {
      return await signatureWorker.verify(document, signatureBytes, keys);
    } catch (err) {
      if (!(err instanceof SignatureWorkerGone)) throw err;
      // the worker stopped: the same check, in this thread
    }
  }
  return verifyDetachedSignatureHere(document, signatureBytes, keys);
}

/** verifyDetachedSignature in this thread (the worker runs this too). */
export async function verifyDetachedSignatureHere(document: Uint8Array, signatureBytes: Uint8Array,
  keys: readonly SigningKey[]): Promise<SignatureCheck> {
  if (!keys.length) return { ok: false, reason: 'no-keys', message: 'the registry lists no signing keys (gpg_public_keys) for this package' };
  const openpgp = await loadOpenPgp();
  let signature: OpenPgp.Signature;
  try {
    const text = Buffer.from(signatureBytes.subarray(0, 64)).toString('latin1');
    signature = text.includes('-----BEGIN PGP SIGNATURE-----')
      ? await openpgp.readSignature({ armoredSignature: Buffer.from(signatureBytes).toString('utf8') })
      : await openpgp.readSignature({ binarySignature: signatureBytes });
  } catch (err) {
    return { ok: false, reason: 'malformed', message: `SHA256SUMS.sig is not an OpenPGP signature (${errorText(err)})` };
  }
  const publicKeys: OpenPgp.PublicKey[] = [];
  for (const k of keys) {
    try {
      publicKeys.push(...await readPublicKeys(openpgp, k.asciiArmor));
    } catch {
      // An unreadable key cannot have made the signature; the other keys may still verify it.
    }
  }
  const issuers = signature.getSigningKeyIDs().map((id) => id.toHex().toUpperCase());
  const known = publicKeys.filter((pk) => pk.getKeyIDs().some((id) => issuers.includes(id.toHex().toUpperCase())));
  if (!known.length) {
    return {
      ok: false, reason: 'unknown-key',
      message: `SHA256SUMS is signed by key ${issuers.join(', ') || '(no issuer)'}, which is not one of the registry's signing keys`,
    };
  }
  const message = await openpgp.createMessage({ binary: document });
  try {
    const result = await openpgp.verify({ message, signature, verificationKeys: known, format: 'binary', expectSigned: true });
    const sig = result.signatures[0];
    await sig.verified;
    return { ok: true, keyId: sig.keyID.toHex().toUpperCase() };
  } catch (err) {
    return { ok: false, reason: 'bad-signature', message: `the signature of SHA256SUMS does not verify (${errorText(err)})` };
  }
}

/** A download answer's `packages` (OpenTofu ≥ 1.12), as the providers.v1 client validated it. */
export interface PackagesAnswer {
  /** The requested platform's archive name, e.g. terraform-provider-aws_5.0.0_linux_amd64.zip. */
  filename: string;
  os: string;
  arch: string;
  packages: Record<string, { hashes: string[]; size: number }>;
}

/**
 * Checks `packages` against the signed SHA256SUMS: every listed platform must carry a zh: hash,
 * and each of its zh: hashes must be that platform's line in the document (its archive name is the
 * requested one with the platform swapped, else the one line ending in `_OS_ARCH.zip`). Stricter
 * than OpenTofu, which compares the requested platform only: one contradiction and none of the
 * answer's hashes are trusted. Returns null when it holds, else the reason (one line).
 */
export function checkPackages(document: string, answer: PackagesAnswer): string | null {
  const sums = parseSha256Sums(document);
  const suffix = `_${answer.os}_${answer.arch}.zip`;
  const stem = answer.filename.endsWith(suffix) ? answer.filename.slice(0, -suffix.length) : undefined;
  // OpenTofu 1.12 refuses an answer whose `packages` leaves out the platform it asked for.
  if (!answer.packages[`${answer.os}_${answer.arch}`]) return `"packages" does not list the requested platform ${answer.os}_${answer.arch}`;
  for (const [platform, pkg] of Object.entries(answer.packages)) {
    const zh = pkg.hashes.filter((h) => h.startsWith('zh:'));
    if (!zh.length) return `"packages" lists no zh: hash for ${platform}, so its hashes cannot be checked against SHA256SUMS`;
    const byStem = stem !== undefined ? `${stem}_${platform}.zip` : undefined;
    const candidates = byStem && sums.has(byStem) ? [byStem] : [...sums.keys()].filter((n) => n.endsWith(`_${platform}.zip`));
    if (candidates.length !== 1) return `"packages" lists ${platform}, but SHA256SUMS has ${candidates.length ? 'several archives' : 'no archive'} for that platform`;
    const listed = `zh:${sums.get(candidates[0])}`;
    const wrong = zh.find((h) => h !== listed);
    if (wrong) return `"packages" gives ${wrong} for ${platform}, but the signed SHA256SUMS lists ${listed} for ${candidates[0]}`;
  }
  return null;
}
