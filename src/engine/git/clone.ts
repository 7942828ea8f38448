// `git::` module packages through the user's git, as go-getter's git getter fetches them (`?ref=`
// branch, tag or commit, `?depth=`, other query parameters kept in the clone URL), but never
// interactive: no controlling terminal (own session), no terminal prompt, no askpass; the user's
// credential helpers only for the user's own sources (userCredentials: a module block's source, as
// `tofu init` runs git), never for a location a registry answered — and never a registry token. The clone has its own deadline and a disk cap,
// trusts the extra CA certificates (--ca-file) on top of the system roots, and neither its command
// lines (userinfo.ts) nor its messages carry user information from the URL.
import { spawn } from 'node:child_process';
import { childEnv } from '../credentials/child-env';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { rootCertificates } from 'node:tls';
import { redactUrls, shownUrl } from '../net/http-errors';
import { FS_CONCURRENCY, mapLimit, walkTree } from '../fstree';
import { ModuleFetchError } from '../net/errors';
import { gitRemoteArgs, InvalidUserInfo, urlSecrets } from './userinfo';

export interface GitCloneOptions {
  /** Deadline of the whole clone (a clone is not one request). */
  timeoutMs: number;
  /** While git runs, the clone directory (.git included) may not grow past this. */
  diskCap: number;
  /** Value of GIT_ALLOW_PROTOCOL. */
  protocols: string;
  /** PEM certificates to trust on top of the system roots (the engine's --ca-file / NODE_EXTRA_CA_CERTS). */
  caCertificates?: string[];
  /** A private directory for the CA bundle git reads (removed by the caller). */
  scratchDir: string;
  /**
   * The source is the user's own (a module block's `source`, not a location a registry answered):
   * git runs with the user's credential helpers, as `tofu init` does, in this environment
   * (OpenTofu's secrets left out: credentials/child-env.ts 'git-with-helpers'). Still never
   * interactive. Absent: credential helpers off, other tools' credential variables left out.
   */
  userCredentials?: { env: NodeJS.ProcessEnv };
  /**
   * The engine's environment (default process.env): what git runs with when userCredentials is
   * absent, and where git's default roots are looked up (gitRoots).
   */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface GitSource {
  /** What git clones: the URL with ref/depth/sshkey removed from its query. */
  url: string;
  ref?: string;
  depth?: number;
}

const SHA_RE = /^[0-9a-f]{7,40}$/i;
const DUMB_SHALLOW = /dumb http transport does not support shallow/i;

/** `URL?ref=…&depth=…` (the `git::` prefix and `//subdir` already removed), as go-getter reads it. */
export function parseGitSource(src: string): GitSource {
  const q = src.indexOf('?');
  if (q < 0) return checked({ url: src }, src);
  const params = new URLSearchParams(src.slice(q + 1));
  const ref = params.get('ref') ?? undefined;
  const depthText = params.get('depth');
  if (params.has('sshkey')) throw new ModuleFetchError(`git source ${shownUrl(src)} uses ?sshkey=, which tofu-registry does not support: use your SSH agent instead`, undefined, true);
  for (const k of ['ref', 'depth']) params.delete(k);
  const rest = params.toString();
  const depth = depthText === null ? undefined : Number(depthText);
  if (depth !== undefined && !(Number.isInteger(depth) && depth > 0)) throw new ModuleFetchError(`invalid depth ${JSON.stringify(depthText)} in git source ${shownUrl(src)}`);
  return checked({ url: src.slice(0, q) + (rest ? `?${rest}` : ''), ref, depth }, src);
}

function checked(s: GitSource, src: string): GitSource {
  if (s.url.startsWith('-') || (s.ref !== undefined && (s.ref.startsWith('-') || s.ref.startsWith('+') || !/^[\w./+-]+$/.test(s.ref)))) {
    throw new ModuleFetchError(`invalid git source ${shownUrl(src)}`);
  }
  return s;
}

/**
 * Clones `src` into `dest` and removes `.git`; returns the commit checked out (undefined when unreadable). A tag or branch is cloned shallow (falling back to
 * a full clone when the server speaks git's dumb HTTP protocol, which cannot do shallow); a
 * commit id is cloned in full and checked out. Symbolic links are checked out as plain files
 * (core.symlinks=false), so nothing in the package points outside it.
 */
export async function gitClone(src: string, dest: string, opts: GitCloneOptions): Promise<string | undefined> {
  const s = parseGitSource(src);
  // The user's credential helpers (or none), and the URL's own user information through the
  // environment: never on a command line.
  const base = gitEnvBase(opts);
  let remote;
  try { remote = gitRemoteArgs(s.url, base, !!opts.userCredentials); } catch (err) {
    throw err instanceof InvalidUserInfo ? new ModuleFetchError(err.message) : err;
  }
  const config = ['-c', 'core.symlinks=false', '-c', 'core.askPass=', ...remote.config];
  const env: NodeJS.ProcessEnv = { ...remote.env };
  if (opts.caCertificates?.length) {
    // GIT_SSL_CAINFO wins over any http.sslCAInfo and replaces git's roots, so the bundle holds
    // them too: the file git would have used (or the system's), Node's roots, then the extras.
    env.GIT_SSL_CAINFO = path.join(opts.scratchDir, 'git-ca-bundle.pem');
    await fs.writeFile(env.GIT_SSL_CAINFO, [await gitRoots(base), ...rootCertificates, ...opts.caCertificates].join('\n'));
  }
  const byCommit = s.ref !== undefined && SHA_RE.test(s.ref);
  const clone = (depth: number | undefined) => ['clone', '--quiet', ...(depth ? ['--depth', String(depth)] : []),
    ...(s.ref && !byCommit ? ['--branch', s.ref] : []), '--', remote.argvRemote, dest];
  const deadline = Date.now() + opts.timeoutMs;
  const depth = byCommit ? undefined : s.depth ?? 1;
  try {
    await runGit([...config, ...clone(depth)], dest, s.url, deadline, env, opts);
  } catch (err) {
    if (!(depth && err instanceof GitFailure && DUMB_SHALLOW.test(err.stderr))) throw err;
    await fs.rm(dest, { recursive: true, force: true });
    await fs.mkdir(dest);
    await runGit([...config, ...clone(undefined)], dest, s.url, deadline, env, opts);
  }
  if (byCommit) await runGit([...config, '-C', dest, 'checkout', '--quiet', '--detach', s.ref!], dest, s.url, deadline, env, opts);
  // The commit checked out, read from the clone itself before its history goes (an SBOM records it).
  const commit = await headCommit(dest);
  await fs.rm(path.join(dest, '.git'), { recursive: true, force: true });
  return commit;
}

/** The commit a checkout's HEAD names (`.git/HEAD`, a loose or packed ref), or undefined when it cannot be read. */
async function headCommit(dest: string): Promise<string | undefined> {
  const gitDir = path.join(dest, '.git');
  const head = (await fs.readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => '')).trim();
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return head;
  const ref = /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return undefined;
  const loose = (await fs.readFile(path.join(gitDir, ref), 'utf8').catch(() => '')).trim();
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(loose)) return loose;
  const packed = await fs.readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) return sha;
  }
  return undefined;
}

/** The environment git starts from: the user's (their own source) or the engine's, never another. */
function gitEnvBase(opts: GitCloneOptions): NodeJS.ProcessEnv {
  return opts.userCredentials?.env ?? opts.env ?? process.env;
}

/**
 * The certificates git trusts by default in `env` (the engine's environment, which git runs
 * with): GIT_SSL_CAINFO / SSL_CERT_FILE, else the system bundle ('' when none is found).
 */
export async function gitRoots(env: NodeJS.ProcessEnv): Promise<string> {
  const candidates = [env.GIT_SSL_CAINFO, env.SSL_CERT_FILE, '/etc/ssl/certs/ca-certificates.crt',
    '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem', '/etc/ssl/ca-bundle.pem'];
  for (const f of candidates) {
    if (!f) continue;
    const text = await fs.readFile(f, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return '';
}

class GitFailure extends ModuleFetchError {
  constructor(message: string, url: string, readonly stderr: string) { super(message, url); }
}

/** `url`: the source as written (with any user information), for hiding it in git's messages. */
function runGit(args: string[], dest: string, url: string, deadline: number, extraEnv: NodeJS.ProcessEnv, opts: GitCloneOptions): Promise<void> {
  const shown = shownUrl(url);
  const what = args.includes('checkout') ? 'git checkout' : 'git clone';
  return new Promise<void>((resolve, reject) => {
    const child = spawn('git', args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      // A session of its own: no controlling terminal, so neither git nor ssh can ask for a
      // password or a host key confirmation; killing the group stops ssh/git-remote-https too.
      detached: process.platform !== 'win32',
      env: childEnv(opts.userCredentials ? 'git-with-helpers' : 'git', gitEnvBase(opts), {
        GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS_REQUIRE: 'never', GCM_INTERACTIVE: 'never', GIT_ALLOW_PROTOCOL: opts.protocols, ...extraEnv,
      }),
    });
    let stderr = '';
    let killed: string | undefined;
    const kill = (why: string) => {
      killed ??= why;
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch { child.kill('SIGKILL'); }
    };
    child.stderr!.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString(); });
    const left = Math.max(1, deadline - Date.now());
    const timer = setTimeout(() => kill(`it did not finish within ${opts.timeoutMs / 1000} s`), left);
    let measuring = false;
    const watch = setInterval(() => {
      if (measuring) return;
      measuring = true;
      treeSize(dest, opts.diskCap, Infinity).then((t) => {
        if (t.bytes > opts.diskCap) kill(`the clone grew past ${opts.diskCap} bytes`);
      }, () => undefined).finally(() => { measuring = false; });
    }, 250);
    const onAbort = () => kill('it was cancelled');
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => { clearTimeout(timer); clearInterval(watch); opts.signal?.removeEventListener('abort', onAbort); };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(new ModuleFetchError(err.code === 'ENOENT' ? `cannot fetch ${shown}: git is not installed` : `cannot run git: ${err.message}`));
    });
    child.on('close', (code) => {
      done();
      if (code === 0 && !killed) return resolve();
      const text = redact(stderr.trim(), shown, url);
      const why = killed ?? (text.split('\n').pop() || `exit code ${code}`);
      reject(new GitFailure(`${what} of ${shown} failed: ${why}`, shown, text));
    });
  });
}

/**
 * Total file size, entry count and symbolic links below `dir` (links not followed); stops early
 * past the caps. Directories are read in parallel; only regular files need a stat (for their size).
 */
export async function treeSize(dir: string, maxBytes: number, maxEntries: number): Promise<{ bytes: number; entries: number; links: number }> {
  let bytes = 0, entries = 0, links = 0;
  const files: string[] = [];
  await walkTree(dir, {
    directory(d, list) {
      entries += list.length;
      for (const e of list) {
        if (e.isFile()) files.push(path.join(d, e.name));
        else if (e.isSymbolicLink()) links++;
      }
    },
    descend: () => true,
    unreadable() { /* counted as empty */ },
    done: () => entries > maxEntries,
  });
  await mapLimit(files, FS_CONCURRENCY, async (p) => {
    if (bytes > maxBytes) return;
    const size = (await fs.lstat(p).catch(() => undefined))?.size ?? 0;
    bytes += size; // after the await: `bytes += await …` would add to a stale total
  });
  return { bytes, entries, links };
}

/** git's stderr without the URL's secrets (git may echo the URL as given, or decoded). */
function redact(text: string, shown: string, url: string): string {
  let out = redactUrls(text.split(url).join(shown));
  for (const secret of urlSecrets(url)) out = out.split(secret).join('***');
  return out;
}
