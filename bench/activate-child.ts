// Child process of the editor bench: loads the extension bundle and runs activate() once, in a
// fresh process (a second load in one process would find V8's caches warm) with the Node modules
// the bundle requires already loaded (as in an extension host), and prints the ready times
// (machine.ts) as JSON. The bench takes the best of a few such processes.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { readyTimedSync } from './machine';
import { tempDir } from '../test/support/temp';

export interface ActivationSample { loadMs: number; activateMs: number; wallMs: number; vendorLoaded: string[] }

/**
 * Loads the extension bundle and runs activate() against a stand-in for the `vscode` module: every
 * API not listed here is a callable that returns itself, enough for registration calls.
 */
export function loadAndActivate(bundle: string): ActivationSample {
  const storage = tempDir('tofu-registry-bench-activate-');
  const deep: object = new Proxy(function () { /* stand-in */ }, { get: (_t, k) => (k === 'then' ? undefined : deep), construct: () => deep, apply: () => deep });
  const uri = (fsPath: string) => ({ fsPath, scheme: 'file', path: fsPath, toString: () => `file://${fsPath}` });
  const real: Record<string, unknown> = {
    version: '1.90.0',
    Uri: { file: uri, joinPath: (base: { fsPath: string }, ...parts: string[]) => uri(join(base.fsPath, ...parts)) },
    workspace: new Proxy({ isTrusted: true, textDocuments: [], workspaceFolders: undefined, getConfiguration: () => ({ get: () => undefined }) }, { get: (t, k) => (k in t ? t[k as keyof typeof t] : deep) }),
  };
  // Own properties for the APIs above, the stand-in for the rest (the bundle's namespace import copies own properties and reads through the prototype).
  const shim = Object.assign(Object.create(new Proxy({}, { get: (_t, k) => (k === 'then' ? undefined : deep) })) as object, real);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require('node:module') as { _load: (req: string, ...rest: unknown[]) => unknown };
  const orig = Module._load;
  Module._load = function (req: string, ...rest: unknown[]) { return req === 'vscode' ? shim : orig.call(this, req, ...rest); };
  // A real extension host has Node's own modules loaded long before an extension activates.
  const text = readFileSync(bundle, 'utf8');
  for (const m of builtinModules) {
    if (!m.startsWith('_') && (text.includes(`require("${m}")`) || text.includes(`require("node:${m}")`))) require(`node:${m}`);
  }
  const before = new Set(Object.keys(require.cache));
  try {
    // Ready times (machine.ts): the wall time less this thread's waits for a core.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const load = readyTimedSync(() => require(bundle) as { activate(ctx: unknown): { dispose?: () => void } });
    const ext = load.value;
    const context = { subscriptions: [] as { dispose(): unknown }[], globalStorageUri: uri(storage), logUri: uri(storage) };
    const activate = readyTimedSync(() => ext.activate(context));
    for (const d of context.subscriptions) try { d.dispose(); } catch { /* stand-in disposables */ }
    const vendorLoaded = Object.keys(require.cache).filter((k) => !before.has(k) && k.includes(`${join('dist', 'vendor')}`)).map((k) => k.split(/[\\/]/).pop()!);
    return { loadMs: load.readyMs, activateMs: activate.readyMs, wallMs: load.wallMs + activate.wallMs, vendorLoaded };
  } finally { Module._load = orig; }
}

if (require.main === module) process.stdout.write(JSON.stringify(loadAndActivate(process.argv[2])));
