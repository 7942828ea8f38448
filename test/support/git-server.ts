// Real git remotes for the ref lookup tests: git's smart HTTP protocol (`git http-backend` run as
// a CGI program) behind the HTTPS test server (test CA), with Basic credentials when users are
// given, a path that never answers (a hanging remote), repositories whose refs are listed but whose
// packs are refused (a clone fails, `git ls-remote` works: as behind a proxy that cuts pack
// downloads), and a log to count what reached the server.
// Repositories are made by git itself: annotated and lightweight tags, branches, a default branch.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TestHttpsServer } from './https-server';
import { testPki } from './tls';
import { tempDir } from './temp';

const git = (cwd: string, ...args: string[]) => execFileSync('git',
  ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', ...args],
  { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

export interface RepoSpec {
  /** Tags in commit order: each gets a commit of its own (files `main.tf` with the tag's name). */
  tags: Array<{ name: string; annotated?: boolean }>;
  /** Branches made at the last commit (besides main), plus one commit of their own. */
  branches?: string[];
}

export interface MadeRepo {
  path: string;
  /** name → the commit it resolves to (annotated tags peeled). */
  commits: Record<string, string>;
  /** annotated tag name → the tag object's id. */
  tagObjects: Record<string, string>;
}

/** `<root>/<name>.git`, bare, served by http-backend as /<name>.git. */
export function makeRepo(root: string, name: string, spec: RepoSpec): MadeRepo {
  const work = join(root, `${name}-work`);
  git(root, 'init', '-q', work);
  const commits: Record<string, string> = {};
  const tagObjects: Record<string, string> = {};
  for (const t of spec.tags) {
    writeFileSync(join(work, 'main.tf'), `# ${t.name}\nvariable "v" {\n  default = "${t.name}"\n}\n`);
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', t.name);
    if (t.annotated) git(work, 'tag', '-a', '-m', `release ${t.name}`, t.name);
    else git(work, 'tag', t.name);
    commits[t.name] = git(work, 'rev-parse', `${t.name}^{commit}`).trim();
    if (t.annotated) tagObjects[t.name] = git(work, 'rev-parse', t.name).trim();
  }
  commits.main = git(work, 'rev-parse', 'HEAD').trim();
  for (const b of spec.branches ?? []) {
    git(work, 'checkout', '-q', '-b', b, 'main');
    writeFileSync(join(work, `${b.replace(/\W/g, '_')}.tf`), `# branch ${b}\n`);
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', b);
    commits[b] = git(work, 'rev-parse', 'HEAD').trim();
    git(work, 'checkout', '-q', 'main');
  }
  const bare = join(root, `${name}.git`);
  git(root, 'clone', '-q', '--bare', work, bare);
  return { path: bare, commits, tagObjects };
}

export interface GitHttpServer {
  server: TestHttpsServer;
  root: string;
  /** `https://127.0.0.1:PORT` */
  origin: string;
  /** GET …/info/refs answered 200: one per ls-remote (or clone) that reached a repository. */
  refAdvertisements(repo?: string): number;
  /** Pack requests (an upload-pack request that wants objects) refused for `refusePacks` repositories. */
  packsRefused(repo?: string): number;
  stop(): Promise<void>;
}

/**
 * Smart HTTP git server over TLS. `users`: Basic credentials required (401 with a challenge
 * otherwise); paths under /hang/ are accepted and never answered. `refusePacks`: repositories
 * ("net.git", as refAdvertisements names them) whose refs are advertised (ls-remote, protocol v0 or v2's ls-refs) but whose
 * upload-pack requests that want objects are answered 502: every clone fails.
 */
export async function startGitHttpServer(opts: { users?: Record<string, string>; refusePacks?: string[] } = {}): Promise<GitHttpServer> {
  const root = tempDir('git-http-');
  const server = await new TestHttpsServer().start();
  const answered: string[] = [];
  const refused: string[] = [];
  server.route('/', async (req, res, url) => {
    if (opts.users) {
      const auth = req.headers.authorization ?? '';
      const [user, pw] = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':') : [];
      if (!user || opts.users[user] !== pw) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Length': '0' });
        res.end();
        return;
      }
    }
    let body: Buffer | undefined;
    const repo = /^\/(.+\.git)\/git-upload-pack$/.exec(url.pathname)?.[1];
    if (req.method === 'POST' && repo !== undefined && opts.refusePacks?.includes(repo)) {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      body = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('latin1');
      // protocol v0's request and v2's `command=fetch` both name what they want; v2's ls-refs does not
      if (/want [0-9a-f]{40}/.test(text)) {
        refused.push(`/${repo}`);
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end('pack downloads are refused here\n');
        return;
      }
    }
    return cgi(req, res, url, root, (status) => {
      if (status === 200 && req.method === 'GET' && url.pathname.endsWith('/info/refs')) answered.push(url.pathname.slice(0, -'/info/refs'.length));
    }, body);
  });
  // (routes match most recently added first)
  server.route('/hang/', () => { /* never answers */ });
  return {
    server, root, origin: server.origin,
    refAdvertisements: (repo) => answered.filter((p) => repo === undefined || p === `/${repo}`).length,
    packsRefused: (repo) => refused.filter((p) => repo === undefined || p === `/${repo}`).length,
    stop: () => server.stop(),
  };
}

/** `body`: the request body when it was read already (else the request is piped to git). */
function cgi(req: IncomingMessage, res: ServerResponse, url: URL, root: string, onStatus: (status: number) => void, body?: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
        REQUEST_METHOD: req.method ?? 'GET', PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_USER: 'git', REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    if (body) child.stdin!.end(body);
    else req.pipe(child.stdin!);
    let head = Buffer.alloc(0);
    let started = false;
    child.stdout!.on('data', (d: Buffer) => {
      if (started) { res.write(d); return; }
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = parseInt(v, 10);
        else headers[k] = v;
      }
      onStatus(status);
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    child.on('close', () => { if (!started) { res.writeHead(500); } res.end(); resolve(); });
    child.on('error', () => { if (!res.headersSent) res.writeHead(500); res.end(); resolve(); });
  });
}

/**
 * A git home for the client side: HOME with a .gitconfig naming a credential helper that answers
 * `username`/`password` (and logs each call to `helperLog`). Returns env additions for the engine.
 */
export function gitClientHome(answer?: { username: string; password: string }): { env: NodeJS.ProcessEnv; helperLog: string; home: string } {
  const home = tempDir('git-home-');
  mkdirSync(home, { recursive: true });
  const helperLog = join(home, 'helper.log');
  const helper = join(home, 'credential-helper.sh');
  writeFileSync(helper, `#!/bin/sh\necho "$1" >> '${helperLog}'\nenv | grep '^TF_TOKEN_' >> '${helperLog}'\n[ "$1" = get ] || exit 0\n${answer ? `printf 'username=%s\\npassword=%s\\n' '${answer.username}' '${answer.password}'\n` : ''}`);
  chmodSync(helper, 0o755);
  const config = join(home, '.gitconfig');
  writeFileSync(config, answer ? `[credential]\n\thelper = ${helper}\n` : '');
  return {
    home, helperLog,
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_GLOBAL: config, GIT_CONFIG_NOSYSTEM: '1', NODE_EXTRA_CA_CERTS: testPki().caCertPath },
  };
}
