import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCliConfig } from '../../../src/engine/cliconfig/read';
import { CredentialStore } from '../../../src/engine/credentials';
import { RegistryError } from '../../../src/engine/net/errors';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import { tempDir } from '../../support/temp';

test('credentials: TF_TOKEN_ variables (dots, double-underscore dashes, punycode/Unicode, any case)', async () => {
  const store = new CredentialStore({ env: {
    HOME: '/nonexistent',
    TF_TOKEN_app_terraform_io: 'tok-app',
    TF_TOKEN_my__registry_example_com: 'tok-dash',
    tf_token_EXAMPLE_ORG: 'tok-case',
    TF_TOKEN_xn____bcher__kva_example: 'tok-puny',
    TF_TOKEN_straße_de: 'tok-unicode',
    TF_TOKEN_: 'ignored',
  } });
  assert.equal(await store.tokenFor('app.terraform.io'), 'tok-app');
  assert.equal(await store.tokenFor('APP.Terraform.io:443'), 'tok-app');
  assert.equal(await store.tokenFor('my-registry.example.com'), 'tok-dash');
  assert.equal(await store.tokenFor('example.org'), 'tok-case');
  assert.equal(await store.tokenFor('bücher.example'), 'tok-puny');
  assert.equal(await store.tokenFor('xn--bcher-kva.example'), 'tok-puny');
  assert.equal(await store.tokenFor('straße.de'), 'tok-unicode');
  assert.equal(await store.tokenFor('app.terraform.io:8443'), undefined, 'the port is part of the host');
  assert.equal(await store.tokenFor('other.example'), undefined);
  assert.equal((await store.credentialFor('app.terraform.io'))?.source, 'TF_TOKEN_app_terraform_io');
});

test('credentials: HCL credentials blocks among other settings (one reader for the whole CLI configuration)', () => {
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
credentials "templated.example" { token = "a\${b}%{c}" }
credentials "no-token.example" {}
credentials_helper "example" { args = ["--x", "y"] }
`;
  const doc = parseCliConfig(src);
  assert.deepEqual(doc.credentials, [
    { host: 'app.terraform.io', token: 'abc.atlasv1.def' },
    { host: '127.0.0.1:8443', token: 'with "quotes"' },
    { host: 'templated.example', token: 'a${b}%{c}' }, // HCL 1: no interpolation in the CLI configuration
    { host: 'no-token.example', token: undefined },
  ]);
  assert.deepEqual(doc.helpers, [{ name: 'example', args: ['--x', 'y'] }]);
  assert.equal(doc.installations.length, 1);
  const json = parseCliConfig(JSON.stringify({ credentials: { 'a.example': { token: 't' } }, credentials_helper: { kc: { args: ['1'] } } }));
  assert.deepEqual(json.credentials, [{ host: 'a.example', token: 't' }]);
  assert.deepEqual(json.helpers, [{ name: 'kc', args: ['1'] }]);
});

test('credentials: ~/.tofurc or ~/.terraformrc, then every *.tfrc / *.tfrc.json in ~/.terraform.d (later wins); TF_CLI_CONFIG_FILE replaces all', async () => {
  const h = tempDir();
  writeFileSync(join(h, '.terraformrc'), 'credentials "rc.example" { token = "from-terraformrc" }\ncredentials "both.example" { token = "from-rc" }\n');
  mkdirSync(join(h, '.terraform.d'));
  writeFileSync(join(h, '.terraform.d', 'credentials.tfrc.json'), JSON.stringify({ credentials: { 'json.example': { token: 'from-json' } } }));
  writeFileSync(join(h, '.terraform.d', 'corp.tfrc'), 'credentials "both.example" { token = "from-corp-tfrc" }\n');
  writeFileSync(join(h, '.terraform.d', 'notes.txt'), 'credentials "txt.example" { token = "never" }\n');
  let store = new CredentialStore({ env: { HOME: h } });
  assert.equal(await store.tokenFor('rc.example'), 'from-terraformrc');
  assert.equal(await store.tokenFor('json.example'), 'from-json');
  assert.equal(await store.tokenFor('both.example'), 'from-corp-tfrc', 'a config directory file overrides the main file');
  assert.equal(await store.tokenFor('txt.example'), undefined);
  assert.deepEqual(store.configFiles(), [join(h, '.terraformrc'), join(h, '.terraform.d', 'corp.tfrc'), join(h, '.terraform.d', 'credentials.tfrc.json')]);

  writeFileSync(join(h, '.tofurc'), 'credentials "rc.example" { token = "from-tofurc" }\n');
  store = new CredentialStore({ env: { HOME: h } });
  assert.equal(await store.tokenFor('rc.example'), 'from-tofurc');
  assert.equal((await store.credentialFor('rc.example'))?.source, join(h, '.tofurc'));

  const explicit = join(h, 'custom.tfrc');
  writeFileSync(explicit, 'credentials "custom.example" { token = "from-custom" }\n');
  store = new CredentialStore({ env: { HOME: h, TF_CLI_CONFIG_FILE: explicit } });
  assert.equal(await store.tokenFor('custom.example'), 'from-custom');
  assert.equal(await store.tokenFor('json.example'), undefined, 'the config directory is not read with TF_CLI_CONFIG_FILE');
  assert.equal(await store.tokenFor('rc.example'), undefined);

  store = new CredentialStore({ env: { HOME: h, TF_TOKEN_rc_example: 'from-env' } });
  assert.equal(await store.tokenFor('rc.example'), 'from-env', 'environment variables take precedence');
});

test('credentials: Bearer token only to its host (including port), never logged', () => withRegistry({ token: 'T0KEN-123' }, async (reg) => {
  const dir = tempDir();
  {
    const rc = join(dir, 'rc');
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
    const wrongPort = testEngine(reg, { env: { HOME: '/nonexistent' }, cliConfigFile: join(dir, 'none') });
    await assert.rejects(wrongPort.listModuleVersions(`${reg.host}/acme/network/aws`), (e: unknown) => e instanceof RegistryError && e.code === 'unauthorized');
    await wrongPort.dispose();

    writeFileSync(rc, `credentials "${reg.host}" { token = "wrong" }\n`);
    const wrong = testEngine(reg, { cliConfigFile: rc });
    await assert.rejects(wrong.discoverServices(reg.host), (e: unknown) => e instanceof RegistryError && e.code === 'forbidden' && /403 Forbidden/.test(e.message)
      && e.message.endsWith(`(the token sent came from ${rc})`));
    await wrong.dispose();
  }
}));
