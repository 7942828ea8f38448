// Hostile registry, class 3: link chains. A module package whose links look inside when read as
// text but lead outside once the kernel resolves an earlier link: `d1/d2/d3/d4/up -> ../../../..`
// (the package root), then `escape.tf -> d1/d2/d3/d4/up/../../../../outside/vars.tf` (as text
// "d1/outside/vars.tf"; resolved, four directories above the package root: a file the test put
// beside the cache). The outside file declares a variable the package does not have, so reading it
// shows in the diagnostics. Served by a real HTTPS registry (and a git repository over HTTPS) to
// the real CLI: no link is created, nothing outside is read, mirror-modules republishes no link,
// and a //subdir naming such a link is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { TestHttpsServer } from '../../support/https-server';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { serveDirectory } from '../../support/static-server';
import { tempDir } from '../../support/temp';
import { tarGz } from '../types/archives';
import { assertNoCrash, runCli } from '../../support/hostile-archives';

const CHAIN = 'd1/d2/d3/d4/up/../../../..';
let reg: TestRegistry;
let git: TestHttpsServer;
let root: string;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  git = await new TestHttpsServer().start();
  root = tempDir('hostile-links-');
  // four levels above a package root (CACHE/modules/<key>/content) is the parent of CACHE: root
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'vars.tf'), 'variable "only_outside" {\n  type = number\n}\n');
  reg.addFile('/archives/chain.tar.gz', tarGz([
    { name: 'main.tf', data: 'variable "name" {\n  type = string\n}\n' },
    { name: 'd1/', type: '5' }, { name: 'd1/d2/', type: '5' }, { name: 'd1/d2/d3/', type: '5' }, { name: 'd1/d2/d3/d4/', type: '5' },
    { name: 'd1/d2/d3/d4/up', type: '2', linkname: '../../../..' },
    { name: 'escape.tf', type: '2', linkname: `${CHAIN}/outside/vars.tf` },
    { name: 'sub', type: '2', linkname: `${CHAIN}/outside` },
  ]), 'application/gzip');
  reg.addModule({ namespace: 'evil', name: 'chain', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/chain.tar.gz` }) });
  reg.addModule({ namespace: 'evil', name: 'chainsub', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/chain.tar.gz//sub` }) });
  // the same chain committed to a git repository (links are links in git), served over dumb HTTP
  const work = join(root, 'repo-work');
  const run = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'pipe' });
  run(root, 'init', '-q', work);
  writeFileSync(join(work, 'main.tf'), 'variable "name" {\n  type = string\n}\n');
  mkdirSync(join(work, 'd1', 'd2', 'd3', 'd4'), { recursive: true });
  symlinkSync('../../../..', join(work, 'd1', 'd2', 'd3', 'd4', 'up'));
  symlinkSync(`${CHAIN}/outside/vars.tf`, join(work, 'escape.tf'));
  run(work, 'add', '-A');
  run(work, 'commit', '-q', '-m', 'chain');
  run(root, 'clone', '-q', '--bare', work, join(root, 'chain.git'));
  run(join(root, 'chain.git'), 'update-server-info');
  serveDirectory(git, '/chain.git/', join(root, 'chain.git'));
});
after(async () => { await Promise.all([reg.stop(), git.stop()]); });

function workspace(name: string, source: string): string {
  const dir = join(root, 'ws', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.tf'), `module "m" {\n  source       = "${source}"\n  name         = "x"\n  only_outside = "not a number"\n}\n`);
  return dir;
}

// Reading the outside file would say: Invalid value for input variable "only_outside": … a number is required
const READ_OUTSIDE = /only_outside.*number is required/;

for (const [what, source] of [['registry tar.gz', () => `${reg.host}/evil/chain/aws`], ['git repository', () => `git::https://127.0.0.1:${git.port}/chain.git`]] as const) {
  test(`types check (${what}): a link chain leading outside the package is not followed; the variable only outside is unknown`, { timeout: 60_000 }, async () => {
    const ws = workspace(`types-${what.split(' ')[0]}`, source());
    const run = await runCli(['types', 'check', '--ca-file', reg.caCertPath, '--cache-dir', join(root, 'cache'), ws]);
    assert.equal(assertNoCrash(run), undefined);
    assert.doesNotMatch(run.stdout, READ_OUTSIDE, 'a file outside the package was read');
    assert.match(run.stdout, /main\.tf:4:3: error: Unsupported argument: an argument named "only_outside" is not expected here/, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /Cannot check the inputs/, 'the package itself was read');
  });
}

test('types check: a //subdir that is a link leading outside the package is refused', { timeout: 60_000 }, async () => {
  const ws = workspace('types-subdir', `${reg.host}/evil/chainsub/aws`);
  const run = await runCli(['types', 'check', '--ca-file', reg.caCertPath, '--cache-dir', join(root, 'cache-sub'), ws]);
  assert.equal(assertNoCrash(run), undefined);
  assert.doesNotMatch(run.stdout, READ_OUTSIDE, 'a file outside the package was read');
  assert.match(run.stdout, /warning: Cannot check the inputs of module "m": subdirectory "sub" does not exist in the module package/);
});

test('mirror-modules: the package is republished without any link (links as empty files, as tofu installs them)', { timeout: 60_000 }, async () => {
  const ws = workspace('mirror', `${reg.host}/evil/chain/aws`);
  const out = join(tempDir('hostile-links-out-'), 'site');
  const run = await runCli(['mirror-modules', '--json', '--no-cache', '--ca-file', reg.caCertPath, '--out', out, ws]);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.mirrored.map((m: { module: string }) => m.module), [`${reg.host}/evil/chain/aws`]);
  const entries: Array<[string, string, number]> = [];
  await tar.t({ file: join(out, 'modules', reg.host, 'evil', 'chain', 'aws', '1.0.0.tar.gz'), onReadEntry: (e) => { entries.push([e.path, e.type, e.size ?? 0]); } });
  assert.deepEqual(entries.filter(([, type]) => type !== 'Directory'), [
    ['d1/d2/d3/d4/up', 'File', 0], ['escape.tf', 'File', 0], ['main.tf', 'File', 36], ['sub', 'File', 0],
  ]);
  assert.deepEqual(readdirSync(join(root, 'outside')), ['vars.tf'], 'nothing written outside');
});
