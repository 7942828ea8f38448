// `tofu-registry lock`: what `tofu providers lock` does, per configuration directory, for several
// platforms at once. Per directory: the providers of the whole module tree; a locked version that
// still satisfies every constraint is kept (`upgrade` selects the newest matching instead), a lock
// that contradicts the configuration fails as `tofu init` would. Then the hashes of every
// (provider, version, platform) — gathered once for all directories, in parallel — are merged
// with what the file had for the same version, and the file is replaced atomically, only when
// every provider of that directory succeeded and the bytes differ. Providers the lock has but the
// configuration no longer requires are kept, as `tofu providers lock` keeps them.
import { join, resolve } from 'node:path';
import type { Engine } from '../engine';
import { makeTempDir, mapLimit, readText, removeTempDir } from '../fstree';
import { writeFileAtomic } from '../fstree/outdir';
import { isPlatform } from '../providerpkg/platform';
import { MirrorStepError } from '../providersources/sources';
import { errorText, mirrorFailure } from '../providersources/types';
import type { MirrorStep } from '../providersources/types';
import { ModuleBudget, ModuleBudgetLimits } from '../modulepkg/budget';
import { ModuleResolver, sharedModuleReader } from '../modulepkg/resolve';
import { compareStrings } from '../types/model';
import { selectVersions } from '../versions';
import { lockHashCacheFor, PlatformHashes } from './cache';
import { coveredPlatforms, sumsPlatforms } from './coverage';
import { HashGatherer, LockSource } from './gather';
import { LockedProvider, readLockFile } from '../lockfile/read';
import { canonicalConstraints, LOCK_FILE_NAME, LockEntry, normalizeHashes, renderLockFile } from '../lockfile/render';
import { collectProviderRequirements, ModuleDirResolver, problemText, RequiredProviderInfo } from './requirements';
import type { LockFailure, LockFileReport, LockProgressEvent, LockReport } from './types';
import { zipHashesOfSums } from '../providerpkg/signature';

export interface LockProvidersOptions {
  engine: Engine;
  /** Root module directories: each gets its own .terraform.lock.hcl. */
  dirs: string[];
  /** os_arch platforms whose h1: hashes to record. */
  platforms: string[];
  /** true: every provider takes the newest matching version; a list: only these addresses. */
  upgrade?: boolean | readonly string[];
  source?: LockSource;
  /** Parallel archive downloads (default 8; 1 = one request at a time). */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (e: LockProgressEvent) => void;
  /** Reads non-local modules (default: installed ones, else fetched into the engine's cache directory). */
  resolver?: ModuleDirResolver;
  /** Configuration text that differs from disk (unsaved editor buffers), by absolute path. */
  overlay?: ReadonlyMap<string, string>;
  /** Size cap per archive (default 2 GiB). */
  maxArchiveBytes?: number;
  /** How deep and how large each root module's tree may be (modulepkg/budget.ts; a budget per directory). */
  moduleLimits?: ModuleBudgetLimits;
}

/** Directories planned at once (their registry lookups overlap; every file read shares one limit). */
const PLAN_CONCURRENCY = 16;

interface PlannedProvider {
  info: RequiredProviderInfo;
  version: string;
  constraints: string;
  previous?: LockedProvider;
}

interface DirPlan {
  dir: string;
  path: string;
  /** The file as it is (undefined: none yet). */
  text?: string;
  lock: LockedProvider[];
  providers: PlannedProvider[];
  failed: boolean;
}

export async function lockProviders(opts: LockProvidersOptions): Promise<LockReport> {
  const source = opts.source ?? { kind: 'registry' };
  const bad = opts.platforms.find((p) => !isPlatform(p));
  if (bad !== undefined || !opts.platforms.length) throw new Error(`lockProviders: platforms must be os_arch (e.g. linux_amd64), got ${JSON.stringify(bad ?? opts.platforms)}`);
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const failed: LockFailure[] = [];
  const notes: string[] = [];
  const tempDir = await makeTempDir('tofu-registry-lock-');
  const fail = (f: LockFailure[]) => {
    if (!f.length) return;
    for (const x of f) failed.push(x); // not push(...f): a hostile lock file yields one failure per broken block
    opts.onProgress?.({ kind: 'failed', failures: f });
  };
  try {
    const cache = lockHashCacheFor(opts.engine);
    const gatherer = new HashGatherer({
      engine: opts.engine, source, cache, concurrency, tempDir, signal: opts.signal, maxArchiveBytes: opts.maxArchiveBytes ?? 2 * 1024 ** 3,
    });
    // one read per remote module for all directories of the run
    const resolver = opts.resolver ?? sharedModuleReader(new ModuleResolver({ engine: opts.engine, cacheDir: opts.engine.options.cacheDir ?? tempDir }));
    // A few directories planned at once: their module trees are read under the process-wide
    // open-files limit, and only the plans (not the parsed trees) outlive each directory.
    const plans = await mapLimit([...new Set(opts.dirs.map((d) => resolve(d)))], PLAN_CONCURRENCY, (dir) =>
      planDirectory(dir, { ...opts, resolver }, gatherer, notes).then((r) => { fail(r.failures); return r.plan; }));

    // Every package once, whatever the number of directories that need it.
    const packages = new Map<string, { plan: PlannedProvider; platform: string; dirs: DirPlan[] }>();
    for (const plan of plans.filter((p) => !p.failed)) {
      for (const p of plan.providers) {
        for (const platform of opts.platforms) {
          const key = `${p.info.address} ${p.version} ${platform}`;
          const e = packages.get(key) ?? { plan: p, platform, dirs: [] };
          e.dirs.push(plan);
          packages.set(key, e);
        }
      }
    }
    opts.onProgress?.({ kind: 'planned', dirs: plans.length, packages: packages.size });
    const gathered = new Map<string, PlatformHashes>();
    await Promise.all([...packages].map(async ([key, { plan: p, platform, dirs }]) => {
      const who = { provider: p.info.address, version: p.version, platform };
      try {
        opts.signal?.throwIfAborted();
        const r = await gatherer.platform(p.info.provider, p.version, platform);
        gathered.set(key, r.hashes);
        opts.onProgress?.({ kind: 'package', ...who, outcome: r.outcome });
      } catch (err) {
        const step: MirrorStep = opts.signal?.aborted ? 'cancelled' : err instanceof MirrorStepError ? err.step : 'download';
        const f = mirrorFailure(p.info.address, p.version, platform, step, step === 'cancelled' ? 'the run was cancelled' : errorText(err));
        opts.onProgress?.({ kind: 'package', ...who, outcome: 'failed', message: f.message });
        fail(dirs.map((d) => ({ dir: d.dir, ...f })));
        for (const d of dirs) d.failed = true;
      }
    }));

    const lockFiles: LockFileReport[] = [];
    for (const plan of plans) {
      const report: LockFileReport = { dir: plan.dir, path: plan.path, changed: false, providers: [] };
      lockFiles.push(report);
      if (plan.failed) continue;
      const entries: LockEntry[] = [];
      for (const p of plan.providers) {
        const got = opts.platforms.map((platform) => [platform, gathered.get(`${p.info.address} ${p.version} ${platform}`)!] as const);
        const hashes = await composeHashes(p, got.map(([, h]) => h), gatherer);
        entries.push({ address: p.info.address, version: p.version, constraints: p.constraints, hashes });
        const known = new Map(got);
        const previousHashes = p.previous?.version === p.version ? p.previous.hashes : [];
        const coverage = await coveredPlatforms(gatherer, p.info.provider, p.version, known, [hashes, previousHashes]);
        report.providers.push({
          provider: p.info.address, version: p.version, constraints: p.constraints, hashes, platforms: coverage[0],
          previousVersion: p.previous?.version ?? null, previousPlatforms: p.previous ? coverage[1] : [],
        });
      }
      const required = new Set(entries.map((e) => e.address));
      for (const old of plan.lock.filter((l) => !required.has(l.address))) {
        entries.push({ address: old.address, version: old.version ?? '', constraints: old.constraints ?? '', hashes: old.hashes });
        notes.push(`${plan.path}: kept ${old.address} ${old.version}, which the configuration no longer requires (tofu init will remove it)`);
      }
      if (opts.signal?.aborted) {
        fail([{ dir: plan.dir, provider: '', version: '', platform: '', step: 'cancelled', message: `${plan.path}: not written: the run was cancelled` }]);
        continue;
      }
      const text = renderLockFile(entries);
      if (plan.text === text || (plan.text === undefined && !entries.length)) {
        opts.onProgress?.({ kind: 'written', dir: plan.dir, path: plan.path, changed: false });
        continue;
      }
      try {
        await writeFileAtomic(plan.path, text);
        report.changed = true;
        opts.onProgress?.({ kind: 'written', dir: plan.dir, path: plan.path, changed: true });
      } catch (err) {
        fail([{ dir: plan.dir, provider: '', version: '', platform: '', step: 'write', message: `${plan.path}: ${errorText(err)}` }]);
      }
    }
    await gatherer.flush(); // the hash cache, written while the lock files were
    failed.sort((a, b) => compareStrings(a.dir, b.dir) || compareStrings(a.provider, b.provider) || compareStrings(a.version, b.version) || compareStrings(a.platform, b.platform));
    return { lockFiles, failed, notes: [...new Set([...notes, ...gatherer.warnings])], archivesDownloaded: gatherer.downloaded.archives, bytesDownloaded: gatherer.downloaded.bytes };
  } finally {
    await removeTempDir(tempDir);
  }
}

/**
 * What the entry records: the hashes it had for this version, every zh: of the signed SHA256SUMS,
 * each platform's h1: (and zh:), and — when the registry answered with `packages` — every listed
 * platform's hashes, as OpenTofu 1.12 records them.
 */
async function composeHashes(p: PlannedProvider, got: PlatformHashes[], gatherer: HashGatherer): Promise<string[]> {
  const out: string[] = p.previous?.version === p.version ? [...p.previous.hashes] : [];
  for (const h of got) out.push(...h.h1, ...h.zh);
  const sums = await gatherer.sums(p.info.provider, p.version);
  if (sums) {
    out.push(...zipHashesOfSums(sums.document));
    for (const h of (await gatherer.known(p.info.provider, p.version, sumsPlatforms(sums.document))).values()) {
      if (h.via === 'packages') out.push(...h.h1, ...h.zh);
    }
  }
  return normalizeHashes(out);
}

const MAX_LOCK_FILE_ERRORS = 10;

/** Requirements, the current lock file and the version of every provider, for one directory. */
async function planDirectory(dir: string, opts: LockProvidersOptions & { resolver: ModuleDirResolver }, gatherer: HashGatherer, notes: string[]):
  Promise<{ plan: DirPlan; failures: LockFailure[] }> {
  const plan: DirPlan = { dir, path: join(dir, LOCK_FILE_NAME), lock: [], providers: [], failed: false };
  const failures: LockFailure[] = [];
  const fail = (step: MirrorStep, provider: string, version: string, detail: string) => {
    plan.failed = true;
    failures.push({ dir, ...mirrorFailure(provider, version, '', step, detail) });
  };
  const reqs = await collectProviderRequirements(dir, {
    resolver: opts.resolver, overlay: opts.overlay, signal: opts.signal, budget: new ModuleBudget(opts.moduleLimits),
  });
  if (opts.signal?.aborted) {
    fail('cancelled', '', '', `${dir}: the run was cancelled while its modules were read; nothing was written`);
    return { plan, failures };
  }
  for (const e of reqs.errors) fail('config', '', '', problemText(e));
  if (reqs.builtIn.length) notes.push(`${dir}: not locked (built into OpenTofu): ${reqs.builtIn.join(', ')}`);
  try {
    plan.text = await readText(plan.path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') fail('config', '', '', `${plan.path}: ${errorText(err)}`);
  }
  if (plan.text !== undefined) {
    const lock = readLockFile(plan.text);
    plan.lock = lock.providers;
    const errors = lock.diagnostics.filter((x) => x.severity === 'error');
    // the first few say what is wrong; a file broken in every line need not be listed line by line
    for (const d of errors.slice(0, MAX_LOCK_FILE_ERRORS)) fail('config', '', '', `${plan.path}:${d.range.start.line + 1}: ${d.message}`);
    if (errors.length > MAX_LOCK_FILE_ERRORS) fail('config', '', '', `${plan.path}: ${errors.length - MAX_LOCK_FILE_ERRORS} more errors`);
  }
  if (plan.failed) return { plan, failures };
  const upgrade = (address: string) => opts.upgrade === true || (Array.isArray(opts.upgrade) && opts.upgrade.includes(address));
  // A provider's packages start as soon as its version is known (single flight: awaited later).
  const chosen = (p: PlannedProvider) => {
    plan.providers.push(p);
    if (!plan.failed) for (const platform of opts.platforms) gatherer.platform(p.info.provider, p.version, platform).catch(() => undefined);
  };
  await Promise.all(reqs.providers.map(async (info) => {
    const constraint = info.constraints.length ? info.constraints.join(', ') : null;
    const constraints = canonicalConstraints(info.constraints);
    const previous = plan.lock.find((l) => l.address === info.address);
    if (previous?.version && !upgrade(info.address)) {
      const check = selectVersions([previous.version], constraint, 'provider');
      if (check.selected !== previous.version) {
        return fail('resolve', info.address, previous.version, `${plan.path}: locked provider ${info.address} ${previous.version} does not match configured version constraint ${constraints}; must use tofu init -upgrade (or tofu-registry lock --upgrade) to allow selection of new versions`);
      }
      chosen({ info, version: previous.version, constraints, previous });
      return;
    }
    try {
      const sel = selectVersions(await gatherer.versions(info.provider), constraint, 'provider');
      if (!sel.selected) {
        return fail('resolve', info.address, '', `${dir}: no available version of ${info.address} matches ${constraints || '(any version)'}; available: ${sel.versions.slice(0, 8).join(', ') || 'none'}`);
      }
      chosen({ info, version: sel.selected, constraints, previous });
    } catch (err) {
      fail('resolve', info.address, '', errorText(err));
    }
  }));
  plan.providers.sort((a, b) => compareStrings(a.info.address, b.info.address));
  return { plan, failures };
}
