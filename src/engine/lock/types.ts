// Plain data of a lock run. The CLI prints LockReport's lockFiles/failed with exactly the fields of
// its public JSON contract; the extra fields here (previous*, notes) serve the human output.
import type { MirrorStep } from '../providersources/types';
import type { GatherOutcome } from './gather';

export interface LockedProviderReport {
  provider: string;
  version: string;
  /** Canonical constraints ("" when the configuration sets none). */
  constraints: string;
  /** Every hash the lock file now records for it. */
  hashes: string[];
  /** Platforms whose h1: the file now carries (those the run computed, or the cache or `packages` can attribute). */
  platforms: string[];
  /** Before this run (null: the provider was not locked). Not part of the JSON contract. */
  previousVersion: string | null;
  previousPlatforms: string[];
}

export interface LockFileReport {
  dir: string;
  path: string;
  /** The file was written (false: already up to date, or not written because something failed). */
  changed: boolean;
  providers: LockedProviderReport[];
}

export interface LockFailure {
  dir: string;
  /** "" when the failure is not about one provider (an unreadable configuration or lock file). */
  provider: string;
  version: string;
  /** "" when the failure is not about one platform (e.g. choosing the version). */
  platform: string;
  step: MirrorStep;
  message: string;
}

export interface LockReport {
  /** One per directory, in the order given; failed directories too (changed: false). */
  lockFiles: LockFileReport[];
  failed: LockFailure[];
  /** Human notes: built-in providers skipped, locked providers no longer required, … */
  notes: string[];
  /** Archives downloaded in this run (0 for a re-run with a warm cache or with `packages`). */
  archivesDownloaded: number;
  bytesDownloaded: number;
}

export type LockProgressEvent =
  | { kind: 'planned'; dirs: number; packages: number }
  | { kind: 'package'; provider: string; version: string; platform: string; outcome: GatherOutcome | 'failed'; message?: string }
  | { kind: 'failed'; failures: LockFailure[] }
  | { kind: 'written'; dir: string; path: string; changed: boolean };
