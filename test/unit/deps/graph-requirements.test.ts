// The graph's providers come from the lock engine's requirement collector, and its lock facts from
// readLockFile: the same providers as `tofu-registry lock` and the lock diagnostics (provider
// blocks, resources, local / installed / fetched child modules), the child constraints by module
// path, each lock entry's range, a lock file tofu refuses as an `error` status, a malformed
// constraint as an `error` on its provider — against the HTTPS test registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildDependencyGraph, Dependency } from '../../../src/engine/deps';
import { collectProviderRequirements } from '../../../src/engine/lock';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import { tempTree } from '../../support/temp';
import { tarGz } from '../types/archives';

const tree = (files: Record<string, string>) => tempTree('tofu-registry-graph-reqs-', files);

const required = (entries: Array<[string, string, string?]>) => `terraform {\n  required_providers {\n${entries.map(([name, source, version]) =>
  `    ${name} = {\n      source  = "${source}"\n${version ? `      version = "${version}"\n` : ''}    }\n`).join('')}  }\n}\n`;

const brief = (d: Dependency) => [d.name, d.source, d.constraint, d.locked, d.status];

test('providers as the lock engine collects them: root, provider blocks, resources, local/installed/fetched child modules', () => withRegistry({}, async (reg) => {
  const h = reg.host;
  reg.addModule({ namespace: 'acme', name: 'dns', system: 'aws', versions: ['1.0.0'] });
  reg.addFile('/archives/acme/dns/aws/1.0.0.tar.gz', tarGz([{ name: 'main.tf', data: required([['rnd', `${h}/hashicorp/random`, '>= 3.5']]) }]), 'application/gzip');
  const files = (n: number) => ({
    [`s${n}/versions.tf`]: required([['random', `${h}/hashicorp/random`, '~> 3.0'], ['widget', `${h}/acme/widget`]]),
    [`s${n}/main.tf`]: `provider "widget" {\n  version = "< 2.0.0"\n}\n\nmodule "net" {\n  source = "./modules/net"\n}\n\nmodule "dns" {\n  source  = "${h}/acme/dns/aws"\n  version = "~> 1.0"\n}\n\nmodule "vpc" {\n  source  = "${h}/acme/vpc/aws"\n  version = "~> 2.0"\n}\n`,
    [`s${n}/modules/net/main.tf`]: required([['widget', `${h}/acme/widget`, '>= 1.0.0']]) + 'module "sub" {\n  source = "./sub"\n}\n',
    [`s${n}/modules/net/sub/main.tf`]: required([['widget', `${h}/acme/widget`, '!= 1.0.1']]),
    // installed by tofu init (never fetched): a module that only uses a resource of an undeclared provider
    [`s${n}/.terraform/modules/modules.json`]: JSON.stringify({ Modules: [{ Key: '', Source: '', Dir: '.' }, { Key: 'vpc', Source: `${h}/acme/vpc/aws`, Version: '2.1.0', Dir: '.terraform/modules/vpc' }] }),
    [`s${n}/.terraform/modules/vpc/main.tf`]: 'resource "gizmo_thing" "x" {}\n',
    [`s${n}/.terraform.lock.hcl`]: `provider "${h}/acme/widget" {\n  version = "1.0.0"\n}\n\nprovider "${h}/acme/gone" {\n  version = "0.1.0"\n}\n`,
  });
  const root = tree({
    ...files(1), ...files(2),
    // the default registry's providers are looked up here (a host block, as tofu reads it): no internet
    'tofurc': `host "registry.opentofu.org" {\n  services = {\n    "providers.v1" = "${reg.origin}/v1/providers/"\n  }\n}\n`,
  });
  const dirs = [join(root, 's1'), join(root, 's2')];
  const engine = testEngine(reg, { cliConfigFile: join(root, 'tofurc') });
  const resolver = new ModuleResolver({ engine, cacheDir: join(root, 'cache') });
  reg.server.resetLog();
  const g = await buildDependencyGraph(dirs, { engine, resolver });
  for (const d of g.directories) {
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.providers.map(brief), [
      // root required_providers first, in file order; then the others by address; then lock-only
      ['random', `${h}/hashicorp/random`, '~> 3.0, >= 3.5', null, 'up-to-date'],
      ['widget', `${h}/acme/widget`, '< 2.0.0, >= 1.0.0, != 1.0.1', '1.0.0', 'update-in-range'],
      ['gizmo', 'registry.opentofu.org/hashicorp/gizmo', null, null, 'not-found'],
      ['gone', `${h}/acme/gone`, null, '0.1.0', 'not-found'],
    ]);
    const widget = d.providers[1];
    assert.deepEqual(widget.childConstraints, [{ module: 'module.net', constraint: '>= 1.0.0' }, { module: 'module.net.module.sub', constraint: '!= 1.0.1' }]);
    assert.equal(widget.site?.file, join(d.dir, 'versions.tf'));
    assert.deepEqual([widget.lockSite?.file, widget.lockSite?.range.start.line, widget.lockSite?.range.end.line], [join(d.dir, '.terraform.lock.hcl'), 0, 2]);
    assert.equal(d.providers[3].lockSite?.range.start.line, 4);
    assert.equal(d.providers[2].site, undefined, 'implied by a resource: nothing to open but the lock entry, when locked');
    // The same providers as the lock engine's own collection (plus what only the lock file names).
    const reqs = await collectProviderRequirements(d.dir, { resolver });
    assert.deepEqual(d.providers.map((p) => p.source).filter((s) => !s.endsWith('/gone')).sort(), reqs.providers.map((p) => p.address).sort());
  }
  // The registry module is fetched once for both directories; the installed one never.
  assert.equal(reg.server.count('/archives/acme/dns/aws/1.0.0.tar.gz'), 1);
  assert.deepEqual(reg.server.requests.filter((r) => r.path.includes('/acme/vpc/') && !r.path.endsWith('/versions')).map((r) => r.path), []);
  await engine.dispose();
}));

test('a lock file tofu refuses is an error on each provider; a malformed constraint an error on its provider', () => withRegistry({}, async (reg) => {
  const h = reg.host;
  const root = tree({
    'versions.tf': required([['widget', `${h}/acme/widget`, '~> 1.0'], ['random', `${h}/hashicorp/random`, '=> 3.0']]),
    '.terraform.lock.hcl': `provider "${h}/acme/widget" {\n  version = "1.0.0"\n  hashes = "h1:not-a-list"\n}\n`,
  });
  const engine = testEngine(reg);
  const [d] = (await buildDependencyGraph([root], { engine })).directories;
  const [widget, random] = d.providers;
  assert.deepEqual([widget.status, widget.selected, widget.locked, widget.newestMatching], ['error', null, '1.0.0', '1.1.0']);
  assert.match(widget.message!, new RegExp(`^tofu init refuses the lock file: ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.terraform\\.lock\\.hcl:3: `));
  assert.equal(random.status, 'error');
  assert.match(random.message!, /versions\.tf:\d+: invalid version constraint "=> 3\.0"/);
  assert.deepEqual(d.errors, [], 'each problem shown once, on its item');
  // Offline: no request, the same providers, the lock problem still shown.
  reg.server.resetLog();
  const [off] = (await buildDependencyGraph([root], { engine, networkAllowed: () => false })).directories;
  assert.equal(reg.server.requests.length, 0);
  assert.deepEqual(off.providers.map((p) => [p.name, p.status]), [['widget', 'error'], ['random', 'error']]);
  assert.match(off.providers[0].message!, /^tofu init refuses the lock file/);
  await engine.dispose();
}));
