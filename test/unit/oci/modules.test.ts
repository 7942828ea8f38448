// oci:// modules end to end against a real registry (CNCF Distribution on 127.0.0.1, TLS from the
// test CA, htpasswd auth, credentials from an oci_credentials block): publish-module twice with
// identical digests and zero uploads the second time, the --force rule, an ignored file never in
// the package; versions (tag order and marking), resolve (the JSON contract; a wrong artifact
// refused), outdated statuses, and types check of an oci:// module whose package is fetched once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { parseCliConfig } from '../../../src/engine/cliconfig/read';
import { OciClient, OciCredentials } from '../../../src/engine/oci';
import { DEFAULT_USERS, pushForeignArtifact, startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

describe('oci:// modules against a registry with Basic auth', () => {
  let reg: TestOciRegistry;
  let ws: string;
  let env: NodeJS.ProcessEnv;
  const cache = () => join(ws, 'cache');
  const run = async (args: string[], cwd = ws) => {
    let stdout = '', stderr = '';
    const code = await main([...args, '--ca-file', reg.caCertPath], { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env, cwd });
    return { code, stdout, stderr };
  };

  before(async () => {
    reg = await startOciRegistry({ auth: 'basic' });
    ws = tempDir('oci-modules-');
    writeFileSync(join(ws, '.tofurc'), `oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`);
    env = { HOME: ws, TF_CLI_CONFIG_FILE: join(ws, '.tofurc'), PATH: process.env.PATH };
    write(ws, {
      'module/main.tf': 'variable "name" {\n  type = string\n}\n\noutput "id" {\n  value = var.name\n}\n',
      'module/modules/sub/main.tf': 'variable "size" {\n  type = number\n}\n',
      'module/.gitignore': 'secret.auto.tfvars\n',
      'module/secret.auto.tfvars': 'password = "hunter2"\n',
    });
  });
  after(async () => {
    await reg.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  let first: { repository: string; tags: string[]; manifestDigest: string; blobDigest: string; size: number; uploaded: number };

  test('publish-module: the same directory twice gives identical digests and uploads nothing the second time', async () => {
    const target = `oci://${reg.host}/mods/net`;
    reg.resetLog();
    const a = await run(['publish-module', 'module', target, '--tag', '1.0.0', '--tag', 'latest', '--json']);
    assert.equal(a.code, 0, a.stderr);
    first = JSON.parse(a.stdout);
    assert.deepEqual(Object.keys(first), ['repository', 'tags', 'manifestDigest', 'blobDigest', 'size', 'uploaded']);
    assert.deepEqual([first.repository, first.tags, first.uploaded], [`${reg.host}/mods/net`, ['1.0.0', 'latest'], 2]);
    assert.equal(reg.uploads(), 2, 'the package and the empty config');
    assert.ok(reg.requests.some((r) => r.auth === 'Basic'), 'credentials from the oci_credentials block');

    reg.resetLog();
    const b = await run(['publish-module', 'module', target, '--tag', '1.0.0', '--tag', 'latest', '--json']);
    assert.equal(b.code, 0, b.stderr);
    const second = JSON.parse(b.stdout);
    assert.deepEqual(second, { ...first, uploaded: 0 });
    assert.equal(reg.uploads(), 0);
    assert.equal(reg.count('PUT', '/manifests/'), 0, 'tags already point at it: nothing stored');

    const human = await run(['publish-module', 'module', target, '--tag', '1.0.0']);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.includes(`source = "${target}?tag=1.0.0"\n`), human.stdout);
    assert.ok(human.stdout.includes(`source = "${target}?digest=${first.manifestDigest}"\n`), human.stdout);
  });

  test('publish-module: a tag on other content is refused unless --force; new tags are added', async () => {
    const target = `oci://${reg.host}/mods/net`;
    writeFileSync(join(ws, 'module/outputs.tf'), 'output "more" {\n  value = 1\n}\n');
    reg.resetLog();
    const refused = await run(['publish-module', 'module', target, '--tag', '1.0.0']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /tag 1\.0\.0 of 127\.0\.0\.1:\d+\/mods\/net points at other content \(sha256:[0-9a-f]{64}\).*--force/);
    assert.equal(reg.uploads(), 0, 'nothing pushed');
    assert.equal(reg.count('PUT'), 0);
    const still = JSON.parse((await run(['resolve', `${target}?tag=1.0.0`, '--json'])).stdout);
    assert.equal(still.manifestDigest, first.manifestDigest, 'the tag did not move');

    const added = await run(['publish-module', 'module', target, '--tag', '1.1.0', '--tag', '2.0.0-rc.1', '--tag', 'v0.9.0', '--json']);
    assert.equal(added.code, 0, added.stderr);
    const next = JSON.parse(added.stdout);
    assert.notEqual(next.manifestDigest, first.manifestDigest);
    assert.equal(next.uploaded, 1, 'the empty config was there already');

    const forced = await run(['publish-module', 'module', target, '--tag', 'stable', '--tag', 'latest', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /moved tag latest \(was sha256:/);

    // annotations go into the manifest (and so into its digest); resolve shows them
    const annotated = await run(['publish-module', 'module', target, '--tag', 'annotated', '--annotation', 'org.opencontainers.image.version=1.1.0', '--annotation', 'org.opencontainers.image.source=https://git.example.com/net', '--json']);
    assert.equal(annotated.code, 0, annotated.stderr);
    assert.notEqual(JSON.parse(annotated.stdout).manifestDigest, next.manifestDigest);
    assert.equal(JSON.parse(annotated.stdout).blobDigest, next.blobDigest, 'the same package');
    const shown = await run(['resolve', `${target}?tag=annotated`]);
    assert.match(shown.stdout, /  org\.opencontainers\.image\.source: https:\/\/git\.example\.com\/net\n  org\.opencontainers\.image\.version: 1\.1\.0\n/);
    assert.equal(JSON.parse((await run(['resolve', `${target}?tag=latest`, '--json'])).stdout).manifestDigest, next.manifestDigest);
  });

  test('versions oci://: version-like tags newest first, prereleases marked, then other tags; the tag tofu init uses marked', async () => {
    const j = await run(['versions', `oci://${reg.host}/mods/net`, '--json']);
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout);
    assert.deepEqual(doc.versions, ['2.0.0-rc.1', '1.1.0', '1.0.0', 'v0.9.0', 'annotated', 'latest', 'stable']);
    assert.deepEqual(doc.tags.filter((t: { prerelease: boolean }) => t.prerelease).map((t: { tag: string }) => t.tag), ['2.0.0-rc.1']);
    assert.deepEqual([doc.kind, doc.selected, doc.newest], ['oci', 'latest', '1.1.0']);
    const pinned = JSON.parse((await run(['versions', `oci://${reg.host}/mods/net?tag=1.0.0`, '--json'])).stdout);
    assert.deepEqual(pinned.tags.filter((t: { selected: boolean }) => t.selected).map((t: { tag: string }) => t.tag), ['1.0.0']);
    const human = await run(['versions', `oci://${reg.host}/mods/net`]);
    assert.match(human.stdout, /tags: {5}2\.0\.0-rc\.1 \(prerelease\) 1\.1\.0 1\.0\.0 v0\.9\.0 annotated latest \* stable\n/);
    const bad = await run(['versions', `oci://${reg.host}/mods/net?tag=a&digest=sha256:${'0'.repeat(64)}`]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /cannot set both "tag" and "digest" arguments/);
  });

  test('resolve oci://: the documented JSON; not-found and a wrong artifact are clear failures', async () => {
    const r = await run(['resolve', `oci://${reg.host}/mods/net?tag=1.0.0`, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      source: `oci://${reg.host}/mods/net?tag=1.0.0`, repository: `${reg.host}/mods/net`, tag: '1.0.0',
      manifestDigest: first.manifestDigest, blobDigest: first.blobDigest, size: first.size, artifactType: 'application/vnd.opentofu.modulepkg',
    });
    const byDigest = JSON.parse((await run(['resolve', `oci://${reg.host}/mods/net?digest=${first.manifestDigest}`, '--json'])).stdout);
    assert.deepEqual([byDigest.tag, byDigest.blobDigest], [null, first.blobDigest]);
    const gone = await run(['resolve', `oci://${reg.host}/mods/net?tag=9.9.9`]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /mods\/net has no tag "9\.9\.9"/);

    // an artifact that is not a module package (another artifactType)
    const creds = new OciCredentials({ env, platform: 'linux', cliConfig: () => [{ file: join(ws, '.tofurc'), doc: parseCliConfig(`oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`) }] });
    const c = new OciClient({ caFiles: [reg.caCertPath], env: {}, credentials: creds });
    const repo = { registry: reg.host, repository: 'mods/other' };
    await pushForeignArtifact(c, repo, 'wrong');
    await c.dispose();
    const wrong = await run(['resolve', `oci://${reg.host}/mods/other?tag=wrong`, '--json']);
    assert.equal(wrong.code, 1);
    assert.equal(JSON.parse(wrong.stdout).artifactType, 'application/vnd.example.other');
    assert.match(wrong.stderr, /is not a module package tofu init installs: unexpected artifact type "application\/vnd\.example\.other"/);

  });

  test('outdated: oci:// calls with kind module, locked null, the tag or digest selected, the newest version-like tag and OCI statuses', async () => {
    const root = join(ws, 'stack');
    const calls: Record<string, string> = {
      old: `oci://${reg.host}/mods/net?tag=1.0.0`,
      current: `oci://${reg.host}/mods/net?tag=1.1.0`,
      pinned: `oci://${reg.host}/mods/net?digest=${first.manifestDigest}`,
      missing: `oci://${reg.host}/mods/net?tag=9.9.9`,
      norepo: `oci://${reg.host}/mods/nothing-here`,
    };
    write(root, { 'main.tf': Object.entries(calls).map(([n, s]) => `module "${n}" {\n  source = "${s}"\n}\n`).join('') });
    reg.resetLog();
    const r = await run(['outdated', '--json', '--cache-dir', cache(), 'stack']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(reg.count('GET', '/v2/mods/net/tags/list'), 1, 'one tag list for the four calls of one repository');
    const deps = JSON.parse(r.stdout).dependencies as Array<Record<string, unknown>>;
    const by = Object.fromEntries(deps.filter((d) => d.kind === 'module').map((d) => [d.name, [d.locked, d.selected, d.newest, d.status]]));
    assert.deepEqual(by, {
      old: [null, '1.0.0', '1.1.0', 'update-available'],
      current: [null, '1.1.0', '1.1.0', 'up-to-date'],
      pinned: [null, first.manifestDigest, '1.1.0', 'pinned'],
      missing: [null, null, '1.1.0', 'not-found'],
      norepo: [null, null, null, 'not-found'],
    });
  });

  test('types check of an oci:// module: inputs checked from the package, fetched by digest once', async () => {
    const root = join(ws, 'caller');
    write(root, { 'main.tf': `module "net" {\n  source = "oci://${reg.host}/mods/net?tag=1.0.0"\n  name   = ["not", "a", "string"]\n}\n\nmodule "sub" {\n  source = "oci://${reg.host}/mods/net//modules/sub?tag=1.0.0"\n  size   = "big"\n}\n` });
    reg.resetLog();
    const typesCache = join(ws, 'types-cache'); // outdated's run fetched the packages into cache() already
    const a = await run(['types', 'check', '--cache-dir', typesCache, 'caller']);
    assert.equal(a.code, 1, a.stderr);
    assert.match(a.stdout, /caller\/main\.tf:3:\d+: error: Invalid value for input variable "name": the given value is not suitable for type string/);
    assert.match(a.stdout, /caller\/main\.tf:8:\d+: error: Invalid value for input variable "size": the given value is not suitable for type number/);
    assert.equal(reg.count('GET', `/blobs/${first.blobDigest}`), 1, 'one package download for both calls');
    const pkg = join(typesCache, 'oci-modules', first.blobDigest.replace(':', '-'), 'content');
    assert.deepEqual(readdirSync(pkg).sort(), ['.gitignore', 'main.tf', 'modules']);
    assert.ok(!existsSync(join(pkg, 'secret.auto.tfvars')), 'an ignored file is never in the package');

    reg.resetLog();
    const b = await run(['types', 'check', '--cache-dir', typesCache, 'caller']);
    assert.equal(b.stdout, a.stdout);
    assert.equal(reg.count('GET', '/blobs/'), 0, 'a digest is never fetched twice');
  });

  test('missing credentials: one clear message naming the registry', async () => {
    let stderr = '';
    const home = join(ws, 'empty-home'); // no .tofurc, no Docker-style files
    mkdirSync(home);
    const code = await main(['versions', `oci://${reg.host}/mods/net`, '--ca-file', reg.caCertPath], { stdout: () => undefined, stderr: (t) => { stderr += t; }, env: { HOME: home, PATH: process.env.PATH }, cwd: ws });
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`^tofu-registry: .*${reg.host.replace(/\./g, '\\.')}.*credentials`, 's'));
    assert.ok(!stderr.includes(DEFAULT_USERS.tofu));
  });
});
