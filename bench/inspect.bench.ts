// Whole-process `tofu-registry inspect --json DIR` over a large tree of real configuration files
// (start-up, directory walk, reads, parsing, JSON output), against a process doing the same with
// HashiCorp's HCL parser (@cdktf/hcl2json), measured in the same run and interleaved so both see
// the same machine load. The tree is the shared corpus copied until it is about 12 MB; without
// ../shared it is built from the repository's own fixture .tf files.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BenchReporter } from './index';
import { median, reportAgainstHcl2json } from './compare';
import { tempDir } from '../test/support/temp';

export const title = 'inspect --json over a large tree (whole process) vs hcl2json';

const ROOT = path.resolve(__dirname, '..', '..');
const CORPUS = path.resolve(ROOT, '..', 'shared', 'corpus');
const FIXTURE_DIRS = ['test/fixtures', 'examples'].map((d) => path.join(ROOT, d));
const TARGET_BYTES = 12e6;

function tfFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'node_modules' && !e.name.startsWith('.')) tfFiles(p, out); } else if (e.name.endsWith('.tf')) out.push(p);
  }
  return out;
}

/** Copies of the corpus (or of the fixtures) side by side until the tree holds about TARGET_BYTES. */
function buildTree(): { root: string; files: number; bytes: number; from: string } {
  const root = tempDir('tofu-registry-bench-inspect-');
  if (existsSync(CORPUS)) {
    const size = tfFiles(CORPUS).reduce((n, f) => n + statSync(f).size, 0);
    const copies = Math.max(1, Math.round(TARGET_BYTES / size));
    for (let i = 0; i < copies; i++) cpSync(CORPUS, path.join(root, `copy${i}`), { recursive: true, filter: (src) => !src.endsWith('.md') });
    return { root, files: tfFiles(root).length, bytes: size * copies, from: `../shared/corpus × ${copies}` };
  }
  // One file = every fixture .tf file in a row (≈ 3.5 KB, the corpus's average file size too), so
  // the tree has realistic per-file overheads rather than tens of thousands of tiny files.
  const file = Buffer.concat(FIXTURE_DIRS.filter(existsSync).flatMap((d) => tfFiles(d)).sort().flatMap((f) => [readFileSync(f), Buffer.from('\n')]));
  const copies = Math.max(1, Math.round(TARGET_BYTES / file.length));
  for (let i = 0; i < copies; i++) {
    const dir = path.join(root, `m${Math.floor(i / 100)}`, `c${Math.floor(i / 10)}`); // 10 files per configuration
    if (i % 10 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i % 10}.tf`), file);
  }
  return { root, files: copies, bytes: file.length * copies, from: `the repository's fixture .tf files, concatenated, × ${copies} (../shared/corpus absent)` };
}

function childCpuSeconds(): number | undefined {
  try {
    // Fields after the parenthesised command name: cutime and cstime are the 14th and 15th.
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

function withoutExtraCa(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** Wall time of one process, and the CPU time it used (user + system, all its threads). */
function timed(args: string[], env: NodeJS.ProcessEnv = process.env): { ms: number; cpuMs?: number } {
  const cpu0 = childCpuSeconds();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 20, env });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu1 = childCpuSeconds();
  return { ms, cpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) * 1000 };
}

export async function run(report: BenchReporter): Promise<void> {
  const cli = path.join(ROOT, 'dist', 'cli.js');
  // Not measured is a failure, not a quiet skip.
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build (npm run bench does)');
  const tree = buildTree();
  const mb = tree.bytes / 1e6;
  report.note(`${tree.files} files, ${mb.toFixed(1)} MB from ${tree.from}`);
  // The output is checked once: a fast run that failed or skipped files would prove nothing.
  const check = spawnSync(process.execPath, [cli, 'inspect', '--json', tree.root], { maxBuffer: 1 << 30, encoding: 'utf8' });
  const listed = (JSON.parse(check.stdout) as { files: unknown[] }).files.length;
  if (check.status !== 0 || listed !== tree.files) throw new Error(`inspect listed ${listed} of ${tree.files} files (exit ${check.status})`);

  const ours: ReturnType<typeof timed>[] = [];
  const ref: ReturnType<typeof timed>[] = [];
  const baseline = path.join(__dirname, 'hcl2json-inspect.js');
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) ours.push(timed([cli, 'inspect', '--json', tree.root]));
    ref.push(timed([baseline, tree.root]));
  }
  const wall = (xs: ReturnType<typeof timed>[]) => xs.map((x) => x.ms);
  reportAgainstHcl2json(report, { ours: 'inspect --json throughput (median of 9 processes)', ref: 'hcl2json walk + parse + JSON (median of 3)', ratio: 'speed-up vs hcl2json (whole process)' }, mb, wall(ours), wall(ref));
  report.note(`inspect ${wall(ours).map((x) => x.toFixed(0)).join(' / ')} ms, hcl2json ${wall(ref).map((x) => x.toFixed(0)).join(' / ')} ms`);
  // What of each process is Node's own start-up on this machine, before any of our code runs. A
  // NODE_EXTRA_CA_CERTS naming a whole CA bundle (as on the development machine) is parsed at
  // every start.
  const start = median(Array.from({ length: 5 }, () => timed(['-e', '0']).ms));
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const withoutCa = extraCa ? `; ${median(Array.from({ length: 5 }, () => timed(['-e', '0'], withoutExtraCa()).ms)).toFixed(0)} ms without its NODE_EXTRA_CA_CERTS (${extraCa})` : '';
  report.note(`Node's own start-up (node -e 0, median of 5), part of every process above: ${start.toFixed(0)} ms${withoutCa}`);
  // CPU time moves much less than wall time when other work shares the machine.
  if (ours.every((x) => x.cpuMs !== undefined) && ref.every((x) => x.cpuMs !== undefined)) {
    const o = median(ours.map((x) => x.cpuMs!));
    const r = median(ref.map((x) => x.cpuMs!));
    report.note(`CPU time (user + system, median): inspect ${o.toFixed(0)} ms = ${(mb / (o / 1000)).toFixed(1)} MB per CPU-second, hcl2json ${r.toFixed(0)} ms; ${(r / o).toFixed(1)}x`);
  }
}
