// Small statistics shared by the benchmark suites.

/** The median of the samples (the machine is shared: one sample is at the mercy of the scheduler). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Milliseconds as the bench prints them: whole above 100, one decimal below. */
export function ms(x: number): string {
  return `${x >= 100 ? x.toFixed(0) : x.toFixed(1)} ms`;
}

/** Samples as the notes list them ("612 / 598 / 640 ms"). */
export function samples(xs: number[]): string {
  return `${xs.map((x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1))).join(' / ')} ms`;
}

/** CPU time (user + system, every thread of this process) spent by fn, and its wall time, in ms. */
export async function cpuAndWall<T>(fn: () => T | Promise<T>): Promise<{ value: T; cpuMs: number; wallMs: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, cpuMs: (c.user + c.system) / 1000, wallMs: performance.now() - t0 };
}
