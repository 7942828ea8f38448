// OpenTofu 1.12's `packages` in the providers.v1 download answer: validated by the client, checked
// against the signed SHA256SUMS, and used by `mirror` (size before hashing, h1: cross-checked).
// Plus the h1: of a package as tofu init records it in a lock file (the unpacked directory).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mirrorProviders } from '../../../src/engine/mirror';
import { h1OfDirectory, h1OfUnpackedZip, h1OfZip } from '../../../src/engine/providerpkg/hash';
import { checkPackages } from '../../../src/engine/providerpkg/signature';
import { RegistryError } from '../../../src/engine/net/errors';
import { sendJson } from '../../support/https-server';
import { tempDir } from '../../support/temp';
import { writeZip } from '../../support/zip-writer';
import { correctPackages, LockFixture, startLockFixture } from './fixture';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const h1By = (lines: Array<[string, string]>) =>
  'h1:' + createHash('sha256').update(lines.map(([content, name]) => `${sha(content)}  ${name}\n`).join('')).digest('base64');
const work = tempDir('lock-packages-');
let fx: LockFixture;

before(async () => {
  fx = await startLockFixture();
  await fx.addProvider('acme', 'widget', ['1.0.0'], ['linux_amd64', 'darwin_arm64']);
});
after(async () => { await fx.stop(); });

test('h1: as tofu init records it: the unpacked directory (no directory entries, names as unpacked, one file per name)', async () => {
  const p = join(work, 'odd.zip');
  await writeZip(p, [
    { name: 'docs/' },
    { name: './docs/index.md', data: Buffer.from('old') },
    { name: 'docs//index.md', data: Buffer.from('hello') },
    { name: 'bin', data: Buffer.from('\x7fELF') },
  ]);
  const unpacked = h1By([['\x7fELF', 'bin'], ['hello', 'docs/index.md']]);
  assert.equal(await h1OfUnpackedZip(p), unpacked);
  assert.notEqual(await h1OfZip(p), unpacked, 'HashZip differs for this archive');
  // The same package unpacked on disk (a filesystem mirror's unpacked layout) hashes the same.
  const dir = join(work, 'unpacked');
  mkdirSync(join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'bin'), '\x7fELF');
  writeFileSync(join(dir, 'real.md'), 'hello');
  symlinkSync(join(dir, 'real.md'), join(dir, 'docs', 'index.md'));
  assert.equal(await h1OfDirectory(dir), h1By([['\x7fELF', 'bin'], ['hello', 'docs/index.md'], ['hello', 'real.md']]));
  // An ordinary zip: both are the same, and a known h1OfZip result is reused.
  const plain = join(work, 'plain.zip');
  await writeZip(plain, [{ name: 'b', data: Buffer.from('2') }, { name: 'a', data: Buffer.from('1') }]);
  assert.equal(await h1OfUnpackedZip(plain), h1By([['1', 'a'], ['2', 'b']]));
  assert.equal(await h1OfUnpackedZip(plain, undefined, 'h1:given'), 'h1:given');
  const escape = join(work, 'escape.zip');
  await writeZip(escape, [{ name: '../evil', data: Buffer.from('x') }]);
  await assert.rejects(h1OfUnpackedZip(escape), /outside the package directory/);
});

test('providers.v1 client: `packages` validated (platform keys, hash syntax, package_size > 0); other schemes dropped', async () => {
  const base = { protocols: ['5.0'], os: 'linux', arch: 'amd64', filename: 'p.zip', download_url: 'p.zip', shasums_url: 'S', shasums_signature_url: 'S.sig',
    shasum: 'a'.repeat(64), signing_keys: { gpg_public_keys: [] } };
  const ok = { hashes: [`zh:${'a'.repeat(64)}`, 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=', 'h9:future'], package_size: 10 };
  const docs: Record<string, unknown> = {
    good: { ...base, packages: { linux_amd64: ok } },
    none: { ...base, packages: null },
    platform: { ...base, packages: { 'Linux-amd64': ok } },
    size: { ...base, packages: { linux_amd64: { ...ok, package_size: 0 } } },
    zh: { ...base, packages: { linux_amd64: { ...ok, hashes: ['zh:ABC'] } } },
    scheme: { ...base, packages: { linux_amd64: { ...ok, hashes: ['nocolon'] } } },
    list: { ...base, packages: [] },
  };
  fx.reg.server.route('/v1/providers/pk/', (_q, res, url) => void sendJson(res, 200, docs[url.pathname.split('/')[4]]));
  const engine = fx.engine();
  const get = (kind: string) => engine.getProviderPackage(`${fx.reg.host}/pk/${kind}`, '1.0.0', 'linux', 'amd64');
  assert.deepEqual((await get('good')).packages, { linux_amd64: { hashes: ok.hashes.slice(0, 2), size: 10 } });
  assert.equal((await get('none')).packages, undefined);
  const refused = (re: RegExp) => (e: unknown) => e instanceof RegistryError && e.code === 'protocol' && re.test(e.message);
  await assert.rejects(get('platform'), refused(/"packages" has an invalid platform "Linux-amd64"/));
  await assert.rejects(get('size'), refused(/invalid package_size 0/));
  await assert.rejects(get('zh'), refused(/malformed zh: hash "zh:ABC"/));
  await assert.rejects(get('scheme'), refused(/invalid hash "nocolon"/));
  await assert.rejects(get('list'), refused(/"packages" must be an object/));
});

test('checkPackages: every platform\'s zh: must be its line of SHA256SUMS', () => {
  const sums = `${'1'.repeat(64)}  terraform-provider-x_1.0.0_linux_amd64.zip\n${'2'.repeat(64)}  terraform-provider-x_1.0.0_darwin_arm64.zip\n${'3'.repeat(64)}  terraform-provider-x_1.0.0_manifest.json\n`;
  const answer = (packages: Record<string, string[]>) => ({
    filename: 'terraform-provider-x_1.0.0_linux_amd64.zip', os: 'linux', arch: 'amd64',
    packages: Object.fromEntries(Object.entries(packages).map(([p, hashes]) => [p, { hashes, size: 1 }])),
  });
  assert.equal(checkPackages(sums, answer({ linux_amd64: [`zh:${'1'.repeat(64)}`], darwin_arm64: [`zh:${'2'.repeat(64)}`, 'h1:x'] })), null);
  assert.match(checkPackages(sums, answer({ linux_amd64: [`zh:${'1'.repeat(64)}`], darwin_arm64: [`zh:${'1'.repeat(64)}`] }))!,
    /gives zh:1{64} for darwin_arm64, but the signed SHA256SUMS lists zh:2{64} for terraform-provider-x_1.0.0_darwin_arm64\.zip/);
  assert.match(checkPackages(sums, answer({ linux_amd64: [`zh:${'1'.repeat(64)}`], windows_amd64: [`zh:${'4'.repeat(64)}`] }))!, /SHA256SUMS has no archive for that platform/);
  assert.match(checkPackages(sums, answer({ linux_amd64: ['h1:only'] }))!, /no zh: hash for linux_amd64/);
  assert.match(checkPackages(sums, answer({ darwin_arm64: [`zh:${'2'.repeat(64)}`] }))!, /does not list the requested platform linux_amd64/);
});

test('mirror with `packages`: the size is checked before hashing, the h1: cross-checked; a contradiction fails the archive', async () => {
  const rels = fx.releases.get('acme/widget')!;
  const cfg = fx.config({ 'main.tf': `terraform {\n  required_providers {\n    widget = {\n      source = "${fx.reg.host}/acme/widget"\n    }\n  }\n}\n` });
  const mirror = async (tweak?: (p: Awaited<ReturnType<typeof correctPackages>>) => void) => {
    await fx.servePackages(rels, async (rel) => { const p = await correctPackages(rel); tweak?.(p); return p; });
    return mirrorProviders({ engine: fx.engine(), dirs: [cfg], out: join(work, `out-${Math.random()}`), platforms: ['linux_amd64'] });
  };
  try {
    const good = await mirror();
    assert.deepEqual(good.failed, []);
    assert.equal(good.mirrored.length, 1);
    const size = await mirror((p) => { p.linux_amd64.package_size -= 1; });
    assert.deepEqual(size.failed.map((f) => f.step), ['size']);
    const h1 = await mirror((p) => { p.linux_amd64.hashes[0] = 'h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; });
    assert.deepEqual(h1.failed.map((f) => f.step), ['packages']);
    assert.match(h1.failed[0].message, /has h1:\S+, but the registry's "packages" says h1:47DEQ/);
    const other = await mirror((p) => { p.darwin_arm64.hashes[1] = `zh:${'0'.repeat(64)}`; });
    assert.deepEqual(other.failed.map((f) => f.step), ['packages']);
    assert.match(other.failed[0].message, /"packages" gives zh:0{64} for darwin_arm64/);
  } finally {
    await fx.servePackages(rels);
  }
});
