// Plain data of a mirror run: what is planned, what happened. The CLI prints MirrorReport's
// mirrored/upToDate/failed arrays as its public JSON contract (field names must not change).

import type { ProviderAddress } from '../addresses';
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
  | 'lock-hash'     // package does not match the hashes in .terraform.lock.hcl
  | 'mirror-hash'   // package does not match the hashes of the source mirror (--from-mirror)
  | 'archive'       // the file is not a readable zip (h1: cannot be computed)
  | 'write'         // placing the archive or writing the JSON index failed
  | 'cancelled';

export interface MirrorTarget {
  /** `hostname/namespace/type` */
  provider: string;
  address: ProviderAddress;
  version: string;
  platform: string;
  /** Hashes from .terraform.lock.hcl when the version is locked: the package must match one. */
  lockHashes?: string[];
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
  | { kind: 'planned'; total: number }
  | { kind: 'start'; target: MirrorTarget }
  | { kind: 'bytes'; target: MirrorTarget; received: number; total?: number }
  | { kind: 'done'; target: MirrorTarget; outcome: 'mirrored' | 'up-to-date' | 'failed'; message?: string };

/** `os_arch` of the machine running us, in Go's GOOS/GOARCH spelling. */
export function currentPlatform(): string {
  const os = ({ win32: 'windows', darwin: 'darwin', linux: 'linux', freebsd: 'freebsd', openbsd: 'openbsd', sunos: 'solaris' } as Record<string, string>)[process.platform] ?? process.platform;
  const arch = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[process.arch] ?? process.arch;
  return `${os}_${arch}`;
}

/** The default target platforms: the current one plus linux_amd64 (deduplicated). */
export function defaultPlatforms(): string[] {
  return [...new Set([currentPlatform(), 'linux_amd64'])];
}

