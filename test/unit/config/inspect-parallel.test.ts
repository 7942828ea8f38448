// `inspect` on more than one core (src/cli/inspect-parallel.ts): helper threads render exactly what
// the main thread would, in file order, with the same first unreadable file; a helper that cannot
// start leaves its work to the main thread; the built CLI's answer equals one thread's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { helpersFor, InspectTarget, PARALLEL_FILES, renderAll } from '../../../src/cli/inspect-parallel';
import { filesDocument } from '../../../src/cli/inspect-render';
import { tempDir } from '../../support/temp';

const OUT_WORKER = join(__dirname, '..', '..', '..', 'src', 'cli', 'inspect-worker.js');
const DIST = join(__dirname, '..', '..', '..', '..', 'dist');

/** ≈ 520 files of every kind inspect reads: modules, providers, variables, JSON, broken syntax, non-ASCII. */
function tree(): { dir: string; targets: InspectTarget[] } {
  const dir = tempDir('tofu-inspect-parallel-');
  const targets: InspectTarget[] = [];
  for (let i = 0; i < 520; i++) {
    const sub = join(dir, `m${String(i % 40).padStart(2, '0')}`);
    mkdirSync(sub, { recursive: true });
    const kind = i % 5;
    const name = kind === 4 ? `f${i}.tf.json` : `f${i}.tf`;
    const text = kind === 0 ? `module "m${i}" {\n  source  = "acme/m${i}/aws"\n  version = "~> ${i % 7}.0"\n}\n`
      : kind === 1 ? `terraform {\n  required_providers {\n    p${i} = { source = "acme/p${i}", version = ">= 1.${i}" }\n  }\n}\n`
        : kind === 2 ? `variable "v${i}" {\n  type = object({ name = string, tags = optional(map(string), {}) })\n  description = "naïve ✓ ${i}"\n}\n`
          : kind === 3 ? `module "half${i}" {\n  source = "acme/con\n` // unterminated: a diagnostic
            : JSON.stringify({ module: { [`j${i}`]: { source: `a/b${i}/c`, version: '1.0.0' } } });
    writeFileSync(join(sub, name), text);
    targets.push({ shown: `m${String(i % 40).padStart(2, '0')}/${name}`, abs: join(sub, name) });
  }
  targets.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
  return { dir, targets };
}

test('helper threads render every file exactly as the main thread does, in order, JSON and human', async () => {
  const { dir, targets } = tree();
  try {
    assert.ok(targets.length >= PARALLEL_FILES);
    for (const json of [true, false]) {
      const alone = await renderAll(targets, json, { helpers: 0 });
      assert.equal(alone.helperChunks, 0);
      assert.equal(alone.files.length, targets.length);
      // The helpers alone (the main thread waits): every chunk came from a worker thread.
      const helpers = await renderAll(targets, json, { helpers: 2, workerFile: OUT_WORKER, mainThread: false });
      assert.equal(helpers.helperChunks, Math.ceil(targets.length / 16));
      assert.deepEqual(helpers.files, alone.files);
      // Both at once: whoever takes a chunk, the result is the same.
      assert.deepEqual((await renderAll(targets, json, { helpers: 1, workerFile: OUT_WORKER })).files, alone.files);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the first unreadable file is the same, and a helper that cannot start leaves its chunks to the main thread', async () => {
  const { dir, targets } = tree();
  try {
    const gone = { shown: 'm20/zz-gone.tf', abs: join(dir, 'm20', 'zz-gone.tf') };
    const withGap = [...targets.slice(0, 300), gone, ...targets.slice(300)];
    const alone = await renderAll(withGap, true, { helpers: 0 });
    const helpers = await renderAll(withGap, true, { helpers: 2, workerFile: OUT_WORKER, mainThread: false });
    assert.deepEqual(helpers.files, alone.files);
    assert.equal(helpers.files.findIndex((r) => 'error' in r), 300);
    assert.match((helpers.files[300] as { error: string }).error, /^cannot read m20\/zz-gone\.tf: ENOENT/);

    const missing = await renderAll(targets, true, { helpers: 2, workerFile: join(dir, 'no-such-worker.js') });
    assert.equal(missing.helperChunks, 0);
    assert.deepEqual(missing.files, (await renderAll(targets, true, { helpers: 0 })).files);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('how many helpers: none for a small tree or one core, at most 3, at least 200 files each', () => {
  assert.equal(helpersFor(PARALLEL_FILES - 1, 8), 0);
  assert.equal(helpersFor(5000, 1), 0);
  assert.equal(helpersFor(5000, 2), 1);
  assert.equal(helpersFor(5000, 16), 3);
  assert.equal(helpersFor(600, 16), 2);
});

test('the built CLI (dist/inspect-worker.js beside dist/cli-inspect.js) answers a large tree as one thread does', async () => {
  assert.ok(existsSync(join(DIST, 'inspect-worker.js')), 'dist/ is not built (npm run build)');
  const { dir, targets } = tree();
  try {
    const bundled = await renderAll(targets, true, { helpers: 1, workerFile: join(DIST, 'inspect-worker.js'), mainThread: false });
    assert.equal(bundled.helperChunks, Math.ceil(targets.length / 16));
    const alone = await renderAll(targets, true, { helpers: 0 });
    assert.deepEqual(bundled.files, alone.files);
    const r = spawnSync(process.execPath, [join(DIST, 'cli.js'), 'inspect', '--json', '.'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, filesDocument(alone.files.map((f) => (f as { output: string }).output)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
