// Runs every compiled unit test (out/test/unit/**/*.test.js) with Node's built-in test runner.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}
const filter = process.argv.slice(2);
let files = collect('out/test/unit').sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (!files.length) { console.error('no unit tests found'); process.exit(1); }
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
