// Parallel file-tree IO: bounded concurrency with ordered results, walks that read each directory
// once (entry types, no stat), capped reads, and the tree readers built on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findConfigFiles, findConfigFilesSync } from '../../../src/engine/config';
import { createLimiter, mapLimit, readText, readTextCapped, walkTree, walkTreeSync } from '../../../src/engine/fstree';
import { findConfigDirs } from '../../../src/engine/mirror';
import { tempDir } from '../../support/temp';

/** A tree of `width` directories per level, `depth` levels, one .tf and one .txt file in each. */
function tree(width: number, depth: number): { root: string; dirs: string[] } {
  const root = tempDir('fstree-');
  const dirs: string[] = [];
  const make = (dir: string, level: number) => {
    dirs.push(dir);
    writeFileSync(path.join(dir, 'main.tf'), `variable "v${level}" {}\n`);
    writeFileSync(path.join(dir, 'notes.txt'), 'not configuration');
    if (level === depth) return;
    for (let i = 0; i < width; i++) {
      const sub = path.join(dir, `d${i}`);
      mkdirSync(sub);
      make(sub, level + 1);
    }
  };
  make(root, 0);
  return { root, dirs: dirs.sort() };
}

test('mapLimit: results in input order, never more than the limit in flight, the first failure rejects', async () => {
  let inFlight = 0;
  let most = 0;
  const delays = [30, 5, 20, 1, 15, 2, 25, 3, 10, 4];
  const out = await mapLimit(delays, 3, async (ms, i) => {
    most = Math.max(most, ++inFlight);
    await sleep(ms);
    inFlight--;
    return `${i}:${ms}`;
  });
  assert.deepEqual(out, delays.map((ms, i) => `${i}:${ms}`));
  assert.equal(most, 3);
  assert.deepEqual(await mapLimit([], 4, async () => 1), []);
  const started: number[] = [];
  await assert.rejects(mapLimit([1, 2, 3, 4, 5, 6], 2, async (n) => {
    started.push(n);
    await sleep(1);
    if (n === 2) throw new Error('boom 2');
    return n;
  }), /boom 2/);
  assert.ok(started.length < 6, `no new work after the failure (started ${started.join(',')})`);
});

test('createLimiter: one bound shared by many callers, started in order, failures passed to their caller only', async () => {
  const io = createLimiter(3);
  let inFlight = 0;
  let peak = 0;
  const started: number[] = [];
  const job = (i: number) => io(async () => {
    started.push(i);
    peak = Math.max(peak, ++inFlight);
    await sleep(i % 4);
    inFlight--;
    if (i === 5) throw new Error('five');
    return i * 10;
  });
  // Two callers at once, as two modules of a tree reading their files.
  const [a, b] = await Promise.all([
    Promise.allSettled([0, 1, 2, 3, 4, 5].map(job)),
    Promise.all([6, 7, 8, 9].map(job)),
  ]);
  assert.equal(peak, 3);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(a.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)), [0, 10, 20, 30, 40, 'five']);
  assert.deepEqual(b, [60, 70, 80, 90]);
  assert.equal(await io(() => { throw new Error('sync throw'); }).catch((e: Error) => e.message), 'sync throw');
});

test('walkTree: each directory read once, descend filter and depth, symbolic links to directories not followed', async () => {
  const { root, dirs } = tree(3, 3); // 1 + 3 + 9 + 27 directories
  symlinkSync(path.join(root, 'd0'), path.join(root, 'link-to-d0'));
  const seen: string[] = [];
  const depths = new Map<string, number>();
  await walkTree(root, {
    directory(dir, entries, depth) {
      seen.push(dir);
      depths.set(dir, depth);
      assert.ok(entries.some((e) => e.name === 'main.tf' && e.isFile()), 'entries carry their types');
    },
    descend: () => true,
  }, 4);
  assert.deepEqual(seen.sort(), dirs, 'every directory exactly once, the link not followed');
  assert.equal(depths.get(path.join(root, 'd1', 'd2', 'd0')), 3);

  const shallow: string[] = [];
  await walkTree(root, { directory: (d) => shallow.push(d), descend: (name, depth) => depth <= 1 && name !== 'd1' });
  assert.deepEqual(shallow.sort(), [root, path.join(root, 'd0'), path.join(root, 'd2')]);
});

test('walkTree: unreadable directories fail the walk or are skipped; done() ends it early', async () => {
  const { root } = tree(2, 2);
  const notADir = path.join(root, 'main.tf');
  await assert.rejects(walkTree(notADir, { directory() { /* none */ }, descend: () => true }), { code: 'ENOTDIR' });
  const skipped: string[] = [];
  await walkTree(notADir, { directory() { assert.fail('not a directory'); }, descend: () => true, unreadable: (d) => skipped.push(d) });
  assert.deepEqual(skipped, [notADir]);
  await assert.rejects(walkTree(root, { directory() { throw new Error('visitor failed'); }, descend: () => true }), /visitor failed/);

  let reads = 0;
  await walkTree(root, { directory: () => { reads++; }, descend: () => true, done: () => reads >= 2 }, 1);
  assert.equal(reads, 2, 'with one read in flight, the walk stops right after the second directory');
});

test('readTextCapped: whole text up to the cap, undefined above it (also across read chunks); readText', async () => {
  const dir = tempDir('fstree-read-');
  const small = path.join(dir, 'small.tf');
  writeFileSync(small, 'variable "é" {}\n');
  assert.equal(await readTextCapped(small, 1024), 'variable "é" {}\n');
  assert.equal(await readText(small), 'variable "é" {}\n');
  const bytes = Buffer.byteLength('variable "é" {}\n');
  assert.equal(await readTextCapped(small, bytes), 'variable "é" {}\n', 'exactly at the cap');
  assert.equal(await readTextCapped(small, bytes - 1), undefined, 'one byte over the cap');
  const big = path.join(dir, 'big.tf');
  const text = '# line of padding\n'.repeat(20_000); // 360,000 bytes: several 64 KiB reads
  writeFileSync(big, text);
  assert.equal(await readTextCapped(big, 512 * 1024), text);
  assert.equal(await readTextCapped(big, 200_000), undefined);
  const empty = path.join(dir, 'empty.tf');
  writeFileSync(empty, '');
  assert.equal(await readTextCapped(empty, 10), '');
  await assert.rejects(readTextCapped(path.join(dir, 'missing.tf'), 10), { code: 'ENOENT' });
  await assert.rejects(readText(path.join(dir, 'missing.tf')), { code: 'ENOENT' });
});

test('findConfigFiles and findConfigDirs over a wide tree: same answers as a sequential walk, sorted, limits kept', async () => {
  const { root, dirs } = tree(4, 3); // 85 directories
  for (const hidden of ['.terraform/modules/x', '.hidden', 'node_modules/p']) {
    mkdirSync(path.join(root, hidden), { recursive: true });
    writeFileSync(path.join(root, hidden, 'main.tf'), '');
  }
  const files = await findConfigFiles([root, path.join(root, 'd1', 'main.tf')]);
  assert.deepEqual(files, [...dirs.map((d) => path.join(d, 'main.tf')), path.join(root, '.hidden', 'main.tf')].sort(),
    'findConfigFiles skips .terraform, .git and node_modules only; de-duplicates explicit files');
  assert.deepEqual(await findConfigDirs(root), dirs, 'findConfigDirs skips every hidden directory and node_modules');
  const limited = await findConfigDirs(root, 10);
  assert.equal(limited.length, 10);
  assert.deepEqual(limited, [...limited].sort());
  assert.ok(limited.every((d) => dirs.includes(d)));
  const deep = tempDir('fstree-deep-');
  let d = deep;
  for (let i = 0; i < 15; i++) { d = path.join(d, `l${i}`); mkdirSync(d); writeFileSync(path.join(d, 'x.tf'), ''); }
  assert.equal((await findConfigDirs(deep)).length, 12, 'at most 12 levels below the root');
});

test('walkTreeSync: the walkTree contract — each directory once, descend and depth, links not followed, unreadable, done()', () => {
  const { root, dirs } = tree(3, 3);
  symlinkSync(path.join(root, 'd0'), path.join(root, 'link-to-d0'));
  const seen: string[] = [];
  const depths = new Map<string, number>();
  walkTreeSync(root, {
    directory(dir, entries, depth) {
      seen.push(dir);
      depths.set(dir, depth);
      assert.ok(entries.some((e) => e.name === 'main.tf' && e.isFile()), 'entries carry their types');
    },
    descend: () => true,
  });
  assert.deepEqual(seen.sort(), dirs, 'every directory exactly once, the link not followed');
  assert.equal(depths.get(path.join(root, 'd1', 'd2', 'd0')), 3);
  const shallow: string[] = [];
  walkTreeSync(root, { directory: (d) => shallow.push(d), descend: (name, depth) => depth <= 1 && name !== 'd1' });
  assert.deepEqual(shallow.sort(), [root, path.join(root, 'd0'), path.join(root, 'd2')]);

  const notADir = path.join(root, 'main.tf');
  assert.throws(() => walkTreeSync(notADir, { directory() { /* none */ }, descend: () => true }), { code: 'ENOTDIR' });
  const skipped: string[] = [];
  walkTreeSync(notADir, { directory() { assert.fail('not a directory'); }, descend: () => true, unreadable: (d) => skipped.push(d) });
  assert.deepEqual(skipped, [notADir]);
  let reads = 0;
  walkTreeSync(root, { directory: () => { reads++; }, descend: () => true, done: () => reads >= 2 });
  assert.equal(reads, 2, 'the walk stops right after the second directory');
});

test('findConfigFilesSync: the same files and the same errors as findConfigFiles', async () => {
  const { root } = tree(3, 2);
  for (const hidden of ['.terraform/modules/x', '.hidden', 'node_modules/p']) {
    mkdirSync(path.join(root, hidden), { recursive: true });
    writeFileSync(path.join(root, hidden, 'main.tf'), '');
  }
  writeFileSync(path.join(root, 'd0', 'b.tofu'), '');
  writeFileSync(path.join(root, 'd0', 'c.tf.json'), '{}');
  writeFileSync(path.join(root, 'd0', '.#lock.tf'), '');
  const given = [root, path.join(root, 'd1', 'main.tf'), path.join(root, 'd2')];
  const sync = findConfigFilesSync(given);
  assert.deepEqual(sync, await findConfigFiles(given));
  assert.ok(sync.includes(path.join(root, 'd0', 'c.tf.json')) && !sync.some((f) => f.includes('.#lock')));
  const missing = path.join(root, 'missing');
  assert.throws(() => findConfigFilesSync([missing]), { message: `cannot read ${missing}: no such file or directory` });
  await assert.rejects(findConfigFiles([missing]), { message: `cannot read ${missing}: no such file or directory` });
});
