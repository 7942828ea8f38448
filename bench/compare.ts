// The throughput comparison the parser and inspect suites share: ours against @cdktf/hcl2json
// (HashiCorp's HCL parser), both measured in the same run, each held to the same two targets.
import type { BenchReporter } from './index';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Reports MB/s of ours (≥ 40 MB/s) and of hcl2json, and the speed-up (≥ 10×), from the medians. */
export function reportAgainstHcl2json(report: BenchReporter, labels: { ours: string; ref: string; ratio: string }, mb: number, oursMs: number[], refMs: number[]): void {
  const o = median(oursMs);
  const r = median(refMs);
  const throughput = mb / (o / 1000);
  report.result(labels.ours, `${throughput.toFixed(1)} MB/s`, '≥ 40 MB/s', throughput >= 40);
  report.result(labels.ref, `${(mb / (r / 1000)).toFixed(1)} MB/s`);
  report.result(labels.ratio, `${(r / o).toFixed(1)}x`, '≥ 10x', r / o >= 10);
}
