// A hostile registry for the hostile-registry suite (test/unit/hostile/): the HTTPS test registry on
// 127.0.0.1 (with a token) plus module families generated on demand — `chain-N` calls chain-(N+1)
// without end, `tree-rBITS` calls tree-rBITS0 and tree-rBITS1 (a tree that doubles at each level),
// `slow-*` whose archive never arrives — and the real CLI (`node dist/cli.js`) run as a child
// process with a private HOME, cache and TMPDIR, timed to the millisecond for signal tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestRegistry, TestRegistry } from './registry-server';
import { sendJson } from './https-server';
import { tempDir, writeFiles } from './temp';
import { tarGz } from '../unit/types/archives';

export const HOSTILE_TOKEN = 'T0KEN-hostile-suite-registry';

// The shipped bundle (npm run build; test:unit builds first), else tsc's output of the same entry point.
const DIST_CLI = join(__dirname, '..', '..', '..', 'dist', 'cli.js');
export const CLI = existsSync(DIST_CLI) ? DIST_CLI : join(__dirname, '..', '..', 'src', 'cli.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from the signal sent (when one was) to the process's exit. */
  stopMs?: number;
}

export interface RunOptions {
  /** Added to (or, when undefined, removed from) the child's environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Sends this signal once `when` resolves (polled every 20 ms); the run's stopMs measures from then. */
  interrupt?: { signal: NodeJS.Signals; when: () => boolean; timeoutMs?: number };
  /** Kills the child (SIGKILL) after this long, failing the run (default 60 s). */
  killAfterMs?: number;
}

export interface HostileRegistry {
  reg: TestRegistry;
  /** 127.0.0.1:PORT */
  host: string;
  root: string;
  home: string;
  /** A realistic CLI configuration with the registry's credentials block. */
  rcFile: string;
  /** Files of the package served for `hostile/NAME/aws` 1.0.0 (default: the chain and tree families). */
  packages: Map<string, Record<string, string>>;
  /** Download locations per module name (default: the archive this registry serves). */
  locations: Map<string, string>;
  /** Version lists per module name (default ["1.0.0"]). */
  versions: Map<string, string[]>;
  /** The raw text of the discovery document instead of the registry's (undefined: the registry's). */
  discoveryText?: string;
  /** Module names whose archive requests hang (the connection stays open). */
  hanging: Set<string>;
  /** Archive requests per module name. */
  archiveRequests(prefix?: string): number;
  workspace(name: string, files: Record<string, string>): string;
  /** `node dist/cli.js ARGS` with HOME, TF_CLI_CONFIG_FILE, --ca-file's CA via NODE_EXTRA_CA_CERTS, a private cache and TMPDIR. */
  run(args: string[], opts?: RunOptions): Promise<CliRun>;
  stop(): Promise<void>;
}

export async function startHostileRegistry(): Promise<HostileRegistry> {
  const reg = await startTestRegistry({ fixtures: false, token: HOSTILE_TOKEN });
  const root = tempDir('hostile-');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const h = reg.host;
  const packages = new Map<string, Record<string, string>>();
  const locations = new Map<string, string>();
  const hanging = new Set<string>();
  const versions = new Map<string, string[]>();
  const archives = new Map<string, number>();

  const generated = (name: string): Record<string, string> | undefined => {
    const chain = /^chain-(\d+)$/.exec(name);
    if (chain) return { 'main.tf': `module "next" {\n  source  = "${h}/hostile/chain-${Number(chain[1]) + 1}/aws"\n  version = "1.0.0"\n}\n` };
    const tree = /^tree-(r[01]*)$/.exec(name);
    if (tree) {
      return { 'main.tf': ['0', '1'].map((b) => `module "t${b}" {\n  source  = "${h}/hostile/tree-${tree[1]}${b}/aws"\n  version = "1.0.0"\n}\n`).join('\n') };
    }
    return undefined;
  };
  const filesOf = (name: string) => packages.get(name) ?? generated(name);

  // modules.v1 for namespace "hostile": one version each, its archive on this server
  reg.server.route('/v1/modules/hostile/', (req, res, url) => {
    if (req.headers.authorization !== `Bearer ${HOSTILE_TOKEN}`) return void sendJson(res, 401, { errors: ['missing credentials'] });
    const [name, system, ...rest] = url.pathname.slice('/v1/modules/hostile/'.length).split('/').map(decodeURIComponent);
    if (system !== 'aws' || (!filesOf(name) && !locations.has(name))) return void sendJson(res, 404, { errors: ['module not found'] });
    if (rest.length === 1 && rest[0] === 'versions') {
      return void sendJson(res, 200, { modules: [{ source: `hostile/${name}/aws`, versions: (versions.get(name) ?? ['1.0.0']).map((version) => ({ version })) }] });
    }
    if (rest.length === 2 && rest[1] === 'download') {
      res.writeHead(204, { 'X-Terraform-Get': locations.get(name) ?? `/hostile-archives/${name}.tar.gz`, 'Content-Length': '0' });
      return void res.end();
    }
    sendJson(res, 404, { errors: ['not found'] });
  });
  reg.server.route('/hostile-archives/', (_req, res, url) => {
    const name = decodeURIComponent(url.pathname.slice('/hostile-archives/'.length)).replace(/\.tar\.gz$/, '');
    archives.set(name, (archives.get(name) ?? 0) + 1);
    if (hanging.has(name)) return; // never answered: the client's timeout or cancellation must end it
    const files = filesOf(name);
    if (!files) return void sendJson(res, 404, { errors: ['no such archive'] });
    const body = tarGz(Object.entries(files).map(([n, data]) => ({ name: n, data })));
    res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': body.length });
    res.end(body);
  });

  // a realistic ~/.tofurc: the registry's credentials, a provider_installation block, a host block
  const rcFile = join(home, '.tofurc');
  writeFileSync(rcFile, `credentials "${h}" {\n  token = "${HOSTILE_TOKEN}"\n}\n`);

  const run = (args: string[], opts: RunOptions = {}): Promise<CliRun> => {
    const base: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, HOME: home, TF_CLI_CONFIG_FILE: rcFile, NODE_EXTRA_CA_CERTS: reg.caCertPath,
      XDG_CACHE_HOME: tempDir('hostile-cache-'), TMPDIR: tempDir('hostile-tmp-'),
    };
    const env: NodeJS.ProcessEnv = { ...base };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(process.execPath, [CLI, ...args], { env, cwd: opts.cwd ?? root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    let signalledAt: number | undefined;
    const poll = opts.interrupt && setInterval(() => {
      if (signalledAt !== undefined || !opts.interrupt!.when()) return;
      signalledAt = Date.now();
      child.kill(opts.interrupt!.signal);
    }, 20);
    const killer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 60_000);
    return new Promise((resolve) => child.on('close', (code, signal) => {
      const now = Date.now();
      if (poll) clearInterval(poll);
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr, ...(signalledAt !== undefined ? { stopMs: now - signalledAt } : {}) });
    }));
  };

  const self: HostileRegistry = {
    reg, host: h, root, home, rcFile, packages, locations, hanging, versions,
    archiveRequests: (prefix = '') => [...archives].filter(([n]) => n.startsWith(prefix)).reduce((sum, [, c]) => sum + c, 0),
    workspace: (name, files) => writeFiles(join(root, 'ws', name), files),
    run,
    stop: () => reg.stop(),
  };
  // a discovery document as raw text (JSON.stringify cannot even write a 100k-deep one)
  reg.server.route('/.well-known/terraform.json', (_req, res) => {
    if (self.discoveryText === undefined) return false;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(self.discoveryText) });
    res.end(self.discoveryText);
  });
  return self;
}

/** What a run printed must not look like a crash: no stack trace, no "Maximum call stack". */
export function crashSigns(r: CliRun): string[] {
  const text = r.stdout + r.stderr;
  return [/Maximum call stack/, /\n\s+at .+:\d+:\d+\)?\n/, /RangeError|TypeError|ReferenceError/, /node:internal/].filter((re) => re.test(text)).map(String);
}
