// Plain data of a mirror run: what is planned, what happened. The CLI prints MirrorReport's
// mirrored/upToDate/failed arrays as its public JSON contract (field names must not change).

import type { ProviderAddress } from '../addresses';
import { redactUrls, shortText } from '../net/http-errors';

/** How much of a failure's detail and of a name or version from a registry a message quotes (shortText). */
export const MAX_DETAIL_CHARS = 4000;
export const MAX_NAME_CHARS = 300;
export type { ProviderAddress };

/** Which step of fetching/verifying an archive failed; part of the JSON contract. */
export type MirrorStep =
  | 'config'        // reading the configuration / lock file
  | 'resolve'       // discovery, version list, no matching version
  | 'metadata'      // package metadata (providers.v1 download endpoint / mirror version JSON)
  | 'path'          // a segment from the network is unsafe for the file system
  | 'download'      // the archive download itself (HTTP error, timeout, size cap)
  | 'size'          // archive size differs from what the source reported
  | 'shasum'        // sha256 of the archive differs from the registry's shasum
  | 'sha256sums'    // SHA256SUMS missing or not listing the archive with that hash
  | 'signature'     // SHA256SUMS.sig does not verify with the registry's keys
  | 'packages'      // the download answer's `packages` contradicts SHA256SUMS or the archive
  | 'lock-hash'     // package does not match the hashes in .terraform.lock.hcl
  | 'mirror-hash'   // package does not match the hashes of the source mirror (--from-mirror)
  | 'archive'       // the file is not a readable zip (h1: cannot be computed)
  | 'write'         // placing the archive or writing the JSON index failed
  | 'push'          // mirror --oci: uploading to the OCI registry (or not pushed because another platform of the version failed)
  | 'tag-conflict'  // mirror --oci: the version's tag already holds other content; it is never replaced
  | 'cancelled';

/** What each step is called in a failure message (a person reads these in the report and the CLI output). */
export const STEP_LABEL: Record<MirrorStep, string> = {
  config: 'reading the configuration failed',
  resolve: 'choosing the version failed',
  metadata: 'fetching the package metadata failed',
  path: 'unsafe path refused',
  download: 'download failed',
  size: 'size check failed',
  shasum: 'shasum check failed',
  sha256sums: 'SHA256SUMS check failed',
  signature: 'signature check failed',
  packages: 'registry "packages" check failed',
  'lock-hash': 'lock file hash check failed',
  'mirror-hash': 'source mirror hash check failed',
  archive: 'archive check failed',
  write: 'writing the mirror failed',
  push: 'pushing to the OCI registry failed',
  'tag-conflict': 'the OCI tag holds other content',
  cancelled: 'cancelled',
};

/**
 * A failure that stands on its own: `PROVIDER VERSION PLATFORM: STEP LABEL: detail` (the prefix is
 * left out when there is no provider, e.g. an unreadable configuration file).
 */
export function mirrorFailure(provider: string, version: string, platform: string, step: MirrorStep, detail: string): MirrorFailure {
  return { provider, version, platform, step, message: `${failurePrefix(provider, version, platform)}${STEP_LABEL[step]}: ${shortText(redactUrls(detail), MAX_DETAIL_CHARS)}` };
}

/** The part of a failure message after `PROVIDER VERSION PLATFORM: ` (for tables that show those in columns). */
export function failureDetail(f: MirrorFailure): string {
  const who = failurePrefix(f.provider, f.version, f.platform);
  return f.message.startsWith(who) ? f.message.slice(who.length) : f.message;
}

function failurePrefix(provider: string, version: string, platform: string): string {
  return provider ? `${shortText(provider, MAX_NAME_CHARS)} ${shortText(version, MAX_NAME_CHARS) || '(any version)'} ${platform}`.trim() + ': ' : '';
}

export { errorText } from '../net/http-errors';

export interface MirrorTarget {
  /** `hostname/namespace/type` */
  provider: string;
  address: ProviderAddress;
  version: string;
  platform: string;
  /**
   * Hashes from each .terraform.lock.hcl that locks this version: the package must match at least
   * one hash of EVERY lock file (two configurations pinning the same version must both accept it).
   */
  locks?: Array<{ file: string; hashes: string[] }>;
}

export interface MirroredArchive {
  provider: string;
  version: string;
  platform: string;
  hashes: string[];
}

export interface MirrorFailure {
  provider: string;
  version: string;
  platform: string;
  step: MirrorStep;
  message: string;
}

export interface MirrorReport {
  out: string;
  mirrored: MirroredArchive[];
  upToDate: MirroredArchive[];
  failed: MirrorFailure[];
  /** Human notes: skipped implied providers, lock-file pins, … (not part of the JSON contract). */
  notes: string[];
  /** Bytes downloaded in this run. */
  bytesDownloaded: number;
}

export type MirrorProgressEvent =
  /** Failures before any download (reading the configuration, choosing the version), as they happen. */
  | { kind: 'failed'; failures: MirrorFailure[] }
  | { kind: 'planned'; total: number }
  | { kind: 'start'; target: MirrorTarget }
  | { kind: 'bytes'; target: MirrorTarget; received: number; total?: number }
  | { kind: 'done'; target: MirrorTarget; outcome: 'mirrored' | 'up-to-date' | 'failed'; message?: string };
