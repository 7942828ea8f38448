// A hostile OCI registry (test/support/hostile-oci.ts) against the real CLI and the language server:
// tag names outside the distribution spec's grammar are left out with one note and no line of
// output is the registry's (a tag holding a newline); a registry dripping a byte a second ends
// `versions` within twice the request timeout, saying how many attempts and how long; credentials
// echoed back in a 400 (the password, the Basic blob, a token the realm handed out) are printed
// nowhere — human, --json, the language server's log; a Bearer realm on another host gets the
// registry's credentials only over HTTPS and never after a redirect.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI } from '../../support/hostile-registry';
import { ECHO_PASSWORD, ECHO_USER, HostileOciRegistry, ISSUED_TOKEN, startHostileOci } from '../../support/hostile-oci';
import { startLsp } from '../../support/lsp-client';
import { tempDir } from '../../support/temp';
import { Engine } from '../../../src/engine/engine';

let reg: HostileOciRegistry;
let root: string;
let rc: string;
before(async () => {
  reg = await startHostileOci();
  root = tempDir('hostile-oci-');
  rc = join(root, 'tofurc');
  writeFileSync(rc, `oci_credentials "${reg.host}" {\n  username = "${ECHO_USER}"\n  password = "${ECHO_PASSWORD}"\n}\n`);
});
after(async () => { await reg.stop(); });

const BLOB = Buffer.from(`${ECHO_USER}:${ECHO_PASSWORD}`).toString('base64');
const SECRETS = [ECHO_PASSWORD, BLOB, ISSUED_TOKEN];
// every control character but the line breaks (and tabs) of the product's own layout
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

interface Run { code: number | null; stdout: string; stderr: string; ms: number }

function run(args: string[]): Promise<Run> {
  const env = { PATH: process.env.PATH, HOME: join(root, 'home'), TF_CLI_CONFIG_FILE: rc, NODE_EXTRA_CA_CERTS: reg.caCertPath, XDG_CACHE_HOME: tempDir('hostile-oci-cache-') };
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(killer); resolve({ code, stdout, stderr, ms: Date.now() - started }); }));
}

function assertNoSecrets(text: string, what: string): void {
  for (const s of SECRETS) assert.ok(!text.includes(s), `${what} shows ${s}:\n${text}`);
  assert.ok(!text.includes(`${ECHO_USER}:${ECHO_PASSWORD}`), `${what} shows user:password`);
}

test('versions oci://: names outside the tag grammar are left out with one note; no line of output is the registry\'s, no control character reaches the terminal', { timeout: 60_000 }, async () => {
  const human = await run(['versions', `oci://${reg.host}/evil/tags`]);
  assert.equal(human.code, 0, human.stderr);
  const out = human.stdout + human.stderr;
  assert.ok(!out.includes('INJECTED'), `a line the registry wrote:\n${out}`);
  for (const bad of ['../../x', '%2e%2e%2f', '/etc', '.hidden', 'red']) assert.ok(!out.includes(bad), `${bad} listed:\n${out}`);
  assert.doesNotMatch(out, CONTROL);
  assert.match(human.stdout, /^ {2}tags: {5}v2\.0\.0 1\.0\.0$/m);
  const notes = human.stderr.split('\n').filter(Boolean);
  assert.equal(notes.length, 1, human.stderr);
  assert.match(notes[0], /^tofu-registry: warning: oci:\/\/127\.0\.0\.1:\d+\/evil\/tags lists 8 names that are not valid tags .*left out$/);

  const json = await run(['versions', `oci://${reg.host}/evil/tags`, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.deepEqual(doc.versions, ['v2.0.0', '1.0.0']);
  assert.deepEqual(doc.tags.map((t: { tag: string }) => t.tag), ['v2.0.0', '1.0.0']);
  assert.equal(doc.invalidTags, 8);
  assert.ok(!json.stdout.includes('INJECTED'));
});

test('a registry dripping a byte a second: versions ends within twice the request timeout, naming the attempts and the time', { timeout: 60_000 }, async () => {
  const timeoutS = 2;
  const r = await run(['versions', `oci://${reg.host}/slow/drip`, '--timeout', String(timeoutS)]);
  assert.equal(r.code, 1, r.stdout);
  // twice the timeout, plus what starting Node and the CLI takes on a busy machine
  assert.ok(r.ms < 2 * timeoutS * 1000 + 2500, `took ${r.ms} ms`);
  assert.match(r.stderr, new RegExp(`${reg.host.replace(/\./g, '\\.')} did not answer in time to list the tags of .*slow/drip: 2 attempts of 2 s each, \\d+\\.\\d s in all`));
  assert.equal(reg.requestsFor('slow/drip').length, 2, 'one retry after the timeout, no more');
  console.log(`drip: versions --timeout ${timeoutS} ended after ${r.ms} ms`);
});

test('credentials echoed back in a 400 (password, Basic blob, a token from the realm) are printed nowhere: human, --json', { timeout: 60_000 }, async () => {
  for (const repo of ['echo/basic', 'echo/bearer']) {
    for (const args of [['versions', `oci://${reg.host}/${repo}`], ['resolve', `oci://${reg.host}/${repo}?tag=1.0.0`]]) {
      const human = await run(args);
      assert.equal(human.code, 1, human.stdout);
      assert.match(human.stderr, /400: DENIED/, 'the registry\'s error is shown');
      assertNoSecrets(human.stdout + human.stderr, args.join(' '));
      const json = await run([...args, '--json']);
      assert.equal(json.code, 1);
      const doc = JSON.parse(json.stdout);
      assert.match(doc.error.message, /400: DENIED .*\*\*\*/);
      assertNoSecrets(json.stdout + json.stderr, `${args.join(' ')} --json`);
    }
  }
  // they were sent, and the registry did echo them
  assert.ok(reg.requestsFor('echo/basic').some((q) => q.authorization === `Basic ${BLOB}`));
  assert.ok(reg.requestsFor('echo/bearer').some((q) => q.authorization === `Bearer ${ISSUED_TOKEN}`));
});

test('the language server\'s log (window/logMessage, stderr) and diagnostics never show credentials the registry echoed', { timeout: 60_000 }, async () => {
  const ws = join(root, 'ws');
  mkdirSync(ws, { recursive: true });
  const s = startLsp(['--stdio', '--cache-dir', join(root, 'lsp-cache')], { PATH: process.env.PATH, HOME: join(root, 'home') });
  try {
    await s.conn.sendRequest('initialize', {
      processId: process.pid, rootUri: pathToFileURL(ws).href, workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }], capabilities: {},
      initializationOptions: { tofuRegistry: { caFile: reg.caCertPath, cliConfigFile: rc } },
    });
    await s.conn.sendNotification('initialized', {});
    const uri = pathToFileURL(join(ws, 'main.tf')).href;
    const text = `module "echo" {\n  source = "oci://${reg.host}/echo/basic?tag=1.0.0"\n}\n`;
    await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'opentofu', version: 1, text } });
    const end = Date.now() + 20_000;
    while (!s.logs.some((l) => /400: DENIED/.test(l)) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    const all = [...s.logs, s.stderr(), ...s.received].join('\n');
    assert.match(all, /400: DENIED/, `the registry's answer reached the log:\n${s.logs.join('\n')}`);
    assertNoSecrets(all, 'the language server');
    assert.doesNotMatch(s.logs.join('\n'), CONTROL);
  } finally {
    await s.close();
  }
});

test('a Bearer realm on another host gets the registry\'s credentials over HTTPS only, never after a redirect', { timeout: 60_000 }, async () => {
  // one engine per case: a client learns a registry's scheme and realm once (this registry's differ per repository)
  const engines: Engine[] = [];
  const tags = (repository: string) => {
    const engine = new Engine({ caFiles: [reg.caCertPath], cliConfigFile: rc, env: { HOME: join(root, 'home') } });
    engines.push(engine);
    return engine.oci.listTags({ registry: reg.host, repository });
  };
  try {
    // HTTPS on another host: the credentials go there (as OpenTofu, ORAS and Docker send them; Docker Hub needs it)
    reg.tokenServer.resetLog();
    assert.deepEqual(await tags('realm/other'), ['1.0.0']);
    const asked = reg.tokenServer.requests;
    assert.ok(asked.length === 1 && asked[0].path.startsWith('/token?') && asked[0].authorization === `Basic ${BLOB}`, JSON.stringify(asked));
    // plain HTTP: refused, nothing sent at all
    await assert.rejects(tags('realm/http'), /refusing the token realm http:\/\/127\.0\.0\.1:\d+\/token .*not HTTPS/);
    assert.deepEqual(reg.plainRequests, []);
    // a realm that redirects: not followed, the redirect's target sees nothing
    await assert.rejects(tags('realm/redirect'), /redirected \(307\) .*not followed, credentials are never sent after a redirect/);
    assert.equal(reg.redirectTarget.requests.length, 0);
  } finally {
    await Promise.all(engines.map((e) => e.dispose()));
  }
});
