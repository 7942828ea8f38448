// Bundles the two front ends over the one engine: the VS Code extension and the headless CLI.
import { build } from 'esbuild';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

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
const require = createRequire(import.meta.url);
mkdirSync('dist/vendor', { recursive: true });
const lazyStubs = {};
for (const name of LAZY) {
  const outfile = `dist/vendor/${name}.js`;
  await build({ ...common, minify: true, sourcemap: false, stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: process.cwd() }, outfile, banner: { js: IMPORT_META_URL } });
  const mod = require(resolve(outfile));
  const keys = Object.keys(mod).filter((k) => k !== '__esModule');
  lazyStubs[name] = [
    `let m; const load = () => (m ??= require(__dirname + ${JSON.stringify(`/vendor/${name}.js`)}));`,
    mod.__esModule ? `Object.defineProperty(exports, '__esModule', { value: true });` : '',
    `for (const k of ${JSON.stringify(keys)}) Object.defineProperty(exports, k, { enumerable: true, get: () => load()[k] });`,
  ].join('\n');
}
/** Resolves each of `names` to its stub (which loads dist/vendor/<name>.js on first use). */
const lazyVendor = (names) => ({
  name: 'lazy-vendor',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (a) => ({ path: a.path, namespace: 'lazy-vendor' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-vendor' }, (a) => ({ contents: lazyStubs[a.path], loader: 'js' }));
  },
});

// The extension bundle is always minified (with a source map): VS Code loads it on activation.
// __tofu_registry_t0 / _t1: when the bundle started and finished evaluating (activate() reports
// evaluation + its own time; what the host does between loading the module and calling activate(),
// e.g. reading storage for the ExtensionContext, is not ours and is reported apart).
await build({ ...common, minify: true, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], banner: { js: `var __tofu_registry_t0 = performance.now();${IMPORT_META_URL}` }, footer: { js: 'var __tofu_registry_t1 = performance.now();' }, plugins: [lazyVendor(LAZY)] });
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
await build({ ...common, minify: true, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: `#!/usr/bin/env node\n${IMPORT_META_URL}` }, plugins: [cliGroups, lazyVendor(LAZY)] });
chmodSync('dist/cli.js', 0o755);
await build({ ...common, minify: true, entryPoints: Object.fromEntries(CLI_GROUPS.map((g) => [`cli-${g}`, `src/cli/${g}.ts`])), outdir: 'dist', banner: { js: IMPORT_META_URL }, plugins: [lazyVendor(LAZY)] });
// The hash pool's worker thread (src/engine/providerpkg/hash-worker.ts) needs a file of its own: both
// bundles start it as dist/hash-worker.js (beside them); it loads yauzl from dist/vendor as they do.
// The vsix (.vscodeignore) and the npm package (.npmignore) ship it.
await build({ ...common, minify: true, entryPoints: ['src/engine/providerpkg/hash-worker.ts'], outfile: 'dist/hash-worker.js', banner: { js: IMPORT_META_URL }, plugins: [lazyVendor(['yauzl'])] });
for (const f of ['dist/extension.js', ...LAZY.map((n) => `dist/vendor/${n}.js`), 'dist/cli.js', ...CLI_GROUPS.map((g) => `dist/cli-${g}.js`), 'dist/hash-worker.js']) {
  console.log(`${f} ${(statSync(f).size / 1024).toFixed(0)} KiB`);
}
