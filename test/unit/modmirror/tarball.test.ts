// The deterministic .tar.gz: the same package gives the same bytes however it was unpacked (file
// order, mtimes, permission bits), and what tar, node-tar and the engine's own extractor unpack is
// exactly the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as tar from 'tar';
import { packDirectory } from '../../../src/engine/modmirror/tarball';
import { unpackArchive } from '../../../src/engine/modulepkg/fetch';
import { treeOf } from '../../support/module-origin';
import { tempDir } from '../../support/temp';

const LONG = 'a-directory-name-that-is-long-enough-to-need-the-ustar-prefix-field-'.repeat(2);
const FILES: Array<[string, string, number]> = [
  ['main.tf', 'module "x" {\n  source = "./modules/x"\n}\n', 0o644],
  ['modules/x/main.tf', 'variable "v" {}\n', 0o600],
  ['scripts/run.sh', '#!/bin/sh\necho hi\n', 0o700],
  [`${LONG}/${LONG}/deep.tf`, '# deep\n', 0o644],
  ['ünïcode/файл.tf', '# utf-8 names\n', 0o644],
];

function makePackage(dir: string, order: number[], mtime: number): string {
  for (const i of order) {
    const [name, text, mode] = FILES[i];
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), mode);
    utimesSync(join(dir, name), mtime, mtime);
  }
  mkdirSync(join(dir, 'empty'));
  symlinkSync('../main.tf', join(dir, 'modules', 'link.tf'));
  return dir;
}

test('the same package repacked gives the same bytes, whatever its mtimes, modes and creation order', async () => {
  const root = tempDir('modmirror-tar-');
  const a = makePackage(join(root, 'a'), [0, 1, 2, 3, 4], 1_000_000);
  const b = makePackage(join(root, 'b'), [4, 3, 2, 1, 0], 1_700_000_000);
  chmodSync(join(b, 'scripts', 'run.sh'), 0o755); // another execute bit pattern: still 0755 in the archive
  const first = await packDirectory(a, join(root, 'a1.tar.gz'));
  const again = await packDirectory(a, join(root, 'a2.tar.gz'));
  const other = await packDirectory(b, join(root, 'b.tar.gz'));
  assert.equal(first.sha256, again.sha256);
  assert.equal(first.sha256, other.sha256);
  assert.ok(readFileSync(join(root, 'a1.tar.gz')).equals(readFileSync(join(root, 'b.tar.gz'))));
  assert.equal(first.entries, 13);
  assert.equal(readFileSync(join(root, 'a1.tar.gz'))[9], 3, 'gzip OS byte is Unix');
});

test('tar, node-tar and the engine unpack exactly the package: names, contents, normalised modes, links (the engine: empty files), empty directories', async () => {
  const root = tempDir('modmirror-tar-x-');
  const src = makePackage(join(root, 'src'), [0, 1, 2, 3, 4], 1_000_000);
  const file = join(root, 'p.tar.gz');
  await packDirectory(src, file);
  const listing = await promisify(execFile)('tar', ['-tvzf', file]);
  const lines = listing.stdout.trim().split('\n');
  assert.ok(lines.every((l) => / 0\/0 /.test(l) && / 1970-01-01 00:00 /.test(l)), listing.stdout);
  const modes = new Map(lines.map((l) => [l.replace(/^.* 00:00 /, '').replace(/ -> .*$/, ''), l.slice(0, 10)]));
  assert.equal(modes.size, 13);
  for (const [name, mode] of modes) {
    const want = name.endsWith('/') ? 'drwxr-xr-x' : name === 'modules/link.tf' ? 'lrwxrwxrwx' : name === 'scripts/run.sh' ? '-rwxr-xr-x' : '-rw-r--r--';
    assert.equal(mode, want, name);
  }
  const expected = treeOf(src);
  assert.equal(expected['scripts/run.sh'].startsWith('(x) '), true);
  for (const [how, unpack] of [
    ['tar', (d: string) => promisify(execFile)('tar', ['-xzf', file, '-C', d])],
    ['node-tar', (d: string) => tar.x({ file, cwd: d })],
    ['engine', (d: string) => unpackArchive(file, d)],
  ] as const) {
    const dest = join(root, how);
    mkdirSync(dest);
    await unpack(dest);
    const got = treeOf(dest);
    // the engine unpacks a link as tofu's go-getter does: an empty regular file
    const want = how === 'engine' ? { ...expected, 'modules/link.tf': '' } : expected;
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), how);
    for (const [k, v] of Object.entries(want)) assert.equal(got[k].replace(/^\(x\) /, ''), v.replace(/^\(x\) /, ''), `${how}: ${k}`);
    assert.ok(got['scripts/run.sh'].startsWith('(x) ') && !got['main.tf'].startsWith('(x) '), `${how}: execute bits`);
    const link = lstatSync(join(dest, 'modules', 'link.tf'));
    assert.ok(statSync(join(dest, 'empty')).isDirectory() && (how === 'engine' ? link.isFile() : link.isSymbolicLink()), `${how}: empty directory and link`);
  }
});

test('a link that leaves the package is refused rather than packed', async () => {
  const root = tempDir('modmirror-tar-link-');
  mkdirSync(join(root, 'pkg'));
  writeFileSync(join(root, 'pkg', 'main.tf'), '');
  symlinkSync('../../etc/passwd', join(root, 'pkg', 'passwd.tf'));
  await assert.rejects(packDirectory(join(root, 'pkg'), join(root, 'x.tar.gz')), /refusing to pack passwd\.tf: its link target \.\.\/\.\.\/etc\/passwd is outside the package/);
});
