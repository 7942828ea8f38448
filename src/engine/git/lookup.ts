// The refs of git remotes, cached like registry version lists (discovery/cache.ts CachedLookup):
// memory and disk (`<cacheDir>/git-refs/`), the engine's TTL, one `git ls-remote` per remote at a
// time shared by every caller, failures remembered briefly, offline answered from the caches only.
// Keys hold a hash of the remote (its user information never reaches the disk) and the engine's
// answer context (CAs, proxy) for the remote's host.
import { createHash } from 'node:crypto';
import { CachedLookup } from '../discovery/cache';
import { RegistryError } from '../net/errors';
import { shownUrl } from '../net/http-errors';
import { lsRemote } from './lsremote';
import { GitRefs, parseLsRemote } from './refs';
import { remoteHost } from './source';

export interface GitRefList extends GitRefs {
  /** The remote as it may be shown (user information hidden). */
  remote: string;
  host: string;
  cached: boolean;
}

export interface GitRefLookupOptions {
  cacheDir?: string;
  ttlMs: number;
  failureTtlMs?: number;
  timeoutMs: number;
  protocols?: string;
  proxy?: string;
  noProxy?: string;
  env: NodeJS.ProcessEnv;
  caCertificates: () => string[];
  /** The engine's answer context for a host (part of every key). */
  context: (host: string) => string;
  networkAllowed?: () => boolean;
}

type Stored = Omit<GitRefList, 'cached'>;

function isStored(v: unknown): v is Stored {
  const s = v as Stored;
  const str = (x: unknown) => typeof x === 'string';
  return !!s && typeof s === 'object' && str(s.remote) && str(s.host) && typeof s.unsafe === 'number'
    && Array.isArray(s.branches) && s.branches.every((b) => b && str(b.name) && str(b.commit))
    && Array.isArray(s.tags) && s.tags.every((t) => t && str(t.name) && str(t.commit) && (t.object === undefined || str(t.object)))
    && (s.head === undefined || (typeof s.head === 'object' && str(s.head.commit) && (s.head.branch === undefined || str(s.head.branch))));
}

export class GitRefLookup {
  private readonly cache: CachedLookup<Stored>;
  /** `git ls-remote` runs started (what reached a remote): for tests and the bench. */
  contacts = 0;

  constructor(private readonly opts: GitRefLookupOptions) {
    this.cache = new CachedLookup<Stored>({
      diskDir: opts.cacheDir, ttlMs: opts.ttlMs, failureTtlMs: opts.failureTtlMs, validate: isStored, version: 1,
    });
  }

  private key(remote: string): string {
    const host = remoteHost(remote);
    return `git:${createHash('sha256').update(remote).digest('hex').slice(0, 32)}|${this.opts.context(host)}`;
  }

  /** The refs of `remote` (a URL or scp-like address git understands, as parseGitModuleSource gives it). */
  async list(remote: string, signal?: AbortSignal): Promise<GitRefList> {
    const { value, cached } = await this.cache.get(this.key(remote), async (s) => {
      const host = remoteHost(remote);
      if (this.opts.networkAllowed && !this.opts.networkAllowed()) {
        throw new RegistryError('network-disabled', `network access is disabled: not listing the refs of ${shownUrl(remote)}`, { host, url: shownUrl(remote) });
      }
      this.contacts++;
      const text = await lsRemote(remote, {
        timeoutMs: this.opts.timeoutMs, protocols: this.opts.protocols, proxy: this.opts.proxy, noProxy: this.opts.noProxy, caCertificates: this.opts.caCertificates(), env: this.opts.env, signal: s,
      });
      return { remote: shownUrl(remote), host, ...parseLsRemote(text) };
    }, signal);
    return { ...value, cached };
  }

  /** From memory only (no process, no disk): for hovers and completion that must not wait. */
  peek(remote: string): GitRefList | undefined {
    const v = this.cache.peek(this.key(remote));
    return v && { ...v, cached: true };
  }

  clear(): Promise<void> {
    return this.cache.clear();
  }
}
