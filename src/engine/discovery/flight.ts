// One load shared by every caller that asks for the same thing while it runs (single flight),
// cancellable per caller: a caller whose signal aborts stops waiting at once; the load itself is
// aborted only when every caller waiting on it has stopped (one without a signal keeps it alive),
// so a cancelled hover never takes the answer away from a diagnostic waiting on the same request.

/** The rejection of a caller that stopped waiting (and of a load nobody waits for any more). */
export function abortError(what = 'the lookup'): DOMException {
  return new DOMException(`${what} was cancelled`, 'AbortError');
}

export class SharedFlight<T> {
  readonly promise: Promise<T>;
  private readonly controller = new AbortController();
  private waiting = 0;
  private keptAlive = false;

  constructor(load: (signal: AbortSignal) => Promise<T>) {
    this.promise = load(this.controller.signal);
    this.promise.catch(() => undefined); // rejections reach the callers that still wait
  }

  /** Every caller stopped waiting: the load was aborted (its outcome is nobody's answer). */
  get abandoned(): boolean {
    return this.controller.signal.aborted;
  }

  /** Wait for the load; `signal` aborting stops this caller's wait (AbortError). */
  join(signal?: AbortSignal): Promise<T> {
    if (!signal) {
      this.keptAlive = true;
      return this.promise;
    }
    this.waiting++;
    if (signal.aborted) {
      this.leave();
      return Promise.reject(abortError());
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => { this.leave(); reject(abortError()); };
      signal.addEventListener('abort', onAbort, { once: true });
      this.promise.then(
        (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
        (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
      );
    });
  }

  private leave(): void {
    if (--this.waiting === 0 && !this.keptAlive) this.controller.abort(abortError());
  }
}
