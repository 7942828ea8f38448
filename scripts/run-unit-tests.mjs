// Runs every compiled unit test (out/test/unit/**/*.test.js) with Node's built-in test runner, in a
// private temp directory (TMPDIR), then checks that the suite left nothing in it: that check counts
// as one more test. Ends with `unit: N passed, M failed` (node's own summary comes just before).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...collect(p));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}
const filter = process.argv.slice(2);
let files = collect('out/test/unit').sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (!files.length) { console.error('no unit tests found'); process.exit(1); }

const privateTmp = mkdtempSync(join(tmpdir(), 'tofu-registry-unit-'));
const before = readdirSync(privateTmp).sort();
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...files], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, TMPDIR: privateTmp, TMP: privateTmp, TEMP: privateTmp },
});
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk).slice(-4096); // node's summary is the last few lines
});
const status = await new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
const count = (name) => Number([...tail.matchAll(new RegExp(`^(?:ℹ|#) ${name} (\\d+)$`, 'gm'))].pop()?.[1] ?? NaN);
let passed = count('pass');
let failed = count('fail');
if (Number.isNaN(passed) || Number.isNaN(failed)) {
  console.log('no summary from node --test');
  passed = Number.isNaN(passed) ? 0 : passed;
  failed = (Number.isNaN(failed) ? 0 : failed) + 1;
}

// The cleanup check: the private temp directory holds what it held before, nothing more.
const after = readdirSync(privateTmp).sort();
const left = after.filter((e) => !before.includes(e));
if (left.length) {
  failed++;
  console.log(`✖ every test removes what it creates in the temp directory: ${left.length} entries left: ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', …' : ''}`);
} else {
  passed++;
  console.log(`✔ every test removes what it creates in the temp directory (${files.length} test files, TMPDIR ${privateTmp})`);
}
rmSync(privateTmp, { recursive: true, force: true, maxRetries: 3 });
console.log(`unit: ${passed} passed, ${failed} failed`);
process.exit(status === 0 && failed === 0 ? 0 : 1);
