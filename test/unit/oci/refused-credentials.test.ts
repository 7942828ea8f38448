// A wrong password for an OCI registry (CNCF Distribution on 127.0.0.1 with htpasswd, the password
// in ~/.docker/config.json "auths") is refused once: the first 401 after credentials were offered
// ends every further request to that registry in the run. `mirror --oci` and `lock --oci-mirror`
// of three providers in two namespaces print one message naming the registry and where the
// credentials came from (the other providers are listed as skipped because of it), and the
// registry's log shows no request after that refusal; versions, resolve and publish-module of
// oci:// offer the credentials once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { Engine } from '../../../src/engine/engine';
import { listOciTags, resolveOciModule } from '../../../src/engine/modulepkg/oci-registry';
import { publishModule } from '../../../src/engine/publish/publish';
import { Fixture, startFixture, writeConfig } from '../mirror/fixture';
import { startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';

let fx: Fixture;
let reg: TestOciRegistry;
let home: string;
let dir: string;
let template: string;
const WRONG = 'not-the-password-31';

before(async () => {
  fx = await startFixture();
  await fx.addProvider('acme', 'alpha', ['1.0.0'], ['linux_amd64']);
  await fx.addProvider('acme', 'beta', ['0.3.0'], ['linux_amd64']);
  await fx.addProvider('corp', 'gamma', ['2.0.0'], ['linux_amd64']);
  reg = await startOciRegistry({ auth: 'basic' });
  template = `${reg.host}/mirror/\${namespace}/\${type}`;
  home = tempDir('oci-refused-home-');
  mkdirSync(join(home, '.docker'));
  writeFileSync(join(home, '.docker', 'config.json'), JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from(`tofu:${WRONG}`).toString('base64') } } }));
  dir = writeConfig(fx.root, {
    alpha: { source: `${fx.reg.host}/acme/alpha` }, beta: { source: `${fx.reg.host}/acme/beta` }, gamma: { source: `${fx.reg.host}/corp/gamma` },
  });
});
after(async () => { await reg.stop(); await fx.stop(); });

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await main([...args, '--no-cache', '--ca-file', reg.caCertPath], {
    stdout: (t) => { out += t; }, stderr: (t) => { out += t; }, cwd: fx.root,
    env: { HOME: home, PATH: process.env.PATH, TF_CLI_CONFIG_FILE: join(home, 'none.tfrc'), XDG_CACHE_HOME: tempDir('oci-refused-cache-') },
  });
  return { code, out };
}

/** The registry's log: one request offered credentials and was refused; none arrived after that refusal was answered. */
function assertRefusedOnce(what: string): void {
  const offered = reg.requests.filter((r) => r.auth);
  assert.equal(offered.length, 1, `${what}: requests with credentials: ${JSON.stringify(offered)}`);
  assert.equal(offered[0].status, 401);
  const after = reg.requests.filter((r) => r.at > offered[0].answeredAt!);
  assert.deepEqual(after, [], `${what}: requests after the refusal`);
}

const source = () => `"auths" entry "${reg.host}" in ${join(home, '.docker', 'config.json')}`;

test('mirror --oci: one message naming the registry and the credentials\' source, the other providers skipped, no request after the refusal', async () => {
  reg.resetLog();
  const r = await cli(['mirror', '--oci', template, '--platform', 'linux_amd64', dir]);
  assert.equal(r.code, 1, r.out);
  const failed = r.out.split('\n').filter((l) => l.startsWith('FAILED'));
  assert.equal(failed.length, 3, r.out);
  const refused = failed.filter((l) => /rejected the credentials/.test(l));
  assert.equal(refused.length, 1, r.out);
  assert.ok(refused[0].includes(`${reg.host} rejected the credentials from ${source()}`), refused[0]);
  assert.equal(failed.filter((l) => l.includes(`skipped: ${reg.host} refused the credentials earlier in this run`)).length, 2, r.out);
  assert.equal(r.out.match(/rejected the credentials/g)!.length, 1, 'one message');
  assert.ok(!r.out.includes(WRONG));
  assertRefusedOnce('mirror --oci');
});

test('lock --oci-mirror: the same — one refusal, one message, nothing asked after it', async () => {
  reg.resetLog();
  const r = await cli(['lock', '--oci-mirror', template, '--platform', 'linux_amd64', dir]);
  assert.equal(r.code, 1, r.out);
  assert.equal(r.out.match(/rejected the credentials/g)?.length, 1, r.out);
  assert.ok(r.out.includes(source()), r.out);
  assertRefusedOnce('lock --oci-mirror');
});

test('versions, resolve and publish-module of oci:// offer the credentials once and say where they came from; a session that goes on asks nothing more of the registry', async () => {
  const mod = tempDir('oci-refused-mod-');
  writeFileSync(join(mod, 'main.tf'), 'variable "x" {}\n');
  for (const args of [['versions', `oci://${reg.host}/mods/a`], ['resolve', `oci://${reg.host}/mods/a?tag=1.0.0`], ['publish-module', mod, `oci://${reg.host}/mods/a`, '--tag', '1.0.0']]) {
    reg.resetLog();
    const r = await cli(args);
    assert.equal(r.code, 1, r.out);
    assert.equal(r.out.match(/rejected the credentials/g)?.length, 1, r.out);
    assert.ok(r.out.includes(source()), r.out);
    assertRefusedOnce(args[0]);
  }
  // one engine, as the editor and the language server keep it: resolve, then the tags and a
  // publish to other repositories of the same registry — the first refusal ends them all
  reg.resetLog();
  const engine = new Engine({ caFiles: [reg.caCertPath], env: { HOME: home }, cliConfigFile: join(home, 'none.tfrc') });
  try {
    await assert.rejects(resolveOciModule(engine, `oci://${reg.host}/mods/a?tag=1.0.0`), /rejected the credentials from "auths" entry/);
    await assert.rejects(listOciTags(engine, { registry: reg.host, repository: 'mods/b' }), new RegExp(`^RegistryError: skipped: ${reg.host.replace(/\./g, '\\.')} refused the credentials earlier`));
    await assert.rejects(publishModule({ engine, dir: mod, target: `oci://${reg.host}/mods/c`, tags: ['1.0.0'] }), /skipped: .* refused the credentials earlier/);
    assert.equal(engine.oci.refusalOf(reg.host)?.code, 'unauthorized');
    assertRefusedOnce('one engine');
    // the credentials read again (Clear registry cache): the registry is asked again
    await engine.clearCache();
    await assert.rejects(listOciTags(engine, { registry: reg.host, repository: 'mods/b' }), /rejected the credentials/);
  } finally {
    await engine.dispose();
  }
});
