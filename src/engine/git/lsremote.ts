// One `git ls-remote` of a module's remote, run the way `tofu init` runs git for that source: the
// user's git configuration, credential helpers and SSH agent (a private remote works with the
// helper the user already has) — but never interactive: no controlling terminal (own session),
// GIT_TERMINAL_PROMPT=0, no askpass, Git Credential Manager told not to open a window, ssh in batch
// mode (added to the user's own ssh command, never replacing it). Never a registry token (the
// child's environment: credentials/child-env.ts), and the remote's own user information never on
// a command line (userinfo.ts). A deadline, an output cap, the clone path's
// protocol allow-list and argument rules; the remote goes after `--`. Failures are RegistryErrors
// naming the remote (user information hidden) and, for refused credentials, where git looked.
import { spawn } from 'node:child_process';
import { promises as fs, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { rootCertificates } from 'node:tls';
import { childEnv } from '../credentials/child-env';
import { RegistryError, RegistryErrorCode } from '../net/errors';
import { redactUrls, shownUrl } from '../net/http-errors';
import { gitRoots } from './clone';
import { gitRemoteArgs, InvalidUserInfo, urlSecrets } from './userinfo';

export interface LsRemoteOptions {
  /** Deadline of the whole command (connect, credentials, answer). */
  timeoutMs: number;
  /** Largest answer read (default 16 MiB): a remote with more refs is refused. */
  maxBytes?: number;
  /** GIT_ALLOW_PROTOCOL (default "https:http:ssh:git", as the clone path). */
  protocols?: string;
  /** PEM certificates trusted on top of git's own roots (the engine's --ca-file, NODE_EXTRA_CA_CERTS). */
  caCertificates?: string[];
  /** The engine's proxy setting (overrides HTTPS_PROXY for git too) and its extra NO_PROXY hosts. */
  proxy?: string;
  noProxy?: string;
  /** The user's environment (default process.env); registry secrets are left out of git's. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

const SSH_REMOTE = /^(?:ssh|git\+ssh|ssh\+git):\/\/|^[^/:]+@[^/:]+:/i;

/** The refs git reads (HEAD with its symbolic target, branches and tags; GitHub's refs/pull/* and the like left out). */
export const LS_REMOTE_ARGS = ['ls-remote', '--symref', '--'];
const PATTERNS = ['HEAD', 'refs/heads/*', 'refs/tags/*'];

/** `git ls-remote --symref -- REMOTE HEAD refs/heads/* refs/tags/*`: its standard output. */
export async function lsRemote(remote: string, opts: LsRemoteOptions): Promise<string> {
  const shown = shownUrl(remote);
  const host = hostOf(remote);
  if (!remote || remote.startsWith('-')) throw new RegistryError('invalid-address', `invalid git remote ${JSON.stringify(shown)}`, { host, url: shown });
  const base = opts.env ?? process.env;
  const extra: NodeJS.ProcessEnv = {
    GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS_REQUIRE: 'never', GCM_INTERACTIVE: 'never',
    GIT_ALLOW_PROTOCOL: opts.protocols ?? 'https:http:ssh:git',
  };
  if (opts.proxy) extra.HTTPS_PROXY = extra.https_proxy = extra.HTTP_PROXY = extra.http_proxy = opts.proxy;
  if (opts.noProxy) extra.NO_PROXY = extra.no_proxy = [base.NO_PROXY ?? base.no_proxy, opts.noProxy].filter(Boolean).join(',');
  if (SSH_REMOTE.test(remote) && !base.GIT_SSH) extra.GIT_SSH_COMMAND = `${base.GIT_SSH_COMMAND || await userSshCommand(base) || 'ssh'} -o BatchMode=yes`;
  let scratch: string | undefined;
  try {
    if (opts.caCertificates?.length && /^https:/i.test(remote)) {
      // GIT_SSL_CAINFO replaces git's roots: the bundle holds them, Node's, then the extras.
      scratch = await fs.mkdtemp(path.join(tmpdir(), 'tofu-registry-git-'));
      extra.GIT_SSL_CAINFO = path.join(scratch, 'ca-bundle.pem');
      await fs.writeFile(extra.GIT_SSL_CAINFO, [await gitRoots(base), ...rootCertificates, ...opts.caCertificates].join('\n'));
    }
    let args;
    try { args = gitRemoteArgs(remote, base, true); } catch (err) {
      throw err instanceof InvalidUserInfo ? new RegistryError('invalid-address', err.message, { host, url: shown }) : err;
    }
    Object.assign(extra, args.env);
    return await run([...args.config, ...LS_REMOTE_ARGS, args.argvRemote, ...PATTERNS], childEnv('git-with-helpers', base, extra), opts, shown, host, remote);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

function hostOf(remote: string): string {
  try {
    const u = new URL(remote);
    if (u.host) return u.host;
  } catch { /* scp-like */ }
  return /^(?:[^@/]+@)?([^:/]+):/.exec(remote)?.[1] ?? shownUrl(remote);
}

/** The user's core.sshCommand (GIT_SSH_COMMAND wins over it, so it is read to keep it). */
async function userSshCommand(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const out = await simpleGit(['config', '--get', 'core.sshCommand'], env, 5000);
  return out?.trim() || undefined;
}

/** Where git looks for credentials for `remote`: the credential helpers configured for it (names, never answers). */
export async function credentialPlaces(remote: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (SSH_REMOTE.test(remote)) return 'ssh: your SSH agent (SSH_AUTH_SOCK) and keys in ~/.ssh (core.sshCommand / GIT_SSH_COMMAND)';
  let url = remote;
  try { const u = new URL(remote); u.username = ''; u.password = ''; url = u.href; } catch { /* as is */ }
  const helpers = (await simpleGit(['config', '--get-urlmatch', 'credential.helper', url], env, 5000))?.split('\n').map((h) => h.trim()).filter(Boolean) ?? [];
  return helpers.length ? `git's credential helper ${helpers.map((h) => JSON.stringify(redactUrls(h).slice(0, 200))).join(', ')} (git config credential.helper)`
    : 'git\'s credential helpers (git config credential.helper: none configured for this URL)';
}

/** A short local git command (no network): its stdout, or undefined when it fails. */
function simpleGit(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { stdio: ['ignore', 'pipe', 'ignore'], env: childEnv('git', env, { GIT_TERMINAL_PROMPT: '0' }), timeout: timeoutMs });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { if (out.length < 65536) out += d.toString(); });
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? out : undefined));
  });
}

function run(args: string[], env: NodeJS.ProcessEnv, opts: LsRemoteOptions, shown: string, host: string, remote: string): Promise<string> {
  const maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  return new Promise<string>((resolve, reject) => {
    if (opts.signal?.aborted) { reject(opts.signal.reason ?? new RegistryError('aborted', `git ls-remote of ${shown} was cancelled`, { host, url: shown })); return; }
    const child = spawn('git', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // A session of its own: no controlling terminal, so neither git, a helper nor ssh can ask
      // anyone; killing the group stops ssh / git-remote-https / helpers too.
      detached: process.platform !== 'win32',
      env,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let killed: { code: RegistryErrorCode; why: string } | undefined;
    const kill = (code: RegistryErrorCode, why: string) => {
      killed ??= { code, why };
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch { child.kill('SIGKILL'); }
    };
    child.stdout!.on('data', (d: Buffer) => {
      size += d.length;
      if (size > maxBytes) kill('too-large', `its answer is larger than ${maxBytes} bytes`);
      else chunks.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => { if (stderr.length < 8192) stderr += d.toString(); });
    const timer = setTimeout(() => kill('timeout', `no answer within ${opts.timeoutMs / 1000} s`), opts.timeoutMs);
    const onAbort = () => kill('aborted', 'it was cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => { clearTimeout(timer); opts.signal?.removeEventListener('abort', onAbort); };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(new RegistryError('network', err.code === 'ENOENT' ? `cannot list the refs of ${shown}: git is not installed` : `cannot run git: ${err.message}`, { host, url: shown }));
    });
    child.on('close', (code) => {
      done();
      if (code === 0 && !killed) { resolve(Buffer.concat(chunks).toString('utf8')); return; }
      if (killed?.code === 'aborted' && opts.signal?.aborted) { reject(opts.signal.reason); return; }
      const text = hideSecrets(stderr, remote);
      void failure(killed, text, code, shown, host, remote, opts.env ?? process.env).then(reject, reject);
    });
  });
}

/** git's stderr without the remote's user information (git may echo the URL as given), one line per message, printable only. */
function hideSecrets(stderr: string, remote: string): string {
  let out = stderr.split(remote).join(shownUrl(remote));
  for (const secret of urlSecrets(remote)) out = out.split(secret).join('***');
  // eslint-disable-next-line no-control-regex
  return redactUrls(out).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, '').trim();
}

const AUTH = /Authentication failed|could not read (Username|Password)|terminal prompts disabled|Permission denied \(|HTTP Basic: Access denied|The requested URL returned error: 40[13]|Invalid username or password/i;
const NOT_FOUND = /Repository not found|repository '[^']*' not found|does not appear to be a git repository|The requested URL returned error: 404|No such file or directory|not found/i;
const TLS = /SSL certificate problem|server certificate verification failed|SSL_ERROR|unable to get local issuer certificate|self.signed certificate/i;

async function failure(killed: { code: RegistryErrorCode; why: string } | undefined, text: string, code: number | null, shown: string,
  host: string, remote: string, env: NodeJS.ProcessEnv): Promise<RegistryError> {
  const last = text.split('\n').filter(Boolean).pop() ?? '';
  const init = { host, url: shown };
  if (killed) return new RegistryError(killed.code, `git ls-remote of ${shown} failed: ${killed.why}`, init);
  if (AUTH.test(text)) {
    return new RegistryError('unauthorized', `git ls-remote of ${shown} failed: the remote refused the credentials or none were found (${last}). git looks for credentials in ${await credentialPlaces(remote, env)}; tofu init uses the same`, init);
  }
  if (TLS.test(text)) return new RegistryError('tls', `git ls-remote of ${shown} failed: ${last}`, init);
  if (NOT_FOUND.test(text)) return new RegistryError('not-found', `git remote ${shown} not found: ${last}`, init);
  return new RegistryError('network', `git ls-remote of ${shown} failed: ${last || `exit code ${code}`}`, init);
}
