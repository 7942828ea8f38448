import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProviderSource } from '../../../src/engine/addresses';
import { LOCK_NAME, MirrorLockedError, MirrorOutput } from '../../../src/engine/mirror/layout';
import { archiveFilename, insideRoot, safeFilename, safeHostname, safeVersion } from '../../../src/engine/fstree/safe-paths';
import { parseLockFile } from '../../../src/engine/mirror/requirements';
import { tempDir } from '../../support/temp';

const tmp = () => tempDir('mirror-layout-');

test('path segments from the network are validated; nothing escapes the root', () => {
  assert.equal(safeVersion('1.2.3-beta.1'), '1.2.3-beta.1');
  for (const bad of ['../../x', '1.0.0/../../x', '..', '1.0', '', '1.0.0\0']) assert.throws(() => safeVersion(bad), /unsafe version/);
  for (const bad of ['../evil.zip', 'a/b.zip', '.hidden', '..', 'x\\y.zip', '']) assert.throws(() => safeFilename(bad), /unsafe filename/);
  assert.equal(safeHostname('127.0.0.1:8443'), '127.0.0.1:8443');
  for (const bad of ['..', 'a/b', 'EXAMPLE.com', 'a..b', '']) assert.throws(() => safeHostname(bad), /unsafe hostname/);
  assert.throws(() => insideRoot('/tmp/out', '..', 'x'), /unsafe path/);
  assert.equal(archiveFilename('aws', '5.1.0', 'linux_amd64'), 'terraform-provider-aws_5.1.0_linux_amd64.zip');
  assert.throws(() => archiveFilename('aws', '../../x', 'linux_amd64'));
});

test('hostile hostnames never become a directory outside OUT', async () => {
  const { hostnameToASCII } = await import('../../../src/engine/addresses');
  // Unicode is written as punycode (what `tofu providers mirror` and the mirror protocol use).
  assert.equal(safeHostname(hostnameToASCII('bücher.example')), 'xn--bcher-kva.example');
  assert.equal(safeHostname(hostnameToASCII('ＢÜＣＨＥＲ．example:8443')), 'xn--bcher-kva.example:8443');
  assert.throws(() => safeHostname('bücher.example'), /unsafe hostname/, 'raw Unicode is never a directory name');
  const hostile = ['..', '.', '．．', '/etc', '/', 'a/../b', 'a\\..\\b', 'C:', 'c:\\windows', 'c:1', 'd:/x', '\\\\server\\share',
    'a\0b', 'example.com\0', 'example.com.', '-a.com', 'a_b.com', '\u202ea.com', 'a:0', 'a:65536', 'a:', ':443', ' a.com'];
  for (const h of hostile) {
    let ascii: string;
    try { ascii = hostnameToASCII(h); } catch { continue; } // refused even earlier
    assert.throws(() => safeHostname(ascii), /unsafe hostname/, JSON.stringify(h));
    const out = tmp();
    const o = await MirrorOutput.open(out);
    try {
      assert.throws(() => o.providerDir({ ...parseProviderSource('example.com/acme/widget'), host: h }), /unsafe/, JSON.stringify(h));
    } finally {
      await o.close();
    }
    assert.deepEqual(readdirSync(out), [], `nothing created for ${JSON.stringify(h)}`);
  }
  for (const bad of ['../x', 'a/b', 'A', 'a.b', 'a\0', '', 'ｆｏｏ']) {
    const o = await MirrorOutput.open(tmp());
    try {
      assert.throws(() => o.providerDir({ ...parseProviderSource('example.com/acme/widget'), namespace: bad }), /unsafe namespace/);
      assert.throws(() => o.providerDir({ ...parseProviderSource('example.com/acme/widget'), type: bad }), /unsafe type/);
    } finally {
      await o.close();
    }
  }
});

test('place() writes index.json and V.json atomically and merges with what is there', async () => {
  const out = tmp();
  const addr = parseProviderSource('example.com/acme/widget');
  const dir = join(out, 'example.com', 'acme', 'widget');
  mkdirSync(dir, { recursive: true });
  // An existing mirror with another version and another platform of the same version.
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ versions: { '0.9.0': {} } }));
  writeFileSync(join(dir, '1.0.0.json'), JSON.stringify({ archives: { darwin_arm64: { url: 'terraform-provider-widget_1.0.0_darwin_arm64.zip', hashes: ['h1:old'] } } }));
  writeFileSync(join(dir, '.terraform-provider-widget_1.0.0_linux_amd64.zip.abc.part'), 'left by a killed run');
  const o = await MirrorOutput.open(out);
  assert.ok(existsSync(join(out, LOCK_NAME)));
  const temp = await o.tempPath(addr, 'terraform-provider-widget_1.0.0_linux_amd64.zip');
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.part')), [], 'leftover .part removed');
  writeFileSync(temp, 'zip bytes');
  await o.place(addr, '1.0.0', 'linux_amd64', temp, ['h1:new', 'zh:new']);
  await o.close();
  assert.ok(!existsSync(join(out, LOCK_NAME)));
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')), { versions: { '0.9.0': {}, '1.0.0': {} } });
  assert.deepEqual(JSON.parse(readFileSync(join(dir, '1.0.0.json'), 'utf8')), {
    archives: {
      darwin_arm64: { url: 'terraform-provider-widget_1.0.0_darwin_arm64.zip', hashes: ['h1:old'] },
      linux_amd64: { url: 'terraform-provider-widget_1.0.0_linux_amd64.zip', hashes: ['h1:new', 'zh:new'] },
    },
  });
  assert.equal(readFileSync(join(dir, 'terraform-provider-widget_1.0.0_linux_amd64.zip'), 'utf8'), 'zip bytes');
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('.')), [], 'no temp files left');
});

test('the lock file keeps a second run out, and a stale one (dead pid) is taken over', async () => {
  const out = tmp();
  const first = await MirrorOutput.open(out);
  await assert.rejects(MirrorOutput.open(out), MirrorLockedError);
  await first.close();
  // A lock left by a process that no longer exists.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(join(out, LOCK_NAME), JSON.stringify({ pid: Number(dead), host: require('node:os').hostname() }));
  const again = await MirrorOutput.open(out);
  await again.close();
});

test('lock file parsing: versions and hashes per normalized provider address', () => {
  const locks = parseLockFile(`
# This file is maintained automatically by "tofu init".
provider "registry.opentofu.org/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "~> 5.0"
  hashes = [
    "h1:aaa=",
    "zh:bbb",
  ]
}
provider "Example.COM:8443/Acme/Widget" {
  version = "1.0.0"
}
`);
  assert.deepEqual(locks.get('registry.opentofu.org/hashicorp/aws'), { version: '5.31.0', hashes: ['h1:aaa=', 'zh:bbb'] });
  assert.deepEqual(locks.get('example.com:8443/acme/widget'), { version: '1.0.0', hashes: [] });
});

test('requirements: object and legacy string forms, .tf.json, implied providers noted and skipped', async () => {
  const { readDirRequirements } = await import('../../../src/engine/mirror/requirements');
  const dir = tmp();
  writeFileSync(join(dir, 'main.tf'), `terraform {
  required_providers {
    aws    = { source = "hashicorp/aws", version = "~> 5.0" }
    random = ">= 3.0"
  }
}
resource "aws_instance" "x" {}
resource "google_compute_instance" "y" {}
provider "azurerm" {}
`);
  writeFileSync(join(dir, 'versions.tf.json'), JSON.stringify({ terraform: { required_providers: { aws: { source: 'hashicorp/aws', version: '< 6.0' }, acme: { source: 'example.com/acme/widget' } } } }));
  const r = await readDirRequirements(dir);
  const by = Object.fromEntries(r.requirements.map((q) => [q.address.address, q.constraints]));
  assert.deepEqual(by, {
    'registry.opentofu.org/hashicorp/aws': ['~> 5.0', '< 6.0'],
    'registry.opentofu.org/hashicorp/random': ['>= 3.0'],
    'example.com/acme/widget': [],
  });
  assert.deepEqual(r.errors, []);
  assert.match(r.notes.join('\n'), /not mirrored \(implied, not in required_providers\): hashicorp\/azurerm, hashicorp\/google/);
});
