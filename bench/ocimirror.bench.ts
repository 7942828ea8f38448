// npm run bench -- ocimirror
//  1. 10 providers × 4 platforms (8 MiB zips) from the HTTPS test registry into a real OCI registry
//     (CNCF Distribution behind the test harness's proxy), 50 ms added to every response of both
//     (each in a process of its own, as real ones are other machines): `mirror --oci` at
//     concurrency 8 vs the same content pushed one request at a time (concurrency 1), each run into
//     repositories of its own (so every zip is uploaded), median of 3: target ≥ 4×.
//  2. An unchanged re-run (new engine, the CLI's disk cache) vs the first run: target ≥ 20× and 0
//     blob uploads (counted on the registry).
//  3. Peak RSS of a child process pushing the 40 archives (320 MiB): target ≤ 200 MB.
import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReporter } from './index';
import { readyTimed } from './machine';
import { median, samples as list } from './stats';
import { Engine } from '../src/engine/engine';
import { mirrorToOci } from '../src/engine/ocimirror';
import { writeConfigDir } from './mirror-child';
import type { RegistryChildArgs } from './registry-child';
import { tempDir } from '../test/support/temp';

export const title = 'Provider mirror into an OCI registry (issue 18)';

const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_arm64', 'windows_amd64'];

/** The next message of a child process (after sending `msg`, when given). */
function reply<T>(child: ChildProcess, msg?: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`child exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (m) => { child.off('exit', onExit); resolve(m as T); });
    if (msg) child.send(msg);
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.send('stop');
  await exited;
}

export async function run(report: BenchReporter): Promise<void> {
  const work = tempDir('bench-ocimirror-');
  const args: RegistryChildArgs = { work, providers: 10, platforms: PLATFORMS, binarySize: 8 * 1024 * 1024, latencyMs: 50 };
  const origin = fork(join(__dirname, 'registry-child.js'), [JSON.stringify(args)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const oci = fork(join(__dirname, 'oci-registry-child.js'), [JSON.stringify({ delayMs: 50 })], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const [reg, registry] = await Promise.all([
      reply<{ host: string; caCertPath: string; sources: string[]; bytes: number }>(origin),
      reply<{ host: string; caCertPath: string }>(oci),
    ]);
    const dir = writeConfigDir(join(work, 'cfg'), reg.sources);
    const caFiles = [reg.caCertPath, registry.caCertPath];
    let n = 0;
    // Every run gets a new engine (a new process in real life) and, unless told, repositories of
    // its own: nothing it pushes is there yet.
    const timed = async (concurrency: number, template = `${registry.host}/run-${++n}/\${namespace}/\${type}`, cacheDir = join(work, `cache-${n}`)) => {
      const engine = new Engine({ env: { HOME: work }, caFiles, cacheDir, timeoutMs: 60_000 });
      const { value: r, readyMs } = await readyTimed(() => mirrorToOci({ engine, dirs: [dir], template, platforms: PLATFORMS, concurrency }));
      await engine.dispose();
      if (r.failed.length) throw new Error(`bench oci mirror failed: ${JSON.stringify(r.failed[0])}`);
      return { ms: readyMs, r, template, cacheDir };
    };
    const samples = 3;
    const seqMs: number[] = [];
    const parMs: number[] = [];
    let last: Awaited<ReturnType<typeof timed>> | undefined;
    for (let i = 0; i < samples; i++) {
      seqMs.push((await timed(1)).ms);
      last = await timed(8);
      parMs.push(last.ms);
    }
    const seq = median(seqMs);
    const par = median(parMs);
    report.result('40 zips pushed, 50 ms latency: one request at a time', `${seq.toFixed(0)} ms`);
    report.result('40 zips pushed, 50 ms latency: mirror --oci (c=8)', `${par.toFixed(0)} ms`);
    report.result(`speed-up vs one request at a time (median of ${samples})`, `${(seq / par).toFixed(1)}×`, '≥ 4×', seq / par >= 4);
    report.note(`samples: one at a time ${list(seqMs)}, c=8 ${list(parMs)}; ${last!.r.blobsUploaded} zips uploaded per run (${(reg.bytes / 1e6).toFixed(0)} MB)`);

    await reply(oci, 'reset');
    await reply(origin, 'reset');
    const rerunMs: number[] = [];
    let upToDate = true;
    for (let i = 0; i < 5; i++) {
      const again = await timed(8, last!.template, last!.cacheDir);
      rerunMs.push(again.ms);
      upToDate &&= again.r.upToDate.length === 40 && again.r.pushed.length === 0 && again.r.bytesDownloaded === 0;
    }
    const counts = await reply<{ uploads: number; requests: number }>(oci, 'counts');
    const originRequests = (await reply<{ requests: number }>(origin, 'requests')).requests;
    const rerun = median(rerunMs);
    report.result('unchanged re-run (new engine, disk cache; median of 5)', `${rerun.toFixed(0)} ms`);
    report.result('unchanged re-run speed-up vs first run', `${(par / rerun).toFixed(0)}×`, '≥ 20×', par / rerun >= 20 && upToDate);
    report.result('blob uploads in the 5 unchanged re-runs', `${counts.uploads}`, '0', counts.uploads === 0 && upToDate);
    report.note(`the re-runs sent ${counts.requests / 5} requests each to the OCI registry (the tags) and ${originRequests / 5} to the origin (download answers, SHA256SUMS + signature); samples ${list(rerunMs)}`);

    // Peak RSS of a process pushing the 40 zips (fresh repositories).
    const child = spawn(process.execPath, [join(__dirname, 'mirror-child.js'), JSON.stringify({
      ca: caFiles, dir, out: '', platforms: PLATFORMS, home: work, template: `${registry.host}/rss/\${namespace}/\${type}`,
    })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => { stdout += d; });
    const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
    if (code !== 0) throw new Error(`oci mirror child failed (${code}): ${stdout}`);
    const res = JSON.parse(stdout) as { maxRssKb: number; mirrored: number; bytes: number };
    const rssMb = res.maxRssKb / 1024;
    report.result(`peak RSS pushing ${res.mirrored} zips (${(res.bytes / 1e6).toFixed(0)} MB)`, `${rssMb.toFixed(0)} MB`, '≤ 200 MB', rssMb <= 200 && res.mirrored === 40);
  } finally {
    await Promise.all([stopChild(origin), stopChild(oci)]);
    rmSync(work, { recursive: true, force: true });
  }
}
