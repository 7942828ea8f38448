// Bundles the two front ends over the one engine: the VS Code extension and the headless CLI.
import { build } from 'esbuild';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { recordCodeCache } from './code-cache.mjs';
import { createRequire } from 'node:module';
import { relative, resolve, sep } from 'node:path';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  minify: process.env.NODE_ENV === 'production' || process.argv.includes('--minify'),
  logLevel: 'warning',
  legalComments: 'none',
  // ESM-only dependency code (openpgp's node build: createRequire(import.meta.url)) needs a real
  // import.meta.url in the CommonJS bundles.
  define: { 'import.meta.url': '__bundle_import_meta_url', __TOFU_REGISTRY_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version) },
};
const IMPORT_META_URL = 'var __bundle_import_meta_url = require("url").pathToFileURL(__filename).href;';

// Dependencies needed only for some work (openpgp: mirror signatures; tar, yauzl: module archives
// and provider zips; tr46: only non-ASCII or punycode hostnames; undici: the first network request)
// go to dist/vendor/<name>.js. The extension and CLI bundles get a stub per package with the
// package's export names as getters that require() the vendor file on first use, so activation,
// `--help`, `inspect`, `hash`, `types convert` and `--offline` checks neither load nor parse them.
// undici alone was two thirds of the extension bundle and of its evaluation time (≈ 35 ms); the
// engine builds its dispatcher on the first request, so activation never touches it.
const LAZY = ['openpgp', 'tar', 'yauzl', 'tr46', 'undici'];
// undici: only the dispatchers and request() the engine uses (scripts/undici-engine.cjs), not its
// index with fetch, WebSocket, cookies and mocks (≈ 30 ms less on every network command's start).
const VENDOR_ENTRY = { undici: './scripts/undici-engine.cjs' };
const require = createRequire(import.meta.url);
mkdirSync('dist/vendor', { recursive: true });
/** A module whose exports are getters that require `target` (a JS expression) on first use. */
const getterStub = (target, keys, esModule = false) => [
  `let m; const load = () => (m ??= require(${target}));`,
  esModule ? `Object.defineProperty(exports, '__esModule', { value: true });` : '',
  `for (const k of ${JSON.stringify(keys)}) Object.defineProperty(exports, k, { enumerable: true, get: () => load()[k] });`,
].join('\n');
// undici's HTTP/2 client (and with it Node's http2 module, ≈ 2.5 ms of every network command's
// start): the engine never offers h2 (no allowH2, so TLS negotiates http/1.1 only), and a
// connection that came back h2 anyway fails as a connect error instead.
const noHttp2 = {
  name: 'undici-without-h2',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (a) => (/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(a.importer) ? { path: 'client-h2', namespace: 'undici-without-h2' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'undici-without-h2' }, () => ({ contents: "module.exports = () => { throw new Error('HTTP/2 is not used by tofu-registry (scripts/build.mjs)'); };", loader: 'js' }));
  },
};
const VENDOR_PLUGINS = { undici: [noHttp2] };
const lazyStubs = {};
for (const name of LAZY) {
  const outfile = `dist/vendor/${name}.js`;
  await build({ ...common, minify: true, sourcemap: false, stdin: { contents: `module.exports = require(${JSON.stringify(VENDOR_ENTRY[name] ?? name)});`, resolveDir: process.cwd() }, outfile, banner: { js: IMPORT_META_URL }, plugins: VENDOR_PLUGINS[name] ?? [] });
  const mod = require(resolve(outfile));
  const keys = Object.keys(mod).filter((k) => k !== '__esModule');
  lazyStubs[name] = getterStub(`__dirname + ${JSON.stringify(`/vendor/${name}.js`)}`, keys, !!mod.__esModule);
}
/** Resolves each of `names` to its stub (which loads dist/vendor/<name>.js on first use). */
const lazyVendor = (names) => ({
  name: 'lazy-vendor',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (a) => ({ path: a.path, namespace: 'lazy-vendor' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-vendor' }, (a) => ({ contents: lazyStubs[a.path], loader: 'js' }));
  },
});

// Node's own modules that only some of a CLI command's work needs (child_process: git and the
// credentials helper; tls and net: the first request; worker_threads: the hash and signature
// workers; zlib: unpacking and packing; crypto: hashing and temp names) are, in the CLI bundles,
// stubs of the same kind: getters that require() the module on first use. An esbuild bundle
// requires every import at load; an unchanged `mirror` re-run, which sends no request and starts no
// worker, spent ≈ 8 ms loading these (child_process alone pulls in net and dgram).
const LAZY_BUILTINS = ['child_process', 'tls', 'net', 'worker_threads', 'zlib', 'crypto'];
const lazyBuiltinStubs = Object.fromEntries(LAZY_BUILTINS.map((name) => [name, getterStub(JSON.stringify(`node:${name}`), Object.keys(require(`node:${name}`)))]));
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`) }, (a) =>
      (a.namespace === 'lazy-builtin' ? undefined : { path: a.path.replace(/^node:/, ''), namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (a) => ({ contents: lazyBuiltinStubs[a.path], loader: 'js' }));
  },
};

// The extension bundle is always minified (with a source map): VS Code loads it on activation.
// __tofu_registry_t0 / _t1: when the bundle started and finished evaluating (activate() reports
// evaluation + its own time; what the host does between loading the module and calling activate(),
// e.g. reading storage for the ExtensionContext, is not ours and is reported apart).
//
// The job commands (src/editor/jobCommands.ts: mirrors, publish, SBOM, with the engine's job
// folders only they use) are a bundle of their own, dist/extension-commands.js, loaded by
// src/editor/lazyCommands.ts on a command's first use: activation neither parses nor evaluates
// them (~90 KB). What they share with the extension's bundle must be the same module instances
// (one Engine, one RegistryError class for instanceof), so those imports are not bundled twice:
// the extension's bundle exports the namespaces of the modules the commands import from it
// (`__shared`, by source path) and the commands' bundle reads them from there. Which modules
// those are is found from the two bundles' metafiles (an import of a module the extension's
// bundle has, from a module it has not).
const EXTENSION = 'src/extension.ts';
const JOBS = 'src/editor/jobCommands.ts';
const extensionBuild = { ...common, minify: true, outfile: 'dist/extension.js', external: ['vscode'], banner: { js: `var __tofu_registry_t0 = performance.now();${IMPORT_META_URL}` }, footer: { js: 'var __tofu_registry_t1 = performance.now();' } };
/** The extension's import('./jobCommands') becomes a require of the commands' bundle beside it. */
const jobsApart = {
  name: 'jobs-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/jobCommands$/ }, (a) => (/[\\/]src[\\/]editor[\\/]lazyCommands\.ts$/.test(a.importer) ? { path: './extension-commands.js', external: true } : undefined));
  },
};
const inputsOf = (meta) => Object.keys(meta.inputs).filter((f) => !f.includes(':'));
const mainInputs = new Set(inputsOf((await build({ ...extensionBuild, entryPoints: [EXTENSION], write: false, metafile: true, plugins: [jobsApart, lazyVendor(LAZY)] })).metafile));
const jobsMeta = (await build({ ...common, entryPoints: [JOBS], outfile: 'dist/extension-commands.js', external: ['vscode'], write: false, metafile: true, plugins: [lazyVendor(LAZY)] })).metafile;
const shared = new Set();
for (const [file, input] of Object.entries(jobsMeta.inputs)) {
  if (mainInputs.has(file)) continue;
  for (const i of input.imports) if (mainInputs.has(i.path)) shared.add(i.path);
}
/** An import of the commands' code from `shared`, resolved to its source path (else undefined). */
const sharedPath = async (b, a) => {
  if (a.pluginData?.inner || a.kind === 'entry-point' || a.path === 'vscode' || LAZY.includes(a.path) || a.path.startsWith('node:')) return undefined;
  const r = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, pluginData: { inner: true } });
  if (r.errors.length || r.external) return undefined;
  const rel = relative(process.cwd(), r.path).split(sep).join('/');
  return shared.has(rel) ? rel : undefined;
};
// Only the names the commands use are exported (a whole namespace would keep all of a module in
// the extension's bundle): an ESM build of the commands with those modules external lists them.
const probe = await build({ ...common, minify: false, sourcemap: false, format: 'esm', entryPoints: [JOBS], outfile: 'dist/extension-commands.mjs', write: false, external: ['vscode'],
  plugins: [{ name: 'probe', setup(b) { b.onResolve({ filter: /.*/ }, async (a) => { const rel = await sharedPath(b, a); return rel && { path: rel, external: true }; }); } }, lazyVendor(LAZY)] });
const used = new Map();
for (const m of probe.outputFiles[0].text.matchAll(/^import\s+(.*?)\s+from\s+"([^"]+)";$/gms)) {
  if (!shared.has(m[2])) continue;
  const names = used.get(m[2]) ?? new Set();
  for (const part of m[1].split(/,(?![^{]*})/)) {
    const p = part.trim();
    if (p.startsWith('* as')) names.add('*');
    else if (p.startsWith('{')) for (const n of p.slice(1, -1).split(',').map((x) => x.trim().split(/\s+as\s+/)[0]).filter(Boolean)) names.add(n);
    else if (p) names.add('default');
  }
  used.set(m[2], names);
}
const sharedList = [...shared].sort();
const sharedEntry = [`export * from ${JSON.stringify(`./${EXTENSION}`)};`];
const sharedObjects = sharedList.map((f, i) => {
  const spec = JSON.stringify(f.startsWith('.') ? f : `./${f}`);
  const names = [...(used.get(f) ?? [])];
  sharedEntry.push(`import * as s${i} from ${spec};`);
  if (!names.length || names.includes('*')) return `${JSON.stringify(f)}: s${i}`;
  // getters: live bindings, as an import would have; reading s.NAME (not the namespace itself)
  // lets esbuild drop the rest of the module (a type re-exported by name reads undefined: unused)
  return `${JSON.stringify(f)}: { ${names.map((n) => `get ${n}() { return s${i}.${n}; }`).join(', ')} }`;
});
sharedEntry.push(`export const __shared = { ${sharedObjects.join(', ')} };`);
await build({ ...extensionBuild, stdin: { contents: sharedEntry.join('\n'), resolveDir: process.cwd(), sourcefile: 'extension-entry.ts', loader: 'ts' }, logOverride: { 'import-is-undefined': 'silent' }, plugins: [jobsApart, lazyVendor(LAZY)] });
/** In the commands' bundle, a module the extension's bundle has is read from its `__shared`. */
const fromExtension = {
  name: 'from-extension',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (a) => {
      const rel = await sharedPath(b, a);
      return rel && { path: rel, namespace: 'from-extension' };
    });
    b.onLoad({ filter: /.*/, namespace: 'from-extension' }, (a) => ({ contents: `module.exports = require(__dirname + '/extension.js').__shared[${JSON.stringify(a.path)}];`, loader: 'js' }));
  },
};
await build({ ...common, minify: true, entryPoints: [JOBS], outfile: 'dist/extension-commands.js', external: ['vscode'], banner: { js: IMPORT_META_URL }, plugins: [fromExtension, lazyVendor(LAZY)] });
// The CLI: dist/cli.js is the dispatcher (usage, flags, exit codes); each command group is a
// bundle of its own, dist/cli-<group>.js, required when that command runs (src/cli.ts), so a
// command compiles and evaluates only its own code — `inspect` none of the network engine. The
// engine code they share is repeated in each (the CLI is not size-critical; start-up is). They
// share the vendor files and stubs (dist/vendor ships beside them: .npmignore).
const CLI_GROUPS = ['inspect', 'registry', 'mirror', 'modmirror', 'lock', 'types', 'outdated', 'publish', 'publish-provider', 'sbom', 'lsp'];
const cliGroups = {
  name: 'cli-groups',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^\\./cli/(${CLI_GROUPS.join('|')})$`) }, (a) =>
      (/[\\/]src[\\/]cli\.ts$/.test(a.importer) ? { path: `./cli-${a.path.slice('./cli/'.length)}.js`, external: true } : undefined));
  },
};
await build({ ...common, minify: true, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: `#!/usr/bin/env node\n${IMPORT_META_URL}` }, plugins: [cliGroups, lazyVendor(LAZY), lazyBuiltins] });
chmodSync('dist/cli.js', 0o755);
await build({ ...common, minify: true, entryPoints: Object.fromEntries(CLI_GROUPS.map((g) => [`cli-${g}`, `src/cli/${g}.ts`])), outdir: 'dist', banner: { js: IMPORT_META_URL }, plugins: [lazyVendor(LAZY), lazyBuiltins] });
// The hash pool's worker thread (src/engine/providerpkg/hash-worker.ts) needs a file of its own: both
// bundles start it as dist/hash-worker.js (beside them); it loads yauzl from dist/vendor as they do.
// The vsix (.vscodeignore) and the npm package (.npmignore) ship it.
await build({ ...common, minify: true, entryPoints: ['src/engine/providerpkg/hash-worker.ts'], outfile: 'dist/hash-worker.js', banner: { js: IMPORT_META_URL }, plugins: [lazyVendor(['yauzl'])] });
// The signature checks' worker thread (src/engine/providerpkg/signature-worker.ts, started by `lock`):
// dist/signature-worker.js beside the bundles; it loads openpgp from dist/vendor as they do.
await build({ ...common, minify: true, entryPoints: ['src/engine/providerpkg/signature-worker.ts'], outfile: 'dist/signature-worker.js', banner: { js: IMPORT_META_URL }, plugins: [lazyVendor(['openpgp'])] });
for (const f of ['dist/extension.js', 'dist/extension-commands.js', ...LAZY.map((n) => `dist/vendor/${n}.js`), 'dist/cli.js', ...CLI_GROUPS.map((g) => `dist/cli-${g}.js`), 'dist/hash-worker.js', 'dist/signature-worker.js']) {
  console.log(`${f} ${(statSync(f).size / 1024).toFixed(0)} KiB`);
}
// The CLI's V8 code cache (src/cli/code-cache.ts), made from the bundles just written.
const cacheMs = recordCodeCache('dist');
console.log(`dist/code-cache ${readdirSync('dist/code-cache', { recursive: true }).filter((f) => String(f).endsWith('.bin')).length} entries in ${cacheMs.toFixed(0)} ms`);
