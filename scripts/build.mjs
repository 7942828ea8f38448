// Bundles the two front ends over the one engine: the VS Code extension and the headless CLI.
import { build } from 'esbuild';
import { chmodSync, statSync } from 'node:fs';

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
  define: { 'import.meta.url': '__bundle_import_meta_url' },
};
const IMPORT_META_URL = 'var __bundle_import_meta_url = require("url").pathToFileURL(__filename).href;';

// The extension bundle is always minified (with a source map): VS Code loads it on activation.
await build({ ...common, minify: true, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], banner: { js: IMPORT_META_URL } });
await build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: `#!/usr/bin/env node\n${IMPORT_META_URL}` } });
chmodSync('dist/cli.js', 0o755);
for (const f of ['dist/extension.js', 'dist/cli.js']) {
  console.log(`${f} ${(statSync(f).size / 1024).toFixed(0)} KiB`);
}
