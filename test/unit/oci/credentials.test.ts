// OCI credential lookup against OpenTofu's documented precedence ("OCI Registry Credentials" and
// internal/command/cliconfig/ociauthconfig): the most specific repository prefix wins; among equals
// explicit oci_credentials blocks beat Docker-style files, and files keep OpenTofu's order;
// credHelpers (per host) beat credsStore (global); oci_default_credentials can turn files off or
// name others; a docker-credential-NAME helper runs only when its entry wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ambientDockerFiles, OciCredentials, patternSpecificity } from '../../../src/engine/oci';
import { parseCliConfig } from '../../../src/engine/cliconfig/read';
import { tempDir } from '../../support/temp';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const auth = (user: string) => ({ auth: b64(`${user}:pw-${user}`) });

function put(root: string, rel: string, text: string): string {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

function store(home: string, rc: string | undefined, env: NodeJS.ProcessEnv = {}): OciCredentials {
  return new OciCredentials({
    env: { HOME: home, PATH: `${join(home, 'bin')}:${process.env.PATH}`, ...env }, platform: 'linux',
    cliConfig: () => (rc !== undefined ? [{ file: join(home, '.tofurc'), doc: parseCliConfig(rc) }] : []),
  });
}

test('pattern specificity: host 2, each whole path segment one more, partial segments never match', () => {
  const rows: Array<[string, string, string, number]> = [
    ['example.com', 'example.com', 'foo/bar', 2],
    ['example.com/foo', 'example.com', 'foo/bar', 3],
    ['example.com/foo/bar', 'example.com', 'foo/bar', 4],
    ['example.com/foo/bar/baz', 'example.com', 'foo/bar', 0],
    ['example.com/fo', 'example.com', 'foo/bar', 0],
    ['example.com:5000', 'example.com', 'foo', 0],
    ['example.com:5000/foo', 'example.com:5000', 'foo', 3],
    ['other.com', 'example.com', 'foo', 0],
    ['https://example.com', 'example.com', 'foo', 0],
    ['', 'example.com', 'foo', 0],
  ];
  for (const [pattern, registry, repo, want] of rows) assert.equal(patternSpecificity(pattern, registry, repo), want, `${pattern} for ${registry}/${repo}`);
});

test('ambient files in OpenTofu order (Linux: XDG_RUNTIME_DIR first; macOS/Windows: ~/.config first)', () => {
  assert.deepEqual(ambientDockerFiles({ HOME: '/h', XDG_RUNTIME_DIR: '/run/u', XDG_CONFIG_HOME: '/cfg' }, 'linux'),
    ['/run/u/containers/auth.json', '/cfg/containers/auth.json', '/h/.docker/config.json', '/h/.dockercfg']);
  assert.deepEqual(ambientDockerFiles({ HOME: '/h' }, 'linux'), ['/h/.config/containers/auth.json', '/h/.docker/config.json', '/h/.dockercfg']);
  assert.deepEqual(ambientDockerFiles({ HOME: '/h' }, 'darwin'), ['/h/.config/containers/auth.json', '/h/.docker/config.json', '/h/.dockercfg'],
    'the duplicate of ~/.config/containers/auth.json is read once');
});

test('precedence table', async () => {
  const home = tempDir('oci-cred-');
  const run = put(home, 'run/containers/auth.json', JSON.stringify({ auths: { 'r.example': auth('xdg-run'), 'r.example/team': auth('xdg-run-team') } }));
  put(home, '.config/containers/auth.json', JSON.stringify({ auths: { 'r.example': auth('xdg-config'), 'r.example/team/app': auth('xdg-config-app') } }));
  put(home, '.docker/config.json', JSON.stringify({ auths: { 'r.example/team/app/deep': auth('docker-deep') }, credHelpers: { 'h.example': 'fake' }, credsStore: 'fake' }));
  // a real docker-credential helper program on PATH: answers for h.example only, records each run
  put(home, 'bin/docker-credential-fake', `#!/bin/sh\nread url\necho "$url" >> "${join(home, 'helper-runs')}"\ncase "$url" in\n  https://h.example) echo '{"ServerURL":"https://h.example","Username":"helper-user","Secret":"helper-pw"}';;\n  https://t.example) echo '{"ServerURL":"https://t.example","Username":"<token>","Secret":"id-token"}';;\n  *) echo 'credentials not found in native keychain'; exit 1;;\nesac\n`);
  chmodSync(join(home, 'bin/docker-credential-fake'), 0o755);
  const rc = `oci_credentials "r.example/team" {\n  username = "block-team"\n  password = "pw"\n}\noci_credentials "x.example" {\n  access_token = "acc"\n  refresh_token = "ref"\n}\n`;
  const s = store(home, rc, { XDG_RUNTIME_DIR: join(home, 'run') });
  const who = async (registry: string, repository: string) => {
    const a = await s.lookup({ registry, repository });
    return a?.credential?.username ?? a?.credential?.accessToken ?? a?.credential?.refreshToken ?? (a ? `none: ${a.error}` : undefined);
  };
  const rows: Array<[string, string, string | undefined, string]> = [
    ['r.example', 'other', 'xdg-run', 'host only: the earliest file wins among equals'],
    ['r.example', 'team/x', 'block-team', 'explicit block beats a file entry of the same specificity'],
    ['r.example', 'team/app/x', 'xdg-config-app', 'a longer prefix beats the explicit block'],
    ['r.example', 'team/app/deep/x', 'docker-deep', 'the longest prefix wins, whatever file'],
    ['h.example', 'any', 'helper-user', 'credHelpers for the host (run: the helper answered)'],
    ['t.example', 'any', 'id-token', 'credsStore: "<token>" is an identity (refresh) token'],
    ['x.example', 'any', 'acc', 'OAuth access and refresh token from a block'],
    ['n.example', 'any', 'none: exited with code 1 (its error output is not shown: run it by hand to see why)', 'credsStore answers for every host; one that knows none says so'],
  ];
  for (const [registry, repo, want, why] of rows) assert.equal(await who(registry, repo), want, why);
  const { readFileSync } = await import('node:fs');
  assert.deepEqual(readFileSync(join(home, 'helper-runs'), 'utf8').trim().split('\n'), ['https://h.example', 'https://t.example', 'https://n.example'],
    'the helper ran only where its entry won');
  assert.ok(s.searched().some((w) => w.includes(run)));
});

test('oci_default_credentials: ambient discovery off, other files, a global helper below everything else', async () => {
  const home = tempDir('oci-cred-');
  put(home, '.docker/config.json', JSON.stringify({ auths: { 'r.example': auth('docker') } }));
  put(home, 'custom.json', JSON.stringify({ auths: { 'r.example': auth('custom') } }));
  assert.equal(await store(home, 'oci_default_credentials {\n  discover_ambient_credentials = false\n}\n').lookup({ registry: 'r.example', repository: 'a' }), undefined);
  assert.equal((await store(home, 'oci_default_credentials {\n  docker_style_config_files = ["custom.json"]\n}\n').lookup({ registry: 'r.example', repository: 'a' }))?.credential?.username, 'custom',
    'relative to the CLI configuration file; the default files are not read');
  const s = store(home, 'oci_default_credentials {\n  docker_credentials_helper = "nothere"\n}\n');
  assert.equal((await s.lookup({ registry: 'r.example', repository: 'a' }))?.credential?.username, 'docker', 'a host entry beats the global helper');
  const other = await s.lookup({ registry: 'o.example', repository: 'a' });
  assert.match(other?.source ?? '', /^docker-credential-nothere \(oci_default_credentials in /);
  assert.match(other?.error ?? '', /could not be started/);
});
