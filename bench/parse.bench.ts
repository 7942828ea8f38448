// Parse throughput on the shared real-world corpus: our parser (parse + extraction) against
// HashiCorp's HCL parser compiled to WebAssembly (@cdktf/hcl2json), measured in the same run.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { BenchReporter } from './index';
import { reportAgainstHcl2json } from './compare';
import { readyTimed, readyTimedSync } from './machine';
import { extractFile, parseHcl } from '../src/engine/config';

export const title = 'Configuration parser (shared corpus, parse + extraction)';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (n.endsWith('.tf')) out.push(p);
  }
  return out;
}

export async function run(report: BenchReporter): Promise<void> {
  if (!existsSync(CORPUS)) {
    report.note(`shared corpus not found at ${CORPUS}: skipped`);
    return;
  }
  const texts = files(CORPUS).map((f) => readFileSync(f, 'utf8'));
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const mb = bytes / 1e6;
  report.note(`${texts.length} files, ${mb.toFixed(2)} MB`);

  // Ours: warm up, then several passes over the whole corpus (ready times, machine.ts).
  let sink = 0;
  const ours = (): number => readyTimedSync(() => { for (const t of texts) sink += extractFile(parseHcl(t), t).variables.length; }).readyMs;
  for (let i = 0; i < 10; i++) ours();
  const oursMs: number[] = [];
  for (let i = 0; i < 15; i++) oursMs.push(ours());

  // Reference: hcl2json (async, WebAssembly); warm-up pass, then a few passes.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parse } = require('@cdktf/hcl2json') as { parse(name: string, text: string): Promise<Record<string, unknown>> };
  const ref = async (): Promise<number> => (await readyTimed(async () => { for (const t of texts) sink += Object.keys(await parse('main.tf', t)).length; })).readyMs;
  await ref();
  const refMs: number[] = [];
  for (let i = 0; i < 3; i++) refMs.push(await ref());

  reportAgainstHcl2json(report, { ours: 'parse + extract, one pass', ref: 'hcl2json, one pass', ratio: 'speed-up vs hcl2json' }, mb, oursMs, refMs, 10);
  report.note(`ready times per pass over the corpus (checksum ${sink % 7})`);
}
