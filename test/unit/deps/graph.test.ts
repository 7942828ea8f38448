// The dependency graph engine: no request at all when the network is not allowed (local facts
// still reported), cancellation, progress, and one lookup per module/provider across directories
// running at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDependencyGraph, evaluateVersions } from '../../../src/engine/deps';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import { tempDir } from '../../support/temp';

function workspace(host: string, count: number): string[] {
  const root = tempDir('tofu-registry-graph-');
  return Array.from({ length: count }, (_, i) => {
    const dir = join(root, `stack-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main.tf'), `module "net" {\n  source  = "${host}/acme/network/aws"\n  version = "~> 1.0"\n}\n` +
      `terraform {\n  required_providers {\n    widget = {\n      source  = "${host}/acme/widget"\n      version = "~> 1.0"\n    }\n  }\n}\n`);
    writeFileSync(join(dir, '.terraform.lock.hcl'), `provider "${host}/acme/widget" {\n  version = "1.0.0"\n}\n`);
    return dir;
  });
}

test('network not allowed: no request, local facts (constraint, lock) still there', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const dirs = workspace(reg.host, 2);
  const g = await buildDependencyGraph(dirs, { engine, networkAllowed: () => false });
  assert.equal(reg.server.requests.length, 0);
  const w = g.directories[0].providers[0];
  assert.deepEqual([w.constraint, w.locked, w.status, w.problem], ['~> 1.0', '1.0.0', 'error', 'network-disabled']);
  assert.equal(g.directories[1].modules[0].problem, 'network-disabled');
  await engine.dispose();
}));

test('20 directories at once: one versions request per module/provider; progress; cancellation', () => withRegistry({}, async (reg) => {
  const engine = testEngine(reg);
  const dirs = workspace(reg.host, 20);
  const progress: number[] = [];
  const g = await buildDependencyGraph(dirs, { engine, onProgress: (done) => progress.push(done) });
  assert.deepEqual(progress, Array.from({ length: 20 }, (_, i) => i + 1));
  assert.equal(reg.server.count('/v1/modules/acme/network/aws/versions'), 1);
  assert.equal(reg.server.count('/v1/providers/acme/widget/versions'), 1);
  for (const d of g.directories) {
    assert.equal(d.modules[0].status, 'update-out-of-range');
    assert.equal(d.providers[0].status, 'update-in-range');
    assert.equal(d.providers[0].site?.file, join(d.dir, 'main.tf'));
  }
  const ac = new AbortController();
  ac.abort(new Error('cancelled by the user'));
  await assert.rejects(buildDependencyGraph(dirs, { engine, signal: ac.signal }), /cancelled by the user/);
  await engine.dispose();
}));

test('evaluateVersions: installed modules kept while they match; locked providers must match', () => {
  const v = ['1.0.0', '1.1.0', '2.0.0'];
  assert.deepEqual(evaluateVersions('module', v, '~> 1.0', '1.0.0'),
    { selected: '1.0.0', newestMatching: '1.1.0', newest: '2.0.0', status: 'update-in-range', message: null });
  // an installed module outside the constraint is replaced by init with the newest matching
  assert.equal(evaluateVersions('module', v, '~> 2.0', '1.0.0').selected, '2.0.0');
  assert.equal(evaluateVersions('provider', v, '~> 2.0', '1.0.0').status, 'unsatisfiable');
  assert.equal(evaluateVersions('provider', v, null, null).status, 'up-to-date');
  assert.match(evaluateVersions('provider', v, '~> banana', null).message!, /invalid version constraint/);
  // the newest published version is a prerelease: never the newest nor an upgrade unless the constraint names it
  const pre = ['1.0.0', '2.0.0', '2.1.0-beta1'];
  for (const kind of ['provider', 'module'] as const) {
    assert.deepEqual(evaluateVersions(kind, pre, '~> 2.0', '2.0.0'),
      { selected: '2.0.0', newestMatching: '2.0.0', newest: '2.0.0', status: 'up-to-date', message: null }, kind);
    assert.deepEqual(evaluateVersions(kind, pre, null, null),
      { selected: '2.0.0', newestMatching: '2.0.0', newest: '2.0.0', status: 'up-to-date', message: null }, kind);
    assert.deepEqual(evaluateVersions(kind, pre, '>= 1.0', '1.0.0'),
      { selected: '1.0.0', newestMatching: '2.0.0', newest: '2.0.0', status: 'update-in-range', message: null }, kind);
    assert.deepEqual(evaluateVersions(kind, pre, '2.1.0-beta1', null),
      { selected: '2.1.0-beta1', newestMatching: '2.1.0-beta1', newest: '2.1.0-beta1', status: 'up-to-date', message: null }, kind);
  }
  // a locked provider version the registry no longer lists: tofu init fails ("no longer available")
  assert.deepEqual(evaluateVersions('provider', v, '~> 1.0', '1.5.0'), {
    selected: null, newestMatching: '1.1.0', newest: '2.0.0', status: 'error',
    message: 'locked version 1.5.0 is no longer available from the registry: tofu init fails until the lock is updated (tofu init -upgrade)',
  });
  assert.equal(evaluateVersions('provider', ['1.0.0', '1.1.0+build.1'], null, '1.1.0').status, 'up-to-date');
  // an installed module stays installed: not a problem for init
  assert.equal(evaluateVersions('module', v, '~> 1.0', '1.5.0').selected, '1.5.0');
  assert.deepEqual(evaluateVersions('provider', [], null, null),
    { selected: null, newestMatching: null, newest: null, status: 'unsatisfiable', message: 'no version is available' });
});
