// The mirror engine's entry point, shared by `tofu-registry mirror` and "OpenTofu: Mirror
// providers": configuration dirs → requirements (+ lock pins) → versions → verified archives in OUT.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
import { resolve } from 'node:path';
import { mapLimit } from '../fstree';
import { executeMirror, ProviderRequirement, resolveTargets } from './run';
import { readDirRequirements } from './requirements';
import type { ArchiveSource } from '../providersources/sources';
import { MirrorEngine, sourceFor } from '../providersources/source-for';
import { mirrorFailure } from '../providersources/types';
import type { MirrorFailure, MirrorProgressEvent, MirrorReport, MirrorTarget } from '../providersources/types';

export type { MirrorReport, MirroredArchive, MirrorFailure, MirrorProgressEvent, MirrorStep, MirrorTarget } from '../providersources/types';
export { failureDetail, mirrorFailure, STEP_LABEL } from '../providersources/types';
export { currentPlatform, defaultPlatforms, platformsSetting } from '../providerpkg/platform';
export { hashPackage, h1OfZip, zipHashOfFile, EMPTY_H1 } from '../providerpkg/hash';
export { DEFAULT_MAX_CONFIG_DIRS, findConfigDirs, readDirRequirements, parseLockFile, scanConfigDirs } from './requirements';
export type { ConfigDirScan } from './requirements';
export { MirrorLockedError } from './layout';
export { sourceFor } from '../providersources/source-for';
export type { MirrorEngine } from '../providersources/source-for';
export { cliConfigSnippets, renderReportMarkdown } from './report';

export interface MirrorProvidersOptions {
  engine: MirrorEngine;
  /** Configuration directories (each read on its own, not recursively). */
  dirs: string[];
  out: string;
  platforms: string[];
  /** Take archives from this network mirror instead of the origin registries. */
  fromMirror?: string;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (e: MirrorProgressEvent) => void;
  maxArchiveBytes?: number;
  /** Requirements given directly (tests, callers that already parsed); added to those of `dirs`. */
  requirements?: ProviderRequirement[];
}

/** Configuration directories read at a time (each reads its files FS_CONCURRENCY at a time). */
const DIR_CONCURRENCY = 8;

/** What a mirror run will fetch: the verified source, the targets, and what failed or was noted before any download. */
export interface MirrorPlan {
  source: ArchiveSource;
  targets: MirrorTarget[];
  failed: MirrorFailure[];
  notes: string[];
}

/**
 * The providers and versions `mirror` selects (configuration + lock file) for the platforms, from
 * the origin registries or `fromMirror`: shared by the directory mirror and the OCI mirror.
 */
export async function planMirror(opts: Omit<MirrorProvidersOptions, 'out' | 'maxArchiveBytes'>): Promise<MirrorPlan> {
  const source = sourceFor(opts.engine, opts.fromMirror);
  const notes: string[] = [];
  const failed: MirrorFailure[] = [];
  const requirements: ProviderRequirement[] = [...(opts.requirements ?? [])];
  let builtIn = 0;
  // Directories are read in parallel, then taken in the order given (the same report, and the
  // same first failure, as one at a time).
  const read = await mapLimit(opts.dirs, DIR_CONCURRENCY, (dir) => readDirRequirements(dir).then((r) => ({ r }), (err: unknown) => ({ err })));
  for (const one of read) {
    if ('err' in one) throw one.err;
    const r = one.r;
    requirements.push(...r.requirements);
    builtIn += r.builtIn.length;
    notes.push(...r.notes);
    const errors = r.errors.map((message) => mirrorFailure('', '', '', 'config', message));
    if (errors.length) opts.onProgress?.({ kind: 'failed', failures: errors });
    failed.push(...errors);
  }
  if (!requirements.length) {
    notes.push(builtIn ? 'nothing to mirror: the selected configurations require only providers built into OpenTofu'
      : 'no required_providers found in the selected configurations');
  }
  const plan = await resolveTargets(requirements, opts.platforms, source, { signal: opts.signal, concurrency: opts.concurrency, onProgress: opts.onProgress });
  notes.push(...plan.notes);
  if (opts.fromMirror) notes.push(`archives taken from the network mirror ${opts.fromMirror}`);
  return { source, targets: plan.targets, failed: [...failed, ...plan.failed], notes };
}

export async function mirrorProviders(opts: MirrorProvidersOptions): Promise<MirrorReport> {
  const out = resolve(opts.out);
  const { source, targets, failed, notes } = await planMirror(opts);
  const res = await executeMirror({
    out, targets, source, concurrency: opts.concurrency, signal: opts.signal,
    onProgress: opts.onProgress, maxArchiveBytes: opts.maxArchiveBytes,
  });
  return { ...res, failed: [...failed, ...res.failed], notes };
}
