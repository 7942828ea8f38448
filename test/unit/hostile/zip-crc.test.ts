// Hostile or damaged registry: a provider zip whose binary's bytes do not match the CRC-32 its
// central directory records, correctly signed (a registry signs its own sums). `tofu` refuses to
// install it (Go's archive/zip: "zip: checksum error"), so `mirror` must not place it with an h1:
// and `lock` must not record one: both report the package as failed, naming archive and entry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeSigningKey, PackageFiles } from '../../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';
import { writeZip } from '../../support/zip-writer';
import { assertNoCrash, providerConfig, runCli, serveHostileProvider } from '../../support/hostile-archives';

const PLATFORM = 'linux_amd64';
const BAD_ENTRY = /zip entry "terraform-provider-crc_v1\.0\.0": CRC-32 mismatch \(the content's is [0-9a-f]{8}, the central directory says [0-9a-f]{8}; zip: checksum error\)/;
let reg: TestRegistry;
let root: string;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  root = tempDir('hostile-crc-');
  const zip = join(root, 'crc.zip');
  const bin = Buffer.alloc(2 * 1024 * 1024);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 7 + (i >> 9)) & 0xff;
  await writeZip(zip, [{ name: 'terraform-provider-crc_v1.0.0', data: bin, method: 0 }, { name: 'LICENSE', data: Buffer.from('MPL-2.0\n') }]);
  const bytes = readFileSync(zip);
  bytes[30 + 'terraform-provider-crc_v1.0.0'.length + 1_000_000] ^= 0x20; // one bit of the stored binary
  writeFileSync(zip, bytes);
  await serveHostileProvider(reg, new PackageFiles(reg.server), await makeSigningKey('crc registry'), { namespace: 'evil', type: 'crc', version: '1.0.0', platform: PLATFORM, zipPath: zip });
});
after(async () => { await reg.stop(); });

const network = () => ['--no-cache', '--ca-file', reg.caCertPath];

test('mirror: a signed provider zip with a corrupted entry fails as that package, naming the entry; nothing placed', { timeout: 120_000 }, async () => {
  const dir = providerConfig(root, 'mirror-crc', `${reg.host}/evil/crc`, '1.0.0');
  const out = join(tempDir('hostile-crc-out-'), 'mirror');
  const run = await runCli(['mirror', '--json', '--platform', PLATFORM, '--out', out, ...network(), dir]);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.mirrored, []);
  assert.equal(report.failed.length, 1);
  assert.match(report.failed[0].message, BAD_ENTRY);
  assert.doesNotMatch(run.stdout, /h1:/);
  assert.deepEqual(readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.zip')), [], 'no archive placed');
});

test('lock: the same provider fails with the reason; the lock file is not written', { timeout: 120_000 }, async () => {
  const dir = providerConfig(root, 'lock-crc', `${reg.host}/evil/crc`, '1.0.0');
  const run = await runCli(['lock', '--json', '--platform', PLATFORM, ...network(), dir]);
  assert.equal(assertNoCrash(run), undefined);
  assert.notEqual(run.code, 0);
  const report = JSON.parse(run.stdout);
  assert.equal(report.failed.length, 1);
  assert.equal(report.failed[0].step, 'archive');
  assert.match(report.failed[0].message, BAD_ENTRY);
  assert.doesNotMatch(run.stdout, /h1:/);
  assert.ok(!existsSync(join(dir, '.terraform.lock.hcl')));
});
