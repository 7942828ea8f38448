// Registry modules that call further registry modules without end (chain-N → chain-N+1) or in a
// tree that doubles at each level (tree-rB → tree-rB0, tree-rB1): every command that walks module
// calls stops at the run's budget (depth 32; --max-modules) with one clear error naming the chain,
// instead of fetching without end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { crashSigns, HostileRegistry, startHostileRegistry } from '../../support/hostile-registry';

let r: HostileRegistry;
before(async () => { r = await startHostileRegistry(); });
after(async () => { await r.stop(); });

const call = (name: string) => `module "first" {\n  source  = "${'HOST'}/hostile/${name}/aws"\n  version = "1.0.0"\n}\n`;
const ws = (name: string, module: string) => r.workspace(name, { 'main.tf': call(module).replace('HOST', r.host) });

test('mirror-modules: an endless chain of modules stops at depth 32 with an error naming the chain', { timeout: 120_000 }, async () => {
  const before = r.archiveRequests('chain-');
  const run = await r.run(['mirror-modules', '--json', '--out', join(r.root, 'site-chain'), ws('mm-chain', 'chain-0')]);
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  const budget = report.failed.filter((f: { message: string }) => /nested more than 32 deep/.test(f.message));
  assert.equal(budget.length, 1, JSON.stringify(report.failed));
  assert.equal(budget[0].step, 'resolve');
  // the chain: where the configuration calls it, then each module version, both ends shown
  assert.match(budget[0].message, new RegExp(`main\\.tf:1 → ${r.host}/hostile/chain-0/aws 1\\.0\\.0 → ${r.host}/hostile/chain-1/aws 1\\.0\\.0 → .*… \\(\\d+ more\\) … → .*chain-32/aws 1\\.0\\.0$`));
  assert.equal(report.mirrored.length, 32, 'chain-0 … chain-31 are mirrored');
  assert.ok(r.archiveRequests('chain-') - before <= 32, `archive requests: ${r.archiveRequests('chain-') - before}`);
});

test('mirror-modules: a doubling tree stops at --max-modules with one error naming the chain', { timeout: 120_000 }, async () => {
  const before = r.archiveRequests('tree-r');
  const run = await r.run(['mirror-modules', '--json', '--max-modules', '20', '--out', join(r.root, 'site-tree'), ws('mm-tree', 'tree-r')]);
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.equal(run.code, 1);
  const report = JSON.parse(run.stdout);
  assert.equal(report.failed.length, 1, JSON.stringify(report.failed));
  assert.match(report.failed[0].message, new RegExp(`more than 20 modules to follow in this run .*; stopped at .*main\\.tf:1 → ${r.host}/hostile/tree-r/aws 1\\.0\\.0 → .*tree-r[01]+/aws 1\\.0\\.0 — raise the limit with --max-modules`));
  assert.equal(report.mirrored.length, 20);
  assert.ok(r.archiveRequests('tree-r') - before <= 20, `archive requests: ${r.archiveRequests('tree-r') - before}`);
});

test('lock: an endless chain stops at depth 32, a doubling tree at --max-modules, each with an error naming the chain; nothing is written', { timeout: 120_000 }, async () => {
  const chain = await r.run(['lock', '--json', ws('lock-chain', 'chain-0')]);
  assert.deepEqual(crashSigns(chain), [], chain.stderr);
  assert.equal(chain.code, 1, chain.stderr);
  const failed = JSON.parse(chain.stdout).failed as Array<{ step: string; message: string }>;
  assert.equal(failed.length, 1, JSON.stringify(failed));
  assert.match(failed[0].message, new RegExp(`main\\.tf:\\d+: module "first(\\.next)+": module calls nested more than 32 deep .*: .*lock-chain → first \\(${r.host}/hostile/chain-0/aws\\) → next \\(${r.host}/hostile/chain-1/aws\\) → .* → next \\(${r.host}/hostile/chain-32/aws\\)$`));

  const before = r.archiveRequests('tree-r');
  const started = Date.now();
  const tree = await r.run(['lock', '--json', '--max-modules', '30', ws('lock-tree', 'tree-r')]);
  assert.deepEqual(crashSigns(tree), [], tree.stderr);
  assert.equal(tree.code, 1, tree.stderr);
  const treeFailed = JSON.parse(tree.stdout).failed as Array<{ message: string }>;
  assert.equal(treeFailed.length, 1, JSON.stringify(treeFailed));
  assert.match(treeFailed[0].message, /more than 30 modules to follow in this run .*; stopped at .*lock-tree → first \(.*\/hostile\/tree-r\/aws\) → t[01] \(.*\) — raise the limit with --max-modules/);
  assert.ok(r.archiveRequests('tree-r') - before <= 30, `archive requests: ${r.archiveRequests('tree-r') - before}`);
  assert.ok(Date.now() - started < 60_000);
});

test('outdated: the provider walk of a doubling tree stops at --max-modules and says so; the module is still listed', { timeout: 120_000 }, async () => {
  const run = await r.run(['outdated', '--max-modules', '10', ws('outdated-tree', 'tree-r')]);
  assert.deepEqual(crashSigns(run), [], run.stderr);
  assert.match(run.stderr, /more than 10 modules to follow in this run/);
  assert.match(run.stdout, /first/);
  const json = await r.run(['outdated', '--json', '--max-modules', '10', ws('outdated-tree-json', 'tree-r')]);
  assert.deepEqual(crashSigns(json), [], json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).dependencies.map((d: { name: string }) => d.name), ['first']);
  assert.match(json.stderr, /more than 10 modules to follow in this run/, 'with --json too, the cut walk is said on stderr');
});
