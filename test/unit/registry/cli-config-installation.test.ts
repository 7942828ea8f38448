// The CLI configuration's `host` blocks (instead of service discovery) and provider_installation
// methods (network mirror, filesystem mirror, direct) — parsed from real files, served over real
// HTTPS by the test registry, read from real directories.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../../../src/cli';
import { Engine } from '../../../src/engine/engine';
import { canHandle, parsePattern, parsePatterns } from '../../../src/engine/cliconfig/patterns';
import { loadCliSettings, parseCliSettings } from '../../../src/engine/cliconfig/settings';
import { sourceFor } from '../../../src/engine/mirror';
import { parseProviderSource } from '../../../src/engine/addresses/provider-source';
import { RegistryError } from '../../../src/engine/net/errors';
import { filesystemMirrorVersions } from '../../../src/engine/registry/installation';
import { sendJson } from '../../support/https-server';
import { tempDir, testEngine, withRegistry } from '../../support/registry-helpers';
import type { TestRegistry } from '../../support/registry-server';

const temps: Array<{ remove: () => void }> = [];
after(() => temps.forEach((t) => t.remove()));
function dir(): string {
  const t = tempDir('tofu-registry-cliconf-');
  temps.push(t);
  return t.path;
}
function configFile(text: string, name = 'tofurc'): string {
  const f = join(dir(), name);
  writeFileSync(f, text);
  return f;
}

/** A network mirror for any host at /airgap/ on the test registry: HOST/NS/TYPE/index.json. */
function serveMirror(reg: TestRegistry, offers: Record<string, string[]>): void {
  reg.server.route('/airgap/', (_req, res, url) => {
    const m = /^\/airgap\/(.+)\/index\.json$/.exec(url.pathname);
    const versions = m && offers[decodeURIComponent(m[1])];
    if (!versions) return void sendJson(res, 404, { errors: ['not found'] });
    sendJson(res, 200, { versions: Object.fromEntries(versions.map((v) => [v, {}])) });
  });
}

// ---------------------------------------------------------------------------------------------
// Parsing

test('parses host and provider_installation blocks from HCL native syntax', () => {
  const raw = parseCliSettings(`
credentials "example.com" { token = "x" }
host "Example.COM" {
  services = {
    "modules.v1"   = "https://example.com/m/",
    "providers.v1" = "/p/"
  }
}
provider_installation {
  network_mirror {
    url     = "https://mirror.example/providers/"
    include = ["registry.opentofu.org/hashicorp/*"]
  }
  filesystem_mirror {
    path    = "/opt/providers"
    exclude = ["example.com/*/*"]
  }
  direct {
    exclude = ["registry.opentofu.org/hashicorp/*"]
  }
}
plugin_cache_dir = "/tmp/x"
`);
  assert.deepEqual(raw.hosts, [{ host: 'Example.COM', services: { 'modules.v1': 'https://example.com/m/', 'providers.v1': '/p/' } }]);
  assert.deepEqual(raw.installations, [[
    { kind: 'network_mirror', attrs: { url: 'https://mirror.example/providers/', include: ['registry.opentofu.org/hashicorp/*'] } },
    { kind: 'filesystem_mirror', attrs: { path: '/opt/providers', exclude: ['example.com/*/*'] } },
    { kind: 'direct', attrs: { exclude: ['registry.opentofu.org/hashicorp/*'] } },
  ]]);
});

test('parses the JSON form (HCL 1 decides by the leading "{", whatever the file name)', () => {
  const raw = parseCliSettings(JSON.stringify({
    host: { 'example.com': { services: { 'providers.v1': 'https://example.com/p/' } } },
    provider_installation: [{ network_mirror: [{ url: 'https://m.example/' }], direct: { exclude: ['a/b'] } }],
  }));
  assert.deepEqual(raw.hosts, [{ host: 'example.com', services: { 'providers.v1': 'https://example.com/p/' } }]);
  assert.deepEqual(raw.installations, [[
    { kind: 'network_mirror', attrs: { url: 'https://m.example/' } },
    { kind: 'direct', attrs: { exclude: ['a/b'] } },
  ]]);
});

test('loadCliSettings validates: normalised hosts, one provider_installation, bad methods dropped with a warning', () => {
  const f = configFile(`
host "EXAMPLE.com:443" { services = { "providers.v1" = "https://example.com/p/" } }
host "bad host!" { services = {} }
provider_installation {
  network_mirror { include = ["a/b"] }
  filesystem_mirror { path = "mirror-dir" }
  direct { include = ["*/hashicorp/aws"] }
  oci_mirror { repository_template = "x" }
}
provider_installation { direct {} }
`);
  const warnings: string[] = [];
  const s = loadCliSettings([f, join(dir(), 'missing')], (m) => warnings.push(m));
  assert.deepEqual([...s.hosts.keys()], ['example.com']);
  assert.equal(s.installation?.file, f);
  // network_mirror without url, direct with an invalid pattern and oci_mirror are dropped.
  assert.deepEqual(s.installation?.methods.map((m) => [m.kind, m.location]), [['filesystem_mirror', join(f, '..', 'mirror-dir')]]);
  assert.equal(warnings.length, 5, warnings.join('\n'));
  assert.ok(warnings.some((w) => /"url" argument is required/.test(w)));
  assert.ok(warnings.some((w) => /hostname can be a wildcard only if/.test(w)));
  assert.ok(warnings.some((w) => /second provider_installation/.test(w)));
});

// ---------------------------------------------------------------------------------------------
// include / exclude, as internal/getproviders/multi_source.go

test('matching patterns follow OpenTofu (table)', () => {
  const p = (s: string) => parseProviderSource(s);
  const cases: Array<[string[], string[], string, boolean]> = [
    [[], [], 'hashicorp/aws', true], // no include: everything
    [['registry.opentofu.org/hashicorp/*'], [], 'hashicorp/aws', true],
    [['registry.opentofu.org/hashicorp/*'], [], 'acme/aws', false],
    [['hashicorp/*'], [], 'registry.opentofu.org/hashicorp/aws', true], // no host → default host
    [['hashicorp/*'], [], 'example.com/hashicorp/aws', false],
    [['example.com/*/*'], [], 'EXAMPLE.com/Acme/Widget', true],
    [['example.com/*/*'], [], 'example.org/acme/widget', false],
    [['*/*/*'], ['example.com/*/*'], 'example.com/acme/widget', false], // exclusion wins
    [['*/*/*'], ['example.com/*/*'], 'hashicorp/aws', true],
    [[], ['hashicorp/aws'], 'hashicorp/aws', false],
    [[], ['hashicorp/aws'], 'hashicorp/azurerm', true],
    [['127.0.0.1:8443/acme/widget'], [], '127.0.0.1:8443/acme/widget', true],
    [['127.0.0.1:8443/acme/widget'], [], '127.0.0.1:9443/acme/widget', false],
  ];
  for (const [include, exclude, addr, want] of cases) {
    assert.equal(canHandle({ include: parsePatterns(include), exclude: parsePatterns(exclude) }, p(addr)), want,
      `include ${JSON.stringify(include)} exclude ${JSON.stringify(exclude)} ${addr}`);
  }
  for (const [bad, why] of [
    ['aws', /two or three slash-separated segments/], ['a/b/c/d', /two or three/],
    ['*/hashicorp/aws', /hostname can be a wildcard only if/], ['*/aws', /namespace can be a wildcard only if/],
    ['hashicorp/a_b', /invalid provider type/], ['bad host!/a/b', /invalid hostname/],
  ] as const) {
    assert.throws(() => parsePattern(bad), why, bad);
  }
});

// ---------------------------------------------------------------------------------------------
// host blocks instead of discovery

test('a host block answers service discovery: no request to /.well-known', () => withRegistry({}, async (reg) => {
  const f = configFile(`host "${reg.host}" {\n  services = {\n    "providers.v1" = "/v1/providers/"\n    "modules.v1" = "${reg.origin}/v1/modules"\n    "login.v1" = { client = "x" }\n  }\n}\n`);
  const engine = testEngine(reg, { cliConfigFile: f });
  try {
    const d = await engine.discoverServices(reg.host);
    assert.equal(d.source, 'cli-config');
    assert.equal(d.discoveryUrl, pathToFileURL(f).href);
    assert.equal(d.finalUrl, pathToFileURL(f).href);
    // Relative URLs resolve against the host's discovery URL; modules.v1 gets its "/".
    assert.deepEqual(d.services, { 'providers.v1': `${reg.origin}/v1/providers/`, 'modules.v1': `${reg.origin}/v1/modules/` });
    const v = await engine.listProviderVersions(`${reg.host}/acme/widget`);
    assert.deepEqual(v.versions.map((x) => x.version), ['2.0.0', '2.0.0-alpha1', '1.1.0', '1.0.0']);
    assert.equal(v.sources, undefined); // no provider_installation block: the origin, as before
    assert.equal(reg.server.count('/.well-known/'), 0);
    assert.equal(reg.server.count('/v1/providers/acme/widget/versions'), 1);
  } finally {
    await engine.dispose();
  }
}));

test('cli discover --json keeps its contract for a host block (file:// URLs)', () => withRegistry({}, async (reg) => {
  const f = configFile(`host "${reg.host}" { services = { "providers.v1" = "https://p.example/v1/" } }\n`);
  let stdout = '';
  const code = await main(['discover', reg.host, '--json'], {
    stdout: (t) => { stdout += t; }, stderr: () => {}, env: { HOME: '/nonexistent', XDG_CACHE_HOME: dir(), TF_CLI_CONFIG_FILE: f }, cwd: process.cwd(),
  });
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(stdout), {
    host: reg.host, discoveryUrl: pathToFileURL(f).href, finalUrl: pathToFileURL(f).href,
    services: { 'providers.v1': 'https://p.example/v1/' }, cached: false,
  });
  assert.equal(reg.server.requests.length, 0);
}));

// ---------------------------------------------------------------------------------------------
// provider_installation

test('network_mirror answers provider versions; the origin is never asked', () => withRegistry({}, async (reg) => {
  serveMirror(reg, { 'registry.opentofu.org/hashicorp/random': ['3.6.0', '3.5.0', '3.7.0-beta1', 'bogus'] });
  const f = configFile(`provider_installation {\n  network_mirror {\n    url = "${reg.origin}/airgap/"\n  }\n}\n`);
  const engine = testEngine(reg, { cliConfigFile: f });
  try {
    const v = await engine.listProviderVersions('hashicorp/random');
    assert.deepEqual(v.versions.map((x) => x.version), ['3.7.0-beta1', '3.6.0', '3.5.0']);
    assert.deepEqual(v.invalid, ['bogus']);
    assert.deepEqual(v.sources, [{ method: 'network_mirror', location: `${reg.origin}/airgap/` }]);
    assert.equal(v.url, `${reg.origin}/airgap/registry.opentofu.org/hashicorp/random/index.json`);
    assert.equal(reg.server.count('/airgap/'), 1);
    // Not in the mirror, and no other method: not-found naming the mirror.
    await assert.rejects(engine.listProviderVersions('hashicorp/aws'), (err: unknown) =>
      err instanceof RegistryError && err.code === 'not-found' && err.message.includes(`${reg.origin}/airgap/`));
    assert.equal(reg.server.count('/.well-known/'), 0);
  } finally {
    await engine.dispose();
  }
}));

test('network mirror credentials go to the mirror host only', () => withRegistry({ token: 'mirror-secret' }, async (reg) => {
  serveMirror(reg, { 'registry.opentofu.org/hashicorp/random': ['3.6.0'] });
  const f = configFile(`credentials "${reg.host}" { token = "mirror-secret" }\nprovider_installation {\n  network_mirror { url = "${reg.origin}/airgap/" }\n}\n`);
  const engine = testEngine(reg, { cliConfigFile: f });
  try {
    await engine.listProviderVersions('hashicorp/random');
    const req = reg.server.requests.find((r) => r.path.startsWith('/airgap/'));
    assert.equal(req?.authorization, 'Bearer mirror-secret');
  } finally {
    await engine.dispose();
  }
}));

test('methods are chosen by include/exclude; versions are the union, first method wins; an unreachable origin does not hide the mirror', () => withRegistry({}, async (reg) => {
  serveMirror(reg, { [`${reg.host}/acme/widget`]: ['1.0.0', '9.9.9'], '127.0.0.1:1/acme/widget': ['1.0.0'] });
  const f = configFile(`provider_installation {
  network_mirror {
    url     = "${reg.origin}/airgap/"
    include = ["${reg.host}/*/*", "registry.opentofu.org/hashicorp/*"]
  }
  direct {
    include = ["${reg.host}/*/*", "127.0.0.1:1/*/*"]
    exclude = ["registry.opentofu.org/hashicorp/*"]
  }
}
`);
  const logs: string[] = [];
  const engine = testEngine(reg, { cliConfigFile: f, log: (e) => logs.push(e.message) });
  try {
    const v = await engine.listProviderVersions(`${reg.host}/acme/widget`);
    assert.deepEqual(v.versions.map((x) => x.version), ['9.9.9', '2.0.0', '2.0.0-alpha1', '1.1.0', '1.0.0']);
    assert.deepEqual(v.versions.find((x) => x.version === '1.1.0')?.protocols, ['5.0']); // from the origin
    assert.deepEqual(v.versions.find((x) => x.version === '1.0.0')?.protocols, []); // the mirror's entry won
    assert.deepEqual(v.sources?.map((s) => s.method), ['network_mirror', 'direct']);
    // hashicorp/* goes to the mirror only (excluded from direct): the origin is never asked.
    await assert.rejects(engine.listProviderVersions('hashicorp/random'), /not found by any installation method/);
    // A provider no method includes.
    await assert.rejects(engine.listProviderVersions('example.com/acme/x'), /no method of the provider_installation block/);
  } finally {
    await engine.dispose();
  }
  // The origin unreachable (nothing listens on 127.0.0.1:1): the mirror still answers, the
  // failure is logged. tofu init would stop here; an editor shows what the mirror offers.
  const down = configFile(`provider_installation {\n  network_mirror { url = "${reg.origin}/airgap/" }\n  direct {}\n}\n`);
  const e2 = testEngine(reg, { cliConfigFile: down, log: (e) => logs.push(e.message) });
  try {
    const v = await e2.listProviderVersions('127.0.0.1:1/acme/widget');
    assert.deepEqual(v.versions.map((x) => x.version), ['1.0.0']);
    assert.deepEqual(v.sources?.map((s) => s.method), ['network_mirror']);
    assert.ok(logs.some((m) => /origin registry 127\.0\.0\.1:1 failed/.test(m)), logs.join('\n'));
    // With the mirror down too, the first failure is thrown.
    reg.setFault('/airgap/', '500');
    await assert.rejects(e2.listProviderVersions('127.0.0.1:1/acme/other'), (err: unknown) => err instanceof RegistryError && err.code !== 'not-found');
  } finally {
    await e2.dispose();
  }
}));

test('the mirror command still copies from the origin registry', () => withRegistry({}, async (reg) => {
  const f = configFile(`provider_installation {\n  network_mirror { url = "${reg.origin}/nowhere/" }\n}\n`);
  const engine = testEngine(reg, { cliConfigFile: f });
  try {
    const versions = await sourceFor(engine).listVersions(parseProviderSource(`${reg.host}/hashicorp/random`));
    assert.deepEqual(versions, ['3.6.0', '3.5.0']);
    assert.equal(reg.server.count('/nowhere/'), 0);
  } finally {
    await engine.dispose();
  }
}));

test('filesystem_mirror: packed and unpacked layouts, hostnames and names normalised', async () => {
  const base = dir();
  const t = join(base, 'Registry.OpenTofu.org', 'HashiCorp', 'random');
  mkdirSync(join(t, '3.5.0', 'linux_amd64'), { recursive: true });
  mkdirSync(join(t, '3.5.0', 'darwin_arm64'), { recursive: true });
  mkdirSync(join(t, '3.4.0'), { recursive: true }); // no platform directory: nothing installable
  mkdirSync(join(t, '0.0.0', 'linux_amd64'), { recursive: true }); // tofu init skips 0.0.0
  writeFileSync(join(t, 'terraform-provider-random_3.6.1_linux_amd64.zip'), 'zip');
  writeFileSync(join(t, 'terraform-provider-random_3.6.1_windows_amd64.zip'), 'zip');
  writeFileSync(join(t, 'terraform-provider-other_9.0.0_linux_amd64.zip'), 'zip'); // another type's name
  writeFileSync(join(t, 'terraform-provider-random_notaversion_linux_amd64.zip'), 'zip');
  writeFileSync(join(t, 'index.json'), '{"versions":{"7.0.0":{}}}'); // the network-mirror layout is not read
  mkdirSync(join(base, 'example.com', 'hashicorp', 'random', '8.0.0', 'linux_amd64'), { recursive: true });
  const v = await filesystemMirrorVersions(base, parseProviderSource('hashicorp/random'));
  assert.deepEqual(v.versions.map((x) => [x.version, x.platforms.map((p) => `${p.os}_${p.arch}`).sort()]), [
    ['3.6.1', ['linux_amd64', 'windows_amd64']],
    ['3.5.0', ['darwin_arm64', 'linux_amd64']],
  ]);
  await assert.rejects(filesystemMirrorVersions(base, parseProviderSource('hashicorp/aws')), /has no provider registry\.opentofu\.org\/hashicorp\/aws/);
  await assert.rejects(filesystemMirrorVersions(join(base, 'missing'), parseProviderSource('hashicorp/aws')), /does not exist/);
});

test('filesystem_mirror of 10,050 versions: versions --provider lists every one; a listing cut at the bound says so (the engine\'s list, its disk cache, then the CLI\'s stderr and "warnings" in --json)', { timeout: 60_000 }, async () => {
  const base = dir();
  const t = join(base, 'registry.opentofu.org', 'hashicorp', 'many');
  mkdirSync(t, { recursive: true });
  const N = 10_050;
  for (let i = 1; i <= N; i++) writeFileSync(join(t, `terraform-provider-many_1.0.${i}_linux_amd64.zip`), '');
  const cfg = configFile(`provider_installation {\n  filesystem_mirror {\n    path = "${base}"\n  }\n}\n`);
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await main(['versions', 'hashicorp/many', '--provider', ...args],
      { stdout: (x) => { stdout += x; }, stderr: (x) => { stderr += x; }, env: { HOME: '/nonexistent', TF_CLI_CONFIG_FILE: cfg }, cwd: base });
    return { code, stdout, stderr };
  };
  const { code, stdout, stderr } = await run('--json', '--no-cache');
  assert.deepEqual([code, stderr], [0, '']);
  const out = JSON.parse(stdout);
  assert.equal(out.versions.length, N, 'every version of the mirror');
  assert.deepEqual([out.selected, out.newest, out.warnings], [`1.0.${N}`, `1.0.${N}`, undefined]);
  // past the bound: the list is cut, and says so — in the function's answer and through the engine (cached with it)
  const cut = await filesystemMirrorVersions(base, parseProviderSource('hashicorp/many'), { maxEntries: 10_000 });
  assert.equal(cut.versions.length, 10_000);
  assert.deepEqual(cut.warnings, [`the filesystem mirror directory ${t} holds 10,050 entries: only the first 10,000 by name were read, so what is listed from it may be incomplete`]);
  const cache = dir();
  for (let round = 0; round < 2; round++) {
    const engine = new Engine({ env: { HOME: '/nonexistent' }, cliConfigFile: cfg, cacheDir: cache, maxFsMirrorEntries: 10_000 });
    try {
      const list = await engine.listProviderVersions('hashicorp/many');
      assert.equal(list.cached, round === 1);
      assert.equal(list.versions.length, 10_000);
      assert.deepEqual(list.warnings, cut.warnings);
    } finally {
      await engine.dispose();
    }
  }
  // the CLI answering from that cache (same configuration, same key) says it on stderr and in --json
  const json = await run('--json', '--cache-dir', cache);
  assert.equal(json.code, 0);
  assert.equal(json.stderr, `tofu-registry: warning: ${cut.warnings![0]}\n`);
  const said = JSON.parse(json.stdout);
  assert.deepEqual([said.versions.length, said.warnings], [10_000, cut.warnings]);
  assert.deepEqual(Object.keys(said), ['address', 'host', 'kind', 'versions', 'matching', 'selected', 'newest', 'warnings'], 'a new field last, the others as before');
  const human = await run('--cache-dir', cache);
  assert.equal(human.stderr, json.stderr);
});

test('filesystem_mirror through the engine, then direct for the rest', () => withRegistry({}, async (reg) => {
  const base = dir();
  mkdirSync(join(base, 'registry.opentofu.org', 'hashicorp', 'random', '3.5.0', 'linux_amd64'), { recursive: true });
  const f = configFile(`provider_installation {\n  filesystem_mirror {\n    path    = "${base}"\n    include = ["hashicorp/*"]\n  }\n  direct {\n    exclude = ["hashicorp/*"]\n  }\n}\n`);
  const engine = testEngine(reg, { cliConfigFile: f });
  try {
    const v = await engine.listProviderVersions('hashicorp/random');
    assert.deepEqual(v.versions.map((x) => x.version), ['3.5.0']);
    assert.deepEqual(v.sources, [{ method: 'filesystem_mirror', location: base }]);
    const w = await engine.listProviderVersions(`${reg.host}/acme/widget`);
    assert.equal(w.versions.length, 4);
    assert.deepEqual(w.sources, [{ method: 'direct', location: reg.host }]);
    assert.equal(reg.server.count('/.well-known/'), 1);
  } finally {
    await engine.dispose();
  }
}));

test('cli versions --provider with TF_CLI_CONFIG_FILE: same JSON contract, human output names the mirror', () => withRegistry({}, async (reg) => {
  serveMirror(reg, { 'registry.opentofu.org/hashicorp/random': ['3.5.0', '3.6.0'] });
  const f = configFile(`provider_installation {\n  network_mirror { url = "${reg.origin}/airgap/" }\n}\n`);
  const run = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await main(args, {
      stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; },
      env: { HOME: '/nonexistent', XDG_CACHE_HOME: dir(), TF_CLI_CONFIG_FILE: f }, cwd: process.cwd(),
    });
    return { code, stdout, stderr };
  };
  const j = await run(['versions', 'hashicorp/random', '--provider', '--constraint', '~> 3.5.0', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(j.code, 0, j.stderr);
  assert.deepEqual(JSON.parse(j.stdout), {
    address: 'registry.opentofu.org/hashicorp/random', host: 'registry.opentofu.org', kind: 'provider',
    versions: ['3.6.0', '3.5.0'], matching: ['3.5.0'], selected: '3.5.0', newest: '3.6.0',
  });
  const h = await run(['versions', 'hashicorp/random', '--provider', '--ca-file', reg.caCertPath]);
  assert.equal(h.code, 0, h.stderr);
  assert.ok(h.stdout.includes(`from network mirror ${reg.origin}/airgap/`), h.stdout);
  assert.equal(reg.server.count('/.well-known/'), 0);
}));
