// Shared plumbing for the CLI commands: argument parsing, usage errors, JSON/one-line error output.
// Each command lives in its own file and exports `run(args, io)`; src/cli.ts only dispatches.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { isPlatform } from '../engine/providerpkg/platform';
import { safeText, shortText, shownUrl } from '../engine/net/http-errors';
import { shownOutput } from '../engine/net/shown-text';

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment used for credentials, proxies, CA files (process.env in the real CLI). */
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export type CommandRunner = (args: string[], io: CliIO) => Promise<number>;

/** A mistake in how the command was called: exit code 2, one line on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A UsageError from any copy of this module: each command runs from a bundle of its own
 * (dist/cli-*.js, see scripts/build.mjs), so the dispatcher cannot rely on instanceof.
 */
export function isUsageError(err: unknown): err is UsageError {
  return err instanceof Error && err.name === 'UsageError';
}

export interface ParsedArgs {
  /** Flags without a value (`--json`) map to true; repeatable flags collect every value. */
  flags: Map<string, string[] | true>;
  positionals: string[];
}

export interface FlagSpec {
  /** Flags that take no value, e.g. ["json", "provider"]. */
  booleans?: string[];
  /** Flags that take one value (`--out DIR` or `--out=DIR`); may repeat. */
  values?: string[];
}

export function parseArgs(args: string[], spec: FlagSpec): ParsedArgs {
  const booleans = new Set(spec.booleans ?? []);
  const values = new Set(spec.values ?? []);
  const flags = new Map<string, string[] | true>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (booleans.has(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (values.has(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      const prev = flags.get(name);
      flags.set(name, Array.isArray(prev) ? [...prev, value] : [value]);
    } else {
      throw new UsageError(`unknown flag --${name}`);
    }
  }
  return { flags, positionals };
}

export function flag(parsed: ParsedArgs, name: string): boolean {
  return parsed.flags.get(name) === true;
}

/** The last value of a value flag, or undefined. */
export function value(parsed: ParsedArgs, name: string): string | undefined {
  const v = parsed.flags.get(name);
  return Array.isArray(v) ? v[v.length - 1] : undefined;
}

export function values(parsed: ParsedArgs, name: string): string[] {
  const v = parsed.flags.get(name);
  return Array.isArray(v) ? v : [];
}

export function printJson(io: CliIO, data: unknown): void {
  io.stdout(JSON.stringify(data, null, 2) + '\n');
}

/** Fields of an error that the CLI reports; engine errors carry url/status when they know them. */
export interface ReportableError {
  message: string;
  url?: string;
  status?: number;
}

/**
 * Report a failure the way every command does: one line on stderr, and with --json also
 * `{"error":{"message","url","status"}}` on stdout. Returns the exit code (1).
 */
export function reportFailure(io: CliIO, err: unknown, json: boolean): number {
  const e = toReportable(err);
  // The engine's messages already show URLs redacted; this also covers text from anywhere else.
  // The product's own line breaks stay for --json (a report of several failures); server text
  // arrived escaped (RegistryError, shortText), and stderr gets the message on one line.
  e.message = shortText(safeText(e.message, '\n'), 4000, '\n');
  if (e.url) e.url = shownUrl(e.url);
  io.stderr(`tofu-registry: ${e.message.replace(/\s*\n\s*/g, ' ')}\n`);
  if (json) printJson(io, { error: { message: e.message, url: e.url ?? null, status: e.status ?? null } });
  return 1;
}

/**
 * The printing layer every command writes through (src/cli.ts wraps the process's streams with
 * it): stdout and stderr never carry a control character a server sent, nor a credential value
 * sent in this run (shownOutput) — whichever command, message or report forgot to clean a string.
 */
export function safeIO(io: CliIO): CliIO {
  return { ...io, stdout: (t) => io.stdout(shownOutput(t)), stderr: (t) => io.stderr(shownOutput(t)) };
}

export function toReportable(err: unknown): ReportableError {
  if (err && typeof err === 'object') {
    const o = err as { message?: unknown; url?: unknown; status?: unknown };
    return {
      message: typeof o.message === 'string' ? o.message : String(err),
      url: typeof o.url === 'string' ? o.url : undefined,
      status: typeof o.status === 'number' ? o.status : undefined,
    };
  }
  return { message: String(err) };
}

/** The CLI's on-disk cache: $XDG_CACHE_HOME/tofu-registry, else ~/.cache/tofu-registry. */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || env.USERPROFILE || homedir(), '.cache');
  return join(base, 'tofu-registry');
}

/**
 * `--cache-dir DIR` / `--no-cache` → the engine's cacheDir (undefined = memory only). The
 * default is defaultCacheDir(env), so a second run answers discovery and version lists at once.
 */
export function cacheDirOption(parsed: ParsedArgs, io: CliIO): string | undefined {
  const dir = value(parsed, 'cache-dir');
  if (flag(parsed, 'no-cache')) {
    if (dir !== undefined) throw new UsageError('--cache-dir and --no-cache exclude each other');
    return undefined;
  }
  if (dir === '') throw new UsageError('--cache-dir needs a directory');
  return dir !== undefined ? resolve(io.cwd, dir) : defaultCacheDir(io.env);
}

/** `--timeout SECONDS` → milliseconds (undefined = the engine's default); must be positive. */
export function timeoutMsOption(parsed: ParsedArgs): number | undefined {
  const t = value(parsed, 'timeout');
  if (t === undefined) return undefined;
  const seconds = Number(t);
  if (!(seconds > 0)) throw new UsageError('--timeout needs a positive number of seconds');
  return seconds * 1000;
}

/** Every `--platform os_arch` (repeatable, or comma-separated), checked and deduplicated. */
export function platformsOption(parsed: ParsedArgs): string[] {
  const platforms = values(parsed, 'platform').flatMap((p) => p.split(',')).map((p) => p.trim()).filter(Boolean);
  for (const p of platforms) if (!isPlatform(p)) throw new UsageError(`--platform must be os_arch (e.g. linux_amd64), got ${JSON.stringify(p)}`);
  return [...new Set(platforms)];
}

/** `--concurrency N`: an integer from 1 to 64 (default 8). */
export function concurrencyOption(parsed: ParsedArgs): number {
  const text = value(parsed, 'concurrency');
  const n = text === undefined ? 8 : Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError('--concurrency must be an integer from 1 to 64');
  return n;
}

/** `--max-modules N`: how many modules one walk of module calls may reach (default: the engine's, 1000). */
export function moduleLimitsOption(parsed: ParsedArgs): { maxModules?: number } {
  const text = value(parsed, 'max-modules');
  if (text === undefined) return {};
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError('--max-modules must be a positive integer');
  return { maxModules: n };
}

/** `--max-dirs N`: how many configuration directories a walk under one DIR collects (default DEFAULT_MAX_CONFIG_DIRS). */
export function maxDirsOption(parsed: ParsedArgs): number | undefined {
  const text = value(parsed, 'max-dirs');
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError('--max-dirs must be a positive integer');
  return n;
}

/** A walk cut short, on stderr (every command that walks says so, also with --json). */
export function printWarnings(io: CliIO, warnings: readonly string[]): void {
  for (const w of warnings) io.stderr(`tofu-registry: warning: ${w}\n`);
}

/** Runs `fn` with a signal that SIGINT / SIGTERM abort, so a long command stops cleanly (its output stays valid). */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await fn(ac.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
