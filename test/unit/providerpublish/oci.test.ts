// publish-provider --oci against the real OCI registry the tests start (CNCF Distribution): the
// checked release in OpenTofu's oci_mirror layout (the zips byte for byte: their digests are the
// signed zh:), `lock --oci-mirror` from it records the zips' hashes, a re-run pushes nothing, a
// changed zip under the same version is refused with the tag left as it was. Through the CLI, with
// its --json report.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { Engine } from '../../../src/engine/engine';
import { lockProviders, readLockFile } from '../../../src/engine/lock';
import { MEDIA_TYPE } from '../../../src/engine/oci';
import { h1OfZip } from '../../../src/engine/providerpkg/hash';
import { startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';
import { buildRelease, BuiltZip, configFor, encryptedCopy, keyFiles, PLATFORMS } from './fixture';

let reg: TestOciRegistry;
let root: string;
let key: Awaited<ReturnType<typeof keyFiles>>;
let zips: BuiltZip[];
const ADDRESS = 'registry.example.com/acme/widget';

before(async () => {
  reg = await startOciRegistry({ auth: 'none' });
  root = tempDir('provider-publish-oci-');
  key = await keyFiles(join(root, 'keys'));
  zips = await buildRelease(join(root, 'dist'), key, { version: '1.2.0+build.5' });
});
after(async () => { await reg.stop(); });

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['publish-provider', ...args, '--ca-file', reg.caCertPath, '--no-cache'], {
    stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, cwd: root, env: { HOME: root },
  });
  return { code, stdout, stderr };
}

test('publish-provider --oci: OpenTofu\'s layout, lock --oci-mirror from it, a re-run pushes nothing', async () => {
  const template = `${reg.host}/providers/\${namespace}/\${type}`;
  const r = await cli(['dist', '--address', ADDRESS, '--oci', template, '--public-key', key.publicFile, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    address: ADDRESS, version: '1.2.0+build.5', platforms: PLATFORMS, written: PLATFORMS, unchanged: [],
    repository: `${reg.host}/providers/acme/widget`, tag: '1.2.0_build.5',
  });

  const engine = new Engine({ env: { HOME: root }, caFiles: [reg.caCertPath], timeoutMs: 5_000 });
  try {
    const repo = { registry: reg.host, repository: 'providers/acme/widget' };
    const index = await engine.oci.getManifest(repo, '1.2.0_build.5');
    const doc = index.manifest as { artifactType: string; manifests: Array<{ digest: string; artifactType: string; platform: { os: string; architecture: string } }> };
    assert.equal(index.mediaType, MEDIA_TYPE.imageIndex);
    assert.equal(doc.artifactType, 'application/vnd.opentofu.provider');
    assert.deepEqual(doc.manifests.map((d) => `${d.platform.os}_${d.platform.architecture}`), PLATFORMS);
    for (const d of doc.manifests) {
      const m = (await engine.oci.getManifest(repo, d.digest)).manifest as { layers: Array<{ mediaType: string; digest: string; annotations: Record<string, string> }> };
      const z = zips.find((x) => x.platform === `${d.platform.os}_${d.platform.architecture}`)!;
      assert.deepEqual(m.layers.map((l) => [l.mediaType, l.digest, l.annotations['org.opencontainers.image.title']]), [['archive/zip', `sha256:${z.sha256}`, z.filename]]);
    }

    const dir = configFor(join(root, 'config'), ADDRESS);
    const lock = await lockProviders({ engine, dirs: [dir], platforms: PLATFORMS, source: { kind: 'oci-mirror', template } });
    assert.deepEqual(lock.failed, [], JSON.stringify(lock.failed));
    const [entry] = readLockFile(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).providers;
    const want: string[] = [];
    for (const z of zips) want.push(await h1OfZip(z.path), `zh:${z.sha256}`);
    assert.deepEqual(entry.hashes, want.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  } finally {
    await engine.dispose();
  }

  reg.resetLog();
  const again = await cli(['dist', '--address', ADDRESS, '--oci', template, '--signing-key', key.privateFile, '--json']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([JSON.parse(again.stdout).written, JSON.parse(again.stdout).unchanged], [[], PLATFORMS]);
  assert.equal(reg.count('PUT') + reg.count('POST') + reg.count('PATCH'), 0, 'nothing written to the registry');
});

test('publish-provider --oci: a changed zip under a published version is refused; the tag stays; --force is a usage error', async () => {
  const template = `${reg.host}/changed/\${type}`;
  assert.equal((await cli(['dist', '--address', ADDRESS, '--oci', template, '--public-key', key.publicFile])).code, 0);
  const repo = { registry: reg.host, repository: 'changed/widget' };
  const engine = new Engine({ env: { HOME: root }, caFiles: [reg.caCertPath], timeoutMs: 5_000 });
  try {
    const before = (await engine.oci.getManifest(repo, '1.2.0_build.5')).digest;
    await buildRelease(join(root, 'rebuilt'), key, { version: '1.2.0+build.5', salt: 'rebuilt' });
    reg.resetLog();
    const r = await cli(['rebuilt', '--address', ADDRESS, '--oci', template, '--public-key', key.publicFile, '--json']);
    assert.equal(r.code, 1);
    assert.match(JSON.parse(r.stdout).error.message, /was not pushed to .*changed\/widget:\n {2}.*darwin_arm64: the OCI tag holds other content: .*already has a darwin_arm64 package/);
    assert.equal(reg.count('PUT'), 0, 'no manifest or tag written');
    assert.equal((await engine.oci.getManifest(repo, '1.2.0_build.5')).digest, before);
  } finally {
    await engine.dispose();
  }
  const force = await cli(['rebuilt', '--address', ADDRESS, '--oci', template, '--public-key', key.publicFile, '--force']);
  assert.equal(force.code, 2);
  assert.match(force.stderr, /--force applies to --out/);
});

test('publish-provider: usage errors (exit 2) and a refusal (exit 1, one line, the --json error document)', async () => {
  const usage = [
    [['dist', '--out', 'site'], /--address HOST\/NAMESPACE\/TYPE is required/],
    [['dist', '--address', 'acme/widget', '--out', 'site'], /--address must be HOST\/NAMESPACE\/TYPE/],
    [['dist', '--address', ADDRESS], /give one of --out DIR .* and --oci TEMPLATE/],
    [['dist', '--address', ADDRESS, '--out', 'site', '--public-key', key.publicFile, '--signing-key', key.privateFile], /exclude each other/],
    [['nowhere', '--address', ADDRESS, '--out', 'site'], /nowhere is not a directory/],
  ] as const;
  for (const [args, pattern] of usage) {
    const r = await cli([...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, pattern);
  }
  const refused = await cli(['dist', '--address', ADDRESS, '--out', 'site', '--json']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^tofu-registry: no key to publish: give --public-key FILE/);
  assert.match(JSON.parse(refused.stdout).error.message, /tofu init refuses a registry provider without signing keys/);
});

test('publish-provider: an encrypted signing key is unlocked with the passphrase from the environment, never a flag', async () => {
  const locked = join(root, 'locked.asc');
  writeFileSync(locked, await encryptedCopy(key, 'correct horse'));
  const dist = join(root, 'unsigned');
  await buildRelease(dist, key, { version: '3.0.0', sign: false });
  const run = async (env: Record<string, string>) => {
    let stdout = '';
    let stderr = '';
    const code = await main(['publish-provider', 'unsigned', '--address', ADDRESS, '--out', 'site-locked', '--signing-key', locked, '--json'], {
      stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, cwd: root, env: { HOME: root, ...env },
    });
    return { code, stdout, stderr };
  };
  const none = await run({});
  assert.equal(none.code, 1);
  assert.match(none.stderr, /the signing key is protected by a passphrase; set it in TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE/);
  const wrong = await run({ TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE: 'not-the-pass-8271' });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /cannot unlock the signing key with the passphrase from TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE/);
  assert.ok(!(wrong.stderr + wrong.stdout).includes('not-the-pass-8271'), 'the passphrase is never printed');
  const ok = await run({ TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE: 'correct horse' });
  assert.equal(ok.code, 0, ok.stderr);
  const report = JSON.parse(ok.stdout);
  assert.ok(report.written.includes('v1/providers/acme/widget/3.0.0/terraform-provider-widget_3.0.0_SHA256SUMS.sig'));
  assert.equal(report.site, join(root, 'site-locked'));
});
