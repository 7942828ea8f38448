// npm run bench -- monorepo   (issue 23)
//  A synthetic monorepo generated at bench time (test/support/monorepo.ts): N root modules, each
//  with 3 providers from a pool of 20, 5 registry module calls from a pool of 50 (pinned, ~>, a
//  range, none, = …), a private child module and a shared local module; served by the HTTPS test
//  registry with 50 ms added to every response. For N = 100 and N = 1,000, each command runs as
//  the CLI does (node dist/cli.js, a child process: its own peak RSS) with an empty disk cache:
//   - requests = the distinct things asked for (no request path twice), module locations = the
//     distinct (module, selected version), and (N = 1,000) the re-run with the same cache — for
//     lock, every version now pinned — 0 requests;
//   - time N=1,000 / N=100 ≤ 10 (linear or better);
//   - peak RSS ≤ 250 MB at N = 1,000 (the issue's cap);
//   - `types check` with 50 ms latency ≤ 1.5× the same run without latency (N = 1,000; the
//     fastest of 2 alternated runs each).
//  And the editor's dependency view over the same workspace, measured through the engine code the
//  view runs (scanConfigDirs → rootConfigDirs → buildDependencyGraph → dirNodes, no VS Code host):
//  first paint (new engine, empty cache) and a warm refresh (same engine and resolver): 0 requests,
//  and both N=1,000 / N=100 ≤ 10.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReporter } from './index';
import { buildDependencyGraph, rootConfigDirs } from '../src/engine/deps';
import { Engine } from '../src/engine/engine';
import { scanConfigDirs } from '../src/engine/mirror/requirements';
import { ModuleResolver } from '../src/engine/modulepkg/resolve';
import { dirNodes } from '../src/features/depsTree';
import { Monorepo, MONOREPO_PLATFORM, serveMonorepoPools, writeMonorepo } from '../test/support/monorepo';
import { startTestRegistry, TestRegistry } from '../test/support/registry-server';

export const title = 'Monorepo scale (issue 23): N root modules, 20 providers, 50 modules, 50 ms per response';

const SIZES = [100, 1000];
const LATENCY_MS = 50;
const RSS_CAP_MB = 250;
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

interface Run { code: number | null; ms: number; rssMb: number; requests: number; distinct: number; locations: number; stderr: string }

export async function run(report: BenchReporter): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-monorepo-'));
  const reg = await startTestRegistry({ fixtures: false });
  let latency = LATENCY_MS;
  try {
    await serveMonorepoPools(reg, join(work, 'pools'), { providers: 20, modules: 50 });
    reg.server.route('/', async () => { if (latency) await new Promise((r) => setTimeout(r, latency)); return false; });
    // The child reports its own peak RSS when it exits (process.exit included).
    const rssHook = join(work, 'rss-hook.js');
    writeFileSync(rssHook, "process.on('exit', () => require('fs').writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));\n");
    let n = 0;
    const cli = async (repo: Monorepo, args: string[], cacheDir: string): Promise<Run> => {
      const rssFile = join(work, `rss-${++n}`);
      reg.server.resetLog();
      const t0 = performance.now();
      const res = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['-r', rssHook, CLI, ...args, '--ca-file', reg.caCertPath, '--cache-dir', cacheDir, '--timeout', '120'],
          { cwd: repo.root, env: { PATH: process.env.PATH, HOME: work, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
        child.on('close', (code) => resolve({ code, stderr }));
      });
      const ms = performance.now() - t0;
      const paths = reg.server.requests.map((r) => r.path);
      const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
      return { ...res, ms, rssMb, requests: paths.length, distinct: new Set(paths).size, locations: paths.filter((p) => /^\/v1\/modules\/.*\/download$/.test(p)).length };
    };
    const commands = (repo: Monorepo, i: number): Array<{ name: string; args: string[]; ok: number[] }> => [
      { name: 'types check', args: ['types', 'check', '.'], ok: [0] },
      { name: 'outdated', args: ['outdated', '--json', '.'], ok: [0, 1] },
      { name: 'lock', args: ['lock', '--platform', MONOREPO_PLATFORM, ...repo.dirs], ok: [0] },
      { name: 'mirror-modules', args: ['mirror-modules', '--out', join(work, `modmirror-${i}`), '.'], ok: [0] },
      { name: 'mirror', args: ['mirror', '--platform', MONOREPO_PLATFORM, '--out', join(work, `mirror-${i}`), '.'], ok: [0] },
    ];
    const times = new Map<string, number[]>();
    const views: Array<Awaited<ReturnType<typeof dependencyView>>> = [];
    let repo: Monorepo | undefined;
    for (const [i, size] of SIZES.entries()) {
      repo = writeMonorepo(join(work, `ws-${size}`), reg.host, { roots: size });
      report.note(`N = ${size}: ${repo.configDirs} configuration directories, ${repo.expected.moduleVersions.size} distinct module versions of ${repo.expected.modules.size} modules, ${repo.expected.providers.size} providers`);
      const last = i === SIZES.length - 1;
      for (const c of commands(repo, i)) {
        const cache = join(work, `cache-${size}-${c.name.replace(/ /g, '-')}`);
        const cold = await cli(repo, c.args, cache);
        if (!c.ok.includes(cold.code ?? -1)) throw new Error(`${c.name} at N=${size} exited ${cold.code}: ${cold.stderr}`);
        times.set(c.name, [...(times.get(c.name) ?? []), cold.ms]);
        const at = `N=${size} ${c.name}`;
        report.result(`${at}: requests (distinct paths)`, `${cold.requests} (${cold.distinct})`, '= distinct', cold.requests === cold.distinct);
        if (c.name !== 'mirror') {
          report.result(`${at}: module locations`, String(cold.locations), `= ${repo.expected.moduleVersions.size} module versions`, cold.locations === repo.expected.moduleVersions.size);
        }
        // the re-run (same disk cache; lock: every version now pinned) at the largest size only
        const warm = last ? await cli(repo, c.args, cache) : undefined;
        if (warm) report.result(`${at}: re-run requests`, String(warm.requests), '= 0', warm.requests === 0);
        report.result(`${at}: time cold${warm ? ' / re-run' : ''}`, `${(cold.ms / 1000).toFixed(1)} s${warm ? ` / ${(warm.ms / 1000).toFixed(1)} s` : ''}`);
        const peak = Math.max(cold.rssMb, warm?.rssMb ?? 0);
        report.result(`${at}: peak RSS`, `${peak.toFixed(0)} MB`, last ? `≤ ${RSS_CAP_MB} MB` : undefined, last ? peak <= RSS_CAP_MB : undefined);
      }
      const view = await dependencyView(reg, repo, join(work, `cache-view-${size}`));
      views.push(view);
      report.result(`N=${size} dependency view: first paint (empty cache)`, `${(view.first / 1000).toFixed(1)} s, ${view.firstRequests} requests`);
      report.result(`N=${size} dependency view: warm refresh`, `${(view.warm / 1000).toFixed(1)} s, ${view.warmRequests} requests`, '0 requests', view.warmRequests === 0);
      report.result(`N=${size} dependency view: directories shown`, String(view.nodes), `= ${size}`, view.nodes === size);
    }
    for (const [name, [small, large]] of times) {
      const ratio = large / small;
      report.result(`${name}: time N=1,000 / N=100`, `${ratio.toFixed(1)}×`, '≤ 10×', ratio <= 10);
    }
    for (const [what, key] of [['first paint', 'first'], ['warm refresh', 'warm']] as const) {
      const ratio = views[1][key] / views[0][key];
      report.result(`dependency view ${what}: time N=1,000 / N=100`, `${ratio.toFixed(1)}×`, '≤ 10×', ratio <= 10);
    }
    // Latency: types check over the N = 1,000 workspace, cold cache, with and without the 50 ms,
    // alternated; the fastest of each (the machine is shared: interference only ever adds time).
    if (repo) {
      const withLatency = [times.get('types check')![1]];
      const without: number[] = [];
      for (let k = 0; k < 2; k++) {
        latency = 0;
        without.push((await cli(repo, ['types', 'check', '.'], join(work, `cache-types-no-latency-${k}`))).ms);
        latency = LATENCY_MS;
        if (k === 0) withLatency.push((await cli(repo, ['types', 'check', '.'], join(work, `cache-types-latency-${k}`))).ms);
      }
      const ratio = Math.min(...withLatency) / Math.min(...without);
      report.result('types check N=1,000: 50 ms latency / none', `${ratio.toFixed(2)}× (${(Math.min(...without) / 1000).toFixed(1)} s without)`, '≤ 1.5×', ratio <= 1.5);
    }
  } finally {
    await reg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** What the dependency view runs for a paint (dependencies.ts compute → depsTree dirNodes), timed in this process. */
async function dependencyView(reg: TestRegistry, repo: Monorepo, cacheDir: string): Promise<{ first: number; warm: number; firstRequests: number; warmRequests: number; nodes: number }> {
  const engine = new Engine({ env: {}, caFiles: [reg.caCertPath], cacheDir });
  const resolver = new ModuleResolver({ engine, cacheDir });
  const paint = async () => {
    const t0 = performance.now();
    const scan = await scanConfigDirs([repo.root]);
    const graph = await buildDependencyGraph(await rootConfigDirs(scan.dirs), { engine, resolver });
    const nodes = dirNodes(graph, [repo.root], false);
    return { ms: performance.now() - t0, nodes: nodes.length };
  };
  try {
    reg.server.resetLog();
    const first = await paint();
    const firstRequests = reg.server.requests.length;
    reg.server.resetLog();
    const warm = await paint();
    return { first: first.ms, warm: warm.ms, firstRequests, warmRequests: reg.server.requests.length, nodes: Math.min(first.nodes, warm.nodes) };
  } finally {
    await engine.dispose();
  }
}
