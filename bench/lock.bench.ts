// npm run bench -- lock
//  10 providers × 4 platforms from the HTTPS test registry with 50 ms added to every response, each
//  run with a new engine and an empty cache into a configuration without a lock file:
//  1. `lock` (concurrency 8) vs the same engine locking sequentially (concurrency 1): target ≥ 4×.
//  2. With OpenTofu 1.12 `packages` in the download answers: against its floor, the 4 round trips
//     that depend on each other's answers (discovery → version list → download answer →
//     SHA256SUMS + signature) × the injected latency: target best of 7 ≤ 2× that floor; no archive
//     downloaded and 1 + 4 requests per provider (counted on the server). Its speed-up against the
//     sequential run is printed without a target: it was held to ≥ 20×, which measured 17–20.5×
//     depending on the machine and its load, while the floor says what is left to gain.
//  Also reported: an unchanged re-run (same disk cache) and the requests it sends.
//  3. (issue 32) The real CLI process (node dist/cli.js lock, a new cache and configuration each
//     run), best of 5, against its floor measured in the same run (issue 32's goal ≤ 1.5×, not yet met:
//     held to a guard, ≤ 4× without `packages` and ≤ 2.5× with, and the goal printed on the line): without `packages`, Node's
//     start-up + the 4 dependent round trips (discovery → version list → download answers →
//     archives + SHA256SUMS + .sig) × the latency + the CPU of hashing the same archives (SHA-256
//     of each, inflate + SHA-256 of its entries, over the cores); with `packages`, Node's start-up
//     + the 4 round trips. Its phases are printed beside (bench/lock-phases-preload.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReporter } from './index';
import { availableParallelism } from 'node:os';
import { Floor, reportAgainstFloor, reportAgainstFloorGoal, roundTripFloor, timedNode, zipHashInflateFloor } from './floors';
import { LOCK_PHASES_MARK, LockPhases } from './lock-phases-preload';
import { readyTimed } from './machine';
import { median, samples } from './stats';
import { Engine } from '../src/engine/engine';
import { lockProviders } from '../src/engine/lock';
import { h1OfZip } from '../src/engine/providerpkg/hash';
import { BuiltRelease, buildRelease, makeSigningKey, PackageFiles, packagesOf, PackagesAnswer, providerDefinition } from '../test/support/provider-packages';
import { startTestRegistry, TestRegistry } from '../test/support/registry-server';
import { writeConfigDir } from './mirror-child';

export const title = 'Lock files (issue 10)';

const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_arm64', 'windows_amd64'];
const PROVIDERS = 10;
const LATENCY_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(report: BenchReporter): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-lock-'));
  const reg = await startTestRegistry({ fixtures: false });
  try {
    const files = new PackageFiles(reg.server);
    const key = await makeSigningKey();
    const releases: BuiltRelease[] = [];
    for (let i = 0; i < PROVIDERS; i++) {
      const rel = await buildRelease(join(work, 'pkgs'), { namespace: 'bench', type: `p${i}`, version: '1.0.0', platforms: PLATFORMS, binarySize: 512 * 1024 }, key);
      files.add(rel);
      releases.push(rel);
    }
    const serve = async (packages: boolean) => {
      for (const rel of releases) {
        const answer: PackagesAnswer | undefined = packages ? await packagesOf(rel, (p) => h1OfZip(p.path)) : undefined;
        reg.addProvider(providerDefinition(files, [rel], [key], () => (answer ? { packages: answer } : undefined)));
      }
    };
    await serve(false);
    reg.server.route('/', async () => { await sleep(LATENCY_MS); return false; }); // added to every response
    const sources = releases.map((r) => `${reg.host}/bench/${r.type}`);
    let n = 0;
    // A new engine (a new process in real life) with an empty cache, into a directory without a lock file.
    const timed = async (concurrency: number, cacheDir = join(work, `cache-${++n}`), dir = writeConfigDir(join(work, `cfg-${++n}`), sources)) => {
      const engine = new Engine({ env: { HOME: work }, caFiles: [reg.caCertPath], cacheDir });
      // Ready time (machine.ts): the wall time less this thread's waits for a core.
      const { value: r, readyMs: ms, wallMs } = await readyTimed(() => lockProviders({ engine, dirs: [dir], platforms: PLATFORMS, concurrency }));
      await engine.dispose();
      if (r.failed.length) throw new Error(`bench lock failed: ${JSON.stringify(r.failed[0])}`);
      return { ms, wallMs, r, cacheDir, dir };
    };
    // One untimed run first (JIT, lazily loaded modules), then the median of 3, alternating: the
    // machine is shared, one sample is at the mercy of the scheduler. Times are ready times.
    await timed(8);
    const seqMs: number[] = [];
    const parMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      seqMs.push((await timed(1)).ms);
      parMs.push((await timed(8)).ms);
    }
    const seq = median(seqMs);
    const par = median(parMs);
    report.result('40 packages, 50 ms latency: sequential (c=1)', `${seq.toFixed(0)} ms`);
    report.result('40 packages, 50 ms latency: lock (c=8)', `${par.toFixed(0)} ms`);
    report.result('lock speed-up vs sequential (median of 3)', `${(seq / par).toFixed(1)}×`, '≥ 4×', seq / par >= 4);
    report.note(`samples: sequential ${samples(seqMs)}, lock ${samples(parMs)}`);

    // The CLI process without `packages`: every archive downloaded and hashed.
    const zips = releases.flatMap((r) => r.packages.map((p) => p.path));
    const hashing = zipHashInflateFloor(zips, availableParallelism());
    await cliLock(report, reg.caCertPath, work, sources, { name: 'without `packages`', trips: 'discovery → version list → download answers → archives + SHA256SUMS + .sig', extra: hashing, guard: 4 });

    await serve(true);
    await timed(8); // untimed: the `packages` path once before it is measured
    const pkgMs: number[] = [];
    const pkgWallMs: number[] = [];
    let archives = 0;
    let requests = 0;
    let last: Awaited<ReturnType<typeof timed>> | undefined;
    for (let i = 0; i < 7; i++) { // short runs: more samples
      reg.server.resetLog();
      last = await timed(8);
      pkgMs.push(last.ms);
      pkgWallMs.push(last.wallMs);
      archives += countArchives(reg); // counted on the server
      requests = Math.max(requests, reg.server.requests.length);
      if (last.r.archivesDownloaded) throw new Error('the engine reports archive downloads with `packages`');
    }
    const pkg = median(pkgMs);
    report.result('with `packages` (c=8, median of 7)', `${pkg.toFixed(0)} ms`);
    // Against a floor, the best run: the floor is a lower bound, and other work only adds to a run.
    reportAgainstFloor(report, 'with `packages`: best of 7 vs its round-trip floor', Math.min(...pkgMs),
      roundTripFloor(LATENCY_MS, 4, 'discovery → version list → download answer → SHA256SUMS + .sig'), 2);
    const expected = 1 + 4 * PROVIDERS; // discovery; per provider its list, one download answer, SHA256SUMS, .sig
    report.result('with `packages`: archives, requests per run (most of 7)', `${archives}, ${requests}`, `0, ≤ ${expected}`, archives === 0 && requests <= expected);
    report.result('with `packages`: speed-up vs sequential (no target)', `${(seq / pkg).toFixed(1)}×`);
    report.note('the ≥ 20× speed-up target (17–20.5× measured, at the edge) is replaced by the floor: faster code first (a SHA256SUMS and its signature ' +
      'now share one request slot, so 10 providers\' pairs no longer queue behind 16 slots for a fifth round trip), then a target against what no client can beat');
    report.note(`samples: ${samples(pkgMs)} (wall ${samples(pkgWallMs)}); each run recorded h1: for ${last!.r.lockFiles[0].providers[0].platforms.length} platforms per provider from one download answer; ` +
      'the floor is what no client can beat: each of the 4 requests needs the answer of the one before; the rest is CPU (TLS, JSON, 10 OpenPGP signature checks) on a shared machine');

    await cliLock(report, reg.caCertPath, work, sources, { name: 'with `packages`', trips: 'discovery → version list → download answer → SHA256SUMS + .sig', guard: 2.5 });

    reg.server.resetLog();
    const again = await timed(8, last!.cacheDir, last!.dir);
    report.note(`unchanged re-run (new engine, same disk cache): ${again.ms.toFixed(1)} ms, ${reg.server.requests.length} requests, lock file ${again.r.lockFiles[0].changed ? 'rewritten' : 'untouched'}`);
  } finally {
    await reg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The real CLI as a process (issue 32): `lock` of the 10 providers × 4 platforms, a new cache and
 * configuration each run, best of 5 wall times against its floor (Node's start-up, node -e 0
 * median of 5 in the same environment + 4 dependent round trips × the latency + `extra`), target
 * a guard (`what.guard`; issue 32's goal ≤ 1.5× printed beside it). Spawned asynchronously: the test registry answers from this process's event loop. The
 * phases of the best run come from bench/lock-phases-preload.ts.
 */
let cliRuns = 0;

async function cliLock(report: BenchReporter, ca: string, work: string, sources: string[],
  what: { name: string; trips: string; extra?: Floor; guard: number }): Promise<void> {
  // BENCH_LOCK_CLI: another build's dist/cli.js, for before/after runs of the same bench.
  const cli = process.env.BENCH_LOCK_CLI || join(__dirname, '..', '..', 'dist', 'cli.js');
  const label = `CLI process, ${what.name}`;
  if (!existsSync(cli)) { // not measured is a missed target, not a quiet skip
    report.result(`${label}: best of 5 vs its floor`, 'missing', 'dist/cli.js built (npm run build)', false);
    return;
  }
  const preload = join(__dirname, 'lock-phases-preload.js');
  const once = async (): Promise<{ ms: number; phases: LockPhases }> => {
    const n = ++cliRuns; // a cache of its own: nothing learnt by an earlier run (of either kind) is reused
    const dir = writeConfigDir(join(work, `cli-cfg-${n}`), sources);
    // Without NODE_EXTRA_CA_CERTS (as the start-up it is held to): the registry's CA comes by --ca-file.
    const env = { PATH: process.env.PATH, HOME: work, XDG_CACHE_HOME: join(work, `cli-cache-${n}`), BENCH_LOCK_PHASES: '1' };
    const args = ['-r', preload, cli, 'lock', '--ca-file', ca, ...PLATFORMS.flatMap((p) => ['--platform', p]), dir];
    const t0 = performance.now();
    let stderr = '';
    const code = await new Promise<number>((r) => {
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('exit', (c) => r(c ?? 1));
    });
    const ms = performance.now() - t0;
    if (code !== 0) throw new Error(`tofu-registry lock exited ${code}: ${stderr.slice(0, 2000)}`);
    const at = stderr.lastIndexOf(LOCK_PHASES_MARK);
    const phases = JSON.parse(stderr.slice(at + LOCK_PHASES_MARK.length).split('\n')[0]) as LockPhases;
    return { ms, phases };
  };
  await once(); // untimed: the page cache and the registry's own first answers
  const runs: Array<{ ms: number; phases: LockPhases }> = [];
  for (let i = 0; i < 5; i++) runs.push(await once());
  const start = median(Array.from({ length: 5 }, () => timedNode(['-e', '0'], { PATH: process.env.PATH }).ms));
  const floor: Floor = {
    ms: start + 4 * LATENCY_MS + (what.extra?.ms ?? 0),
    what: `Node's start-up ${start.toFixed(0)} ms + 4 dependent round trips (${what.trips}) × ${LATENCY_MS} ms` +
      (what.extra ? ` + ${what.extra.what} = ${what.extra.ms.toFixed(0)} ms` : ''),
  };
  const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
  // Guards: with `packages` 1.98× quiet, 2.20–2.32× at load 4–7 (2.55–3.30× before issue 32's cuts);
  // without, 2.86× quiet, 3.65–3.75× at load 4–7.
  reportAgainstFloorGoal(report, `${label}: best of 5 vs its floor`, best.ms, floor, what.guard, { factor: 1.5, issue: 'issue 32' });
  const p = best.phases;
  const f = (x: number | undefined) => (x === undefined ? '?' : x.toFixed(0));
  report.note(`${label}, phases of the best run (ms since the process started): Node's start-up ${f(p.preloadMs)}; ` +
    `loading the CLI, reading the configuration, undici and the TLS context until the first request ${f((p.firstRequestMs ?? NaN) - p.preloadMs)}; ` +
    `first request → last answer ${f((p.lastAnswerMs ?? NaN) - (p.firstRequestMs ?? NaN))} (${p.requests} requests; the round trips alone are ${4 * LATENCY_MS}); ` +
    `last answer → exit ${f(p.exitMs - (p.lastAnswerMs ?? NaN))} (checks, hashes not yet done, the lock file, exit); CPU of the process (all threads) ${f(p.cpuMs)}`);
  report.note(`${label}: wall ${samples(runs.map((r) => r.ms))}, CPU ${samples(runs.map((r) => r.phases.cpuMs))} (median ${median(runs.map((r) => r.phases.cpuMs)).toFixed(0)} ms)`);
}

function countArchives(reg: TestRegistry): number {
  return reg.server.requests.filter((r) => r.path.endsWith('.zip')).length;
}
