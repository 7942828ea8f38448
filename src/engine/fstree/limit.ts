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

/** Runs `fn` when a slot is free: at most `limit` of the functions given to it run at once. */
export type Limiter = <R>(fn: () => Promise<R>) => Promise<R>;

/**
 * A limit shared by callers that cannot pass one list to mapLimit (a recursive walk reading many
 * directories at once, the mirrors' and the lock engine's request and download slots): functions
 * start in the order given. Only for leaf work (a read, a request) — a function that waits for
 * another one under the same limiter could wait forever.
 */
export function createLimiter(limit: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  const done = () => {
    active--;
    waiting.shift()?.();
  };
  return <R>(fn: () => Promise<R>) => new Promise<R>((resolve, reject) => {
    const start = () => {
      active++;
      Promise.resolve().then(fn).then(resolve, reject).finally(done);
    };
    if (active < limit) start();
    else waiting.push(start);
  });
}

/**
 * How many files this process keeps open at once for reading configuration and module trees,
 * whatever the number of directories, walks and runs in progress: a monorepo of thousands of root
 * modules read at once must not run into the open-files limit (`ulimit -n`, often 256 or 1,024).
 */
export const OPEN_FILES_LIMIT = 64;

/**
 * The one process-wide limiter for open files (readText, readTextCapped, and the directory reads of
 * configuration loading). Leaf work only: never call a function that takes this limiter from
 * inside one it runs.
 */
export const withOpenFile: Limiter = createLimiter(OPEN_FILES_LIMIT);

/**
 * Whether a file-system error says the process ran out of something (open files, memory) rather
 * than that the path is unreadable: such an error must fail the run, never count as "nothing here".
 */
export function isExhausted(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE' || code === 'ENOMEM';
}

/** A message for an isExhausted error that says what to do. */
export function exhaustedMessage(what: string, err: unknown): string {
  return `cannot read ${what}: ${(err as Error).message} (raise the open-files limit, ulimit -n)`;
}
