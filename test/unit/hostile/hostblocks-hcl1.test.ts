// The "ready to paste" host blocks of mirror-modules are CLI configuration, which OpenTofu reads
// with HCL 1: a discovery document holding `${` (HCL 2's `$${` escape is no escape there) must not
// yield a block that makes the file it is pasted into unreadable — mirrors and credentials lost.
// The printed block is read together with a realistic ~/.tofurc by an HCL 1-faithful reader.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseCliConfigHcl } from '../../../src/engine/cliconfig/read';
import { hcl1Blocks, hcl1Plain, Hcl1Error, parseHcl1 } from '../../support/hcl1';
import { crashSigns, HostileRegistry, startHostileRegistry } from '../../support/hostile-registry';

let r: HostileRegistry;
before(async () => {
  r = await startHostileRegistry();
  r.packages.set('plain', { 'main.tf': 'variable "name" {\n  type = string\n}\n' });
});
after(async () => { await r.stop(); });

/** A ~/.tofurc as people have them, with `printed` pasted in the middle. */
function tofurc(printed: string): string {
  return [
    'credentials "app.terraform.io" {\n  token = "tfe-token-before"\n}\n',
    'provider_installation {\n  network_mirror {\n    url     = "https://mirror.example.com/providers/"\n    include = ["registry.opentofu.org/*/*"]\n  }\n  direct {\n    exclude = ["registry.opentofu.org/*/*"]\n  }\n}\n',
    '# modules from the mirror (pasted from tofu-registry mirror-modules)\n',
    printed,
    'credentials "registry.example.com" {\n  token = "token-after"\n}\n',
    'host "other.example.com" {\n  services = {\n    "modules.v1" = "https://other.example.com/modules/"\n  }\n}\n',
  ].join('\n');
}

test('HCL 1 reader: faithful to hashicorp/hcl v1 on `${` (HCL 2\'s `$${` escape swallows what follows), escapes and errors', () => {
  // what the old renderer printed for a value "x${": HCL 2's escape opens an HCL 1 region that runs
  // over the block's closing lines, and the file is unreadable
  assert.throws(() => parseHcl1('host "h" {\n  services = {\n    "x.v1" = "x$${"\n  }\n}\ncredentials "c" {\n  token = "t"\n}\n'), Hcl1Error);
  // balanced, it reads — as other text than HCL 2 meant: `$${` is no escape in HCL 1
  assert.deepEqual(hcl1Plain(parseHcl1('a = "x$${y}"\nc = "w"\n')), { a: 'x$${y}', c: 'w' });
  assert.throws(() => parseHcl1('a = "${"\nb = 1\n'), Hcl1Error, 'an unbalanced ${ runs to the end of the file');
  assert.throws(() => parseHcl1('a = "\\q"\n'), Hcl1Error);
  // the project's own reader of the CLI configuration takes strings as HCL 1 does
  const rc = 'host "h" {\n  services = {\n    "a.v1" = "x$${y}"\n    "b.v1" = "\\x41\\101\\u00e9 ${z} \\"q\\""\n  }\n}\n';
  assert.deepEqual(parseCliConfigHcl(rc).hosts[0].services, hcl1Plain(hcl1Blocks(parseHcl1(rc), 'host')[0].body).services);
  assert.deepEqual(parseCliConfigHcl(rc).hosts[0].services, { 'a.v1': 'x$${y}', 'b.v1': 'AAé ${z} "q"' });
  assert.throws(() => parseHcl1('a = "x\u0000"\n'), Hcl1Error);
  assert.deepEqual(hcl1Plain(parseHcl1('a = "\\"q\\" \\\\ \\u00e9 %{x}"\nb = [1, 2.5, -3, true]\nc { d = "e" }\n')),
    { a: '"q" \\ é %{x}', b: [1, 2.5, -3, true], c: { d: 'e' } });
});

test('mirror-modules host blocks: values HCL 1 cannot hold (`${`, control characters, deep nesting) are left out with a note; the pasted block and the rest of ~/.tofurc read back whole', { timeout: 120_000 }, async () => {
  const deep: Record<string, unknown> = { leaf: true };
  let cur = deep;
  for (let i = 0; i < 40; i++) { const next: Record<string, unknown> = {}; cur.inner = next; cur = next; }
  r.reg.setDiscovery({
    'modules.v1': '/v1/modules/',
    // the query of a URL keeps "${" as written (the path would percent-encode it)
    'providers.v1': '/v1/providers/?x=${file("/etc/passwd")}"',
    'tfe.v2.1': '/api/v2/',
    'login.v1': { client: 'tofu-cli', grant_types: ['authz_code'], authz: '/oauth/authorization', token: '/oauth/token', ports: [10000, 10010] },
    'evil.v1': { note: 'x${' },
    'evil2.v1': { note: 'a${b"\n}\ncredentials "attacker.example" {\n  token = "stolen"\n}' },
    'ctl.v1': { bell: 'ring\u0007' },
    'pct.v1': { text: '%{ if x }y%{ endif }' },
    'deep.v1': deep,
    'wide${x}.v1': { ok: true },
  });
  try {
    const ws = r.workspace('hostblocks', { 'main.tf': `module "plain" {\n  source  = "${r.host}/hostile/plain/aws"\n  version = "1.0.0"\n}\n` });
    const out = join(r.root, 'site-hostblocks');
    const json = await r.run(['mirror-modules', '--json', '--out', out, '--base-url', 'https://mirror.example.com/tf', ws]);
    assert.deepEqual(crashSigns(json), [], json.stderr);
    assert.equal(json.code, 0, json.stdout + json.stderr);
    const printed: string = JSON.parse(json.stdout).cliConfig;
    // what the human output ends with is the same text
    const human = await r.run(['mirror-modules', '--out', out, '--base-url', 'https://mirror.example.com/tf', ws]);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.endsWith(printed), human.stdout);

    const doc = parseHcl1(tofurc(printed));
    assert.deepEqual(hcl1Blocks(doc, 'credentials').map((b) => [b.labels, hcl1Plain(b.body)]), [
      [['app.terraform.io'], { token: 'tfe-token-before' }], [['registry.example.com'], { token: 'token-after' }],
    ], 'the credentials around the pasted block are read, and no other');
    assert.equal(hcl1Blocks(doc, 'provider_installation').length, 1);
    const hosts = hcl1Blocks(doc, 'host');
    assert.deepEqual(hosts.map((b) => b.labels), [[r.host], ['other.example.com']]);
    const services = hcl1Plain(hosts[0].body).services as Record<string, unknown>;
    assert.deepEqual(services, {
      'modules.v1': `https://mirror.example.com/tf/modules/${r.host}/`,
      'tfe.v2.1': `${r.reg.origin}/api/v2/`,
      'login.v1': { client: 'tofu-cli', grant_types: ['authz_code'], authz: `${r.reg.origin}/oauth/authorization`, token: `${r.reg.origin}/oauth/token`, ports: [10000, 10010] },
    });
    for (const id of ['providers.v1', 'evil.v1', 'evil2.v1', 'ctl.v1', 'pct.v1', 'deep.v1']) assert.match(printed, new RegExp(`# left out: the service "${id.replace('.', '\\.')}", whose value cannot be written safely in HCL 1`));
    assert.match(printed, /# left out: the service with a name that cannot be written safely/);
    const code = printed.split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n');
    // this project's reader (the editor's, the engine's) reads the same file the same way
    const ours = parseCliConfigHcl(tofurc(printed));
    assert.deepEqual(ours.hosts.map((x) => [x.host, x.services]), hosts.map((b) => [b.labels[0], hcl1Plain(b.body).services]));
    assert.deepEqual(ours.credentials.map((c) => c.host), ['app.terraform.io', 'registry.example.com']);
    assert.ok(!printed.includes('stolen') && !code.includes('${') && !code.includes('\u0007'), printed);
  } finally {
    r.reg.setDiscovery({ 'modules.v1': '/v1/modules', 'providers.v1': '/v1/providers/' });
  }
});
