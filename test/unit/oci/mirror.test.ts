// mirror --oci against a real registry (CNCF Distribution on 127.0.0.1) and a real provider origin
// (signed SHA256SUMS): OpenTofu's layout read back the way OpenTofu reads it; a second run pushes
// nothing (uploads counted on the registry); an added platform keeps the old ones; a lying origin
// pushes nothing and leaves the tag as it was; a run SIGKILLed mid-push leaves no broken tag and the
// next run completes it; missing and wrong credentials give one message; token auth works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { MEDIA_TYPE, OciClient, OciRepository } from '../../../src/engine/oci';
import { mirrorToOci, OciMirrorReport } from '../../../src/engine/ocimirror';
import { Engine } from '../../../src/engine/engine';
import { Fixture, startFixture, writeConfig } from '../mirror/fixture';
import { DEFAULT_USERS, startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';

const PLATFORMS = ['linux_amd64', 'darwin_arm64', 'windows_amd64'];
let fx: Fixture;
const BAD = Buffer.from('these are not the bytes SHA256SUMS signed');

before(async () => {
  fx = await startFixture();
  await fx.addProvider('acme', 'alpha', ['1.0.0', '1.1.0+build.7'], [...PLATFORMS, 'linux_arm64']);
  await fx.addProvider('acme', 'beta', ['0.3.0'], [...PLATFORMS, 'linux_arm64']);
  // the origin lies about darwin_arm64: its shasum matches the bytes served, SHA256SUMS (signed) does not
  await fx.addProvider('acme', 'liar', ['1.0.0', '2.0.0'], PLATFORMS, (p) => (p.platform === 'darwin_arm64' ? { shasum: sha256(BAD) } : undefined));
  fx.files.fault('terraform-provider-liar_1.0.0_darwin_arm64.zip', { kind: 'body', body: BAD });
  fx.files.fault('terraform-provider-liar_2.0.0_darwin_arm64.zip', { kind: 'body', body: BAD });
});
after(async () => { await fx.stop(); });

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function rcWith(reg: TestOciRegistry, password = DEFAULT_USERS.tofu): string {
  const rc = join(tempDir('oci-rc-'), 'tofurc');
  writeFileSync(rc, `oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${password}"\n}\n`);
  return rc;
}

/**
 * Reads a provider version back the way OpenTofu's oci_mirror source does (tags with "_" as "+",
 * an index with artifactType …provider, a descriptor per platform with artifactType
 * …provider-target and os/architecture, a manifest with exactly one archive/zip layer).
 */
async function readAsOpenTofu(c: OciClient, repo: OciRepository, version: string): Promise<Map<string, { manifest: string; zip: string; title: string }>> {
  const tags = await c.listTags(repo);
  assert.ok(tags.map((t) => t.replace(/_/g, '+')).includes(version), `tag for ${version} in ${tags.join(', ')}`);
  const index = await c.getManifest(repo, version.replace(/\+/g, '_'));
  const doc = index.manifest as { mediaType: string; artifactType: string; manifests: Array<{ mediaType: string; artifactType: string; digest: string; platform: { os: string; architecture: string } }> };
  assert.equal(doc.mediaType, MEDIA_TYPE.imageIndex);
  assert.equal(doc.artifactType, 'application/vnd.opentofu.provider');
  const out = new Map<string, { manifest: string; zip: string; title: string }>();
  for (const d of doc.manifests) {
    assert.equal(d.artifactType, 'application/vnd.opentofu.provider-target');
    assert.equal(d.mediaType, MEDIA_TYPE.imageManifest);
    const m = await c.getManifest(repo, d.digest);
    const man = m.manifest as { artifactType: string; mediaType: string; config: { mediaType: string }; layers: Array<{ mediaType: string; digest: string; size: number; annotations: Record<string, string> }> };
    assert.equal(man.mediaType, MEDIA_TYPE.imageManifest);
    assert.equal(man.artifactType, 'application/vnd.opentofu.provider-target', 'the manifest repeats the descriptor\'s artifactType');
    assert.equal(man.config.mediaType, 'application/vnd.oci.empty.v1+json');
    const zips = man.layers.filter((l) => l.mediaType === 'archive/zip');
    assert.equal(zips.length, 1);
    await c.getBlobBuffer(repo, { digest: zips[0].digest, size: zips[0].size }, { maxBytes: 1 << 24 }); // present and intact
    out.set(`${d.platform.os}_${d.platform.architecture}`, { manifest: d.digest, zip: zips[0].digest, title: zips[0].annotations['org.opencontainers.image.title'] });
  }
  return out;
}

describe('htpasswd registry', () => {
  let reg: TestOciRegistry;
  let engine: Engine;
  let template: string;
  before(async () => {
    reg = await startOciRegistry({ auth: 'basic' });
    engine = fx.engine({ cliConfigFile: rcWith(reg) });
    template = `${reg.host}/mirror/\${namespace}/\${type}`;
  });
  after(async () => { await reg.stop(); });

  const alphaBeta = () => writeConfig(fx.root, { alpha: { source: `${fx.reg.host}/acme/alpha`, version: '>= 1.0.0' }, beta: { source: `${fx.reg.host}/acme/beta` } });
  const alphaOld = () => writeConfig(fx.root, { alpha: { source: `${fx.reg.host}/acme/alpha`, version: '1.0.0' } });

  test('several providers and versions over 3 platforms, in OpenTofu\'s layout; a second run pushes nothing', async () => {
    const dirs = [alphaBeta(), alphaOld()];
    const r = await mirrorToOci({ engine, dirs, template, platforms: PLATFORMS });
    assert.deepEqual(r.failed, []);
    assert.equal(r.pushed.length, 9, '3 versions × 3 platforms');
    assert.equal(r.blobsUploaded, 9);
    const alpha = { registry: reg.host, repository: 'mirror/acme/alpha' };
    for (const version of ['1.0.0', '1.1.0+build.7']) {
      const seen = await readAsOpenTofu(engine.oci, alpha, version);
      assert.deepEqual([...seen.keys()].sort(), [...PLATFORMS].sort());
      for (const p of PLATFORMS) {
        const built = fx.pkg('acme', 'alpha', version, p);
        assert.equal(seen.get(p)!.zip, `sha256:${built.sha256}`, 'the origin\'s zip, byte for byte: its digest is the signed zh:');
        assert.equal(seen.get(p)!.title, built.filename);
        const entry = r.pushed.find((x) => x.provider.endsWith('acme/alpha') && x.version === version && x.platform === p)!;
        assert.deepEqual(entry, { provider: `${fx.reg.host}/acme/alpha`, version, platform: p, repository: `${reg.host}/mirror/acme/alpha`, tag: version.replace('+', '_'), digest: seen.get(p)!.manifest });
      }
    }
    assert.match(r.providerInstallation, new RegExp(`oci_mirror \\{\\n    repository_template = "${template.replace(/[$.{}]/g, '\\$&')}"\\n    include             = \\["${fx.reg.host}/acme/alpha", "${fx.reg.host}/acme/beta"\\]`));
    assert.match(r.providerInstallation, /direct \{\n    exclude = \[/);

    reg.resetLog();
    const again = await mirrorToOci({ engine, dirs, template, platforms: PLATFORMS });
    assert.deepEqual(again.failed, []);
    assert.equal(again.pushed.length, 0);
    assert.equal(again.upToDate.length, 9);
    assert.deepEqual(again.upToDate.map((x) => x.digest), r.pushed.map((x) => x.digest));
    assert.equal(reg.uploads(), 0, 'no blob uploaded');
    assert.equal(reg.count('PUT') + reg.count('POST') + reg.count('PATCH'), 0, 'nothing written at all');
    assert.equal(again.bytesDownloaded, 0, 'and no zip downloaded: the signed SHA256SUMS vouches for the digests');
  });

  test('with the CLI\'s disk cache an unchanged re-run reads only the tags: no manifest, nothing from the origin', async () => {
    const dir = writeConfig(fx.root, { beta: { source: `${fx.reg.host}/acme/beta` } });
    const cacheDir = tempDir('oci-cache-');
    const cached = () => fx.engine({ cliConfigFile: rcWith(reg), cacheDir });
    const tpl = `${reg.host}/cached/\${namespace}/\${type}`;
    assert.equal((await mirrorToOci({ engine: cached(), dirs: [dir], template: tpl, platforms: PLATFORMS })).pushed.length, 3);
    reg.resetLog();
    fx.reg.server.resetLog();
    const again = await mirrorToOci({ engine: cached(), dirs: [dir], template: tpl, platforms: PLATFORMS });
    assert.deepEqual([again.pushed.length, again.upToDate.length, again.failed.length], [0, 3, 0]);
    assert.deepEqual(reg.requests.filter((r) => r.status !== 401).map((r) => `${r.method} ${r.path}`), ['GET /v2/cached/acme/beta/manifests/0.3.0'],
      'the index only: its platform digests are the manifests this run would write for the verified zips');
    assert.equal(fx.reg.server.requests.filter((r) => !r.path.startsWith('/.well-known') && !r.path.endsWith('/versions')).length, 0, 'no download answer, no SHA256SUMS');
  });

  test('--from-mirror: zips from a provider network mirror, verified against its hashes, pushed the same way', async () => {
    const dir = writeConfig(fx.root, { beta: { source: `${fx.reg.host}/acme/beta` } });
    const tpl = `${reg.host}/from-mirror/\${type}`;
    const r = await mirrorToOci({ engine, dirs: [dir], template: tpl, platforms: ['linux_amd64'], fromMirror: `${fx.reg.origin}/mirror/` });
    assert.deepEqual(r.failed, []);
    const seen = await readAsOpenTofu(engine.oci, { registry: reg.host, repository: 'from-mirror/beta' }, '0.3.0');
    const built = fx.pkg('acme', 'beta', '0.3.0', 'linux_amd64');
    assert.deepEqual(seen.get('linux_amd64'), { manifest: r.pushed[0].digest, zip: `sha256:${built.sha256}`, title: built.filename });
  });

  test('adding a platform keeps the old ones, also when a teammate asks only for the new one', async () => {
    const dir = writeConfig(fx.root, { beta: { source: `${fx.reg.host}/acme/beta` } });
    const beta = { registry: reg.host, repository: 'mirror/acme/beta' };
    await mirrorToOci({ engine, dirs: [dir], template, platforms: PLATFORMS });
    const before = await readAsOpenTofu(engine.oci, beta, '0.3.0');
    reg.resetLog();
    const r = await mirrorToOci({ engine, dirs: [dir], template, platforms: ['linux_arm64'] });
    assert.deepEqual(r.failed, []);
    assert.deepEqual(r.pushed.map((x) => x.platform), ['linux_arm64']);
    assert.equal(reg.uploads(), 1, 'only the new zip');
    const after = await readAsOpenTofu(engine.oci, beta, '0.3.0');
    assert.deepEqual([...after.keys()].sort(), [...PLATFORMS, 'linux_arm64'].sort());
    for (const p of PLATFORMS) assert.deepEqual(after.get(p), before.get(p), `${p} unchanged`);
  });

  test('a lying origin (zip not matching the signed SHA256SUMS) pushes nothing for that version and leaves its tag as it was', async () => {
    const dir = writeConfig(fx.root, { liar: { source: `${fx.reg.host}/acme/liar`, version: '1.0.0' } });
    const liar = { registry: reg.host, repository: 'mirror/acme/liar' };
    const first = await mirrorToOci({ engine, dirs: [dir], template, platforms: ['linux_amd64'] });
    assert.deepEqual(first.failed, []);
    const tagBefore = await engine.oci.headManifest(liar, '1.0.0');
    reg.resetLog();
    const r = await mirrorToOci({ engine, dirs: [dir], template, platforms: ['linux_amd64', 'darwin_arm64', 'windows_amd64'] });
    assert.deepEqual(r.failed.map((f) => [f.platform, f.step]), [['darwin_arm64', 'sha256sums'], ['windows_amd64', 'push']]);
    assert.match(r.failed[1].message, /not pushed: darwin_arm64 of this version failed/);
    assert.deepEqual(r.upToDate.map((x) => x.platform), ['linux_amd64']);
    assert.equal(reg.uploads(), 0, 'nothing uploaded');
    assert.deepEqual(await engine.oci.headManifest(liar, '1.0.0'), tagBefore, 'the tag is as it was');

    const fresh = writeConfig(fx.root, { liar: { source: `${fx.reg.host}/acme/liar`, version: '2.0.0' } });
    const r2 = await mirrorToOci({ engine, dirs: [fresh], template, platforms: ['linux_amd64', 'darwin_arm64'] });
    assert.equal(r2.pushed.length, 0);
    assert.equal(await engine.oci.headManifest(liar, '2.0.0'), undefined, 'no tag for a version that did not fully verify');
  });

  test('missing and wrong credentials: one message naming the registry and where credentials were looked for; exit 1', async () => {
    const dir = writeConfig(fx.root, { beta: { source: `${fx.reg.host}/acme/beta` } });
    const run = async (rc: string | undefined) => {
      let stdout = '';
      const code = await main(['mirror', '--oci', template, '--platform', 'linux_amd64', '--platform', 'darwin_arm64', '--no-cache', '--ca-file', reg.caCertPath, dir], {
        stdout: (t) => { stdout += t; }, stderr: () => undefined, cwd: fx.root,
        env: { HOME: fx.root, ...(rc ? { TF_CLI_CONFIG_FILE: rc } : { TF_CLI_CONFIG_FILE: join(fx.root, 'none.tfrc') }) },
      });
      return { code, stdout };
    };
    const none = await run(undefined);
    assert.equal(none.code, 1);
    const failedLines = none.stdout.split('\n').filter((l) => l.startsWith('FAILED'));
    assert.equal(failedLines.length, 1, none.stdout);
    assert.match(failedLines[0], new RegExp(`${reg.host.replace(/\./g, '\\.')} requires authentication .* ${reg.host.replace(/\./g, '\\.')}/mirror/acme/beta .*looked in: .*${join(fx.root, '.docker', 'config.json').replace(/\./g, '\\.')}`));
    const wrong = await run(rcWith(reg, 'not-the-password'));
    assert.equal(wrong.code, 1);
    const wrongLines = wrong.stdout.split('\n').filter((l) => l.startsWith('FAILED'));
    assert.equal(wrongLines.length, 1, wrong.stdout);
    assert.match(wrongLines[0], /rejected the credentials from oci_credentials ".*" in .*tofurc/);
    assert.doesNotMatch(wrong.stdout, /not-the-password/);
  });
});

describe('token-auth registry', () => {
  let reg: TestOciRegistry;
  before(async () => { reg = await startOciRegistry({ auth: 'token' }); });
  after(async () => { await reg.stop(); });

  test('mirror --oci --json through the token flow: the documented shape, then nothing to push', async () => {
    const dir = writeConfig(fx.root, { beta: { source: `${fx.reg.host}/acme/beta` } });
    const rc = rcWith(reg);
    const run = async () => {
      let stdout = '';
      const code = await main(['mirror', '--oci', `${reg.host}/tok/\${type}`, '--json', '--platform', 'linux_amd64', '--no-cache', '--ca-file', reg.caCertPath, dir], {
        stdout: (t) => { stdout += t; }, stderr: () => undefined, cwd: fx.root, env: { HOME: fx.root, TF_CLI_CONFIG_FILE: rc },
      });
      return { code, json: JSON.parse(stdout) as Pick<OciMirrorReport, 'repositoryTemplate' | 'pushed' | 'upToDate' | 'failed'> };
    };
    const first = await run();
    assert.equal(first.code, 0, JSON.stringify(first.json));
    assert.deepEqual(Object.keys(first.json), ['repositoryTemplate', 'pushed', 'upToDate', 'failed']);
    assert.equal(first.json.repositoryTemplate, `${reg.host}/tok/\${type}`);
    assert.deepEqual(Object.keys(first.json.pushed[0]), ['provider', 'version', 'platform', 'repository', 'tag', 'digest']);
    assert.ok(reg.tokenServer!.requests.length >= 1, 'tokens came from the token server');
    const second = await run();
    assert.equal(second.code, 0);
    assert.deepEqual([second.json.pushed.length, second.json.upToDate.length], [0, 1]);
  });

  test('usage errors exit 2: a template OpenTofu refuses, --out with --oci', async () => {
    const dir = writeConfig(fx.root, { beta: { source: `${fx.reg.host}/acme/beta` }, alpha: { source: `${fx.reg.host}/acme/alpha` } });
    const run = async (args: string[]) => {
      let stderr = '';
      const code = await main(['mirror', ...args, dir], { stdout: () => undefined, stderr: (t) => { stderr += t; }, cwd: fx.root, env: { HOME: fx.root } });
      return { code, stderr };
    };
    assert.equal((await run(['--oci', `${reg.host}/x/\${namespace}`, '--no-cache', '--ca-file', reg.caCertPath])).code, 2, 'two providers need ${type}');
    assert.match((await run(['--oci', `${reg.host}/x/\${name}`])).stderr, /only \$\{hostname\}, \$\{namespace\} and \$\{type\}/);
    assert.equal((await run(['--oci', 'no-registry-here', '--platform', 'linux_amd64'])).code, 2);
    assert.match((await run(['--oci', `${reg.host}/x/\${type}`, '--out', 'o'])).stderr, /--out and --oci exclude each other/);
  });
});

// The shipped bundle when built (npm run build), else tsc's output of the same entry point.
const DIST_CLI = join(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');
const CLI = existsSync(DIST_CLI) ? DIST_CLI : join(__dirname, '..', '..', '..', 'src', 'cli.js');

describe('a run killed mid-push', () => {
  let reg: TestOciRegistry;
  before(async () => { reg = await startOciRegistry({ delayMs: 60 }); });
  after(async () => { await reg.stop(); });

  test('SIGKILL after the first upload leaves no tag pointing at missing content; the next run completes it', { timeout: 120_000 }, async () => {
    const dir = writeConfig(fx.root, { alpha: { source: `${fx.reg.host}/acme/alpha`, version: '1.0.0' }, beta: { source: `${fx.reg.host}/acme/beta` } });
    const template = `${reg.host}/killed/\${type}`;
    const env = { HOME: fx.root, PATH: process.env.PATH, TF_CLI_CONFIG_FILE: join(fx.root, 'none.tfrc'), TMPDIR: tempDir('oci-kill-tmp-') };
    const child = spawn(process.execPath, [CLI, 'mirror', '--oci', template, '--concurrency', '2', '--no-cache', '--ca-file', reg.caCertPath,
      ...PLATFORMS.flatMap((p) => ['--platform', p]), dir], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const started = Date.now();
    while (reg.uploads() < 1 && Date.now() - started < 60_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', `killed mid-push (${stderr})`);
    assert.ok(reg.uploads() >= 1 && reg.count('PUT', '/manifests/1.0.0') + reg.count('PUT', '/manifests/0.3.0') < 2, 'killed after an upload, before both tags');

    const c = new OciClient({ caFiles: [reg.caCertPath], env: {} });
    for (const type of ['alpha', 'beta']) {
      const repo = { registry: reg.host, repository: `killed/${type}` };
      for (const tag of await c.listTags(repo)) await readAsOpenTofu(c, repo, tag); // every tag is complete
    }
    const engine = fx.engine({ cliConfigFile: join(fx.root, 'none.tfrc') });
    const r = await mirrorToOci({ engine, dirs: [dir], template, platforms: PLATFORMS });
    assert.deepEqual(r.failed, []);
    assert.equal(r.pushed.length + r.upToDate.length, 6);
    assert.equal((await readAsOpenTofu(c, { registry: reg.host, repository: 'killed/alpha' }, '1.0.0')).size, 3);
    assert.equal((await readAsOpenTofu(c, { registry: reg.host, repository: 'killed/beta' }, '0.3.0')).size, 3);
    await c.dispose();
  });
});
