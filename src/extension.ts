// Entry point of the VS Code extension: one engine, one log, the parsed-document cache, and every
// editor feature registered against the same services.
import * as vscode from 'vscode';
import { registerCodeActions } from './editor/codeActions';
import { registerCommands } from './editor/commands';
import type { DependencyView } from './editor/dependencies';
import { registerDependencies } from './editor/dependencyActions';
import { registerCompletion } from './editor/completion';
import { RegistryDiagnostics } from './editor/diagnostics';
import { backendOf, createEngine } from './editor/engineFactory';
import { registerHover } from './editor/hover';
import { registerFallbackLanguage } from './editor/language';
import { RegistryLookup } from './features/lookup';
import { redactingLog } from './features/redactedLog';
import { registerJobCommands } from './editor/lazyCommands';
import { registerLockFeatures } from './editor/lockFeatures';
import { Services } from './editor/services';
import { affectsEngine, readSettings } from './editor/settings';
import { registerTypeFeatures } from './editor/typeFeatures';

/** Set by the bundle's first and last statements (scripts/build.mjs); absent when running from out/. */
declare const __tofu_registry_t0: number | undefined;
declare const __tofu_registry_t1: number | undefined;

/** What activate() returns: for integration tests and other extensions (read-only use). */
export interface TofuRegistryApi {
  services: Services;
  diagnostics: RegistryDiagnostics;
  /** Time spent in activate(). */
  activationMs: number;
  /** Evaluating the bundle (its first to its last statement) + activate(). */
  loadAndActivateMs: number;
  /** From the bundle's first statement to the end of activate(), including the host's own work in between. */
  sinceLoadMs: number;
  /** Folder of the "Show log" channel's file (`OpenTofu Registry.log`). */
  logUri: vscode.Uri;
  /** The "OpenTofu Dependencies" view and status bar item (undefined if it failed to register). */
  dependencies?: DependencyView;
}

export function activate(context: vscode.ExtensionContext): TofuRegistryApi {
  const t0 = performance.now();
  // Every line of every feature is redacted here (user:password, signed query values), once.
  const log = redactingLog(vscode.window.createOutputChannel('OpenTofu Registry', { log: true }));
  context.subscriptions.push(log);
  const cacheDir = vscode.Uri.joinPath(context.globalStorageUri, 'cache').fsPath;
  const settings = readSettings();
  const engine = createEngine(settings, cacheDir, log);
  const services = new Services(log, cacheDir, engine, new RegistryLookup(backendOf(engine)));
  context.subscriptions.push(services);

  registerFallbackLanguage(context, services);
  registerCompletion(context, services);
  registerHover(context, services);
  registerCodeActions(context, services);
  registerCommands(context, services);
  const diagnostics = new RegistryDiagnostics(services);
  context.subscriptions.push(diagnostics);
  let dependencies: DependencyView | undefined;
  try {
    dependencies = registerDependencies(context, services);
  } catch (err) {
    log.error(`registering the dependencies view failed: ${err instanceof Error ? err.stack : String(err)}`);
  }
  // the job commands (mirrors, publish, SBOM): registered now, their code loaded on first use
  for (const [name, register] of [['type features', registerTypeFeatures], ['job commands', registerJobCommands], ['lock files', registerLockFeatures]] as const) {
    try {
      register(context, services);
    } catch (err) {
      log.error(`registering ${name} failed: ${err instanceof Error ? err.stack : String(err)}`);
    }
  }

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('tofuRegistry') && !e.affectsConfiguration('http.proxy') && !e.affectsConfiguration('http.noProxy')) return;
      const s = services.reloadSettings();
      if (affectsEngine(e)) {
        const old = services.engine;
        const next = createEngine(s, cacheDir, log);
        services.replaceEngine(next, backendOf(next));
        void old.dispose().catch(() => undefined);
        log.info('settings changed: registry client recreated');
      } else {
        diagnostics.scheduleAll(0);
      }
    }),
    // The parse cache holds each document's text and syntax tree: drop them when VS Code drops the document.
    vscode.workspace.onDidCloseTextDocument((doc) => services.forget(doc)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: registry lookups enabled');
      services.reset();
    }),
    { dispose: () => void services.engine.dispose().catch(() => undefined) },
  );

  const end = performance.now();
  const activationMs = end - t0;
  const bundled = typeof __tofu_registry_t0 === 'number' && typeof __tofu_registry_t1 === 'number';
  const loadAndActivateMs = activationMs + (bundled ? __tofu_registry_t1! - __tofu_registry_t0! : 0);
  const sinceLoadMs = bundled ? end - __tofu_registry_t0! : activationMs;
  log.info(`activated in ${activationMs.toFixed(1)} ms, ${loadAndActivateMs.toFixed(1)} ms with evaluating the bundle, ${sinceLoadMs.toFixed(1)} ms since the bundle started loading (${vscode.workspace.isTrusted ? 'trusted' : 'untrusted: no network requests'})`);
  return { services, diagnostics, activationMs, loadAndActivateMs, sinceLoadMs, logUri: context.logUri, dependencies };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
