// Known-answer tests for h1:/zh:. Expectations are built by hand here from the known file
// contents (dirhash Hash1 lines), never by calling the implementation twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY_H1, h1OfZip, hashPackage, matchesAnyHash, zipHashOfFile } from '../../../src/engine/providerpkg/hash';
import { h1OfZipHere, hashPackageHere, MAX_PROVIDER_ENTRIES } from '../../../src/engine/providerpkg/hash-core';
import { writeZipDirectoryBomb } from '../../support/hostile-archives';
import { writeZip } from '../../support/zip-writer';
import { tempDir } from '../../support/temp';

const dir = tempDir('mirror-hash-');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
/** Hash1 by hand: lines `hex  name\n` in the given (already sorted) order. */
const h1By = (lines: Array<[Buffer | string, Buffer | string]>) => {
  const text = Buffer.concat(lines.map(([content, name]) => Buffer.concat([Buffer.from(`${sha(content)}  `), Buffer.from(name), Buffer.from('\n')])));
  return 'h1:' + createHash('sha256').update(text).digest('base64');
};

test('empty package: h1 is the documented constant, zh is sha256 of the zip bytes', async () => {
  const p = join(dir, 'empty.zip');
  await writeZip(p, []);
  assert.equal(EMPTY_H1, 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  assert.equal(await h1OfZip(p), 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  assert.equal(await zipHashOfFile(p), 'zh:' + sha(readFileSync(p)));
});

test('files: lines sorted by name, deflated and stored entries hash their uncompressed content', async () => {
  const p = join(dir, 'files.zip');
  const bin = Buffer.alloc(100_000, 'x');
  await writeZip(p, [
    { name: 'terraform-provider-demo_v1.0.0', data: bin, method: 8 },
    { name: 'LICENSE', data: Buffer.from('MPL-2.0\n'), method: 0 },
    { name: 'CHANGELOG.md', data: Buffer.from('# 1.0.0\n') },
  ]);
  const expected = h1By([
    ['# 1.0.0\n', 'CHANGELOG.md'],
    ['MPL-2.0\n', 'LICENSE'],
    [bin, 'terraform-provider-demo_v1.0.0'],
  ]);
  const got = await hashPackage(p);
  assert.equal(got.h1, expected);
  assert.equal(got.zh, 'zh:' + sha(readFileSync(p)));
  assert.equal(got.size, readFileSync(p).length);
  assert.match(got.zh, /^zh:[0-9a-f]{64}$/);
});

test('directory entries are hashed like dirhash.HashZip: a line with the empty-content sha256', async () => {
  // Choice documented in hash.ts: we follow OpenTofu's archive path (dirhash.HashZip lists every
  // central-directory entry); the unpacked-directory path (HashDir) would omit "docs/".
  const p = join(dir, 'dirs.zip');
  await writeZip(p, [
    { name: 'docs/' },
    { name: 'docs/index.md', data: Buffer.from('hello') },
    { name: 'bin', data: Buffer.from('\x7fELF') },
  ]);
  const withDir = h1By([['\x7fELF', 'bin'], ['', 'docs/'], ['hello', 'docs/index.md']]);
  const asUnpacked = h1By([['\x7fELF', 'bin'], ['hello', 'docs/index.md']]);
  assert.equal(sha(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(await h1OfZip(p), withDir);
  assert.notEqual(withDir, asUnpacked);
});

test('non-ASCII names: raw UTF-8 bytes in the lines, sorted by bytes (not UTF-16 code units)', async () => {
  const p = join(dir, 'utf8.zip');
  // U+FF46 (ｆ, UTF-8 EF BD 86) sorts BEFORE U+1F600 (😀, F0 9F 98 80) by bytes, but AFTER it by
  // UTF-16 code units (0xFF46 > 0xD83D); Go's sort.Strings compares bytes.
  await writeZip(p, [
    { name: '😀.txt', data: Buffer.from('smile') },
    { name: 'ｆ.txt', data: Buffer.from('fullwidth') },
    { name: 'données/café.txt', data: Buffer.from('crème') },
    { name: '日本語.txt', data: Buffer.from('こんにちは') },
    { name: 'a.txt', data: Buffer.from('a') },
  ]);
  const expected = h1By([
    ['a', 'a.txt'],
    ['crème', 'données/café.txt'],
    ['こんにちは', '日本語.txt'],
    ['fullwidth', 'ｆ.txt'],
    ['smile', '😀.txt'],
  ]);
  assert.equal(await h1OfZip(p), expected);
});

test('names that are not UTF-8 are hashed as their raw bytes', async () => {
  const p = join(dir, 'cp437.zip');
  const raw = Buffer.from([0x66, 0x81, 0x2e, 0x74]); // "f\x81.t", not valid UTF-8
  await writeZip(p, [{ name: raw, data: Buffer.from('x') }]);
  assert.equal(await h1OfZip(p), h1By([['x', raw]]));
});

test('duplicate names: every occurrence hashes the last entry with that name (Go map semantics)', async () => {
  const p = join(dir, 'dup.zip');
  await writeZip(p, [{ name: 'f', data: Buffer.from('first') }, { name: 'f', data: Buffer.from('second') }]);
  assert.equal(await h1OfZip(p), h1By([['second', 'f'], ['second', 'f']]));
});

test('an archive that unpacks to more than the limit is refused before it is hashed', async () => {
  const p = join(dir, 'big.zip');
  await writeZip(p, [{ name: 'a', data: Buffer.alloc(60_000) }, { name: 'b', data: Buffer.alloc(60_000) }]);
  await assert.rejects(h1OfZip(p, undefined, 100_000), /unpacks to more than 100000 bytes/);
  assert.match(await h1OfZip(p, undefined, 120_000), /^h1:/);
});

test('a file that is not a zip is rejected', async () => {
  const p = join(dir, 'not.zip');
  writeFileSync(p, 'this is not a zip archive at all, just text');
  await assert.rejects(h1OfZip(p));
});

test('matchesAnyHash accepts either scheme and ignores unknown ones', () => {
  const actual = { h1: 'h1:abc', zh: 'zh:def' };
  assert.equal(matchesAnyHash(actual, ['zh:def']), true);
  assert.equal(matchesAnyHash(actual, ['h2:zzz', 'h1:abc']), true);
  assert.equal(matchesAnyHash(actual, ['h1:nope', 'zh:nope']), false);
});

test('hostile zips: more entries than a provider package has, shared data, a ratio past 100x: refused before anything is hashed', async () => {
  const many = join(dir, 'many.zip');
  await writeZipDirectoryBomb(many, { entries: MAX_PROVIDER_ENTRIES + 1 });
  await assert.rejects(h1OfZip(many), /many\.zip has more than 1024 entries \(its central directory lists 1025\); refusing to hash it/);
  const shared = join(dir, 'shared.zip');
  await writeZipDirectoryBomb(shared, { entries: 2, shared: true });
  await assert.rejects(h1OfZip(shared), /shared\.zip has overlapping entries \(two entries share the data at offset 0\); refusing to hash it/);
  // 96 MiB of zeros deflate to ≈ 95 KB: past the 64 MiB floor and 100 times the zip's size
  const dense = join(dir, 'dense.zip');
  await writeZipDirectoryBomb(dense, { entries: 1, shared: true, sharedZeros: 96 * 1024 * 1024 });
  await assert.rejects(h1OfZip(dense), /dense\.zip unpacks to more than 100 times its \d+-byte size \(67108864 bytes\); refusing to hash it/);
  // a real package's count and ratio pass
  const ok = join(dir, 'ok.zip');
  await writeZipDirectoryBomb(ok, { entries: MAX_PROVIDER_ENTRIES });
  assert.match(await h1OfZip(ok), /^h1:/);
});

test('the worker threads\' synchronous reads (stored entries straight from the file) give the known answers, and a stored entry cut short is refused', async () => {
  const p = join(dir, 'sync.zip');
  const bin = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 31) & 0xff; // not one repeated byte: a shifted range would hash differently
  await writeZip(p, [
    { name: 'terraform-provider-demo_v1.0.0', data: bin, method: 0 },
    { name: 'LICENSE', data: Buffer.from('MPL-2.0\n'), method: 0 },
    { name: 'README.md', data: Buffer.from('# demo\n'.repeat(50)), method: 8 },
    { name: 'docs/', data: Buffer.alloc(0), method: 0 },
  ]);
  const expected = h1By([
    ['# demo\n'.repeat(50), 'README.md'],
    ['', 'docs/'],
    [bin, 'terraform-provider-demo_v1.0.0'],
    ['MPL-2.0\n', 'LICENSE'],
  ].sort((a, b) => Buffer.compare(Buffer.from(a[1]), Buffer.from(b[1]))) as Array<[Buffer | string, string]>);
  assert.equal(await h1OfZipHere(p, undefined, undefined, true), expected);
  assert.equal((await hashPackageHere(p, undefined, true)).h1, expected);
  // the same zip with its first entry's data cut short: the central directory is gone too, so
  // rebuild one that still claims the full size after the shortened data
  const cut = join(dir, 'cut.zip');
  await writeZip(cut, [{ name: 'a', data: bin, method: 0 }]);
  const whole = readFileSync(cut);
  const dataEnd = whole.indexOf(Buffer.from('PK\x01\x02', 'latin1'));
  const shortened = Buffer.concat([whole.subarray(0, dataEnd - 1000), whole.subarray(dataEnd)]);
  // the central directory's offset (end record, bytes 16–19) moves back by the 1000 bytes taken out
  const eocd = shortened.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'));
  shortened.writeUInt32LE(shortened.readUInt32LE(eocd + 16) - 1000, eocd + 16);
  writeFileSync(cut, shortened);
  await assert.rejects(h1OfZipHere(cut, undefined, undefined, true), /overflows file bounds|overlapping|unexpected end|bounds/);
});
