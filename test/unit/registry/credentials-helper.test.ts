// credentials_helper "NAME" run as OpenTofu runs it: a real executable script on disk
// (terraform-credentials-NAME in ~/.terraform.d/plugins), invoked without a shell as
// `PROGRAM ARGS... get HOST`, answering {"token": …}; and proof that its token goes only to its host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { CredentialStore } from '../../../src/engine/credentials';
import { RegistryError } from '../../../src/engine/net/errors';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import { tempDir } from '../../support/temp';

const TOKEN = 'HELPER-T0KEN-9f3a';
// What every helper here prints on stderr, in every mode: it must never appear in an error or a log.
const STDERR_MARKER = 'STDERR-MARKER-5b7e';

// The helper: a Node script (absolute interpreter path, so it needs no PATH). Its behaviour comes
// from its arguments, as a real helper's would: --log FILE records every call, --mode picks the answer.
const HELPER_SOURCE = (version: string) => `#!${process.execPath}
const args = process.argv.slice(2);
const opt = (k) => args[args.indexOf(k) + 1];
require('fs').appendFileSync(opt('--log'), JSON.stringify(args) + '\\n');
const [verb, host] = args.slice(-2);
const mode = opt('--mode');
process.stderr.write('${STDERR_MARKER} vault: ' + mode + '\\n');
if (verb !== 'get') { process.stderr.write('unsupported verb ' + verb + '\\n'); process.exit(1); }
if (mode === 'fail') { process.stderr.write('\\x1b[31mvault: permission denied\\x1b[0m for secret/tf\\nsecond line SECOND-LINE-SECRET\\n'); process.exit(3); }
if (mode === 'bad-json') { process.stdout.write('token: nope'); process.exit(0); }
if (mode === 'hang') { setTimeout(() => {}, 60000); return; }
const token = mode === 'versioned' ? 'token-from-${version}' : ${JSON.stringify(TOKEN)};
process.stdout.write(JSON.stringify(host === opt('--for') ? { token } : {}));
`;

interface HelperSetup { home: string; rc: string; log: string; calls: () => string[][] }

/** A HOME with the helper installed and a CLI configuration that names it. */
function installHelper(forHost: string, mode = 'ok', opts: { name?: string; versions?: string[]; rcExtra?: string } = {}): HelperSetup {
  const home = tempDir('cred-helper-');
  const plugins = join(home, '.terraform.d', 'plugins');
  mkdirSync(plugins, { recursive: true });
  for (const v of opts.versions ?? ['']) {
    const file = join(plugins, `terraform-credentials-${opts.name ?? 'test'}${v ? `_v${v}` : ''}`);
    writeFileSync(file, HELPER_SOURCE(v || 'legacy'));
    chmodSync(file, 0o755);
  }
  const log = join(home, 'calls.log');
  const rc = join(home, 'tofurc');
  writeFileSync(rc, `${opts.rcExtra ?? ''}credentials_helper "test" {\n  args = ["--log", ${JSON.stringify(log)}, "--mode", "${mode}", "--for", "${forHost}"]\n}\n`);
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : []);
  return { home, rc, log, calls };
}

test('helper: runs as PROGRAM ARGS get HOST, once per host; its token goes to that host only (not after a redirect, not to archives)', () => withRegistry({ token: TOKEN }, async (reg) => {
  const h = installHelper(reg.host);
  const engine = testEngine(reg, { env: { HOME: h.home }, cliConfigFile: h.rc });
  try {
    const list = await engine.listModuleVersions(`${reg.host}/acme/network/aws`);
    assert.equal(list.versions.length, 9);
    await Promise.all(Array.from({ length: 12 }, () => engine.http.getJson(`${reg.origin}/v1/modules/acme/storage/azurerm/versions`, { auth: true })));
    assert.deepEqual(h.calls(), [['--log', h.log, '--mode', 'ok', '--for', reg.host, 'get', reg.host]], 'one call for all requests to the host');
    const api = reg.server.requests.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/.well-known/'));
    assert.equal(api.length, 14);
    assert.ok(api.every((r) => r.authorization === `Bearer ${TOKEN}`));

    // A redirect to the other host: followed without the token.
    reg.setFault('/v1/modules/platform/', 'redirect-second-host');
    await engine.http.getJson(`${reg.origin}/v1/modules/platform/cluster/kubernetes/versions`, { auth: true });
    // The other host itself: the helper is asked for it, has nothing, and nothing is sent.
    await engine.http.getJson(`${reg.secondOrigin}/v1/modules/infra/vpc/google/versions`, { auth: true });
    assert.equal(reg.second.requests.length, 2);
    assert.ok(reg.second.requests.every((r) => r.authorization === undefined));
    assert.deepEqual(h.calls().map((c) => c.at(-1)), [reg.host, reg.secondHost]);

    // Archives never carry credentials, even from the token's own host.
    reg.addFile('/archives/m.tar.gz', 'archive-bytes');
    const dl = await engine.http.download(`${reg.origin}/archives/m.tar.gz`, { maxBytes: 100 });
    for await (const chunk of dl.body) void chunk;
    assert.equal(reg.server.requests.at(-1)!.path, '/archives/m.tar.gz');
    assert.equal(reg.server.requests.at(-1)!.authorization, undefined);
    assert.ok(engine.logs.every((l) => !l.message.includes(TOKEN)));
  } finally {
    await engine.dispose();
  }
}));

test('helper: precedence is TF_TOKEN_, then a credentials block (even without a token), then the helper', async () => {
  const h = installHelper('env.example', 'ok', { rcExtra: 'credentials "block.example" { token = "from-block" }\ncredentials "empty.example" {}\n' });
  const store = new CredentialStore({ env: { HOME: h.home, TF_TOKEN_block_example: 'from-env' }, cliConfigFile: h.rc });
  assert.deepEqual(await store.credentialFor('block.example'), { kind: 'env', source: 'TF_TOKEN_block_example', token: 'from-env' });
  const noEnv = new CredentialStore({ env: { HOME: h.home }, cliConfigFile: h.rc });
  assert.deepEqual(await noEnv.credentialFor('block.example'), { kind: 'block', source: h.rc, token: 'from-block' });
  assert.deepEqual(await noEnv.credentialFor('empty.example'), { kind: 'block', source: h.rc }, 'a block without a token: no token, and no helper');
  assert.equal(noEnv.authHint('empty.example', false), `the credentials "empty.example" block in ${h.rc} has no token`);
  assert.deepEqual(h.calls(), [], 'the helper was not needed yet');
  const viaHelper = await noEnv.credentialFor('env.example');
  assert.equal(viaHelper?.kind, 'helper');
  assert.equal(viaHelper?.token, TOKEN);
  assert.match(viaHelper!.source, /^credentials_helper "test" \(.*terraform-credentials-test\)$/);
  assert.equal(h.calls().length, 1);
});

test('helper: the newest terraform-credentials-NAME_vX.Y.Z wins over older and unversioned ones', async () => {
  const h = installHelper('v.example', 'versioned', { versions: ['', '1.10.0', '2.0.0', '1.9.9'] });
  const store = new CredentialStore({ env: { HOME: h.home }, cliConfigFile: h.rc });
  assert.equal(await store.tokenFor('v.example'), 'token-from-2.0.0');
});

test('helper: a failing helper (exit code) is named in the 401 with its exit code; none of its stderr is in the error or the log', () => withRegistry({ token: TOKEN }, async (reg) => {
  const h = installHelper(reg.host, 'fail');
  const engine = testEngine(reg, { env: { HOME: h.home }, cliConfigFile: h.rc });
  try {
    await assert.rejects(engine.discoverServices(reg.host), (e: unknown) => {
      assert.ok(e instanceof RegistryError && e.code === 'unauthorized');
      assert.match(e.message, /requires authentication \(401 Unauthorized\)/);
      assert.match(e.message, /\(credentials_helper "test" \(.*terraform-credentials-test\) gave no token: exited with code 3 \(its error output is not shown: run it by hand to see why\)\)$/);
      for (const said of [STDERR_MARKER, 'permission denied', 'SECOND-LINE-SECRET', '\x1b']) assert.ok(!e.message.includes(said), e.message);
      return true;
    });
    assert.equal(h.calls().length, 1, 'the helper ran (and wrote to stderr)');
    assert.ok(engine.logs.some((l) => l.level === 'warn' && /gave no token for .*: exited with code 3 \(its error output is not shown/.test(l.message)));
    assert.ok(engine.logs.every((l) => !l.message.includes(STDERR_MARKER) && !l.message.includes('permission denied') && !l.message.includes('SECOND-LINE')));
  } finally {
    await engine.dispose();
  }
}));

test('helper: malformed output, a timeout, a missing program, an untrusted workspace: each says why, nothing is sent', () => withRegistry({ token: TOKEN }, async (reg) => {
  const cases: Array<{ mode: string; why: RegExp; options?: object; noCall?: boolean; rename?: string }> = [
    { mode: 'bad-json', why: /printed malformed output \(expected a JSON object/ },
    { mode: 'hang', why: /did not answer within 0\.4 s/, options: { credentialsHelperTimeoutMs: 400 } },
    { mode: 'ok', why: /terraform-credentials-test was not found in .*\.terraform\.d\/plugins/, rename: 'other', noCall: true },
    { mode: 'ok', why: /not run in an untrusted workspace/, options: { allowCredentialsHelper: () => false }, noCall: true },
  ];
  for (const c of cases) {
    const h = installHelper(reg.host, c.mode, { name: c.rename });
    const engine = testEngine(reg, { env: { HOME: h.home }, cliConfigFile: h.rc, ...c.options });
    reg.server.resetLog();
    try {
      await assert.rejects(engine.discoverServices(reg.host), (e: unknown) => e instanceof RegistryError && e.code === 'unauthorized' && c.why.test(e.message)
        && !e.message.includes(STDERR_MARKER), c.mode);
      assert.ok(engine.logs.every((l) => !l.message.includes(STDERR_MARKER)), c.mode);
      assert.ok(reg.server.requests.every((r) => r.authorization === undefined));
      assert.equal(h.calls().length, c.noCall ? 0 : 1, c.mode);
    } finally {
      await engine.dispose();
    }
  }
}));

test('helper: a token the registry rejects is said to come from the helper, and the helper is asked again next time', () => withRegistry({ token: 'the-right-one' }, async (reg) => {
  const h = installHelper(reg.host);
  const engine = testEngine(reg, { env: { HOME: h.home }, cliConfigFile: h.rc });
  try {
    for (let i = 0; i < 2; i++) {
      await assert.rejects(engine.http.getJson(`${reg.origin}/v1/modules/acme/network/aws/versions`, { auth: true }), (e: unknown) => e instanceof RegistryError
        && e.code === 'forbidden' && /the token sent lacks permission \(the token sent came from credentials_helper "test"/.test(e.message));
    }
    assert.equal(h.calls().length, 2);
  } finally {
    await engine.dispose();
  }
}));

test('helper: the CLI runs it too (tofu-registry versions)', () => withRegistry({ token: TOKEN }, async (reg) => {
  const h = installHelper(reg.host);
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['versions', `${reg.host}/acme/network/aws`, '--json', '--no-cache', '--ca-file', reg.caCertPath],
    { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { HOME: h.home, TF_CLI_CONFIG_FILE: h.rc }, cwd: h.home });
  assert.equal(code, 0, err.join(''));
  assert.equal((JSON.parse(out.join('')) as { versions: string[] }).versions.length, 9);
  assert.equal(h.calls().length, 1);
}));

test('helper: the CLI names a failing helper on stderr and in --json, without anything it printed', () => withRegistry({ token: TOKEN }, async (reg) => {
  const h = installHelper(reg.host, 'fail');
  for (const json of [false, true]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['versions', `${reg.host}/acme/network/aws`, '--no-cache', '--ca-file', reg.caCertPath, ...(json ? ['--json'] : [])],
      { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { HOME: h.home, TF_CLI_CONFIG_FILE: h.rc }, cwd: h.home });
    assert.equal(code, 1);
    assert.match(err.join(''), /credentials_helper "test" \(.*\) gave no token: exited with code 3 \(its error output is not shown/);
    for (const text of [out.join(''), err.join('')]) assert.ok(!text.includes(STDERR_MARKER) && !text.includes('permission denied'), text);
  }
}));
