import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CredentialStore, parseCliConfigHcl } from '../../../src/engine/credentials';
import { RegistryError } from '../../../src/engine/net/errors';
import { tempDir, testEngine, withRegistry } from '../../support/registry-helpers';

test('credentials: TF_TOKEN_ variables (dots, double-underscore dashes, punycode/Unicode, any case)', () => {
  const store = new CredentialStore({ env: {
    HOME: '/nonexistent',
    TF_TOKEN_app_terraform_io: 'tok-app',
    TF_TOKEN_my__registry_example_com: 'tok-dash',
    tf_token_EXAMPLE_ORG: 'tok-case',
    TF_TOKEN_xn____bcher__kva_example: 'tok-puny',
    TF_TOKEN_straße_de: 'tok-unicode',
    TF_TOKEN_: 'ignored',
  } });
  assert.equal(store.tokenFor('app.terraform.io'), 'tok-app');
  assert.equal(store.tokenFor('APP.Terraform.io:443'), 'tok-app');
  assert.equal(store.tokenFor('my-registry.example.com'), 'tok-dash');
  assert.equal(store.tokenFor('example.org'), 'tok-case');
  assert.equal(store.tokenFor('bücher.example'), 'tok-puny');
  assert.equal(store.tokenFor('xn--bcher-kva.example'), 'tok-puny');
  assert.equal(store.tokenFor('straße.de'), 'tok-unicode');
  assert.equal(store.tokenFor('app.terraform.io:8443'), undefined, 'the port is part of the host');
  assert.equal(store.tokenFor('other.example'), undefined);
  assert.equal(store.sourceFor('app.terraform.io'), 'TF_TOKEN_app_terraform_io');
});

test('credentials: HCL credentials blocks among other settings', () => {
  const src = `
# comment
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"
provider_installation {
  network_mirror { url = "https://mirror.example/" }
  direct { exclude = ["example.com/*/*"] }
}
credentials "app.terraform.io" {
  token = "abc.atlasv1.def" // trailing comment
}
/* block comment
credentials "commented.example" { token = "nope" } */
credentials "127.0.0.1:8443" {
  token = "with \\"quotes\\""
}
credentials_helper "example" { args = [] }
`;
  assert.deepEqual(parseCliConfigHcl(src), [
    { host: 'app.terraform.io', token: 'abc.atlasv1.def' },
    { host: '127.0.0.1:8443', token: 'with "quotes"' },
  ]);
});

test('credentials: ~/.tofurc wins over ~/.terraformrc; credentials.tfrc.json; TF_CLI_CONFIG_FILE replaces both', () => {
  const home = tempDir();
  try {
    const h = home.path;
    writeFileSync(join(h, '.terraformrc'), 'credentials "rc.example" { token = "from-terraformrc" }\n');
    mkdirSync(join(h, '.terraform.d'));
    writeFileSync(join(h, '.terraform.d', 'credentials.tfrc.json'), JSON.stringify({ credentials: { 'json.example': { token: 'from-json' } } }));
    let store = new CredentialStore({ env: { HOME: h } });
    assert.equal(store.tokenFor('rc.example'), 'from-terraformrc');
    assert.equal(store.tokenFor('json.example'), 'from-json');

    writeFileSync(join(h, '.tofurc'), 'credentials "rc.example" { token = "from-tofurc" }\n');
    store = new CredentialStore({ env: { HOME: h } });
    assert.equal(store.tokenFor('rc.example'), 'from-tofurc');
    assert.equal(store.sourceFor('rc.example'), join(h, '.tofurc'));

    const explicit = join(h, 'custom.tfrc');
    writeFileSync(explicit, 'credentials "custom.example" { token = "from-custom" }\n');
    store = new CredentialStore({ env: { HOME: h, TF_CLI_CONFIG_FILE: explicit } });
    assert.equal(store.tokenFor('custom.example'), 'from-custom');
    assert.equal(store.tokenFor('json.example'), undefined, 'credentials.tfrc.json ignored with TF_CLI_CONFIG_FILE');
    assert.equal(store.tokenFor('rc.example'), undefined);

    store = new CredentialStore({ env: { HOME: h, TF_TOKEN_rc_example: 'from-env' } });
    assert.equal(store.tokenFor('rc.example'), 'from-env', 'environment variables take precedence');
  } finally {
    home.remove();
  }
});

test('credentials: Bearer token only to its host (including port), never logged', () => withRegistry({ token: 'T0KEN-123' }, async (reg) => {
  const dir = tempDir();
  try {
    const rc = join(dir.path, 'rc');
    writeFileSync(rc, `credentials "${reg.host}" { token = "T0KEN-123" }\ncredentials "${reg.second.host}" { token = "OTHER-PORT" }\n`);
    const engine = testEngine(reg, { cliConfigFile: rc });
    const list = await engine.listModuleVersions(`${reg.host}/acme/network/aws`);
    assert.equal(list.versions.length, 9);
    const api = reg.server.requests.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/.well-known/'));
    assert.equal(api.length, 2);
    assert.ok(api.every((r) => r.authorization === 'Bearer T0KEN-123'));
    // archive downloads never carry credentials, even on the same host
    reg.addFile('/archives/x.tar.gz', 'archive-bytes');
    const dl = await engine.http.download(`${reg.origin}/archives/x.tar.gz`, { maxBytes: 1000 });
    let body = '';
    for await (const chunk of dl.body) body += chunk;
    assert.equal(body, 'archive-bytes');
    assert.equal(reg.server.requests.at(-1)!.authorization, undefined);
    assert.ok(engine.logs.length > 0 && engine.logs.every((l) => !l.message.includes('T0KEN-123')));
    await engine.dispose();

    // same IP, other port: the token of 127.0.0.1:PORT must not be used
    const wrongPort = testEngine(reg, { env: { HOME: '/nonexistent' }, cliConfigFile: join(dir.path, 'none') });
    await assert.rejects(wrongPort.listModuleVersions(`${reg.host}/acme/network/aws`), (e: unknown) => e instanceof RegistryError && e.code === 'unauthorized');
    await wrongPort.dispose();

    writeFileSync(rc, `credentials "${reg.host}" { token = "wrong" }\n`);
    const wrong = testEngine(reg, { cliConfigFile: rc });
    await assert.rejects(wrong.discoverServices(reg.host), (e: unknown) => e instanceof RegistryError && e.code === 'forbidden' && /403 Forbidden/.test(e.message));
    await wrong.dispose();
  } finally {
    dir.remove();
  }
}));

test('credentials: a credentials_helper is not run, and a 401 from a host without a token says so', () => withRegistry({ token: 'tok' }, async (reg) => {
  const dir = tempDir();
  try {
    const rc = join(dir.path, 'tofurc');
    writeFileSync(rc, 'credentials_helper "vault" {\n  args = ["--mount", "kv"]\n}\n');
    const engine = testEngine(reg, { cliConfigFile: rc });
    assert.deepEqual(engine.credentials.credentialsHelper(), { name: 'vault', file: rc });
    assert.ok(engine.logs.some((l) => l.level === 'warn' && l.message.includes('credentials_helper "vault"')));
    reg.setFault('/v1/modules/acme/network/aws/versions', '401');
    await assert.rejects(engine.listModuleVersions(`${reg.host}/acme/network/aws`), (e: unknown) => e instanceof RegistryError && e.code === 'unauthorized'
      && e.message.endsWith(`(credentials_helper "vault" (${rc}) is not supported by tofu-registry; set TF_TOKEN_… or a credentials block for this host instead)`));
    await engine.dispose();
    // JSON form; and a host that has a token gets no such hint
    const json = join(dir.path, 'config.tfrc.json');
    writeFileSync(json, JSON.stringify({ credentials_helper: { keychain: {} }, credentials: { [reg.host]: { token: 'tok' } } }));
    const store = new CredentialStore({ env: { HOME: '/nonexistent', TF_CLI_CONFIG_FILE: json } });
    assert.equal(store.credentialsHelper()?.name, 'keychain');
    assert.equal(store.authHint(reg.host), undefined);
    assert.match(String(store.authHint('other.example')), /credentials_helper "keychain"/);
    assert.equal(new CredentialStore({ env: { HOME: '/nonexistent' } }).authHint('x.example'), undefined);
  } finally {
    dir.remove();
  }
}));
