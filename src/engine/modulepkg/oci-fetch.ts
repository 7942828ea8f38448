// The package of an oci:// module, fetched as tofu init fetches it: the one `archive/zip` layer of
// the resolved manifest, read by digest (the client's stream fails unless the bytes end with that
// digest and size), unpacked with the caps every archive gets, and kept under
// `<cacheDir>/oci-modules/<algorithm>-<hex>/`: the content of a digest never changes, so a digest
// is never fetched twice (one fetch in flight per digest; a finished one is marked complete).
import { randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Engine } from '../engine';
import { unpackArchive } from './fetch';
import { ModuleFetchError } from './fetch-error';
import { digestProblem } from '../oci';
import type { ResolvedOciModule } from './oci-registry';

/** Largest package blob read (as for other module archives). */
export const MAX_OCI_PACKAGE_BYTES = 64 * 1024 * 1024;
const COMPLETE_MARKER = '.tofu-registry-complete';

const inFlight = new Map<string, Promise<string>>();

export interface OciPackage {
  /** The unpacked package (the zip's root). */
  root: string;
  /** False when the digest was already in the cache (nothing was downloaded). */
  fetched: boolean;
}

/** The unpacked package of a resolved oci:// module (resolveOciModule), from the cache when its digest is there. */
export async function fetchOciPackage(engine: Engine, resolved: ResolvedOciModule, cacheDir: string, opts: { signal?: AbortSignal; maxBytes?: number } = {}): Promise<OciPackage> {
  if (!resolved.isModulePackage || !resolved.blobDigest || resolved.size === null) {
    throw new ModuleFetchError(`oci://${resolved.registry}/${resolved.repository} (${resolved.manifestDigest}) is not a module package tofu init installs: ${resolved.problem ?? 'no archive/zip layer'}`);
  }
  const digest = resolved.blobDigest;
  if (digestProblem(digest)) throw new ModuleFetchError(`oci://${resolved.registry}/${resolved.repository}: invalid layer digest ${JSON.stringify(digest)}`);
  const dir = path.join(cacheDir, 'oci-modules', digest.replace(':', '-'));
  const root = path.join(dir, 'content');
  if (await exists(path.join(dir, COMPLETE_MARKER))) return { root, fetched: false };
  let running = inFlight.get(dir);
  if (!running) {
    running = fetchInto(engine, resolved, dir, opts).finally(() => inFlight.delete(dir));
    inFlight.set(dir, running);
    await running;
    return { root, fetched: true };
  }
  await running;
  return { root, fetched: false };
}

async function fetchInto(engine: Engine, resolved: ResolvedOciModule, dir: string, opts: { signal?: AbortSignal; maxBytes?: number }): Promise<string> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
  await fs.mkdir(path.join(tmp, 'content'), { recursive: true });
  try {
    const repo = { registry: resolved.registry, repository: resolved.repository };
    const file = path.join(tmp, 'package.zip');
    const body = await engine.oci.getBlob(repo, { digest: resolved.blobDigest!, size: resolved.size! }, { maxBytes: opts.maxBytes ?? MAX_OCI_PACKAGE_BYTES, signal: opts.signal });
    await pipeline(body, createWriteStream(file), { signal: opts.signal });
    await unpackArchive(file, path.join(tmp, 'content'));
    await fs.rm(file, { force: true });
    await fs.writeFile(path.join(tmp, COMPLETE_MARKER), `oci://${resolved.registry}/${resolved.repository}@${resolved.manifestDigest}\n`);
    if (await exists(path.join(dir, COMPLETE_MARKER))) return dir; // another process finished it first
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(tmp, dir);
    return dir;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(() => true, () => false);
}
