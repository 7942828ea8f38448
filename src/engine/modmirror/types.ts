// Plain data of a module mirror run. The CLI prints ModuleMirrorReport's out, mirrored, upToDate,
// failed, skipped and cliConfig as its public JSON contract (field names must not change).
import { errorText, MAX_DETAIL_CHARS, MAX_NAME_CHARS } from '../providersources/types';
import { shortText } from '../net/http-errors';

export { errorText };

/** Which step of mirroring a module version failed; part of the JSON contract. */
export type ModuleMirrorStep =
  | 'config'       // reading a configuration: unreadable file, invalid module source
  | 'resolve'      // discovery, the version list, no version matching the constraint
  | 'location'     // the registry's download endpoint (…/VERSION/download)
  | 'unsupported'  // the package needs a getter tofu-registry cannot run (s3, gcs, hg, oci; bzip2/xz archives)
  | 'fetch'        // downloading, cloning or unpacking the package (HTTP error, timeout, caps, unsafe archive)
  | 'package'      // the package lacks the subdirectory its location names
  | 'path'         // a segment from the network or the configuration is unsafe as a file name
  | 'write'        // packing the archive or writing `versions` / `download`
  | 'cancelled';

/** What each step is called in a failure message (a person reads these). */
export const STEP_LABEL: Record<ModuleMirrorStep, string> = {
  config: 'reading the configuration failed',
  resolve: 'choosing the version failed',
  location: 'asking the registry for the download location failed',
  unsupported: 'unsupported source',
  fetch: 'fetching the package failed',
  package: 'the package is incomplete',
  path: 'unsafe path refused',
  write: 'writing the mirror failed',
  cancelled: 'cancelled',
};

/** `HOST/NS/NAME/SYSTEM` and the version as the site names it (e.g. "1.2.0"). */
export interface ModuleVersionRef {
  module: string;
  version: string;
}

export interface MirroredModule extends ModuleVersionRef {
  /** Where the origin registry pointed (user information hidden). */
  location: string;
  /** The archive, relative to OUT (`modules/HOST/NS/NAME/SYSTEM/VERSION.tar.gz`). */
  archive: string;
}

export interface ModuleFailure extends ModuleVersionRef {
  step: ModuleMirrorStep;
  message: string;
}

/** A module source the mirror cannot serve (git, http, s3 … sources called directly) and why. */
export interface SkippedSource {
  source: string;
  reason: string;
}

export interface ModuleMirrorReport {
  out: string;
  mirrored: MirroredModule[];
  upToDate: ModuleVersionRef[];
  failed: ModuleFailure[];
  skipped: SkippedSource[];
  /** Ready-to-paste `host` blocks for every origin host in OUT. */
  cliConfig: string;
  /** Origin hosts served by OUT (directory names under OUT/modules). */
  hosts: string[];
}

export type ModuleMirrorProgress =
  /** More module versions became known (the total grows as packages reveal their own module calls). */
  | { kind: 'queued'; total: number }
  | { kind: 'start'; module: string; version: string }
  | { kind: 'done'; module: string; version: string; outcome: 'mirrored' | 'up-to-date' | 'failed'; message?: string }
  /** Failures before any package work (configuration, version choice), as they happen. */
  | { kind: 'failed'; failures: ModuleFailure[] }
  | { kind: 'skipped'; skipped: SkippedSource };

/** `MODULE VERSION: STEP LABEL: detail` (no prefix when there is no module, e.g. an unreadable file). */
export function moduleFailure(module: string, version: string, step: ModuleMirrorStep, detail: string): ModuleFailure {
  return { module, version, step, message: `${failureWho(module, version)}${STEP_LABEL[step]}: ${shortText(detail, MAX_DETAIL_CHARS)}` };
}

/** `MODULE VERSION: ` as a message names them (a registry's megabyte-long version shortened). */
function failureWho(module: string, version: string): string {
  return module ? `${shortText(module, MAX_NAME_CHARS)} ${shortText(version, MAX_NAME_CHARS) || '(any version)'}: ` : '';
}

/** The part of a failure message after `MODULE VERSION: ` (for tables with those in columns). */
export function moduleFailureDetail(f: ModuleFailure): string {
  const who = failureWho(f.module, f.version);
  return f.message.startsWith(who) ? f.message.slice(who.length) : f.message;
}
