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
