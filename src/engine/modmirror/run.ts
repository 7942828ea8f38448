// plan → fetch → pack → publish, recursively. Every registry module call of the configuration
// directories (and of the local modules they call) is resolved to the version tofu init would
// select (or every matching one); each version is fetched from where its registry points,
// repacked deterministically into the site and indexed, and the calls its package makes from the
// called module (through local calls, inside the package) are followed the same way. A version
// whose archive is already in the site and intact is neither fetched nor cloned again.
import { setMaxListeners } from 'node:events';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseModuleSource, RegistryModuleSource, splitSubdir } from '../addresses/module-source';
import { createLimiter, FS_CONCURRENCY } from '../fstree';
import { smallRequestLimit } from '../providersources/sources';
import type { HttpClient } from '../net/http';
import { canonicalModuleVersion } from '../registry/modules';
import { selectVersions } from '../versions';
import {
  engineCaCertificates, fetchPackage, FetchedPackage, FetchOptions, moduleDirectory, ModuleFetchError, safeRelativePath, shownLocation,
} from '../modulepkg/fetch';
import { indexedDir, indexedFile, indexFiles, ModuleCallRecord, reachableCalls, readModuleCalls } from './calls';
import { collisionText, FileNameClaims } from '../fstree/safe-paths';
import { siteModuleName, versionPaths, VersionPaths } from './paths';
import { ArchiveFacts, ModuleSite } from './site';
import { packDirectory } from './tarball';
import { errorText, moduleFailure } from './types';
import { ModuleBudget, ModuleBudgetLimits, untilAborted } from '../modulepkg/budget';
import { fetchWithFreshLocation } from '../modulepkg/location';
import { MAX_NAME_CHARS } from '../providersources/types';
import { shortText } from '../net/http-errors';
import type { MirroredModule, ModuleFailure, ModuleMirrorProgress, ModuleMirrorStep, ModuleVersionRef, SkippedSource } from './types';

/** What the mirror needs of the engine (the real Engine, or a test double with the same answers). */
export interface ModMirrorEngine {
  http: HttpClient;
  options?: { env?: NodeJS.ProcessEnv; caFiles?: string[] };
  /** `signal`: a cancelled run aborts the request (the engine's shared request once no other caller waits). */
  listModuleVersions(a: RegistryModuleSource, opts?: { signal?: AbortSignal }): Promise<{ versions: string[] }>;
  resolveDownloadLocation(a: RegistryModuleSource, version: string, opts?: { signal?: AbortSignal }): Promise<{ version: string; location: string }>;
  /** Forgets a cached download location (one that led to a failed fetch may have expired). */
  forgetDownloadLocation?(a: RegistryModuleSource, version: string): Promise<void>;
}

export interface RunOptions {
  engine: ModMirrorEngine;
  allMatching?: boolean;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (e: ModuleMirrorProgress) => void;
  /** Caps and timeouts of package fetches (tests lower them; gitProtocols "file" for local repositories). */
  fetch?: Omit<Partial<FetchOptions>, 'http' | 'cacheDir' | 'signal'>;
  /** How deep module calls may nest and how many module versions the run may mirror (modulepkg/budget.ts). */
  moduleLimits?: ModuleBudgetLimits;
}

class StepError extends Error {
  constructor(readonly step: ModuleMirrorStep, cause: unknown) { super(errorText(cause)); }
}

async function step<T>(name: ModuleMirrorStep, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StepError(err instanceof ModuleFetchError && err.unsupported ? 'unsupported' : name, err);
  }
}

/** Where a call was found; `chain`: the calls that led to it, from the configuration (for the budget's messages). */
interface Where { where: string; localDir?: string; chain: readonly string[] }

export class MirrorRun {
  readonly mirrored: MirroredModule[] = [];
  readonly upToDate: ModuleVersionRef[] = [];
  readonly failed: ModuleFailure[] = [];
  /** Origin hosts (normalized) of every registry call seen: their discovery feeds the host blocks. */
  readonly hostsSeen = new Set<string>();
  private readonly skips = new Map<string, { reason: string; wheres: string[] }>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly selections = new Map<string, Promise<string[]>>();
  private readonly jobs = new Map<string, Promise<(ArchiveFacts & { subdir: string }) | undefined>>();
  private readonly expanded = new Set<string>();
  private readonly dirsRead = new Set<string>();
  /** Site file names taken per module directory: versions already listed there first, then this run's. */
  private readonly claims = new FileNameClaims();
  private readonly slot: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Version lists are small JSON: more of them at once than packages (as the provider mirror does), except at concurrency 1. */
  private readonly listSlot: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Configuration directories (given ones and the local modules they call) read at once. */
  private readonly dirSlot = createLimiter(FS_CONCURRENCY);
  private queued = 0;
  private readonly budget: ModuleBudget;

  constructor(private readonly opts: RunOptions, private readonly site: ModuleSite, private readonly work: string) {
    this.budget = new ModuleBudget(opts.moduleLimits);
    const concurrency = Math.max(1, opts.concurrency ?? 8);
    this.slot = createLimiter(concurrency);
    // Concurrency 1 is one request at a time, version lists included (they ran 16 at a time even
    // then, so the benchmark's sequential baseline was partly parallel): the provider mirror's rule.
    this.listSlot = concurrency <= 1 ? this.slot : createLimiter(smallRequestLimit(concurrency));
    if (opts.signal) setMaxListeners(Math.max(100, (opts.concurrency ?? 8) * 8), opts.signal); // one listener per in-flight step
  }

  /** Reads the configuration directories and mirrors everything they lead to; resolves when all is done. */
  async run(dirs: string[]): Promise<void> {
    for (const d of dirs) this.spawn(() => this.readConfigDir(path.resolve(d)));
    while (this.tasks.size) await Promise.all([...this.tasks]);
  }

  skipped(): SkippedSource[] {
    return [...this.skips.entries()].map(([source, s]) => {
      const wheres = [...s.wheres].sort();
      return { source, reason: `${s.reason} (${wheres[0]}${wheres.length > 1 ? ` and ${wheres.length - 1} more` : ''})` };
    }).sort((a, b) => cmp(a.source, b.source));
  }

  private progress(e: ModuleMirrorProgress): void {
    this.opts.onProgress?.(e);
  }

  private spawn(fn: () => Promise<void>): void {
    const p: Promise<void> = fn().catch((err) => {
      this.failed.push(moduleFailure('', '', 'config', errorText(err))); // a bug or an unexpected file-system error
    }).finally(() => this.tasks.delete(p));
    this.tasks.add(p);
  }

  private fail(module: string, version: string, stepName: ModuleMirrorStep, detail: string): void {
    const f = moduleFailure(module, version, stepName, detail);
    this.failed.push(f);
    this.progress({ kind: 'failed', failures: [f] });
  }

  private skip(rawSource: string, reason: string, where: string): void {
    const source = shortText(shownLocation(rawSource)); // a password in a git URL is not for the report, nor a megabyte of source
    const s = this.skips.get(source) ?? { reason, wheres: [] };
    s.wheres.push(where);
    if (s.wheres.length === 1) {
      this.skips.set(source, s);
      this.progress({ kind: 'skipped', skipped: { source, reason: `${reason} (${where})` } });
    }
  }

  private async readConfigDir(dir: string): Promise<void> {
    if (this.dirsRead.has(dir)) return;
    this.dirsRead.add(dir);
    let calls: ModuleCallRecord[];
    try {
      calls = await this.dirSlot(() => readModuleCalls(dir));
    } catch (err) {
      return this.fail('', '', 'config', `${dir}: ${errorText(err)}`);
    }
    for (const call of calls) this.follow(call, { where: `${path.join(dir, call.file)}:${call.line}`, localDir: dir, chain: [] });
  }

  /** One module call: registry calls are mirrored, local ones read (in the workspace), others reported. */
  private follow(call: ModuleCallRecord, at: Where): void {
    if (call.source === null) {
      if (call.sourceText) this.skip(call.sourceText, 'the source is not a literal string, so which module it names is only known to tofu', at.where);
      else this.fail('', '', 'config', `${at.where}: module "${call.name}" has no source`);
      return;
    }
    const src = parseModuleSource(call.source);
    switch (src.kind) {
      case 'registry':
        if (call.versionText !== undefined) {
          this.skip(call.source, `the version constraint ${call.versionText} is not a literal string, so the version to mirror is unknown`, at.where);
          return;
        }
        this.registryCall(src, call.version, at);
        return;
      case 'local':
        if (at.localDir) {
          const target = path.resolve(at.localDir, src.path);
          this.spawn(async () => {
            if ((await fs.stat(target).catch(() => undefined))?.isDirectory()) await this.readConfigDir(target);
            else this.fail('', '', 'config', `${at.where}: module "${call.name}": local module directory ${target} does not exist`);
          });
        }
        return;
      case 'unknown':
        this.fail('', '', 'config', `${at.where}: module "${call.name}": invalid source ${JSON.stringify(shownLocation(call.source))}: ${src.error ?? 'unrecognised'}`);
        return;
      case 'file':
        this.skip(call.source, 'an absolute path: tofu init copies it from this machine\'s disk, there is nothing to mirror', at.where);
        return;
      default:
        this.skip(call.source, `${src.description}: not mirrorable without changing the source (tofu init fetches it directly, not through a registry)`, at.where);
    }
  }

  private registryCall(src: RegistryModuleSource, constraint: string | null, at: Where): void {
    const where = at.where;
    this.hostsSeen.add(src.host);
    const key = `${src.fullAddress}\0${constraint ?? ''}`;
    let selection = this.selections.get(key);
    if (!selection) {
      selection = this.select(src, constraint, where);
      this.selections.set(key, selection);
    }
    const chosen = selection;
    this.spawn(async () => {
      for (const version of await chosen) {
        this.spawn(async () => {
          const chain = [...(at.chain.length ? at.chain : [where]), `${shortText(siteModuleName(src), MAX_NAME_CHARS)} ${shortText(version, MAX_NAME_CHARS)}`];
          const facts = await this.version(src, version, chain);
          if (facts) this.expand(src, version, facts, where, chain);
        });
      }
    });
  }

  /** The version tofu init selects for this constraint (or every matching one), as the site names it. */
  private async select(src: RegistryModuleSource, constraint: string | null, where: string): Promise<string[]> {
    const module = siteModuleName(src);
    if (this.opts.signal?.aborted) return []; // cancelled: no new requests
    let versions: string[];
    try {
      versions = (await this.listSlot(() => untilAborted(this.opts.engine.listModuleVersions(src, { signal: this.opts.signal }), this.opts.signal))).versions;
    } catch (err) {
      this.fail(module, constraint ?? '', 'resolve', errorText(err));
      return [];
    }
    const sel = selectVersions(versions, constraint, 'module');
    if (!sel.selected) {
      const why = sel.error ?? `no version matches ${constraint ?? '(any version)'}; available: ${sel.versions.slice(0, 8).join(', ') || 'none'}`;
      this.fail(module, constraint ?? '', 'resolve', `${where}: ${why}`);
      return [];
    }
    const chosen = this.opts.allMatching ? sel.matching : [sel.selected];
    return [...new Set(chosen.map((v) => canonicalModuleVersion(v).version).filter(Boolean))];
  }

  private version(src: RegistryModuleSource, version: string, chain: readonly string[]): Promise<(ArchiveFacts & { subdir: string }) | undefined> {
    const key = `${src.fullAddress}@${version}`;
    let job = this.jobs.get(key);
    if (!job) {
      const refused = this.budget.claim(chain);
      if (refused !== undefined) {
        if (refused) this.fail(siteModuleName(src), version, 'resolve', refused);
        job = Promise.resolve(undefined);
        this.jobs.set(key, job);
        return job;
      }
      job = this.slot(() => this.mirrorVersion(src, version));
      this.jobs.set(key, job);
      this.progress({ kind: 'queued', total: ++this.queued });
    }
    return job;
  }

  private async mirrorVersion(src: RegistryModuleSource, version: string): Promise<(ArchiveFacts & { subdir: string }) | undefined> {
    const module = siteModuleName(src);
    const { engine, signal } = this.opts;
    const done = (outcome: 'mirrored' | 'up-to-date' | 'failed', message?: string) => this.progress({ kind: 'done', module, version, outcome, message });
    const failed = (stepName: ModuleMirrorStep, detail: string) => {
      const f = moduleFailure(module, version, stepName, detail);
      this.failed.push(f);
      done('failed', f.message);
      return undefined;
    };
    if (signal?.aborted) return failed('cancelled', 'the run was cancelled before this module version started');
    this.progress({ kind: 'start', module, version });
    let p: VersionPaths;
    try {
      p = versionPaths(this.site.out, src, version);
    } catch (err) {
      return failed('path', errorText(err));
    }
    const other = await this.claim(p, version);
    if (other !== undefined) return failed('path', collisionText(siteNames(version), other));
    let temp: string | undefined;
    let fetched: FetchedPackage | undefined;
    // what of the site's copy cannot stay listed unless this attempt replaces it
    let unusable: 'archive' | 'download' | undefined;
    try {
      const have = await step('write', () => this.site.intact(p, signal));
      if (have) {
        // the origin's //subdir, from the stamps or `download`; else (both lost) the registry is asked
        if (have.subdir === undefined) unusable = 'download';
        const subdir = have.subdir ?? await step('location', async () =>
          safeRelativePath(splitSubdir((await untilAborted(engine.resolveDownloadLocation(src, version, { signal }), signal)).location)[1] ?? '') ?? '');
        await step('write', () => this.site.publish(p, version, subdir));
        this.upToDate.push({ module, version });
        done('up-to-date');
        return { ...have, subdir };
      }
      unusable = 'archive'; // damaged, missing, or never mirrored
      const loc = await step('location', () => untilAborted(engine.resolveDownloadLocation(src, version, { signal }), signal));
      const { value: pkg, location } = await step('fetch', () => fetchWithFreshLocation(engine, src, version, loc.location,
        (at) => fetchPackage(at, `${src.fullAddress}@${version}`, this.fetchOptions()), signal));
      fetched = pkg;
      await step('package', () => moduleDirectory(pkg.root, pkg.subdir, location));
      const tempFile = temp = await step('write', () => this.site.tempArchive(p));
      const files = new Map<string, Buffer>();
      const packed = await step('write', () => packDirectory(pkg.root, tempFile, { signal, keep: indexedFile, files }));
      const index = await step('package', async () => indexFiles(files));
      if (signal?.aborted) throw new StepError('cancelled', 'cancelled');
      await step('write', () => this.site.place(p, version, tempFile, packed.sha256, { subdir: pkg.subdir, index }));
      temp = undefined;
      this.mirrored.push({ module, version, location: shownLocation(location), archive: p.archiveInOut });
      done('mirrored');
      return { subdir: pkg.subdir, index };
    } catch (err) {
      const stepName = signal?.aborted ? 'cancelled' : err instanceof StepError ? err.step : 'write';
      const detail = stepName === 'cancelled' ? 'the run was cancelled; nothing was listed for this version' : errorText(err);
      return failed(stepName, detail + (unusable ? await this.withdraw(p, version, unusable) : ''));
    } finally {
      if (temp) await fs.rm(temp, { force: true });
      // the unpacked package is not needed once it is packed and indexed
      if (fetched) await fs.rm(path.dirname(fetched.root), { recursive: true, force: true });
    }
  }

  /** Claims the version's site names (after those of the versions the site lists): the version that has one already, or undefined. */
  private claim(p: VersionPaths, version: string): Promise<string | undefined> {
    return this.claims.claim(p.moduleDir, version, siteNames(version), async () =>
      (await this.site.listed(p)).map((v): [string, string[]] => [v, siteNames(v)]));
  }

  /** Takes a version whose copy in OUT is unusable off the site; what the failure message adds. */
  private async withdraw(p: VersionPaths, version: string, unusable: 'archive' | 'download'): Promise<string> {
    try {
      if (!(await this.site.withdraw(p, version, unusable === 'archive'))) return '';
    } catch (err) {
      return `; its unusable copy in OUT could not be taken off the site either: ${errorText(err)}`;
    }
    return unusable === 'archive' ? '; its damaged or incomplete copy in OUT was removed, so it is not listed there'
      : '; its download JSON in OUT could not be written, so it is no longer listed there (the archive is kept)';
  }

  private fetchOptions(): FetchOptions {
    const { engine, signal } = this.opts;
    return { caCertificates: engineCaCertificates(engine), env: engine.options?.env ?? process.env, ...this.opts.fetch, http: engine.http, cacheDir: this.work, signal };
  }

  /** Follows the calls tofu init would make from the called module directory of this package. */
  private expand(src: RegistryModuleSource, version: string, facts: ArchiveFacts & { subdir: string }, where: string, chain: readonly string[]): void {
    const start = path.posix.join(facts.subdir || '.', src.subdir ?? '.');
    const key = `${src.fullAddress}@${version}//${start}`;
    if (this.expanded.has(key)) return;
    this.expanded.add(key);
    const dir = indexedDir(facts.index, start);
    if (dir === undefined) return; // no configuration files there: a module without calls
    const inside = `${siteModuleName(src)} ${version}`;
    const { calls, escapes } = reachableCalls(facts.index, dir);
    for (const r of calls) this.follow(r.call, { where: `${inside}: ${r.dir ? `${r.dir}/` : ''}${r.call.file}:${r.call.line}`, chain });
    for (const r of escapes) {
      this.skip(r.call.source ?? r.call.sourceText, `a local path that leaves the module package ${inside} (tofu init refuses it)`, `called via ${where}`);
    }
  }
}

/** The names a version takes in its module's directory of the site: its archive and the directory of its `download`. */
function siteNames(version: string): string[] {
  return [`${version}.tar.gz`, version];
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
