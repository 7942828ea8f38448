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
};

await build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] });
await build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } });
chmodSync('dist/cli.js', 0o755);
for (const f of ['dist/extension.js', 'dist/cli.js']) {
  console.log(`${f} ${(statSync(f).size / 1024).toFixed(0)} KiB`);
}
