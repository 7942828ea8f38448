// Bounded concurrency for file-system work: enough operations in flight to keep libuv's thread pool
// (and the disk) busy while the main thread parses, without opening thousands of files at once.

/** How many file-system operations a tree walk or a batch read keeps in flight by default. */
export const FS_CONCURRENCY = 32;

/**
 * `fn` over `items` with at most `limit` calls in flight; the results keep the order of `items`.
 * The first rejection rejects the whole call (calls already started still run to completion).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
