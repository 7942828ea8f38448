// A real interruption: `tofu-registry mirror-modules` SIGKILLed while an archive download is in
// flight. OUT must be a valid site as it is (every listed version complete, nothing listed that is
// not), the lock the dead process left must not block the next run, and that run completes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_NAME } from '../../../src/engine/fstree/outdir';
import { startModuleOrigin, ModuleOrigin } from '../../support/module-origin';
import { readSite } from '../../support/module-site';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
before(async () => { o = await startModuleOrigin(); });
after(async () => { await o.stop(); });

// The shipped bundle when built (npm run build), else tsc's output of the same entry point.
const DIST_CLI = join(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');
const CLI = existsSync(DIST_CLI) ? DIST_CLI : join(__dirname, '..', '..', '..', 'src', 'cli.js');

function runCli(args: string[]) {
  // a killed run cannot remove its scratch directory: give it one inside a temp dir of this test
  const env = { HOME: o.root, PATH: process.env.PATH, TF_CLI_CONFIG_FILE: o.rcFile, TMPDIR: tempDir('modmirror-kill-tmp-') };
  const child = spawn(process.execPath, [CLI, 'mirror-modules', '--json', '--no-cache', '--ca-file', o.reg.caCertPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  // 'close': the process has exited (and been reaped) and its output is all read
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, exited };
}

test('mirror-modules SIGKILLed mid-download leaves a valid site; the dead run\'s lock does not block the next run, which completes it', { timeout: 120_000 }, async () => {
  const h = o.reg.host;
  const out = join(tempDir('modmirror-kill-'), 'site');
  const ws = o.workspace('kill', {
    'main.tf': `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "1.0.0"\n}\n\nmodule "vpc" {\n  source = "${h}/acme/multi/aws//vpc"\n}\n`,
  });
  // base is only known from app's package: app is complete before base's download hangs
  o.reg.setFault('/archives/base/', 'hang');
  o.reg.server.resetLog();
  let killed;
  try {
    const first = runCli(['--out', out, '--concurrency', '2', ws]);
    const deadline = Date.now() + 60_000;
    while (!o.reg.server.count('/archives/base/') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(o.reg.server.count('/archives/base/'), 'the run reached the download of base');
    first.child.kill('SIGKILL');
    killed = await first.exited;
  } finally {
    o.reg.setFault('/archives/base/', null);
  }
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.equal(killed.stdout, '', 'the killed run printed no report');

  const lock = JSON.parse(readFileSync(join(out, LOCK_NAME), 'utf8'));
  assert.equal(typeof lock.pid, 'number', 'the killed run left its lock');
  const site = await readSite(out);
  assert.deepEqual(site.problems, [], 'every listed version has its download JSON and an intact archive');
  assert.deepEqual(site.listed[`${h}/acme/app/aws`], ['1.0.0']);
  assert.equal(site.listed[`${h}/acme/base/aws`], undefined, 'nothing is listed for the version being downloaded');

  const second = runCli(['--out', out, ws]);
  const done = await second.exited;
  assert.equal(done.code, 0, done.stderr);
  const report = JSON.parse(done.stdout);
  assert.deepEqual(report.failed, []);
  assert.ok(report.upToDate.some((m: { module: string }) => m.module === `${h}/acme/app/aws`), 'what the killed run finished is kept');
  assert.ok(report.mirrored.some((m: { module: string; version: string }) => m.module === `${h}/acme/base/aws` && m.version === '1.1.0'));
  assert.deepEqual(await readSite(out), {
    listed: Object.fromEntries([['app', '1.0.0'], ['base', '1.1.0'], ['leaf', '0.1.0'], ['multi', '2.0.0']].map(([m, v]) => [`${h}/acme/${m}/aws`, [v]])),
    problems: [],
  });
  assert.ok(!existsSync(join(out, LOCK_NAME)), 'the lock is released');
});
