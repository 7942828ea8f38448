// What every feature receives from its adapter (the extension or the language server): the one
// engine (shared caches), the registry lookup, a log, and the settings and network state.
import type { Engine } from '../engine/engine';
import type { RegistryLookup } from './lookup';
import type { FeatureSettings } from './settings';

/** The writing methods of a log (VS Code's LogOutputChannel, the language server's window/logMessage). */
export interface FeatureLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * A failure of ours (a bug, not a server's answer) in the log: one error line, `context: message`,
 * and its stack as debug lines, one per frame — each entry stays one line (the log escapes line
 * breaks, so a server's text cannot forge entries), and a stack is read frame by frame instead of
 * as one line of `\n`s. The stack shows at the log's Debug level.
 */
export function logFailure(log: FeatureLog, context: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  log.error(`${context}: ${message}`);
  const frames = err instanceof Error && err.stack ? err.stack.split('\n').filter((l) => /^\s+at /.test(l)) : [];
  for (const frame of frames) log.debug(`  ${frame.trim()}`);
}

export interface FeatureContext {
  /** The one engine instance (replaced when network settings change: read it on use). */
  readonly engine: Engine;
  readonly lookup: RegistryLookup;
  readonly log: FeatureLog;
  /** Directory for caches (discovery, downloaded modules). */
  readonly cacheDir: string;
  /** False in an untrusted workspace or when offline: then no feature may touch the network. */
  networkAllowed(): boolean;
  settings(): FeatureSettings;
}
