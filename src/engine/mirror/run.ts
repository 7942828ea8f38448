// plan → fetch → verify → write. Resolves which version of each required provider to mirror
// (the locked one, else the newest matching every constraint), then fetches every
// (provider, version, platform) with bounded concurrency. Archives already in OUT that match
// their listed hashes are not downloaded again; a failure rejects exactly that archive.
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { promises as fs } from 'node:fs';
import { isBuiltInProvider } from '../addresses/provider-source';
import { selectVersions } from '../versions';
import { matchesAnyHash, sha256File } from '../providerpkg/hash';
import { MirrorOutput } from './layout';
import type { ArchiveEntry } from './layout';
import { archiveFilename, collisionText, FileNameClaims } from '../fstree/safe-paths';
import { mapLimit } from '../fstree';
import { ArchiveSource, fetchSlots, MirrorStepError, smallRequestLimit } from '../providersources/sources';
import { errorText, mirrorFailure } from '../providersources/types';
import type { MirroredArchive, MirrorFailure, MirrorProgressEvent, MirrorReport, MirrorTarget, ProviderAddress } from '../providersources/types';

/** One provider required by one configuration directory. */
export interface ProviderRequirement {
  address: ProviderAddress;
  /** Every version constraint of this configuration for the provider (may be empty). */
  constraints: string[];
  /** The lock file's entry, when the configuration has one for this provider. */
  locked?: { version: string; hashes: string[] };
  /** The configuration directory (for messages). */
  dir: string;
}

export interface ResolvedPlan {
  targets: MirrorTarget[];
  failed: MirrorFailure[];
  notes: string[];
}

/**
 * Picks the version(s) to mirror per requirement and expands them to every platform. A lock file
 * pin is used as is, unless it contradicts the configuration's constraints: then, like `tofu init`,
 * the requirement fails (step resolve) instead of mirroring a version the configuration rejects.
 * Failures are reported through onProgress ({kind: 'failed'}) as they happen, too.
 */
export async function resolveTargets(reqs: ProviderRequirement[], platforms: string[], source: ArchiveSource,
  opts: { signal?: AbortSignal; concurrency?: number; onProgress?: (e: MirrorProgressEvent) => void } = {}): Promise<ResolvedPlan> {
  const failed: MirrorFailure[] = [];
  const seen = new Set<string>();
  const notes: string[] = [];
  const versions = new Map<string, Promise<string[]>>();
  const picked = new Map<string, MirrorTarget>();
  const fail = (r: ProviderRequirement, version: string, detail: string) => {
    const fresh = platforms.map((platform) => mirrorFailure(r.address.address, version, platform, 'resolve', detail))
      .filter((f) => !seen.has(failureKey(f)));
    if (!fresh.length) return;
    for (const f of fresh) seen.add(failureKey(f));
    failed.push(...fresh);
    opts.onProgress?.({ kind: 'failed', failures: fresh });
  };
  const add = (r: ProviderRequirement, version: string, lockHashes?: string[]) => {
    const lock = lockHashes && { file: join(r.dir, '.terraform.lock.hcl'), hashes: [...lockHashes] };
    for (const platform of platforms) {
      const key = `${r.address.address} ${version} ${platform}`;
      const prev = picked.get(key);
      if (prev) {
        if (lock) (prev.locks ??= []).push({ ...lock });
        continue;
      }
      picked.set(key, { provider: r.address.address, address: r.address, version, platform, locks: lock && [{ ...lock }] });
    }
  };
  // Version lists are small requests.
  await mapLimit(reqs, smallRequestLimit(opts.concurrency ?? 8), async (r) => {
    if (isBuiltInProvider(r.address)) {
      notes.push(`${r.address.address}: skipped, built into OpenTofu (never installed from a registry)`);
      return;
    }
    const constraint = r.constraints.length ? r.constraints.join(', ') : null;
    if (r.locked) {
      const lockFile = join(r.dir, '.terraform.lock.hcl');
      const check = constraint === null ? undefined : selectVersions([r.locked.version], constraint, 'provider');
      // (an unparseable locked version is left to the path/metadata steps, which name it)
      if (check && !check.invalid.length && check.selected !== r.locked.version) {
        return fail(r, r.locked.version, check.error ? `${r.dir}: ${check.error}`
          : `${lockFile}: locked provider ${r.address.address} ${r.locked.version} does not match configured version constraint ${constraint}; must use tofu init -upgrade to allow selection of new versions`);
      }
      notes.push(`${r.address.address} ${r.locked.version}: pinned by ${lockFile}`);
      add(r, r.locked.version, r.locked.hashes.length ? r.locked.hashes : undefined);
      return;
    }
    let list = versions.get(r.address.address);
    if (!list) {
      list = source.listVersions(r.address, opts.signal);
      versions.set(r.address.address, list);
    }
    try {
      const sel = selectVersions(await list, constraint, 'provider');
      if (!sel.selected) {
        const why = sel.error ?? `no version matches ${constraint ?? '(any)'}; available: ${sel.versions.slice(0, 8).join(', ') || 'none'}`;
        return fail(r, constraint ?? '', `${r.dir}: ${why}`);
      }
      add(r, sel.selected);
    } catch (err) {
      fail(r, constraint ?? '', errorText(err));
    }
  });
  const targets = [...picked.values()].sort(byTarget);
  return { targets, failed, notes: [...new Set(notes)].sort() };
}

export interface ExecuteOptions {
  out: string;
  targets: MirrorTarget[];
  source: ArchiveSource;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (e: MirrorProgressEvent) => void;
  /** Size cap per archive (default 2 GiB). */
  maxArchiveBytes?: number;
}

/** Fetches, verifies and places every target into OUT (which it locks for the duration). */
export async function executeMirror(opts: ExecuteOptions): Promise<Omit<MirrorReport, 'notes'>> {
  if (opts.signal) setMaxListeners(Math.max(100, (opts.concurrency ?? 8) * 8), opts.signal); // one listener per in-flight step
  const output = await MirrorOutput.open(opts.out);
  const mirrored: MirroredArchive[] = [];
  const upToDate: MirroredArchive[] = [];
  const failed: MirrorFailure[] = [];
  let bytesDownloaded = 0;
  const progress = opts.onProgress ?? (() => undefined);
  progress({ kind: 'planned', total: opts.targets.length });
  // `concurrency` archives download at once; download answers and SHA256SUMS get more slots (small
  // requests), and a fetch gives its download slot back as soon as its transfer ends, so hashing and
  // verifying one archive overlaps the next downloads. Concurrency 1 is one request at a time.
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const slots = fetchSlots(concurrency);
  // names taken per provider directory: the versions OUT lists first, then this run's in target order
  const claims = new FileNameClaims();
  // V.json as OUT had it when the run started, read once per version rather than once per platform:
  // a platform's entry is only ever written by that platform's own target, after it read this.
  const listings = new Map<string, Promise<Record<string, ArchiveEntry>>>();
  const listed = (t: MirrorTarget) => {
    const key = `${t.provider} ${t.version}`;
    let p = listings.get(key);
    if (!p) {
      p = output.readArchives(t.address, t.version);
      p.catch(() => undefined); // (each target that awaits it reports the failure)
      listings.set(key, p);
    }
    return p;
  };
  const claim = async (t: MirrorTarget, dir: string): Promise<{ other: string; names: string[] } | undefined> => {
    const names = [`${t.version}.json`, archiveFilename(t.address.type, t.version, t.platform)];
    const other = await claims.claim(dir, t.version, names, async () =>
      (await output.listedVersions(t.address)).map((v): [string, string[]] => [v, [`${v}.json`]]));
    return other === undefined ? undefined : { other, names };
  };
  try {
    await mapLimit(opts.targets, concurrency === 1 ? 1 : 4 * concurrency, async (t) => {
      const fail = (step: MirrorFailure['step'], detail: string) => {
        const f = mirrorFailure(t.provider, t.version, t.platform, step, detail);
        failed.push(f);
        progress({ kind: 'done', target: t, outcome: 'failed', message: f.message });
      };
      if (opts.signal?.aborted) return fail('cancelled', 'the run was cancelled before this archive started');
      progress({ kind: 'start', target: t });
      let temp: string | undefined;
      try {
        let paths: { dir: string; path: string; name: string };
        try {
          paths = output.archivePath(t.address, t.version, t.platform);
        } catch (err) {
          throw new MirrorStepError('path', errorText(err));
        }
        const collision = await claim(t, paths.dir);
        if (collision) throw new MirrorStepError('path', collisionText(collision.names, collision.other));
        await output.sweep(paths.dir); // leftovers of a killed run, also where nothing needs downloading
        const current = await upToDateHashes(output, t, paths, listed, opts.signal);
        if (current) {
          const disagree = lockMismatch(current, t);
          if (disagree) throw new MirrorStepError('lock-hash', `the archive already in the mirror (${current.h1} ${current.zh}) matches none of the hashes in ${disagree}`);
          upToDate.push({ provider: t.provider, version: t.version, platform: t.platform, hashes: [current.h1, current.zh] });
          progress({ kind: 'done', target: t, outcome: 'up-to-date' });
          return;
        }
        temp = await output.tempPath(t.address, paths.name);
        const existing = await fs.stat(paths.path).then((s) => (s.isFile() ? paths.path : undefined), () => undefined);
        const res = await opts.source.fetch(t, {
          dest: temp, existing, maxBytes: opts.maxArchiveBytes ?? 2 * 1024 ** 3, signal: opts.signal, slots,
          onBytes: (received, total) => progress({ kind: 'bytes', target: t, received, total }),
        });
        if (res.downloaded) bytesDownloaded += res.hashes.size;
        const disagree = lockMismatch(res.hashes, t);
        if (disagree) throw new MirrorStepError('lock-hash', `package ${res.hashes.h1} ${res.hashes.zh} matches none of the hashes in ${disagree}`);
        if (opts.signal?.aborted) throw new MirrorStepError('cancelled', 'cancelled');
        const hashes = [res.hashes.h1, res.hashes.zh];
        try {
          await output.place(t.address, t.version, t.platform, res.downloaded ? temp : undefined, hashes);
        } catch (err) {
          throw new MirrorStepError('write', errorText(err));
        }
        temp = res.downloaded ? undefined : temp;
        mirrored.push({ provider: t.provider, version: t.version, platform: t.platform, hashes });
        progress({ kind: 'done', target: t, outcome: 'mirrored' });
      } catch (err) {
        const step = opts.signal?.aborted ? 'cancelled' : err instanceof MirrorStepError ? err.step : 'download';
        fail(step, step === 'cancelled' ? 'the run was cancelled; nothing was placed for this archive' : errorText(err));
      } finally {
        if (temp) await fs.rm(temp, { force: true });
      }
    });
  } finally {
    await output.close();
  }
  return { out: opts.out, mirrored: mirrored.sort(byTarget), upToDate: upToDate.sort(byTarget), failed: failed.sort(byTarget), bytesDownloaded };
}

/**
 * The hashes of the archive already in OUT when it is complete and listed: V.json has the
 * platform with our file name and a zh: hash, and the file's sha256 matches it. Those hashes were
 * verified against the registry (shasum, signed SHA256SUMS) when the archive was placed.
 */
async function upToDateHashes(output: MirrorOutput, t: MirrorTarget, paths: { path: string; name: string },
  archives: (t: MirrorTarget) => Promise<Record<string, ArchiveEntry>>, signal?: AbortSignal): Promise<{ h1: string; zh: string } | undefined> {
  let listed;
  try {
    listed = (await archives(t))[t.platform];
  } catch (err) {
    throw new MirrorStepError('write', errorText(err));
  }
  if (!listed || listed.url !== paths.name) return undefined;
  const zh = listed.hashes.find((h) => h.startsWith('zh:'));
  const h1 = listed.hashes.find((h) => h.startsWith('h1:'));
  if (!zh || !h1) return undefined;
  let sha = await output.knownSha256(paths.path);
  if (sha === undefined) {
    sha = (await sha256File(paths.path, signal).catch(() => undefined))?.sha256;
    if (sha !== undefined && 'zh:' + sha === zh) await output.remember(paths.path, sha);
  }
  return sha !== undefined && 'zh:' + sha === zh ? { h1, zh } : undefined;
}

/** The first lock file (with its hashes) that the package does not satisfy, or undefined. */
export function lockMismatch(actual: { h1: string; zh: string }, t: MirrorTarget): string | undefined {
  const bad = t.locks?.find((l) => !matchesAnyHash(actual, l.hashes));
  return bad && `${bad.file} (${bad.hashes.join(', ')})`;
}

/** Orders by provider, then version, then platform. */
export function byTarget(a: { provider: string; version: string; platform: string }, b: typeof a): number {
  return cmp(a.provider, b.provider) || cmp(a.version, b.version) || cmp(a.platform, b.platform);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function failureKey(x: MirrorFailure): string {
  return `${x.provider}|${x.version}|${x.platform}|${x.message}`;
}
