// The dependency tree's data (pure): folder labels, item descriptions, icons, "only outdated"
// filtering and the outdated count of the status bar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Dependency, DependencyGraph } from '../../../src/engine/deps';
import { countOutdated, depDescription, depIcon, dirLabel, dirNodes, findDependency, groupNodes } from '../../../src/editor/logic/depsTree';

function dep(over: Partial<Dependency>): Dependency {
  return {
    dir: '/ws/a', kind: 'provider', name: 'aws', source: 'registry.opentofu.org/hashicorp/aws', constraint: '~> 5.1', locked: '5.1.2',
    selected: '5.1.2', newestMatching: '5.1.2', newest: '6.0.0', status: 'update-out-of-range', message: null,
    registryAddress: 'registry.opentofu.org/hashicorp/aws', host: 'registry.opentofu.org', ...over,
  };
}

test('descriptions read like the issue: constraint · locked · newest', () => {
  assert.equal(depDescription(dep({})), '~> 5.1 · locked 5.1.2 · newest 6.0.0');
  assert.equal(depDescription(dep({ kind: 'module', locked: '1.0.0', selected: '1.0.0', newestMatching: '1.2.0', newest: '1.2.0', status: 'update-in-range' })),
    '~> 5.1 · installed 1.0.0 · 1.2.0 in range · newest 1.2.0');
  assert.equal(depDescription(dep({ locked: null, selected: '6.0.0', newestMatching: '6.0.0', status: 'up-to-date' })), '~> 5.1 · selects 6.0.0');
  assert.equal(depDescription(dep({ constraint: null, locked: null, selected: null, newest: null, status: 'error', problem: 'unreachable' })),
    'any version · registry.opentofu.org unreachable');
  assert.equal(depDescription(dep({ kind: 'module', source: './modules/x', registryAddress: undefined, constraint: null, locked: null, selected: null, newest: null, status: 'up-to-date' })), './modules/x');
  assert.equal(depIcon(dep({})).id, 'arrow-up');
  assert.equal(depIcon(dep({ status: 'error', problem: 'network-disabled' })).id, 'workspace-untrusted');
});

test('folders, groups, the "only outdated" filter and the outdated count', () => {
  const graph: DependencyGraph = { directories: [
    { dir: '/ws/a', modules: [dep({ kind: 'module', name: 'vpc', status: 'up-to-date' })], providers: [dep({})], errors: [] },
    { dir: '/ws/b', modules: [], providers: [dep({ dir: '/ws/b', status: 'up-to-date' })], errors: [] },
    { dir: '/ws', modules: [], providers: [], errors: [] },
  ] };
  assert.equal(countOutdated(graph), 1);
  assert.deepEqual(dirNodes(graph, ['/ws'], false).map((n) => [n.label, n.description]), [['a', '1 outdated'], ['b', '']]);
  assert.deepEqual(dirNodes(graph, ['/ws'], true).map((n) => n.label), ['a']);
  assert.deepEqual(groupNodes(graph.directories[0], true).map((n) => [n.label, n.description]), [['Providers', '1 · 1 outdated']]);
  assert.deepEqual(groupNodes(graph.directories[0], false).map((n) => n.label), ['Modules', 'Providers']);
  assert.equal(findDependency(graph, '/ws/a', 'module', 'vpc')?.name, 'vpc');
  assert.equal(findDependency(graph, '/ws/a', 'provider', 'vpc'), undefined);
  assert.equal(dirLabel(join('/ws', 'x', 'y'), ['/ws']), 'x/y');
  assert.equal(dirLabel('/ws', ['/ws']), 'ws');
  assert.equal(dirLabel('/other/ws/x', ['/ws', '/other/ws']), 'ws/x');
});
