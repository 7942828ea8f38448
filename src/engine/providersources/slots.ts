// The slots a run's concurrent archive fetches share (sources.ts): small requests, archive
// transfers, and archive requests sent ahead of a free transfer slot.
import { createLimiter, Limiter } from '../fstree';

export interface FetchSlots {
  request: Limiter;
  download: Limiter;
  /**
   * Archive requests sent ahead of a free download slot (up to `download`'s size more): each
   * answer's latency passes while the slots transfer, and its body waits, unread, for one
   * (downloadToFile's `transfer`). Absent (concurrency 1): each request is sent in its download slot.
   */
  ahead?: Limiter;
  /** One request at a time (concurrency 1): even a SHA256SUMS and its signature, one after the other. */
  serial?: boolean;
}

/**
 * Small requests (version lists, download answers, SHA256SUMS) at once beside `concurrency`
 * archive downloads: at least 16, except at concurrency 1, which is one request at a time (as
 * `tofu providers mirror` works: the benchmarks' sequential baseline).
 */
export function smallRequestLimit(concurrency: number): number {
  return concurrency <= 1 ? 1 : Math.max(16, concurrency);
}

/** The slots of a run downloading `concurrency` archives at once; at concurrency 1 one slot serves both. */
export function fetchSlots(concurrency: number): FetchSlots {
  const download = createLimiter(Math.max(1, concurrency));
  if (concurrency <= 1) return { download, request: download, serial: true };
  // `ahead` covers a request, its wait for a download slot and the transfer: `concurrency` more in flight
  return { download, request: createLimiter(smallRequestLimit(concurrency)), ahead: createLimiter(2 * concurrency) };
}

export const unlimited: Limiter = (fn) => fn();
