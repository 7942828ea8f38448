// Credentials helpers as OpenTofu runs them (internal/plugin/discovery FindPlugins +
// internal/command/cliconfig/svcauthconfig/helper_program.go): `credentials_helper "NAME"` names
// the program terraform-credentials-NAME (or …-NAME_vX.Y.Z, the newest version wins; earlier
// directories win a tie) in the plugin directories; it is run directly (no shell) as
// `PROGRAM [ARGS...] get HOST` with HOST in ASCII form, and answers `{"token": "…"}` on stdout
// (`{}`: no credentials for that host). Unlike OpenTofu we bound it: a timeout, capped output, and
// its stderr is never read — a helper may print secrets or a vault's state there, and our errors
// end up in logs (the editor's, CI's) — so errors name the failure, never what it printed.
import { spawn } from 'node:child_process';
import { childEnv } from './child-env';
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compareVersions, parseVersion, ParsedVersion } from '../versions/version';
import { parseJsonBounded } from '../net/json-depth';

export const HELPER_TIMEOUT_MS = 10_000;
const MAX_STDOUT = 64 * 1024;

/** A helper that gave no answer: `message` says why, with nothing the helper printed. */
export class CredentialsHelperError extends Error {
  exitCode?: number;
}

// Where to look instead, since its own message is not shown.
const BY_HAND = 'its error output is not shown: run it by hand to see why';

/**
 * The program for `credentials_helper "NAME"`, or undefined: files named terraform-credentials-*
 * in `dirs` (legacy `…-NAME` is version 0.0.0), the newest version of NAME, the earliest
 * directory among equal versions.
 */
export function findCredentialsHelper(name: string, dirs: string[]): string | undefined {
  let best: { path: string; version: ParsedVersion } | undefined;
  const seen = new Set<string>();
  for (const dir of dirs) {
    let entries: string[];
    try { entries = readdirSync(dir); } catch { continue; }
    for (const entry of entries.sort()) {
      if (!entry.startsWith('terraform-credentials-')) continue;
      const path = join(dir, entry);
      try { if (statSync(path).isDirectory()) continue; } catch { continue; }
      const base = basename(entry).toLowerCase().slice('terraform-credentials-'.length).replace(/\.exe$/, '');
      const cut = base.indexOf('_v');
      const found = cut < 0 ? base : base.slice(0, cut);
      const versionText = cut < 0 ? '0.0.0' : base.slice(cut + 2).replace(/_x.*$/, '');
      if (found !== name || seen.has(versionText)) continue;
      seen.add(versionText);
      const version = parseVersion(versionText, 'module');
      if (typeof version === 'string') continue; // OpenTofu would crash on it; we pass it over
      if (!best || compareVersions(version, best.version) > 0) best = { path, version };
    }
  }
  return best?.path;
}

export interface HelperRunOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `program [args...] get host` and returns its token (undefined when it has none for the
 * host). Throws CredentialsHelperError when it cannot be started, exits non-zero, is killed,
 * times out, or prints something that is not a JSON object.
 */
export async function runCredentialsHelper(program: string, args: string[], host: string, opts: HelperRunOptions = {}): Promise<string | undefined> {
  const doc = jsonObject(await runHelperProgram(program, [...args, 'get', host], opts), '{"token": "…"}');
  const token = (doc as { token?: unknown }).token;
  return typeof token === 'string' && token ? token : undefined;
}

/** A helper's stdout as a JSON object, or CredentialsHelperError naming the shape expected. */
export function jsonObject(stdout: Buffer, expected: string): Record<string, unknown> {
  let doc: unknown;
  try { doc = parseJsonBounded(stdout.toString('utf8')); } catch { doc = undefined; }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new CredentialsHelperError(`printed malformed output (expected a JSON object such as ${expected})`);
  return doc as Record<string, unknown>;
}

/**
 * Runs a credentials program directly (no shell) with `argv`, `stdin` written to it, and returns its
 * stdout (capped) when it exits 0. Its environment is childEnv('credentials-helper'); its stderr is
 * never read. Throws CredentialsHelperError when it cannot be started, exits non-zero (`exitCode`
 * set), is killed, times out or prints too much.
 */
export function runHelperProgram(program: string, argv: string[], opts: HelperRunOptions & { stdin?: string } = {}): Promise<Buffer> {
  const timeoutMs = opts.timeoutMs ?? HELPER_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string, exitCode?: number) => {
      if (settled) return;
      settled = true;
      reject(Object.assign(new CredentialsHelperError(why), { exitCode }));
    };
    let child: ReturnType<typeof spawn>;
    try {
      // stderr goes nowhere: not to our terminal, not into memory, not into an error.
      child = spawn(program, argv, { stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'], env: childEnv('credentials-helper', opts.env ?? process.env), shell: false, windowsHide: true });
    } catch (err) {
      return fail(`could not be started: ${(err as Error).message}`);
    }
    if (opts.stdin !== undefined) {
      child.stdin!.on('error', () => undefined); // a helper that exits without reading
      child.stdin!.end(opts.stdin);
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    const timer = setTimeout(() => { child.kill('SIGKILL'); fail(`did not answer within ${timeoutMs / 1000} s`); }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_STDOUT) { child.kill('SIGKILL'); fail(`printed more than ${MAX_STDOUT / 1024} KiB`); } else out.push(d);
    });
    child.on('error', (e: NodeJS.ErrnoException) => { clearTimeout(timer); fail(`could not be started: ${e.code ?? e.message}`); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (settled) return;
      if (signal) return fail(`was killed by ${signal} (${BY_HAND})`);
      if (code !== 0) return fail(`exited with code ${code} (${BY_HAND})`, code ?? undefined);
      settled = true;
      resolve(Buffer.concat(out));
    });
  });
}
