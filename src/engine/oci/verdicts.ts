// What a run has learnt about each OCI registry, so that a bad registry costs a run once:
// - credentials: until a registry has accepted the credentials offered to it, requests carrying
//   them go one at a time (credentialTurn); the first refusal (401/403 after credentials) ends
//   every further request to that registry ('skipped: …') for the client's life (a CLI run) or
//   `refusedCredentialsTtlMs` (the editor), so a wrong password is one message and one refused
//   request, not one per provider;
// - time: a read that timed out is tried once more (withTimeoutRetry), and a registry that let both
//   attempts time out is not asked again for a minute, so a command facing only dead or dripping
//   registries ends within twice its request timeout.
import { RegistryError } from '../net/errors';

/** How long a registry that let a request time out twice is not asked again. */
const UNANSWERED_MS = 60_000;

/** A request's hold on its registry's credential probe (see credentialTurn). */
export interface Turn { release?: () => void }

/** The request a verdict is about, for its messages. */
export interface VerdictCall {
  registry: string;
  /** "list the tags of 127.0.0.1:5000/a/b" */
  what: string;
  method: string;
  idempotent: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class RegistryVerdicts {
  /** Registries that accepted the credentials offered to them. */
  private readonly trusted = new Set<string>();
  /** Registries that refused them: the first refusal, which ends every further request. */
  private readonly refusals = new Map<string, { error: RegistryError; until: number }>();
  /** A request with credentials in flight to a registry not yet trusted: the others wait for its verdict. */
  private readonly probing = new Map<string, Promise<void>>();
  /** Registries that let a request time out twice: until when they are not asked, and why. */
  private readonly unanswered = new Map<string, { until: number; error: RegistryError }>();

  constructor(private readonly opts: { refusedCredentialsTtlMs?: number; log: (message: string, level: 'info' | 'warn') => void }) {}

  /** Forgets every verdict (the credentials were read again). */
  forget(): void {
    this.trusted.clear();
    this.refusals.clear();
    this.unanswered.clear();
  }

  /** The refusal that ended requests to a registry, if one did (and still does). */
  refusalOf(registry: string): RegistryError | undefined {
    const r = this.refusals.get(registry);
    if (r && r.until <= Date.now()) this.refusals.delete(registry);
    return this.refusals.get(registry)?.error;
  }

  /** Stops a request to a registry that refused the credentials earlier in this run. */
  throwIfRefused(c: VerdictCall): void {
    const first = this.refusalOf(c.registry);
    if (first) {
      throw new RegistryError(first.code, `skipped: ${c.registry} refused the credentials earlier in this run, so nothing more is sent to it (not asked to ${c.what})`, { host: c.registry, status: first.status, cause: first });
    }
  }

  /**
   * Waits until this request may offer credentials to its registry: at once when the registry has
   * accepted them before; otherwise one request at a time until one is answered, so that a wrong
   * password is refused once and every request waiting behind it stops without being sent.
   */
  async credentialTurn(c: VerdictCall, turn: Turn): Promise<void> {
    while (!turn.release) {
      this.throwIfRefused(c);
      if (this.trusted.has(c.registry)) return;
      const busy = this.probing.get(c.registry);
      if (!busy) {
        let done!: () => void;
        this.probing.set(c.registry, new Promise<void>((r) => { done = r; }));
        turn.release = () => { this.probing.delete(c.registry); done(); };
        return;
      }
      await untilSettled(busy, c.signal);
    }
  }

  /** The registry answered a request that carried credentials with something other than 401/403. */
  accepted(registry: string): void {
    this.trusted.add(registry);
  }

  /** Records a refusal of offered credentials (it ends every further request to the registry); returns `err`. */
  noteRefusal(c: VerdictCall, err: unknown, offered: boolean): unknown {
    if (offered && err instanceof RegistryError && (err.code === 'unauthorized' || err.code === 'forbidden') && !err.message.startsWith('skipped:')
      && !this.refusalOf(c.registry)) {
      this.refusals.set(c.registry, { error: err, until: Date.now() + (this.opts.refusedCredentialsTtlMs ?? Infinity) });
      this.trusted.delete(c.registry);
      this.opts.log(`${err.message}; no further request is sent to ${c.registry} in this run`, 'warn');
    }
    return err;
  }

  /**
   * Runs one attempt, and after a timeout (never the caller's cancellation) one more for an
   * idempotent request; a second timeout says both and the time they took, and the registry is
   * not asked again for a while. A registry already known not to answer fails at once.
   */
  async withTimeoutRetry<T>(c: VerdictCall, attempt: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const attempts = c.idempotent ? 2 : 1;
    for (let n = 1; ; n++) {
      const silent = this.unanswered.get(c.registry);
      if (silent && silent.until > Date.now()) {
        throw new RegistryError('timeout', `skipped: ${c.registry} did not answer in time earlier in this run (${silent.error.message})`, { host: c.registry, url: silent.error.url, cause: silent.error });
      }
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof RegistryError) || err.code !== 'timeout' || c.signal?.aborted || err.message.startsWith('skipped:')) throw err;
        if (n < attempts) {
          this.opts.log(`${err.message}; trying once more (attempt 2 of 2)`, 'info');
          continue;
        }
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        const tries = n > 1 ? `${n} attempts of ${c.timeoutMs / 1000} s each, ${seconds} s in all` : `1 attempt, ${seconds} s (a ${c.method} that is not repeated)`;
        const final = new RegistryError('timeout', `${c.registry} did not answer in time to ${c.what}: ${tries} (${err.message})`, { host: c.registry, url: err.url, cause: err });
        this.unanswered.set(c.registry, { until: Date.now() + Math.max(UNANSWERED_MS, 2 * c.timeoutMs), error: final });
        throw final;
      }
    }
  }
}

/** Resolves when `p` settles, or rejects when the caller cancels first. */
function untilSettled(p: Promise<unknown>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p.then(() => undefined, () => undefined);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RegistryError('aborted', 'cancelled'));
    const onAbort = () => reject(new RegistryError('aborted', 'cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(() => undefined, () => undefined).then(() => { signal.removeEventListener('abort', onAbort); resolve(); });
  });
}
