// `.terraform.lock.hcl` as a feature: the lock status of each root module (diagnostics on the lock
// file and on the configuration), the hover on a lock file's provider block, and the quick fix
// "Lock providers for all platforms". Plain data over src/engine/lockfile; the adapter says where
// open documents are, publishes diagnostics and runs the lock command.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import {
  collectProviderRequirements, coverageKey, LOCK_FILE_NAME, lockStatus, LockStatusDiagnostic, platformCoverage, ProviderCoverage,
  ProviderRequirements, readLockFile,
} from '../engine/lock';
import { parseProviderSource } from '../engine/addresses';
import { ModuleResolver } from '../engine/modulepkg/resolve';
import type { FeatureContext } from './context';
import type { LineRange } from './completion';
import { isOurFileName } from './documents';
import type { FeatureHover } from './hover';
import { lockHover } from './lockHover';
import { within } from './lookup';
import { providerTarget } from './target';

const WAIT_MS = 5000;

export const isLockFileName = (p: string) => path.basename(p) === LOCK_FILE_NAME;

export interface LockHost {
  /** The text of every open document, by file path (the configuration as being edited). */
  openTexts(): Map<string, string>;
  /** The workspace folder that holds a path: roots are looked for up to it, not above. */
  folderOf(fsPath: string): string | undefined;
  /** A file's lock diagnostics changed (the union of what every root says about it). */
  publish(fsPath: string, diagnostics: LockStatusDiagnostic[]): void;
  /** A run of `root` finished (tests wait on it). */
  ran?(root: string): void;
}

interface RootState {
  requirements: ProviderRequirements;
  coverage: Map<string, ProviderCoverage>;
  /** Diagnostics this root put on each file (by path). */
  files: Map<string, LockStatusDiagnostic[]>;
}

/** The lock command's arguments a quick fix runs with. */
export interface LockFixArgs { dirs: string[]; upgrade?: string[] }

export interface LockFix<D> { title: string; args: LockFixArgs; diagnostic: D }

const sameRange = (a: LineRange, b: LineRange) => a.start.line === b.start.line && a.start.character === b.start.character
  && a.end.line === b.end.line && a.end.character === b.end.character;

export class LockStatus {
  private readonly roots = new Map<string, RootState>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly generation = new Map<string, number>();
  private readonly lockDirs = new Map<string, boolean>();
  private resolverFor?: unknown;
  private resolverRef?: ModuleResolver;
  /** Finished runs (tests wait on this). */
  runs = 0;

  constructor(private readonly ctx: FeatureContext, private readonly host: LockHost) {}

  private get resolver(): ModuleResolver {
    if (!this.resolverRef || this.resolverFor !== this.ctx.engine) {
      this.resolverFor = this.ctx.engine;
      this.resolverRef = new ModuleResolver({ engine: this.ctx.engine, cacheDir: this.ctx.cacheDir, networkAllowed: () => this.ctx.networkAllowed() });
    }
    return this.resolverRef;
  }

  /** Root modules a file belongs to: its folder and the folders above it (in the workspace) that hold a lock file. */
  rootsOf(file: string): string[] {
    if (isLockFileName(file)) return [path.dirname(file)];
    if (!isOurFileName(file)) return [];
    const folder = this.host.folderOf(file);
    const out: string[] = [];
    for (let dir = path.dirname(file), i = 0; i < 16; i++) {
      if (this.hasLock(dir)) out.push(dir);
      const up = path.dirname(dir);
      if (up === dir || !folder || path.relative(folder, dir).startsWith('..') || dir === folder) break;
      dir = up;
    }
    return out;
  }

  /** Whether a folder holds a lock file (remembered: asked on every keystroke; the file watcher forgets). */
  hasLock(dir: string): boolean {
    let has = this.lockDirs.get(dir);
    if (has === undefined) {
      has = existsSync(path.join(dir, LOCK_FILE_NAME));
      this.lockDirs.set(dir, has);
    }
    return has;
  }

  /** A lock file was created, changed or deleted on disk (a watcher, or a lock run that wrote it). */
  lockFileChanged(dir: string): void {
    this.lockDirs.delete(dir);
    this.schedule(dir, 100);
  }

  /** A file was opened, edited or saved: recompute its roots after `delay`. */
  touched(file: string, delay?: number): void {
    for (const r of this.rootsOf(file)) this.schedule(r, delay);
  }

  schedule(root: string, delay = this.ctx.settings().diagnosticsDebounceMs): void {
    clearTimeout(this.timers.get(root));
    this.timers.set(root, setTimeout(() => { this.timers.delete(root); void this.update(root); }, delay));
  }

  /** Every known root and every root of the open files, after `delay`. */
  scheduleAll(openFiles: Iterable<string>, delay = 0): void {
    const roots = new Set(this.roots.keys());
    for (const f of openFiles) for (const r of this.rootsOf(f)) roots.add(r);
    for (const r of roots) this.schedule(r, delay);
  }

  async update(root: string): Promise<void> {
    const gen = (this.generation.get(root) ?? 0) + 1;
    this.generation.set(root, gen);
    try {
      const lockPath = path.join(root, LOCK_FILE_NAME);
      const open = this.host.openTexts();
      const text = open.get(lockPath) ?? await readFile(lockPath, 'utf8').catch(() => undefined);
      if (text === undefined || !this.ctx.settings().diagnosticsEnabled) return this.forget(root);
      const lock = readLockFile(text);
      const requirements = await collectProviderRequirements(root, { resolver: this.resolver, overlay: open });
      const platforms = this.ctx.settings().lockPlatforms;
      const coverage = await platformCoverage(this.ctx.engine, lock.providers, platforms, { network: this.ctx.networkAllowed() });
      if (this.generation.get(root) !== gen) return;
      const files = new Map<string, LockStatusDiagnostic[]>([[lockPath, []]]);
      for (const d of lockStatus({ requirements, lock, lockPath, platforms, coverage })) files.set(d.file, [...(files.get(d.file) ?? []), d]);
      const previous = this.roots.get(root)?.files;
      this.roots.set(root, { requirements, coverage, files });
      this.publish(new Set([...files.keys(), ...(previous?.keys() ?? [])]));
      for (const e of requirements.errors) this.ctx.log.info(`lock status of ${root}: ${e.message}`);
    } catch (err) {
      this.ctx.log.warn(`lock status of ${root}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.runs++;
      this.host.ran?.(root);
    }
  }

  private forget(root: string): void {
    const previous = this.roots.get(root)?.files;
    this.roots.delete(root);
    if (previous) this.publish(new Set(previous.keys()));
  }

  private publish(files: Set<string>): void {
    for (const file of files) this.host.publish(file, [...this.roots.values()].flatMap((r) => r.files.get(file) ?? []));
  }

  /** What the quick fix needs: the root and provider behind one of our diagnostics (matched by message and range). */
  origin(file: string, diag: { message: string; range: LineRange }): { root: string; provider?: string; code: string } | undefined {
    for (const [root, state] of this.roots) {
      const d = state.files.get(file)?.find((x) => x.message === diag.message && sameRange(x.range, diag.range));
      if (d) return { root, provider: d.provider, code: d.code };
    }
    return undefined;
  }

  /** "Lock providers for all platforms" for each of our lock diagnostics among `diagnostics`. */
  fixes<D extends { message: string; range: LineRange }>(file: string, diagnostics: readonly D[]): Array<LockFix<D>> {
    const out: Array<LockFix<D>> = [];
    for (const diag of diagnostics) {
      const o = this.origin(file, diag);
      if (!o || o.code === 'lock-file') continue;
      const upgrade = o.code === 'lock-version-mismatch' && o.provider ? [o.provider] : undefined;
      out.push({
        title: upgrade ? `Lock providers for all platforms (select a new version of ${o.provider})` : 'Lock providers for all platforms',
        args: { dirs: [o.root], ...(upgrade ? { upgrade } : {}) }, diagnostic: diag,
      });
    }
    return out;
  }

  /** The hover on a provider block of a lock file. `signal`: a cancelled hover aborts the requests it started. */
  async hover(file: string, text: string, offset: number, signal?: AbortSignal): Promise<FeatureHover | undefined> {
    const lock = readLockFile(text);
    const entry = lock.providers.find((p) => p.range.start.offset <= offset && offset <= p.range.end.offset);
    if (!entry) return undefined;
    const root = path.dirname(file);
    if (!this.roots.has(root)) await within(this.update(root), WAIT_MS);
    const state = this.roots.get(root);
    const platforms = this.ctx.settings().lockPlatforms;
    const net = this.ctx.networkAllowed();
    const coverage = state?.coverage.get(coverageKey(entry.address, entry.version ?? ''))
      ?? (await within(platformCoverage(this.ctx.engine, [entry], platforms, { network: net, signal }), WAIT_MS).then((r) => (r && 'value' in r ? r.value : undefined)))?.get(coverageKey(entry.address, entry.version ?? ''));
    let versions;
    try {
      versions = net && !signal?.aborted ? await within(this.ctx.lookup.versions(providerTarget(parseProviderSource(entry.address)), signal), WAIT_MS) : undefined;
    } catch (error) {
      versions = { error };
    }
    return {
      markdown: lockHover({
        entry, required: state?.requirements.providers.find((p) => p.address === entry.address),
        requirementsComplete: !!state && !state.requirements.errors.length, coverage, platforms, versions, networkAllowed: net,
      }),
      range: entry.headerRange,
    };
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
