// The first SIGTERM / SIGINT stops a run within seconds, whatever a hostile registry does: here a
// module archive that never arrives (the connection stays open, well inside --timeout). The run
// ends cleanly — a report, no stack trace, nothing written — and the time from the signal to the
// process's exit is measured.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { crashSigns, HostileRegistry, startHostileRegistry } from '../../support/hostile-registry';

let r: HostileRegistry;
before(async () => {
  r = await startHostileRegistry();
  for (const name of ['slow-lock', 'slow-mirror']) {
    r.packages.set(name, { 'main.tf': 'variable "x" {}\n' });
    r.hanging.add(name);
  }
});
after(async () => { await r.stop(); });

const call = (host: string, name: string) => `module "slow" {\n  source  = "${host}/hostile/${name}/aws"\n  version = "1.0.0"\n}\n`;

test('lock: the first SIGTERM while a module package hangs ends the run within 5 s, nothing written', { timeout: 120_000 }, async () => {
  const ws = r.workspace('signal-lock', { 'main.tf': call(r.host, 'slow-lock') });
  const run = await r.run(['lock', '--timeout', '120', ws], {
    interrupt: { signal: 'SIGTERM', when: () => r.archiveRequests('slow-lock') > 0 }, killAfterMs: 40_000,
  });
  assert.ok(run.stopMs !== undefined, 'the signal was sent');
  assert.notEqual(run.signal, 'SIGKILL', `still running ${run.stopMs} ms after SIGTERM: ${run.stderr}`);
  assert.ok(run.stopMs! < 5000, `stopped ${run.stopMs} ms after SIGTERM`);
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /FAILED .*cancelled/);
  assert.ok(!existsSync(join(ws, '.terraform.lock.hcl')), 'no lock file is written for a cancelled run');
  console.log(`lock stopped ${run.stopMs} ms after SIGTERM`);
});

test('lock: the first SIGINT while a module\'s version list hangs ends the run within 5 s (the registry requests of the module walk are cancelled too)', { timeout: 120_000 }, async () => {
  r.packages.set('slowlist', { 'main.tf': 'variable "x" {}\n' });
  r.reg.setFault('/v1/modules/hostile/slowlist/', 'hang');
  try {
    const ws = r.workspace('signal-lock-list', { 'main.tf': call(r.host, 'slowlist') });
    const run = await r.run(['lock', '--json', '--timeout', '120', ws], {
      interrupt: { signal: 'SIGINT', when: () => r.reg.server.count('/v1/modules/hostile/slowlist/') > 0 }, killAfterMs: 40_000,
    });
    assert.ok(run.stopMs !== undefined && run.stopMs < 5000, `stopped ${run.stopMs} ms after SIGINT (${run.signal})`);
    assert.deepEqual(crashSigns(run), [], run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).failed.map((f: { step: string }) => f.step), ['cancelled']);
    console.log(`lock (hung version list) stopped ${run.stopMs} ms after SIGINT`);
  } finally {
    r.reg.setFault('/v1/modules/hostile/slowlist/', null);
  }
});

test('mirror-modules: the first SIGINT while a module archive hangs ends the run within 5 s with its report', { timeout: 120_000 }, async () => {
  const ws = r.workspace('signal-mirror', { 'main.tf': call(r.host, 'slow-mirror') });
  const run = await r.run(['mirror-modules', '--json', '--timeout', '120', '--out', join(r.root, 'site-signal'), ws], {
    interrupt: { signal: 'SIGINT', when: () => r.archiveRequests('slow-mirror') > 0 }, killAfterMs: 40_000,
  });
  assert.ok(run.stopMs !== undefined && run.stopMs < 5000, `stopped ${run.stopMs} ms after SIGINT (${run.signal})`);
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.equal(run.code, 1);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.failed.map((f: { step: string }) => f.step), ['cancelled']);
  console.log(`mirror-modules stopped ${run.stopMs} ms after SIGINT`);
});
