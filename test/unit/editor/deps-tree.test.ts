// The dependency tree's data (pure): folder labels, item descriptions, icons, "only outdated"
// filtering and the outdated count of the status bar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dependency, DependencyGraph } from '../../../src/engine/deps';
import { contextValue, countOutdated, depDescription, depIcon, depNode, depTooltip, dirLabel, dirNodes, findDependency, groupNodes } from '../../../src/features/depsTree';

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

test('each status has its icon (and a quiet one for network problems)', () => {
  const icons = (['up-to-date', 'update-in-range', 'update-out-of-range', 'unsatisfiable', 'not-found', 'error'] as const)
    .map((status) => [status, depIcon(dep({ status }))]);
  assert.deepEqual(Object.fromEntries(icons), {
    'up-to-date': { id: 'pass', color: 'testing.iconPassed' },
    'update-in-range': { id: 'arrow-circle-up', color: 'charts.blue' },
    'update-out-of-range': { id: 'arrow-up', color: 'charts.yellow' },
    unsatisfiable: { id: 'error', color: 'errorForeground' },
    'not-found': { id: 'question', color: 'errorForeground' },
    error: { id: 'warning', color: 'editorWarning.foreground' },
  });
  assert.equal(new Set(icons.map(([, i]) => JSON.stringify(i))).size, 6, 'six different icons');
  assert.deepEqual(depIcon(dep({ status: 'error', problem: 'unreachable' })), { id: 'debug-disconnect', color: 'disabledForeground' });
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
  assert.equal(findDependency(graph, '/ws/a/main.tf', 'module', 'vpc')?.name, 'vpc');
  assert.equal(findDependency(graph, '/ws/a/main.tf', 'provider', 'vpc'), undefined);
  assert.equal(dirLabel(join('/ws', 'x', 'y'), ['/ws']), 'x/y');
  assert.equal(dirLabel('/ws', ['/ws']), 'ws');
  assert.equal(dirLabel('/other/ws/x', ['/ws', '/other/ws']), 'ws/x');
});

test('item menus (package.json "when" clauses on the context value): upgrade, update within, open, open lock entry', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8'));
  const menus = pkg.contributes.menus['view/item/context'] as Array<{ command: string; when: string; group: string }>;
  /** Commands an item's context menu offers (inline ones marked). */
  const offered = (d: Dependency) => menus.filter((m) => {
    const re = /viewItem =~ \/(.*)\/$/.exec(m.when)![1];
    return new RegExp(re).test(contextValue(d));
  }).map((m) => `${m.command.split('.').pop()}${m.group.startsWith('inline') ? ' (inline)' : ''}`);
  const site = { file: '/ws/a/versions.tf', range: { start: { line: 0, character: 0, offset: 0 }, end: { line: 1, character: 0, offset: 10 } } };
  const lockSite = { file: '/ws/a/.terraform.lock.hcl', range: site.range };
  assert.equal(contextValue(dep({ site, lockSite })), 'dep.provider.outdated.locked.declared');
  assert.deepEqual(offered(dep({ site, lockSite })), ['upgrade (inline)', 'upgrade', 'updateWithin', 'open', 'openLock']);
  assert.deepEqual(offered(dep({ site })), ['upgrade (inline)', 'upgrade', 'updateWithin', 'open']);
  // only child modules or the lock file name it: relock within the constraints, open the lock entry
  assert.deepEqual(offered(dep({ lockSite })), ['updateWithin', 'openLock']);
  // the lock contradicts the constraint: upgrading or relocking within the constraint both fix it
  assert.deepEqual(offered(dep({ site, lockSite, status: 'unsatisfiable' })), ['upgrade', 'updateWithin', 'open', 'openLock']);
  assert.deepEqual(offered(dep({ site, status: 'up-to-date' })), ['open']);
  assert.deepEqual(offered(dep({ kind: 'module', site, status: 'update-in-range' })), ['upgrade (inline)', 'upgrade', 'updateWithin', 'open']);
});

test('a module called by a local child module: labelled by its module path, found from the block in the child\'s file', () => {
  const site = (file: string) => ({ file, range: { start: { line: 0, character: 0, offset: 0 }, end: { line: 0, character: 0, offset: 0 } } });
  const own = dep({ kind: 'module', name: 'vpc', site: site('/ws/a/main.tf') });
  const nested = dep({ kind: 'module', name: 'vpc', modulePath: 'net', site: site('/ws/a/modules/net/main.tf') });
  const graph: DependencyGraph = { directories: [{ dir: '/ws/a', modules: [own, nested], providers: [], errors: [] }] };
  assert.deepEqual([depNode(own).label, depNode(nested).label], ['vpc', 'net.vpc']);
  assert.notEqual(depNode(own).id, depNode(nested).id, 'one tree item each');
  assert.equal(findDependency(graph, '/ws/a/main.tf', 'module', 'vpc'), own);
  assert.equal(findDependency(graph, '/ws/a/modules/net/main.tf', 'module', 'vpc'), nested, 'the child directory is no configuration of its own');
  assert.equal(findDependency(graph, '/ws/a/modules/other/main.tf', 'module', 'vpc'), undefined);
  assert.match(depTooltip(nested), /^\*\*module net\.vpc\*\*/);
});
