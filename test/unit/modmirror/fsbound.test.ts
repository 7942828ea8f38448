// The module mirror's file-system reads are parallel but bounded (FS_CONCURRENCY in flight), and
// what they produce does not depend on the order reads complete in: re-reading a package in OUT
// (its stamps lost), and the configuration directories a run is given.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FS_CONCURRENCY } from '../../../src/engine/fstree';
import { indexedFile, indexFiles, indexPackage } from '../../../src/engine/modmirror/calls';
import { mirrorModules, ModMirrorEngine } from '../../../src/engine/modmirror';
import { packDirectory } from '../../../src/engine/modmirror/tarball';
import { tempDir, tempTree } from '../../support/temp';

// Counts the callback readFile calls in flight (readText's, which every configuration read uses);
// the module object itself (an ES import is a read-only view of it).
const fs = require('node:fs') as { readFile: unknown };
const original = fs.readFile;
let inFlight = 0;
let most = 0;
function countReads(): void {
  inFlight = most = 0;
  fs.readFile = (...args: unknown[]) => {
    const done = args.pop() as (...r: unknown[]) => void;
    inFlight++;
    most = Math.max(most, inFlight);
    (original as (...a: unknown[]) => void)(...args, (...r: unknown[]) => { inFlight--; done(...r); });
  };
}
afterEach(() => { fs.readFile = original; });

const N = 3 * FS_CONCURRENCY;
const names = Array.from({ length: N }, (_, i) => `m${String(i).padStart(3, '0')}`);

test('re-reading a package: its files are read FS_CONCURRENCY at a time, the index is the one packing gave', async () => {
  const root = tempTree('modmirror-fsbound-pkg-', Object.fromEntries(names.map((n) => [`modules/${n}/main.tf`, `module "x" {\n  source = "acme/${n}/aws"\n}\n`])));
  const files = new Map<string, Buffer>();
  await packDirectory(root, join(tempDir('modmirror-fsbound-out-'), 'p.tar.gz'), { keep: indexedFile, files });
  countReads();
  const index = await indexPackage(root);
  assert.equal(most, FS_CONCURRENCY, 'parallel, and never more than FS_CONCURRENCY at once');
  assert.deepEqual(index, indexFiles(files));
  assert.deepEqual(Object.keys(index.dirs), names.map((n) => `modules/${n}`));
});

test('the configuration directories of a run are read at most FS_CONCURRENCY at a time; the report does not depend on read order', async () => {
  const ws = tempTree('modmirror-fsbound-ws-', Object.fromEntries(names.map((n) => [`${n}/main.tf`, 'module "gone" {\n  source = "./missing"\n}\n'])));
  const engine: ModMirrorEngine = {
    http: undefined as never,
    listModuleVersions: () => assert.fail('no registry call here'),
    resolveDownloadLocation: () => assert.fail('no registry call here'),
  };
  countReads();
  const r = await mirrorModules({ engine, dirs: names.map((n) => join(ws, n)), out: join(tempDir('modmirror-fsbound-site-'), 'site') });
  assert.ok(most > 1 && most <= FS_CONCURRENCY, `at most ${FS_CONCURRENCY} reads in flight, saw ${most}`);
  assert.deepEqual(r.failed.map((f) => [f.step, f.message]), names.map((n) =>
    ['config', `reading the configuration failed: ${join(ws, n, 'main.tf')}:1: module "gone": local module directory ${join(ws, n, 'missing')} does not exist`]));
});
