// What bench/phases-preload.ts records in a CLI process and how it hands it over (its own module:
// importing the preload would record the importing process too).

export const PHASES_MARK = '\n@bench-phases ';

export interface ProcessPhases {
  /** This preload ran (Node's start-up is over, the CLI's bundles are not loaded yet). */
  preloadMs: number;
  firstRequestMs?: number;
  firstArchiveRequestMs?: number;
  lastArchiveDoneMs?: number;
  exitMs: number;
  requests: number;
  /** User + system CPU of the whole process (every thread). */
  cpuMs: number;
}
