// Strings a module registry sends are data, never terminal input: a download location holding a
// newline (a line of the registry's own after it) is refused as invalid, and a discovery document
// whose service names hold an escape sequence and a newline is printed with them escaped — no
// line of output is the registry's, no control character reaches the terminal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sendJson } from '../../support/https-server';
import { HostileRegistry, startHostileRegistry } from '../../support/hostile-registry';

let r: HostileRegistry;
before(async () => {
  r = await startHostileRegistry();
  r.packages.set('ctl', { 'main.tf': 'variable "x" {}\n' });
  // a JSON location (a header cannot carry a newline)
  r.reg.server.route('/v1/modules/hostile/ctl/aws/1.0.0/download', (_req, res) => sendJson(res, 200, { location: `https://${r.host}/hostile-archives/ctl.tar.gz\nINJECTED line the registry wrote \u001b[31m` }));
});
after(async () => { await r.stop(); });

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const injected = (text: string) => text.split('\n').filter((l) => l.startsWith('INJECTED'));

test('resolve: a download location holding a newline is refused as invalid; no line of output is the registry\'s', { timeout: 60_000 }, async () => {
  for (const json of [false, true]) {
    const run = await r.run(['resolve', `${r.host}/hostile/ctl/aws`, '--version', '1.0.0', ...(json ? ['--json'] : [])]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /invalid download location .* holds control characters/);
    assert.deepEqual(injected(run.stdout + run.stderr), []);
    assert.doesNotMatch(run.stdout + run.stderr, CONTROL);
  }
});

test('discover: service names with an escape sequence and a newline are printed escaped', { timeout: 60_000 }, async () => {
  r.discoveryText = JSON.stringify({ 'modules.v1': '/v1/modules/', 'x.v1\u001b[2J\nINJECTED line the registry wrote': '/v1/x/' });
  try {
    const run = await r.run(['discover', r.host]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(injected(run.stdout), []);
    assert.doesNotMatch(run.stdout + run.stderr, CONTROL);
    assert.match(run.stdout, /x\.v1\\x1b\[2J\\nINJECTED/);
  } finally {
    r.discoveryText = undefined;
  }
});
