// tofu-registry discover | versions | resolve: exact JSON shapes (a public contract) and failures.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { tempDir } from '../../support/registry-helpers';
import { withRegistry } from '../../support/registry-helpers';

const temps: Array<{ path: string; remove: () => void }> = [];
after(() => temps.forEach((t) => t.remove()));
function freshDir(): string {
  const t = tempDir('tofu-registry-cli-cache-');
  temps.push(t);
  return t.path;
}

/** Every run gets its own empty cache (XDG_CACHE_HOME in a temp dir) unless the env names one. */
async function run(args: string[], env: NodeJS.ProcessEnv = { HOME: '/nonexistent' }) {
  let stdout = '';
  let stderr = '';
  const e = { XDG_CACHE_HOME: freshDir(), ...env };
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: e, cwd: process.cwd() });
  return { code, stdout, stderr };
}

test('cli discover --json', () => withRegistry({}, async (reg) => {
  const r = await run(['discover', reg.host, '--json', '--ca-file', reg.caCertPath]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    host: reg.host,
    discoveryUrl: `${reg.origin}/.well-known/terraform.json`,
    finalUrl: `${reg.origin}/.well-known/terraform.json`,
    services: { 'modules.v1': `${reg.origin}/v1/modules/`, 'providers.v1': `${reg.origin}/v1/providers/` },
    cached: false,
  });
  const human = await run(['discover', reg.host, '--ca-file', reg.caCertPath]);
  assert.equal(human.code, 0);
  assert.match(human.stdout, /modules\.v1\s+https:\/\/127\.0\.0\.1:\d+\/v1\/modules\//);
}));

test('cli versions --json for modules and providers', () => withRegistry({}, async (reg) => {
  const m = await run(['versions', `${reg.host}/acme/network/aws`, '--constraint', '~> 1.2', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(m.code, 0, m.stderr);
  assert.deepEqual(JSON.parse(m.stdout), {
    address: `${reg.host}/acme/network/aws`, host: reg.host, kind: 'module',
    versions: ['3.0.0-rc.1', '2.1.0', '2.0.0', '2.0.0-beta.1', '1.10.0', '1.2.3', '1.2.0', '1.1.0', '1.0.0'],
    matching: ['1.10.0', '1.2.3', '1.2.0'], selected: '1.10.0', newest: '2.1.0',
  });
  const s = await run(['versions', `${reg.host}/acme/storage/azurerm`, '--json', '--ca-file', reg.caCertPath]);
  assert.deepEqual(JSON.parse(s.stdout).versions, ['1.1.0', 'v1.0.1', 'v1.0.0', 'v0.9.0']);
  const p = await run(['versions', `${reg.host}/acme/widget`, '--provider', '--constraint', '~> 1', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(p.code, 0, p.stderr);
  assert.deepEqual(JSON.parse(p.stdout), {
    address: `${reg.host}/acme/widget`, host: reg.host, kind: 'provider',
    versions: ['2.0.0', '2.0.0-alpha1', '1.1.0', '1.0.0'], matching: ['1.1.0', '1.0.0'], selected: '1.1.0', newest: '2.0.0',
  });
  const none = await run(['versions', `${reg.host}/acme/widget`, '--provider', '--constraint', '> 9', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(none.code, 0);
  assert.equal(JSON.parse(none.stdout).selected, null);
}));

test('cli resolve --json', () => withRegistry({}, async (reg) => {
  const r = await run(['resolve', `${reg.host}/infra/vpc/google`, '--version', '1.1.0', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    address: `${reg.host}/infra/vpc/google`, version: '1.1.0',
    downloadUrl: `${reg.origin}/v1/modules/infra/vpc/google/1.1.0/download`,
    location: `${reg.origin}/archives/infra/vpc/1.1.0.tar.gz`,
  });
}));

test('cli failures: exit 1, one line on stderr naming host/URL, JSON error object', () => withRegistry({}, async (reg) => {
  const r = await run(['versions', `${reg.host}/acme/missing/aws`, '--json', '--ca-file', reg.caCertPath]);
  assert.equal(r.code, 1);
  const url = `${reg.origin}/v1/modules/acme/missing/aws/versions`;
  assert.equal(r.stderr, `tofu-registry: module ${reg.host}/acme/missing/aws not found on ${reg.host} (404 Not Found for ${url})\n`);
  assert.deepEqual(JSON.parse(r.stdout), { error: { message: `module ${reg.host}/acme/missing/aws not found on ${reg.host} (404 Not Found for ${url})`, url, status: 404 } });

  const tls = await run(['discover', reg.host]); // CA not trusted
  assert.equal(tls.code, 1);
  assert.equal(tls.stderr.trim().split('\n').length, 1);
  assert.match(tls.stderr, /TLS certificate of 127\.0\.0\.1:\d+ is not trusted/);

  reg.setFault('/v1/modules/acme/network/aws/versions', 'hang');
  const started = Date.now();
  const hang = await run(['versions', `${reg.host}/acme/network/aws`, '--timeout', '1', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(hang.code, 1);
  assert.ok(Date.now() - started < 3000);
  assert.match(JSON.parse(hang.stdout).error.message, /timed out after 1 s/);

  const bad = await run(['versions', `${reg.host}/acme/widget`, '--provider', '--constraint', 'v1.0', '--ca-file', reg.caCertPath]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid version constraint "v1\.0": .*"v" prefix/);

  const local = await run(['resolve', './x', '--version', '1.0.0']);
  assert.equal(local.code, 1);
  assert.match(local.stderr, /is a local path, not a module registry address/);
}));

test('cli versions --provider of a built-in provider: exit 1, one clear line, JSON error, no request', () => withRegistry({}, async (reg) => {
  // terraform.io routed to the test registry by a host block: were it asked, the server would see it
  const cfg = join(freshDir(), 'tofurc');
  writeFileSync(cfg, `host "terraform.io" {\n  services = { "providers.v1" = "${reg.origin}/v1/providers/" }\n}\n`);
  const env = { HOME: '/nonexistent', TF_CLI_CONFIG_FILE: cfg };
  const before = reg.server.requests.length;
  const message = 'provider terraform.io/builtin/terraform is built into OpenTofu: it is never installed from a registry, so there are no versions to list or packages to download';
  const r = await run(['versions', 'terraform.io/builtin/terraform', '--provider', '--json', '--ca-file', reg.caCertPath], env);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `tofu-registry: ${message}\n`);
  assert.deepEqual(JSON.parse(r.stdout), { error: { message, url: null, status: null } });
  const human = await run(['versions', 'Terraform.IO/BuiltIn/Terraform', '--provider', '--ca-file', reg.caCertPath], env);
  assert.deepEqual([human.code, human.stdout, human.stderr], [1, '', `tofu-registry: ${message}\n`]);
  assert.equal(reg.server.requests.length, before);
  // the same host block still answers for a provider that is not built in
  const other = await run(['versions', 'terraform.io/acme/widget', '--provider', '--json', '--ca-file', reg.caCertPath], env);
  assert.equal(other.code, 0, other.stderr);
  assert.ok(reg.server.count('/v1/providers/acme/widget/versions') >= 1);
}));

test('cli usage errors exit 2; NODE_EXTRA_CA_CERTS is honoured', () => withRegistry({}, async (reg) => {
  assert.equal((await run(['resolve', `${reg.host}/acme/network/aws`])).code, 2);
  assert.equal((await run(['versions'])).code, 2);
  assert.equal((await run(['discover', 'a', 'b'])).code, 2);
  const r = await run(['discover', reg.host, '--json'], { HOME: '/nonexistent', NODE_EXTRA_CA_CERTS: reg.caCertPath });
  assert.equal(r.code, 0, r.stderr);
}));

test('cli as a real process (compiled): exit codes', () => withRegistry({}, async (reg) => {
  const cli = join(__dirname, '..', '..', '..', 'src', 'cli.js');
  const go = (args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [cli, ...args], { env: { HOME: '/nonexistent', XDG_CACHE_HOME: freshDir(), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR } }, (err, stdout, stderr) => {
      resolve({ code: err ? (err as { code?: number }).code ?? 1 : 0, stdout, stderr });
    });
  });
  const ok = await go(['versions', `${reg.host}/platform/cluster/kubernetes`, '--constraint', '0.3.0-beta', '--json', '--ca-file', reg.caCertPath]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).selected, '0.3.0-beta');
  const fail = await go(['discover', '127.0.0.1:9', '--json']);
  assert.equal(fail.code, 1);
  assert.match(fail.stderr, /^tofu-registry: service discovery for 127\.0\.0\.1:9 failed: cannot connect to 127\.0\.0\.1:9: connection refused/);
}));

test('cli disk cache: a second run answers from $XDG_CACHE_HOME/tofu-registry without any request', () => withRegistry({}, async (reg) => {
  const cache = freshDir();
  const env = { HOME: '/nonexistent', XDG_CACHE_HOME: cache };
  const ca = ['--ca-file', reg.caCertPath];
  const first = await run(['discover', reg.host, '--json', ...ca], env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).cached, false);
  const v1 = await run(['versions', `${reg.host}/acme/network/aws`, '--json', ...ca], env);
  assert.equal(v1.code, 0, v1.stderr);
  const p1 = await run(['versions', `${reg.host}/acme/widget`, '--provider', '--json', ...ca], env);
  assert.equal(p1.code, 0, p1.stderr);
  assert.equal(reg.server.count('/.well-known/terraform.json'), 1);
  const dir = join(cache, 'tofu-registry');
  assert.deepEqual(readdirSync(dir).sort(), ['discovery', 'module-versions', 'provider-versions']);
  assert.equal(statSync(join(dir, 'discovery')).mode & 0o777, 0o700);
  const file = join(dir, 'discovery', readdirSync(join(dir, 'discovery'))[0]);
  assert.equal(statSync(file).mode & 0o777, 0o600);

  // a new process (a new Engine) with the same cache: discovery and version lists from disk
  const before = reg.server.requests.length;
  const second = await run(['discover', reg.host, '--json', ...ca], env);
  assert.deepEqual(JSON.parse(second.stdout), { ...JSON.parse(first.stdout), cached: true });
  const v2 = await run(['versions', `${reg.host}/acme/network/aws`, '--json', ...ca], env);
  assert.deepEqual(JSON.parse(v2.stdout), JSON.parse(v1.stdout));
  const p2 = await run(['versions', `${reg.host}/acme/widget`, '--provider', '--json', ...ca], env);
  assert.deepEqual(JSON.parse(p2.stdout), JSON.parse(p1.stdout));
  assert.equal(reg.server.requests.length, before, 'no request at all on the warm run');

  // --no-cache: memory only, nothing read or written
  const fresh = await run(['discover', reg.host, '--json', '--no-cache', ...ca], env);
  assert.equal(JSON.parse(fresh.stdout).cached, false);
  assert.equal(reg.server.count('/.well-known/terraform.json'), 2);
  // --cache-dir DIR (relative to the working directory) instead of the default
  const other = freshDir();
  const a = await run(['discover', reg.host, '--json', '--cache-dir', join(other, 'c'), ...ca], env);
  const b = await run(['discover', reg.host, '--json', `--cache-dir=${join(other, 'c')}`, ...ca], env);
  assert.deepEqual([JSON.parse(a.stdout).cached, JSON.parse(b.stdout).cached], [false, true]);
  assert.ok(existsSync(join(other, 'c', 'discovery')));
  assert.equal((await run(['discover', reg.host, '--no-cache', '--cache-dir', other], env)).code, 2);
}));

test('cli default cache dir: ~/.cache/tofu-registry without XDG_CACHE_HOME', () => withRegistry({}, async (reg) => {
  const home = freshDir();
  const r = await run(['discover', reg.host, '--json', '--ca-file', reg.caCertPath], { HOME: home, XDG_CACHE_HOME: '' });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(join(home, '.cache', 'tofu-registry', 'discovery')));
}));
