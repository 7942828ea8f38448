// Small statistics shared by the benchmark suites.

/** The median of the samples (the machine is shared: one sample is at the mercy of the scheduler). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
