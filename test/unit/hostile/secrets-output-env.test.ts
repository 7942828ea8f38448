// Secrets a registry hands out (a location with user:password and a signed query, a discovery
// document with credentials in its URLs) are shown as *** by `resolve` and `discover`, human and
// --json, like every message; --show-secrets prints them as sent. Registry tokens (TF_TOKEN_*) and
// other credentials in the environment never reach git (and so ssh) or the credentials helper.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashSigns, HOSTILE_TOKEN, HostileRegistry, startHostileRegistry } from '../../support/hostile-registry';

let r: HostileRegistry;
before(async () => {
  r = await startHostileRegistry();
  r.packages.set('signed', { 'main.tf': 'variable "x" {}\n' });
  r.locations.set('signed', `https://deploy:pa55w0rd-loc@${r.host}/hostile-archives/signed.tar.gz?X-Amz-Signature=sig-secret-123&X-Amz-Credential=cred-secret-456&part=1`);
  r.locations.set('viagit', 'git::https://git.example.invalid/acme/module.git?ref=v1.0.0');
});
after(async () => { await r.stop(); });

const SECRETS = ['pa55w0rd-loc', 'sig-secret-123', 'cred-secret-456'];

function assertHidden(text: string, what: string): void {
  for (const s of SECRETS) assert.ok(!text.includes(s), `${what} shows ${s}:\n${text}`);
}

test('resolve: the download location\'s user information and signed query are *** (human and --json); --show-secrets prints them raw; same JSON fields', { timeout: 60_000 }, async () => {
  const args = ['resolve', `${r.host}/hostile/signed/aws`, '--version', '1.0.0'];
  const human = await r.run(args);
  assert.equal(human.code, 0, human.stderr);
  assertHidden(human.stdout + human.stderr, 'resolve');
  assert.match(human.stdout, new RegExp(`location: https://\\*\\*\\*@${r.host.replace(/\./g, '\\.')}/hostile-archives/signed\\.tar\\.gz\\?X-Amz-Signature=\\*\\*\\*&X-Amz-Credential=\\*\\*\\*&part=1`));

  const json = await r.run([...args, '--json']);
  assert.equal(json.code, 0, json.stderr);
  assertHidden(json.stdout + json.stderr, 'resolve --json');
  const doc = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(doc), ['address', 'version', 'downloadUrl', 'location']);
  assert.equal(doc.location, `https://***@${r.host}/hostile-archives/signed.tar.gz?X-Amz-Signature=***&X-Amz-Credential=***&part=1`);

  const raw = await r.run([...args, '--json', '--show-secrets']);
  assert.equal(raw.code, 0, raw.stderr);
  assert.equal(JSON.parse(raw.stdout).location, r.locations.get('signed'));
  const rawHuman = await r.run([...args, '--show-secrets']);
  for (const s of SECRETS) assert.ok(rawHuman.stdout.includes(s), rawHuman.stdout);
});

test('discover: service URLs with user information and secret parameters are *** (human and --json); --show-secrets prints them raw', { timeout: 60_000 }, async () => {
  r.reg.setDiscovery({ 'modules.v1': `https://mod:disc-pass-789@${r.host}/v1/modules/?token=disc-token-000`, 'providers.v1': '/v1/providers/' });
  try {
    const human = await r.run(['discover', r.host]);
    assert.equal(human.code, 0, human.stderr);
    const json = await r.run(['discover', r.host, '--json']);
    assert.equal(json.code, 0, json.stderr);
    for (const out of [human.stdout + human.stderr, json.stdout + json.stderr]) {
      assert.ok(!out.includes('disc-pass-789') && !out.includes('disc-token-000'), out);
    }
    const doc = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(doc), ['host', 'discoveryUrl', 'finalUrl', 'services', 'cached']);
    assert.equal(doc.services['modules.v1'], `https://***@${r.host}/v1/modules/?token=***`);
    const raw = await r.run(['discover', r.host, '--json', '--show-secrets']);
    assert.equal(JSON.parse(raw.stdout).services['modules.v1'], `https://mod:disc-pass-789@${r.host}/v1/modules/?token=disc-token-000`);
    assert.match(human.stdout, /modules\.v1 +https:\/\/\*\*\*@/);
  } finally {
    r.reg.setDiscovery({ 'modules.v1': '/v1/modules', 'providers.v1': '/v1/providers/' });
  }
});

/** An executable shell script that writes its environment to `dump` (and `then` after). */
function dumper(path: string, dump: string, then: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\nenv > '${dump}'\n${then}\n`);
  chmodSync(path, 0o755);
}

const CREDENTIALS_ENV = {
  TF_TOKEN_registry_example_com: 'tf-token-secret-1', TF_TOKEN_app_terraform_io: 'tf-token-secret-2',
  TF_VAR_db_password: 'tf-var-secret-3', TF_ENCRYPTION: 'key_provider "pbkdf2" "k" { passphrase = "enc-secret-4" }',
  GITHUB_TOKEN: 'gh-secret-5', AWS_SECRET_ACCESS_KEY: 'aws-secret-6', VAULT_TOKEN: 'vault-secret-7',
};

test('git (and so ssh), started for a module package, sees no TF_TOKEN_* or other credentials; PATH, HOME, SSH_AUTH_SOCK and GIT_* stay', { timeout: 60_000 }, async () => {
  const bin = join(r.root, 'fake-git-bin');
  const dump = join(r.root, 'git-env.txt');
  dumper(join(bin, 'git'), dump, 'echo "fatal: not a real git" >&2; exit 128');
  const ws = r.workspace('viagit', { 'main.tf': `module "g" {\n  source  = "${r.host}/hostile/viagit/aws"\n  version = "1.0.0"\n}\n` });
  const run = await r.run(['mirror-modules', '--json', '--out', join(r.root, 'site-git'), ws], {
    env: { ...CREDENTIALS_ENV, PATH: `${bin}:${process.env.PATH}`, SSH_AUTH_SOCK: '/tmp/agent.sock', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C.UTF-8' },
  });
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.match(JSON.parse(run.stdout).failed[0].message, /git clone of https:\/\/git\.example\.invalid\/acme\/module\.git failed/);
  const env = Object.fromEntries(readFileSync(dump, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  assert.deepEqual(Object.keys(env).filter((k) => /^TF_(TOKEN|VAR)_|^TF_ENCRYPTION$/.test(k)), [], 'no OpenTofu credentials');
  for (const k of ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'VAULT_TOKEN']) assert.equal(env[k], undefined, k);
  assert.ok(!readFileSync(dump, 'utf8').includes(HOSTILE_TOKEN), 'nor the registry token from the CLI configuration');
  assert.equal(env.HOME, r.home);
  assert.equal(env.SSH_AUTH_SOCK, '/tmp/agent.sock');
  assert.equal(env.GIT_CONFIG_NOSYSTEM, '1');
  assert.equal(env.GIT_TERMINAL_PROMPT, '0');
  assert.ok(env.PATH.startsWith(bin));
});

test('the credentials helper sees no TF_TOKEN_* (other hosts\' tokens) or TF_VAR_*; what it needs to find its token (VAULT_TOKEN) stays', { timeout: 60_000 }, async () => {
  const dump = join(r.root, 'helper-env.txt');
  dumper(join(r.home, '.terraform.d', 'plugins', 'terraform-credentials-dump'), dump, `echo '{"token": "${HOSTILE_TOKEN}"}'`);
  const rc = join(r.root, 'helper.tofurc');
  writeFileSync(rc, 'credentials_helper "dump" {\n  args = []\n}\n');
  const run = await r.run(['discover', r.host], { env: { ...CREDENTIALS_ENV, TF_CLI_CONFIG_FILE: rc } });
  assert.equal(run.code, 0, run.stderr); // the helper's token opened the registry
  const text = readFileSync(dump, 'utf8');
  for (const secret of ['tf-token-secret-1', 'tf-token-secret-2', 'tf-var-secret-3', 'enc-secret-4']) assert.ok(!text.includes(secret), `${secret} reached the helper`);
  assert.match(text, /^VAULT_TOKEN=vault-secret-7$/m);
  assert.match(text, new RegExp(`^HOME=${r.home}$`, 'm'));
});
