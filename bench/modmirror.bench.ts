// npm run bench -- modmirror
//  1. 20 module versions (tar.gz packages of 12 files) from the HTTPS test registry with 50 ms added
//     to every response: concurrency 8 vs the same engine sequentially (concurrency 1: one request
//     at a time, version lists included; they used to run 16 at a time even then), in this run:
//     target ≥ 4×; and the parallel run against its floor, the round trips that depend on each
//     other (discovery → version list → 3 waves of download location → archive in 8 slots):
//     target best of 3 ≤ 2.5× (1.5–1.9× measured at load 3–11 on 2 cores: CPU on one thread with the test server).
//  2. An unchanged re-run vs the first run, each with a new engine (as a new CLI process would;
//     the re-run keeps the CLI's disk cache of discovery and version lists): target no archive
//     request and ≥ 20× faster. Also reported: the re-run without the disk cache.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import type { BenchReporter } from './index';
import { reportAgainstFloor, roundTripFloor } from './floors';
import { loadText, readyTimed } from './machine';
import { median, samples } from './stats';
import { Engine } from '../src/engine/engine';
import { mirrorModules } from '../src/engine/modmirror';
import { startTestRegistry, TestRegistry } from '../test/support/registry-server';
import { removeTempDir, tempDir } from '../test/support/temp';

export const title = 'Module mirror (issue 11)';

const MODULES = 20;
const CONCURRENCY = 8;
const LATENCY_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(report: BenchReporter): Promise<void> {
  const work = tempDir('bench-modmirror-');
  const reg = await startTestRegistry({ fixtures: false });
  try {
    const ws = await origin(reg, work);
    reg.server.route('/', async () => { await sleep(LATENCY_MS); return false; }); // added to every response
    let n = 0;
    const cpuMs: number[] = [];
    // Every run gets a new engine (a new process in real life); cacheDir is the CLI's disk cache
    // of discovery and version lists: empty for a first run, kept for a re-run.
    const timed = async (out: string, concurrency: number, cacheDir = join(work, `cache-${++n}`)) => {
      const engine = new Engine({ env: { HOME: work }, caFiles: [reg.caCertPath], cacheDir });
      const c0 = process.cpuUsage();
      // Ready time (machine.ts): the wall time less this thread's waits for a core.
      const { value: r, readyMs: ms } = await readyTimed(() => mirrorModules({ engine, dirs: [ws], out, concurrency }));
      const cpu = process.cpuUsage(c0);
      cpuMs.push((cpu.user + cpu.system) / 1000);
      await engine.dispose();
      if (r.failed.length) throw new Error(`bench module mirror failed: ${JSON.stringify(r.failed[0])}`);
      return { ms, r, cacheDir };
    };
    // Median of 3 each, alternating, every run into an empty OUT: the machine is shared.
    const seqMs: number[] = [];
    const parMs: number[] = [];
    let last: Awaited<ReturnType<typeof timed>> | undefined;
    for (let i = 0; i < 3; i++) {
      seqMs.push((await timed(join(work, `out-seq-${i}`), 1)).ms);
      last = await timed(join(work, `out-par-${i}`), CONCURRENCY);
      parMs.push(last.ms);
      if (last.r.mirrored.length !== MODULES) throw new Error(`expected ${MODULES} mirrored, got ${last.r.mirrored.length}`);
    }
    const seq = median(seqMs);
    const par = median(parMs);
    report.result(`${MODULES} module versions, ${LATENCY_MS} ms latency: sequential (c=1)`, `${seq.toFixed(0)} ms`);
    report.result(`${MODULES} module versions, ${LATENCY_MS} ms latency: parallel (c=${CONCURRENCY})`, `${par.toFixed(0)} ms`);
    report.result('parallel speed-up vs sequential (median of 3)', `${(seq / par).toFixed(1)}×`, '≥ 4×', seq / par >= 4);
    const waves = Math.ceil(MODULES / CONCURRENCY);
    // Against a floor, the best run: the floor is a lower bound, and other work only adds to a run.
    reportAgainstFloor(report, 'parallel run, best of 3, vs its round-trip floor', Math.min(...parMs),
      roundTripFloor(LATENCY_MS, 2 + 2 * waves, `discovery → version list → ${waves} waves of location → archive`), 2.5);
    report.note('the sequential baseline is now one request at a time (its version lists ran 16 at a time even at concurrency 1, so ≥ 4× measured 3.8–4.4× ' +
      'against a partly parallel baseline); ≥ 4× is kept against the honest one, and the parallel run is held to its round-trip floor');
    report.note(`samples: sequential ${samples(seqMs)}, parallel ${samples(parMs)}; the sequential run's floor: ${1 + 3 * MODULES} requests one after the other = ${((1 + 3 * MODULES) * LATENCY_MS).toFixed(0)} ms`);
    // The 61 responses' latency is what parallelism overlaps; the CPU time (this process: the engine
    // and the in-process test server) is not, and on a shared machine it is what limits the ratio.
    report.note(`CPU time per first run (engine + in-process test server): median ${median(cpuMs).toFixed(0)} ms; ${loadText()}`);

    reg.server.resetLog();
    const out = join(work, 'out-par-2');
    const rerunMs: number[] = [];
    let upToDate = true;
    for (let i = 0; i < 5; i++) {
      const again = await timed(out, CONCURRENCY, last!.cacheDir);
      rerunMs.push(again.ms);
      upToDate &&= again.r.upToDate.length === MODULES && again.r.mirrored.length === 0;
    }
    const archives = reg.server.count('/archives/');
    const requests = reg.server.requests.length;
    const rerun = median(rerunMs);
    report.result('unchanged re-run (new engine, disk cache; median of 5)', `${rerun.toFixed(1)} ms`);
    report.result('unchanged re-run speed-up vs first run', `${(par / rerun).toFixed(0)}×`, '≥ 20×, no download', par / rerun >= 20 && upToDate && archives === 0);
    report.note(`re-runs sent ${requests} requests (${archives} for archives); samples ${samples(rerunMs)}`);
    const noCache = median([await timed(out, CONCURRENCY), await timed(out, CONCURRENCY), await timed(out, CONCURRENCY)].map((x) => x.ms));
    report.note(`re-run without the disk cache (--no-cache: discovery + ${MODULES} version lists again, 50 ms each): ${noCache.toFixed(0)} ms (${(par / noCache).toFixed(1)}×), still no archive fetched: ${reg.server.count('/archives/') === 0}`);
  } finally {
    await reg.stop();
    removeTempDir(work);
  }
}

/** MODULES registry modules, one version each, packages of 12 files; a configuration calling them all. */
async function origin(reg: TestRegistry, work: string): Promise<string> {
  const calls: string[] = [];
  for (let i = 0; i < MODULES; i++) {
    const dir = join(work, 'pkgs', `m${i}`);
    mkdirSync(join(dir, 'modules', 'inner'), { recursive: true });
    const names: string[] = [];
    for (let f = 0; f < 10; f++) {
      writeFileSync(join(dir, `file${f}.tf`), `variable "v${f}" {\n  type    = string\n  default = "${'x'.repeat(1500)}"\n}\n`);
      names.push(`file${f}.tf`);
    }
    writeFileSync(join(dir, 'modules', 'inner', 'main.tf'), 'output "x" {\n  value = 1\n}\n');
    writeFileSync(join(dir, 'README.md'), `# m${i}\n`);
    const file = join(work, `m${i}.tar.gz`);
    await tar.c({ gzip: true, file, cwd: dir, portable: true }, [...names, 'modules/inner/main.tf', 'README.md']);
    reg.addFile(`/archives/m${i}/1.0.0.tar.gz`, require('node:fs').readFileSync(file), 'application/gzip');
    reg.addModule({ namespace: 'bench', name: `m${i}`, system: 'aws', versions: ['0.9.0', '1.0.0'],
      location: (v) => ({ kind: i % 2 ? 'header' : 'json', location: `/archives/m${i}/${v}.tar.gz` }) });
    calls.push(`module "m${i}" {\n  source  = "${reg.host}/bench/m${i}/aws"\n  version = "~> 1.0"\n}\n`);
  }
  const ws = join(work, 'cfg');
  mkdirSync(ws);
  writeFileSync(join(ws, 'main.tf'), calls.join('\n'));
  return ws;
}
