// CRC-32 checks in h1: (hash-core.ts, "Checksums"): Go's archive/zip, which `tofu` unpacks and
// hashes a package with, fails with "zip: checksum error" when an entry's bytes do not match the
// CRC-32 of the central directory, so we must not print, mirror or lock an h1: for such a zip.
// Every test runs on every path that hashes: in this thread (yauzl streams), the worker threads'
// synchronous reads (stored entries straight from the file) called here, the real worker pool,
// the bundled worker behind `dist/cli.js hash`, and the lock's unpacked-package hash.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { tableCrc32 } from '../../../src/engine/archives';
import { configureHashing, h1OfUnpackedZip, h1OfZip, hashingStats, hashPackage } from '../../../src/engine/providerpkg/hash';
import { h1OfZipHere, hashPackageHere } from '../../../src/engine/providerpkg/hash-core';
import { tempDir } from '../../support/temp';
import { writeZip, ZipEntrySpec } from '../../support/zip-writer';

const dir = tempDir('hash-crc-');
const DIST = join(__dirname, '..', '..', '..', '..', 'dist');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
/** Hash1 by hand: lines `hex  name\n`, sorted by name bytes. */
const h1By = (lines: Array<[Buffer | string, string]>) => {
  const text = [...lines].sort((a, b) => Buffer.compare(Buffer.from(a[1]), Buffer.from(b[1]))).map(([content, name]) => `${sha(content)}  ${name}\n`).join('');
  return 'h1:' + createHash('sha256').update(text).digest('base64');
};

before(() => configureHashing({ size: 1, minWorkerBytes: 0 })); // every h1OfZip / hashPackage on the worker
after(() => configureHashing({}));

/** A 3 MiB binary that is not one repeated byte (a shifted or skipped range would hash differently). */
const BIN = Buffer.alloc(3 * 1024 * 1024 + 5);
for (let i = 0; i < BIN.length; i++) BIN[i] = (i * 31 + (i >> 13)) & 0xff;
const README = Buffer.from('# provider x\n'.repeat(400));

/** Where each entry of a zip lies, from its central directory. */
function layout(zip: Buffer): Map<string, { central: number; local: number; data: number; compressedSize: number }> {
  const eocd = zip.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'));
  const count = zip.readUInt16LE(eocd + 10);
  const out = new Map<string, { central: number; local: number; data: number; compressedSize: number }>();
  for (let i = 0, at = zip.readUInt32LE(eocd + 16); i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50);
    const nameLen = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    out.set(`${name}#${i}`, { central: at, local, data, compressedSize: zip.readUInt32LE(at + 20) });
    at += 46 + nameLen + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

/** Writes `entries` to `name`, then lets `edit` change the bytes (given where each entry lies, keyed "name#index"). */
async function zipWith(name: string, entries: ZipEntrySpec[], edit?: (zip: Buffer, at: ReturnType<typeof layout>) => void): Promise<string> {
  const path = join(dir, name);
  await writeZip(path, entries);
  if (edit) {
    const zip = readFileSync(path);
    edit(zip, layout(zip));
    writeFileSync(path, zip);
  }
  return path;
}

/** Every way we compute an h1: for an archive, by name. */
function everyPath(path: string): Array<[string, () => Promise<string>]> {
  return [
    ['in this thread (yauzl streams)', () => h1OfZipHere(path)],
    ['synchronous reads, as on a worker', () => h1OfZipHere(path, undefined, undefined, true)],
    ['hashPackage in this thread', async () => (await hashPackageHere(path)).h1],
    ['hashPackage, synchronous reads', async () => (await hashPackageHere(path, undefined, true)).h1],
    ['h1OfZip on the worker pool', () => h1OfZip(path)],
    ['hashPackage on the worker pool', async () => (await hashPackage(path)).h1],
    ['the lock\'s unpacked-package h1', () => h1OfUnpackedZip(path)],
  ];
}

async function assertEveryPathFails(path: string, message: RegExp): Promise<void> {
  const completed = hashingStats().completed;
  for (const [how, run] of everyPath(path)) {
    await assert.rejects(run(), (e: Error) => { assert.match(e.message, message, how); return true; }, `${how}: no error`);
  }
  assert.ok(hashingStats().completed - completed >= 2, 'the pool\'s tasks ran on a worker thread');
}

async function assertEveryPathHashes(path: string, expected: string): Promise<void> {
  for (const [how, run] of everyPath(path)) assert.equal(await run(), expected, how);
}

const mismatch = (file: string, entry: string) =>
  new RegExp(`${file}: zip entry "${entry}": CRC-32 mismatch \\(the content's is [0-9a-f]{8}, the central directory says [0-9a-f]{8}; zip: checksum error\\)$`);

test('a stored entry with one byte changed (its CRC-32 as written) fails with a checksum error on every path, naming file and entry', async () => {
  const entries: ZipEntrySpec[] = [
    { name: 'terraform-provider-x_v1.0.0', data: BIN, method: 0 },
    { name: 'README.md', data: README, method: 8 },
  ];
  await assertEveryPathHashes(await zipWith('stored-ok.zip', entries), h1By([[BIN, 'terraform-provider-x_v1.0.0'], [README, 'README.md']]));
  const path = await zipWith('stored-bad.zip', entries, (zip, at) => { zip[at.get('terraform-provider-x_v1.0.0#0')!.data + 2_000_000] ^= 0x01; });
  await assertEveryPathFails(path, mismatch('stored-bad\\.zip', 'terraform-provider-x_v1\\.0\\.0'));
  // the bundled worker behind the CLI: exit 1 with the message, no hash printed
  assert.ok(existsSync(join(DIST, 'cli.js')), 'dist/ is not built: run npm run build');
  const cli = spawnSync(process.execPath, [join(DIST, 'cli.js'), 'hash', path], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(cli.status, 1, cli.stdout);
  assert.doesNotMatch(cli.stdout, /h1:/);
  assert.match(cli.stderr, /stored-bad\.zip: zip entry "terraform-provider-x_v1\.0\.0": CRC-32 mismatch .*zip: checksum error/);
});

test('a deflated entry whose central-directory CRC-32 is altered fails on every path; one altered in the local header only does not (Go reads the central directory\'s)', async () => {
  const entries: ZipEntrySpec[] = [
    { name: 'terraform-provider-x_v1.0.0', data: BIN, method: 8 },
    { name: 'LICENSE', data: Buffer.from('MPL-2.0\n'), method: 0 },
  ];
  const path = await zipWith('deflated-bad.zip', entries, (zip, at) => { zip.writeUInt32LE(0x12345678, at.get('terraform-provider-x_v1.0.0#0')!.central + 16); });
  await assertEveryPathFails(path, mismatch('deflated-bad\\.zip', 'terraform-provider-x_v1\\.0\\.0'));
  const localOnly = await zipWith('deflated-local.zip', entries, (zip, at) => {
    zip.writeUInt32LE(0x12345678, at.get('terraform-provider-x_v1.0.0#0')!.local + 14);
    zip.writeUInt32LE(0x9abcdef0, at.get('LICENSE#1')!.local + 14);
  });
  await assertEveryPathHashes(localOnly, h1By([[BIN, 'terraform-provider-x_v1.0.0'], ['MPL-2.0\n', 'LICENSE']]));
});

test('a CRC-32 of 0 in the central directory is "not set" and not checked, unless the entry has a data descriptor', async () => {
  const zeroCrc = (zip: Buffer, at: ReturnType<typeof layout>) => { zip.writeUInt32LE(0, at.get('terraform-provider-x_v1.0.0#0')!.central + 16); };
  const plain = await zipWith('zero-crc.zip', [{ name: 'terraform-provider-x_v1.0.0', data: BIN, method: 0 }], zeroCrc);
  await assertEveryPathHashes(plain, h1By([[BIN, 'terraform-provider-x_v1.0.0']]));
  // with a data descriptor Go compares the content's CRC-32 with the central directory's whatever it is
  const described = await zipWith('zero-crc-descriptor.zip', [{ name: 'terraform-provider-x_v1.0.0', data: BIN, method: 0, descriptor: 'signed' }], (zip, at) => {
    zeroCrc(zip, at);
    const e = at.get('terraform-provider-x_v1.0.0#0')!;
    zip.writeUInt32LE(0, e.data + e.compressedSize + 4); // the descriptor agrees with the central directory: 0
  });
  await assertEveryPathFails(described, mismatch('zero-crc-descriptor\\.zip', 'terraform-provider-x_v1\\.0\\.0'));
});

test('data descriptors, signed or not: read and checked against the central directory on every path', async () => {
  const entries = (descriptor: 'signed' | 'unsigned'): ZipEntrySpec[] => [
    { name: 'terraform-provider-x_v1.0.0', data: BIN, method: 0, descriptor },
    { name: 'README.md', data: README, method: 8, descriptor },
  ];
  const expected = h1By([[BIN, 'terraform-provider-x_v1.0.0'], [README, 'README.md']]);
  for (const kind of ['signed', 'unsigned'] as const) {
    await assertEveryPathHashes(await zipWith(`descriptor-${kind}.zip`, entries(kind)), expected);
    // the descriptor's CRC-32 differs from the central directory's (the content matches the latter)
    const path = await zipWith(`descriptor-${kind}-bad.zip`, entries(kind), (zip, at) => {
      const e = at.get('README.md#1')!;
      zip.writeUInt32LE(0xdeadbeef, e.data + e.compressedSize + (kind === 'signed' ? 4 : 0));
    });
    await assertEveryPathFails(path, new RegExp(`descriptor-${kind}-bad\\.zip: zip entry "README\\.md": CRC-32 mismatch \\(the data descriptor says deadbeef, the central directory [0-9a-f]{8}; zip: checksum error\\)$`));
  }
});

test('duplicate names: h1: (HashZip) reads only the last entry of a name, as Go does; the unpacked hash reads every one, as go-getter does', async () => {
  const entries: ZipEntrySpec[] = [
    { name: 'terraform-provider-x_v1.0.0', data: BIN, method: 0 },
    { name: 'terraform-provider-x_v1.0.0', data: Buffer.from('the last one'), method: 0 },
  ];
  const firstBad = await zipWith('dup-first-bad.zip', entries, (zip, at) => { zip[at.get('terraform-provider-x_v1.0.0#0')!.data + 10] ^= 0xff; });
  const lastWins = h1By([['the last one', 'terraform-provider-x_v1.0.0'], ['the last one', 'terraform-provider-x_v1.0.0']]);
  assert.equal(await h1OfZipHere(firstBad), lastWins);
  assert.equal(await h1OfZipHere(firstBad, undefined, undefined, true), lastWins);
  assert.equal(await h1OfZip(firstBad), lastWins);
  await assert.rejects(h1OfUnpackedZip(firstBad), mismatch('dup-first-bad\\.zip', 'terraform-provider-x_v1\\.0\\.0'));
  const lastBad = await zipWith('dup-last-bad.zip', entries, (zip, at) => { zip[at.get('terraform-provider-x_v1.0.0#1')!.data] ^= 0xff; });
  await assertEveryPathFails(lastBad, mismatch('dup-last-bad\\.zip', 'terraform-provider-x_v1\\.0\\.0'));
});

test('directory entries are not read (Go does not check their CRC-32); one that claims content is not a valid zip', async () => {
  const entries: ZipEntrySpec[] = [{ name: 'docs/' }, { name: 'docs/index.md', data: Buffer.from('hello') }];
  const badCrc = await zipWith('dir-crc.zip', entries, (zip, at) => { zip.writeUInt32LE(0x0badf00d, at.get('docs/#0')!.central + 16); });
  for (const [how, run] of everyPath(badCrc)) {
    // the lock's hash is of the package unpacked (dirhash.HashDir): no line for the directory
    assert.equal(await run(), how.includes('unpacked') ? h1By([['hello', 'docs/index.md']]) : h1By([['', 'docs/'], ['hello', 'docs/index.md']]), how);
  }
  const withContent = await zipWith('dir-content.zip', [{ name: 'docs/', data: Buffer.from('not empty'), method: 0 }]);
  for (const [how, run] of everyPath(withContent).filter(([how]) => !how.includes('unpacked'))) {
    await assert.rejects(run(), /dir-content\.zip: zip entry "docs\/" is a directory with 9 bytes of content \(zip: not a valid zip file\)/, how);
  }
});

test('the CRC-32 in JavaScript (for hosts without zlib.crc32) agrees with zlib\'s, also continued across pieces', () => {
  const data = randomBytes(100_003);
  assert.equal(tableCrc32(data), zlibCrc32(data));
  assert.equal(tableCrc32(data.subarray(777), tableCrc32(data.subarray(0, 777))), zlibCrc32(data));
  assert.equal(tableCrc32(Buffer.alloc(0)), 0);
  assert.equal(tableCrc32(Buffer.from('123456789')), 0xcbf43926); // the standard check value
});
