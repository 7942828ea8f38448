// `.terraform.lock.hcl` in the editor: diagnostics on the lock file and on the configuration (own
// collection 'tofu-registry-lock'), a hover on each provider block, and the quick fix "Lock
// providers for all platforms". The lock file keeps whatever language another extension gives it:
// only these features are attached (by file name). Thin adapter over src/engine/lockfile.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  collectProviderRequirements, coverageKey, LOCK_FILE_NAME, lockStatus, LockStatusDiagnostic, platformCoverage, ProviderCoverage,
  ProviderRequirements, readLockFile,
} from '../engine/lockfile';
import { parseProviderSource } from '../engine/addresses';
import { ModuleResolver } from '../engine/modules/resolve';
import { lockHover } from '../features/lockHover';
import { within } from '../features/lookup';
import { providerTarget } from '../features/target';
import { toRange } from './convert';
import { LOCK_COMMAND, registerLockCommand, teamPlatforms } from './lockCommand';
import { LOCK_SELECTOR, SELECTOR } from './selector';
import type { RegistryServices } from './services';

const SEVERITY = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, information: vscode.DiagnosticSeverity.Information };
const WAIT_MS = 5000;

interface RootState {
  requirements: ProviderRequirements;
  coverage: Map<string, ProviderCoverage>;
  /** Diagnostics this root put on each file (by fsPath). */
  files: Map<string, LockStatusDiagnostic[]>;
}

export const isLockFileName = (p: string) => path.basename(p) === LOCK_FILE_NAME;

class LockFeatures implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('tofu-registry-lock');
  private readonly roots = new Map<string, RootState>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly generation = new Map<string, number>();
  private readonly lockDirs = new Map<string, boolean>();
  private resolverFor?: unknown;
  private resolverRef?: ModuleResolver;
  /** Finished diagnostic runs (tests wait on this). */
  runs = 0;
  private readonly ran = new vscode.EventEmitter<string>();
  readonly onDidRun = this.ran.event;

  constructor(private readonly services: RegistryServices) {}

  private get resolver(): ModuleResolver {
    if (!this.resolverRef || this.resolverFor !== this.services.engine) {
      this.resolverFor = this.services.engine;
      this.resolverRef = new ModuleResolver({ engine: this.services.engine, cacheDir: this.services.cacheDir, networkAllowed: () => this.services.networkAllowed() });
    }
    return this.resolverRef;
  }

  /** Root modules a document belongs to: its folder and the folders above it (in the workspace) that hold a lock file. */
  rootsOf(doc: vscode.TextDocument): string[] {
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'vscode-remote') return [];
    const file = doc.uri.fsPath;
    if (isLockFileName(file)) return [path.dirname(file)];
    if (!this.services.isOurs(doc)) return [];
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath;
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

  lockFileChanged(dir: string): void {
    this.lockDirs.delete(dir);
    this.schedule(dir, 100);
  }

  schedule(root: string, delay = this.services.settings().diagnosticsDebounceMs): void {
    clearTimeout(this.timers.get(root));
    this.timers.set(root, setTimeout(() => { this.timers.delete(root); void this.update(root); }, delay));
  }

  scheduleAll(delay = 0): void {
    const roots = new Set(this.roots.keys());
    for (const doc of vscode.workspace.textDocuments) for (const r of this.rootsOf(doc)) roots.add(r);
    for (const r of roots) this.schedule(r, delay);
  }

  async update(root: string): Promise<void> {
    const gen = (this.generation.get(root) ?? 0) + 1;
    this.generation.set(root, gen);
    try {
      const lockPath = path.join(root, LOCK_FILE_NAME);
      const open = new Map(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' || d.uri.scheme === 'vscode-remote').map((d) => [d.uri.fsPath, d.getText()]));
      const text = open.get(lockPath) ?? await readFile(lockPath, 'utf8').catch(() => undefined);
      if (text === undefined || !this.services.settings().diagnosticsEnabled) return this.forget(root);
      const lock = readLockFile(text);
      const requirements = await collectProviderRequirements(root, { resolver: this.resolver, overlay: open });
      const platforms = teamPlatforms();
      const coverage = await platformCoverage(this.services.engine, lock.providers, platforms, { network: this.services.networkAllowed() });
      if (this.generation.get(root) !== gen) return;
      const files = new Map<string, LockStatusDiagnostic[]>([[lockPath, []]]);
      for (const d of lockStatus({ requirements, lock, lockPath, platforms, coverage })) files.set(d.file, [...(files.get(d.file) ?? []), d]);
      const previous = this.roots.get(root)?.files;
      this.roots.set(root, { requirements, coverage, files });
      this.publish(new Set([...files.keys(), ...(previous?.keys() ?? [])]));
      for (const e of requirements.errors) this.services.log.info(`lock status of ${root}: ${e.message}`);
    } catch (err) {
      this.services.log.warn(`lock status of ${root}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.runs++;
      this.ran.fire(root);
    }
  }

  private forget(root: string): void {
    const previous = this.roots.get(root)?.files;
    this.roots.delete(root);
    if (previous) this.publish(new Set(previous.keys()));
  }

  /** A file's diagnostics are the union of what every root says about it. */
  private publish(files: Set<string>): void {
    for (const file of files) {
      const all = [...this.roots.values()].flatMap((r) => r.files.get(file) ?? []);
      const uri = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file)?.uri ?? vscode.Uri.file(file);
      this.collection.set(uri, all.map((d) => {
        const diag = new vscode.Diagnostic(toRange(d.range), d.message, SEVERITY[d.severity]);
        diag.source = 'tofu-registry';
        diag.code = d.code;
        return diag;
      }));
    }
  }

  /** What the quick fix needs: the root and provider behind one of our diagnostics. */
  origin(uri: vscode.Uri, diag: vscode.Diagnostic): { root: string; provider?: string; code: string } | undefined {
    for (const [root, state] of this.roots) {
      const d = state.files.get(uri.fsPath)?.find((x) => x.message === diag.message && toRange(x.range).isEqual(diag.range));
      if (d) return { root, provider: d.provider, code: d.code };
    }
    return undefined;
  }

  async hover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const lock = readLockFile(doc.getText());
    const offset = doc.offsetAt(pos);
    const entry = lock.providers.find((p) => p.range.start.offset <= offset && offset <= p.range.end.offset);
    if (!entry) return undefined;
    const root = path.dirname(doc.uri.fsPath);
    if (!this.roots.has(root)) await within(this.update(root), WAIT_MS);
    const state = this.roots.get(root);
    const platforms = teamPlatforms();
    const net = this.services.networkAllowed();
    const coverage = state?.coverage.get(coverageKey(entry.address, entry.version ?? ''))
      ?? (await within(platformCoverage(this.services.engine, [entry], platforms, { network: net }), WAIT_MS).then((r) => (r && 'value' in r ? r.value : undefined)))?.get(coverageKey(entry.address, entry.version ?? ''));
    let versions;
    try {
      versions = net ? await within(this.services.lookup.versions(providerTarget(parseProviderSource(entry.address))), WAIT_MS) : undefined;
    } catch (error) {
      versions = { error };
    }
    const md = new vscode.MarkdownString(lockHover({
      entry, required: state?.requirements.providers.find((p) => p.address === entry.address),
      requirementsComplete: !!state && !state.requirements.errors.length, coverage, platforms, versions, networkAllowed: net,
    }), true);
    md.isTrusted = false;
    return new vscode.Hover(md, toRange(entry.headerRange));
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.collection.dispose();
    this.ran.dispose();
  }
}

export function registerLockFeatures(context: vscode.ExtensionContext, services: RegistryServices): LockFeatures {
  const features = new LockFeatures(services);
  const touched = (doc: vscode.TextDocument, delay?: number) => { for (const r of features.rootsOf(doc)) features.schedule(r, delay); };
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${LOCK_FILE_NAME}`);
  const onDisk = (uri: vscode.Uri) => features.lockFileChanged(path.dirname(uri.fsPath));
  registerLockCommand(context, services, (dirs) => { for (const d of dirs) features.lockFileChanged(d); });
  context.subscriptions.push(
    features, watcher, watcher.onDidCreate(onDisk), watcher.onDidChange(onDisk), watcher.onDidDelete(onDisk),
    vscode.workspace.onDidOpenTextDocument((d) => touched(d, 0)),
    vscode.workspace.onDidChangeTextDocument((e) => { if (e.contentChanges.length) touched(e.document); }),
    vscode.workspace.onDidSaveTextDocument((d) => touched(d, 0)),
    vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('tofuRegistry')) features.scheduleAll(0); }),
    services.onDidReset(() => features.scheduleAll(0)),
    vscode.languages.registerHoverProvider(LOCK_SELECTOR, { provideHover: (doc, pos) => features.hover(doc, pos) }),
    vscode.languages.registerCodeActionsProvider([...SELECTOR as vscode.DocumentFilter[], ...LOCK_SELECTOR as vscode.DocumentFilter[]], {
      provideCodeActions(doc, _range, ctx) {
        const out: vscode.CodeAction[] = [];
        for (const diag of ctx.diagnostics) {
          const o = diag.source === 'tofu-registry' ? features.origin(doc.uri, diag) : undefined;
          if (!o || o.code === 'lock-file') continue;
          const upgrade = o.code === 'lock-version-mismatch' && o.provider ? [o.provider] : undefined;
          const a = new vscode.CodeAction(upgrade ? `Lock providers for all platforms (select a new version of ${o.provider})` : 'Lock providers for all platforms', vscode.CodeActionKind.QuickFix);
          a.command = { command: LOCK_COMMAND, title: a.title, arguments: [{ dirs: [o.root], upgrade }] };
          a.diagnostics = [diag];
          a.isPreferred = true;
          out.push(a);
        }
        return out;
      },
    }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
  );
  for (const doc of vscode.workspace.textDocuments) touched(doc, 0);
  return features;
}
