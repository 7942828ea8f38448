// Physical floors measured in the same run as what they bound, so a target can be stated against
// what this machine, under its current load, cannot do faster: Node's own start-up, dependent
// round trips of injected latency, sha256sum over the same bytes. Any suite can use them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReporter } from './index';
import { READY_MARK } from './machine';
import { median } from './stats';

export interface Floor {
  ms: number;
  /** How it was obtained, for the target text ("node -e 0, median of 5"). */
  what: string;
}

/** CPU time (user + system) of this process's finished children, in ms (Linux; undefined elsewhere). */
function childCpuMs(): number | undefined {
  try {
    // Fields after the parenthesised command name: cutime and cstime are the 14th and 15th.
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[13]) + Number(fields[14])) / 100) * 1000; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

export interface TimedProcess {
  /** Wall time. */
  ms: number;
  /** CPU time (user + system, all its threads), when known. */
  cpuMs?: number;
  /** How long its main thread waited for a core (0 when unknown), and the wall time without that wait. */
  waitMs: number;
  readyMs: number;
}

const PRELOAD = join(__dirname, 'ready-preload.js');

/**
 * One Node process running `args`: its wall time, CPU time, and its ready time (the wall time less
 * its main thread's wait for a core, reported by bench/ready-preload.ts at exit).
 */
export function timedNode(args: string[], env: NodeJS.ProcessEnv = process.env): TimedProcess {
  const cpu0 = childCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', PRELOAD, ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 20, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu1 = childCpuMs();
  const at = r.stderr.lastIndexOf(READY_MARK);
  const waitMs = at < 0 ? 0 : Math.min(ms, Number(r.stderr.slice(at + READY_MARK.length)) || 0);
  return { ms, cpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0, waitMs, readyMs: ms - waitMs };
}

/**
 * Node's own start-up on this machine now (`node -e 0`, median of `runs`), in the bench's
 * environment: part of every CLI process, before any of our code runs. A NODE_EXTRA_CA_CERTS naming
 * a whole CA bundle is parsed at every start, so the figure without it is returned too.
 */
export function nodeStartup(runs = 5): Floor & { withoutExtraCaMs?: number } {
  const ms = median(Array.from({ length: runs }, () => timedNode(['-e', '0']).ms));
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  if (!extraCa) return { ms, what: `node -e 0, median of ${runs}` };
  const withoutExtraCaMs = median(Array.from({ length: runs }, () => timedNode(['-e', '0'], withoutExtraCa()).ms));
  return { ms, withoutExtraCaMs, what: `node -e 0 with NODE_EXTRA_CA_CERTS=${extraCa}, median of ${runs}` };
}

/** The bench's environment without NODE_EXTRA_CA_CERTS: Node's own start-up, whatever CA bundle this machine adds. */
export function withoutExtraCa(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** Requests that depend on each other's answers cannot take less than one injected latency each. */
export function roundTripFloor(latencyMs: number, dependentTrips: number, which: string): Floor {
  return { ms: latencyMs * dependentTrips, what: `${dependentTrips} dependent round trips (${which}) × ${latencyMs} ms` };
}

/** `sha256sum` over the files (page cache warmed first), median of `runs`; undefined without sha256sum. */
export function sha256sumFloor(files: string[], runs = 3): Floor & { digests: string[] } | undefined {
  const once = () => spawnSync('sha256sum', files, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (once().status !== 0) return undefined;
  const times = Array.from({ length: runs }, () => { const t = performance.now(); once(); return performance.now() - t; });
  const digests = once().stdout.trim().split('\n').map((l) => l.split(' ')[0]);
  return { ms: median(times), digests, what: `sha256sum of the same ${files.length === 1 ? 'file' : `${files.length} files`}, median of ${runs}` };
}

/**
 * One result line holding `measuredMs` to `factor` × the floor: the value is how many floors the
 * run took, the target names the floor and its measured or computed size.
 */
export function reportAgainstFloor(report: BenchReporter, name: string, measuredMs: number, floor: Floor, factor: number): boolean {
  const x = measuredMs / floor.ms;
  const ok = x <= factor;
  report.result(name, `${x.toFixed(2)}× (${measuredMs.toFixed(0)} ms)`, `≤ ${factor}× floor: ${floor.what} = ${floor.ms.toFixed(0)} ms`, ok);
  return ok;
}
