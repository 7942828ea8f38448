// The bound on a module tree a command walks (mirror-modules, lock, outdated, the editor's lock
// diagnostics): how deep module calls may nest and how many modules one walk may reach. A hostile
// registry can make every package call further packages — an endless chain or a tree that doubles
// at each level — and the depth limit alone still allows exponential fan-out. Past either limit
// the walk stops with one error naming the chain of calls that reached it.

/** How deep module calls may nest below a root module (tofu itself has no limit; real trees stay far below). */
export const DEFAULT_MODULE_DEPTH = 32;
/** How many modules one walk may reach (module versions for the mirror, module calls for a root's tree). */
export const DEFAULT_MODULE_TOTAL = 1000;

export interface ModuleBudgetLimits {
  maxDepth?: number;
  maxModules?: number;
}

/** One link of a chain of calls: the call's name and the source it names (shown redacted by the caller). */
export type ChainLink = string;

export class ModuleBudget {
  readonly maxDepth: number;
  readonly maxModules: number;
  private used = 0;
  private exhausted = false;

  constructor(limits: ModuleBudgetLimits = {}) {
    this.maxDepth = limits.maxDepth ?? DEFAULT_MODULE_DEPTH;
    this.maxModules = limits.maxModules ?? DEFAULT_MODULE_TOTAL;
  }

  /**
   * Claims one more module, reached through `chain` (the root configuration first, this module
   * last: its depth is chain.length - 1). Undefined:
   * go on. A string: refused, with the error to report; '' when the total was already exceeded
   * and reported once (a doubling tree would otherwise report every pruned branch).
   */
  claim(chain: readonly ChainLink[]): string | undefined {
    if (chain.length - 1 > this.maxDepth) {
      return `module calls nested more than ${this.maxDepth} deep (an endless chain of modules calling modules?): ${chainText(chain)}`;
    }
    if (this.exhausted) return '';
    if (++this.used > this.maxModules) {
      this.exhausted = true;
      return `more than ${this.maxModules} modules to follow in this run (modules that keep calling further modules?); stopped at ${chainText(chain)}`
        + ' — raise the limit with --max-modules if this tree is real';
    }
    return undefined;
  }
}

/** "a → b → … (20 more) … → y → z": long chains keep both ends, which are what a reader needs. */
export function chainText(chain: readonly ChainLink[]): string {
  const shown = chain.length > 8 ? [...chain.slice(0, 4), `… (${chain.length - 7} more) …`, ...chain.slice(-3)] : chain;
  return shown.join(' → ');
}

/** A promise that rejects as soon as `signal` aborts (the work behind it is cancelled by its own signal or left to time out). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the run was cancelled');
}
