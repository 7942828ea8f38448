// The small pieces of the OCI client's wire handling (transport.ts holds the requests): token
// scopes, the Basic header (its values remembered so that no output shows them), response headers
// flattened, bodies drained, discarded or read for a message, and a cancellable sleep.
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { RegistryError } from '../net/errors';
import { rememberSentSecret } from '../net/shown-text';
import type { OciRepository } from '../addresses/oci-reference';

export const MAX_ERROR_BODY = 64 * 1024;

export function pull(repo: OciRepository): string {
  return `repository:${repo.repository}:pull`;
}
export function push(repo: OciRepository): string {
  return `repository:${repo.repository}:pull,push`;
}

export function basic(username: string, password: string): string {
  const blob = Buffer.from(`${username}:${password}`).toString('base64');
  // what is sent is never printed, whatever a server echoes (the password alone, or the blob)
  rememberSentSecret(password);
  rememberSentSecret(`${username}:${password}`);
  rememberSentSecret(blob);
  return `Basic ${blob}`;
}

export function flatten(h: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

export async function drain(res: Dispatcher.ResponseData): Promise<void> {
  await res.body.dump({ limit: MAX_ERROR_BODY }).catch(() => undefined);
}

export function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

export async function readText(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body) {
      total += (chunk as Buffer).length;
      if (total > max) break;
      chunks.push(chunk as Buffer);
    }
  } catch { /* what arrived is enough for a message */ }
  discard(res.body);
  return Buffer.concat(chunks).toString('utf8');
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RegistryError('aborted', 'cancelled'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); reject(new RegistryError('aborted', 'cancelled')); }, { once: true });
  });
}
