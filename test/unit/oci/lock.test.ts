// Lock files and versions from an OCI mirror (a real registry filled by mirror --oci): `lock
// --oci-mirror TEMPLATE` takes versions from the tags ("_" read as "+", other tags ignored) and
// records, per platform, what tofu init records when it installs from an oci_mirror — the package's
// h1: and zh: = the blob's sha256; `oci_mirror` blocks of the CLI configuration answer version
// lookups with include/exclude like network_mirror, and a template OpenTofu refuses is ignored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { MEDIA_TYPE } from '../../../src/engine/oci';
import { mirrorToOci } from '../../../src/engine/ocimirror';
import { readLockFile } from '../../../src/engine/lock';
import { normalizeHashes } from '../../../src/engine/lockfile/render';
import { h1OfUnpackedZip } from '../../../src/engine/providerpkg/hash';
import { Fixture, startFixture, writeConfig } from '../mirror/fixture';
import { startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';

const PLATFORMS = ['linux_amd64', 'darwin_arm64', 'windows_amd64'];
let fx: Fixture;
let reg: TestOciRegistry;
let template: string;

before(async () => {
  fx = await startFixture();
  await fx.addProvider('acme', 'alpha', ['1.0.0', '1.1.0+build.7', '2.0.0'], PLATFORMS);
  reg = await startOciRegistry();
  template = `${reg.host}/providers/\${namespace}/\${type}`;
  // the OCI mirror has 1.0.0 and 1.1.0+build.7 (not the origin's newest, 2.0.0)
  const engine = fx.engine();
  for (const version of ['1.0.0', '1.1.0+build.7']) {
    const r = await mirrorToOci({ engine, dirs: [writeConfig(fx.root, { alpha: { source: `${fx.reg.host}/acme/alpha`, version } })], template, platforms: PLATFORMS });
    assert.deepEqual(r.failed, []);
  }
  // a tag that is not a version is ignored, as OpenTofu ignores it
  const repo = { registry: reg.host, repository: 'providers/acme/alpha' };
  const index = await engine.oci.getManifest(repo, '1.0.0');
  await engine.oci.putManifest(repo, 'latest', { mediaType: MEDIA_TYPE.imageIndex, bytes: index.bytes });
});
after(async () => { await reg.stop(); await fx.stop(); });

test('lock --oci-mirror: versions from the tags, h1: and zh: per platform as tofu init records them from an oci_mirror', async () => {
  const dir = writeConfig(fx.root, { alpha: { source: `${fx.reg.host}/acme/alpha`, version: '>= 1.0.0' } });
  let stdout = '';
  const code = await main(['lock', '--oci-mirror', template, '--json', '--no-cache', '--ca-file', reg.caCertPath, ...PLATFORMS.flatMap((p) => ['--platform', p]), dir], {
    stdout: (t) => { stdout += t; }, stderr: () => undefined, cwd: fx.root, env: { HOME: fx.root, XDG_CACHE_HOME: tempDir('oci-lock-cache-') },
  });
  assert.equal(code, 0, stdout);
  const lock = readLockFile(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8'));
  assert.equal(lock.providers.length, 1);
  const entry = lock.providers[0];
  assert.equal(entry.version, '1.1.0+build.7', 'the newest tag (1.1.0_build.7 read as 1.1.0+build.7), not the origin\'s 2.0.0');
  const rel = fx.releases.get('acme/alpha')!.find((r) => r.version === '1.1.0+build.7')!;
  const expected = normalizeHashes([
    ...await Promise.all(rel.packages.map((p) => h1OfUnpackedZip(p.path))),
    ...rel.packages.map((p) => `zh:${p.sha256}`),
  ]);
  assert.deepEqual(entry.hashes, expected);
});

test('lock --oci-mirror with another mirror flag is a usage error', async () => {
  let stderr = '';
  const code = await main(['lock', '--oci-mirror', template, '--net-mirror', 'https://x.example/', fx.root], { stdout: () => undefined, stderr: (t) => { stderr += t; }, cwd: fx.root, env: { HOME: fx.root } });
  assert.equal(code, 2);
  assert.match(stderr, /--net-mirror and --oci-mirror exclude each other/);
});

test('an oci_mirror block answers version lookups (include/exclude as network_mirror); an invalid template is ignored with a warning', async () => {
  const rc = join(tempDir('oci-rc-'), 'tofurc');
  writeFileSync(rc, `provider_installation {
  oci_mirror {
    repository_template = "${template}"
    include             = ["${fx.reg.host}/acme/*"]
  }
  oci_mirror {
    repository_template = "${reg.host}/flat/\${namespace}"
  }
}
`);
  const warnings: string[] = [];
  const engine = fx.engine({ cliConfigFile: rc, log: (e) => { if (e.level === 'warn') warnings.push(e.message); } });
  const list = await engine.listProviderVersions(`${fx.reg.host}/acme/alpha`);
  assert.deepEqual(list.versions.map((v) => v.version), ['1.1.0+build.7', '1.0.0']);
  assert.deepEqual(list.sources, [{ method: 'oci_mirror', location: `${reg.host}/providers/acme/alpha` }]);
  assert.ok(warnings.some((w) => /ignoring the oci_mirror block .* must refer to .*"type" \(unless "include" selects exactly one provider\)/.test(w)), warnings.join('\n'));
  // excluded by include: the origin is not consulted either (no direct method): not available
  await assert.rejects(engine.listProviderVersions(`${fx.reg.host}/other/thing`), /not available from any installation method/);
});
