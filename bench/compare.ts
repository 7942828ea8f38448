// The comparison the parser and inspect suites share: ours against @cdktf/hcl2json (HashiCorp's
// HCL parser), both measured in the same run. The target is the ratio; MB/s is printed beside it
// as information only (it says as much about the machine as about the code).
import type { BenchReporter } from './index';
import { median } from './stats';

/**
 * Reports the speed-up of ours against hcl2json from the best ready time of each
 * (machine.ts: wall time less the waits for a core): on a busy machine other work only adds to a
 * run, and it hits the two unevenly (ours compiles its parser cold on V8's helper threads, which
 * then wait for a core too; hcl2json is one thread of WebAssembly). Medians and MB/s are printed
 * without a target.
 */
export function reportAgainstHcl2json(report: BenchReporter, labels: { ours: string; ref: string; ratio: string }, mb: number, oursMs: number[], refMs: number[], atLeast: number): void {
  const o = Math.min(...oursMs);
  const r = Math.min(...refMs);
  report.result(`${labels.ours} (best of ${oursMs.length})`, `${o.toFixed(0)} ms`);
  report.result(`${labels.ref} (best of ${refMs.length})`, `${r.toFixed(0)} ms`);
  report.result(labels.ratio, `${(r / o).toFixed(1)}×`, `≥ ${atLeast}× hcl2json`, r / o >= atLeast);
  report.note(`for information, on this machine now: ours ${(mb / (o / 1000)).toFixed(1)} MB/s, hcl2json ${(mb / (r / 1000)).toFixed(1)} MB/s; ` +
    `medians ${median(oursMs).toFixed(0)} ms and ${median(refMs).toFixed(0)} ms (${(median(refMs) / median(oursMs)).toFixed(1)}×)`);
}
