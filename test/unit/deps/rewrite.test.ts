// Constraint rewrites for "Upgrade to newest": every operator form, several constraints,
// prereleases, and an edit that leaves everything outside the changed characters byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, constraintEdit, planUndeclaredUpgrade, planUpgradeToNewest, rewriteConstraint } from '../../../src/engine/deps';
import type { Dependency } from '../../../src/engine/deps';
import { extractFile, parseHcl } from '../../../src/engine/config';
import { selectVersions } from '../../../src/engine/versions';

test('each operator keeps its style and reaches the target', () => {
  const cases: Array<[string, string, 'module' | 'provider', string]> = [
    ['~> 5.1', '6.0.0', 'provider', '~> 6.0'],
    ['~> 5.1.2', '6.0.3', 'provider', '~> 6.0.3'],
    ['~> 5', '6.2.0', 'provider', '~> 6'],
    ['~>5.1', '6.0.0', 'module', '~>6.0'],
    ['>= 1.2', '2.0.0', 'provider', '>= 2.0'],
    ['>= 1.2.0', '2.1.3', 'module', '>= 2.1.3'],
    ['1.2.3', '2.0.0', 'provider', '2.0.0'],
    ['= 1.2.3', '2.0.0', 'module', '= 2.0.0'],
    ['=1.2.3', '1.4.0', 'module', '=1.4.0'],
    ['> 1.0', '2.0.0', 'provider', '> 1.0'],
    ['<= 1.9.0', '2.0.1', 'provider', '<= 2.0.1'],
  ];
  for (const [from, target, rules, want] of cases) {
    assert.equal(rewriteConstraint(from, target, rules), want, `${from} → ${target} (${rules})`);
    assert.equal(selectVersions([target], want, rules).selected, target, `${want} selects ${target}`);
  }
});

test('several constraints: the floor rises, an upper bound moves just above the target, exclusions stay', () => {
  assert.equal(rewriteConstraint('>= 1.2, < 2.0', '2.3.0', 'provider'), '>= 2.3, < 3.0');
  assert.equal(rewriteConstraint('>= 1.2.0, < 2.0.0, != 1.5.0', '2.1.0', 'provider'), '>= 2.1.0, < 3.0.0, != 1.5.0');
  assert.equal(rewriteConstraint('>= 1.0, < 1.3', '1.5.0', 'module'), '>= 1.5, < 1.6');
  assert.equal(rewriteConstraint('~> 1.2,<2', '3.1.0', 'provider'), '~> 3.1,<4');
  // an exclusion of the target itself cannot be rewritten in the same style
  assert.equal(rewriteConstraint('>= 1.0, != 2.0.0', '2.0.0', 'provider'), undefined);
});

test('prereleases: a release target drops the prerelease; an exact prerelease pin moves to the target', () => {
  assert.equal(rewriteConstraint('~> 1.0.0-beta', '1.2.0', 'module'), '~> 1.2.0');
  assert.equal(rewriteConstraint('= 2.0.0-alpha1', '2.0.0-alpha2', 'provider'), '= 2.0.0-alpha2');
  assert.equal(rewriteConstraint('2.0.0-alpha1', '2.1.0', 'provider'), '2.1.0');
  // module versions as a registry writes them ("v1.1.0", build metadata) are pinned canonically
  assert.equal(rewriteConstraint('1.0.0', 'v1.1.0', 'module'), '1.1.0');
});

test('malformed constraints and versions give no rewrite', () => {
  assert.equal(rewriteConstraint('~> banana', '2.0.0', 'provider'), undefined);
  assert.equal(rewriteConstraint('~> 1.0', 'v2.0.0', 'provider'), undefined);
});

test('the edit changes only the differing characters; the rest of the file is kept byte for byte', () => {
  const text = [
    'module "net" {',
    '  source  = "acme/net/aws" # pinned by platform',
    '  version = "~> 5.1"   // keep this comment',
    '}',
    'terraform {',
    '  required_providers {',
    '    aws = { source = "hashicorp/aws", version = ">= 1.2, < 2.0" } # inline',
    '  }',
    '}',
    '',
  ].join('\r\n');
  const summary = extractFile(parseHcl(text), text);
  const mod = summary.modules[0].version!;
  const e1 = constraintEdit(text, mod.contentRange!, mod.literal!, '~> 6.0')!;
  assert.equal(e1.newText, '6.0');
  assert.equal(text.slice(e1.range.start.offset, e1.range.end.offset), '5.1');
  assert.equal(e1.range.start.line, 2);
  const prov = summary.requiredProviders[0].version!;
  const e2 = constraintEdit(text, prov.contentRange!, prov.literal!, '>= 2.3, < 3.0')!;
  const out = applyEdits(text, [e1, e2]);
  assert.equal(out, text.replace('~> 5.1', '~> 6.0').replace('>= 1.2, < 2.0', '>= 2.3, < 3.0'));
  // a string that is not written as its plain value (escapes) is not edited
  const escaped = 'module "m" {\n  version = "\\u007e> 1.0"\n}\n';
  const v = extractFile(parseHcl(escaped), escaped).modules[0].version!;
  assert.equal(constraintEdit(escaped, v.contentRange!, v.literal!, '~> 2.0'), undefined);
});

function dep(over: Partial<Dependency>): Dependency {
  return {
    dir: '/x', kind: 'module', name: 'net', source: 'acme/net/aws', constraint: '~> 5.1', locked: null, selected: '5.1.0',
    newestMatching: '5.1.0', newest: '6.0.0', status: 'update-out-of-range', message: null, ...over,
  };
}

test('planUpgradeToNewest works on the current text, finds the block by name, and explains non-edits', () => {
  const text = 'module "net" {\n  source  = "acme/net/aws"\n  version = "~> 5.1"\n}\nmodule "free" {\n  source = "acme/free/aws"\n}\n';
  const plan = planUpgradeToNewest(dep({}), text, 'main.tf');
  assert.equal(plan.constraint, '~> 6.0');
  assert.equal(plan.version, '6.0.0');
  assert.equal(applyEdits(text, [plan.edit!]), text.replace('~> 5.1', '~> 6.0'));
  const none = planUpgradeToNewest(dep({ name: 'free', constraint: null }), text, 'main.tf');
  assert.equal(none.edit, undefined);
  assert.match(none.message!, /no version constraint/);
  assert.match(planUpgradeToNewest(dep({ name: 'gone' }), text, 'main.tf').message!, /no longer declared/);
  // a provider held back by a child module's constraint: the root is rewritten, the blocker named
  const tf = 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = "~> 5.1"\n    }\n  }\n}\n';
  const held = planUpgradeToNewest(dep({ kind: 'provider', name: 'aws', childConstraints: [{ module: 'module.vpc', constraint: '< 6.0.0' }] }), tf, 'versions.tf');
  assert.equal(held.constraint, '~> 6.0');
  assert.equal(held.version, null);
  assert.match(held.message!, /module\.vpc requires "< 6\.0\.0"/);
});

test('"Upgrade to newest" when the constraint already allows the newest: a provider held back by its lock is relocked, nothing else is pretended', () => {
  const tf = (c: string) => `terraform {\n  required_providers {\n    widget = {\n      source  = "acme/widget"\n      version = "${c}"\n    }\n  }\n}\n`;
  const widget = (over: Partial<Dependency>) => dep({ kind: 'provider', name: 'widget', source: 'registry.opentofu.org/acme/widget', ...over });
  // update-in-range: "~> 1.0" allows 1.1.0, the lock holds 1.0.0: no edit, a relock to 1.1.0
  const inRange = planUpgradeToNewest(widget({ constraint: '~> 1.0', locked: '1.0.0', selected: '1.0.0', newestMatching: '1.1.0', newest: '1.1.0', status: 'update-in-range' }), tf('~> 1.0'), 'versions.tf');
  assert.deepEqual(inRange, { constraint: '~> 1.0', version: '1.1.0', relock: true, message: '"~> 1.0" already allows 1.1.0: the lock file moves from 1.0.0 to 1.1.0' });
  // the lock contradicts the constraint (unsatisfiable), which allows the newest: relocking is the fix
  const contradicted = planUpgradeToNewest(widget({ constraint: '~> 2.0', locked: '1.1.0', selected: null, newestMatching: '2.0.0', newest: '2.0.0', status: 'unsatisfiable' }), tf('~> 2.0'), 'versions.tf');
  assert.equal(contradicted.relock, true);
  assert.equal(contradicted.version, '2.0.0');
  // not locked: tofu init already picks the newest; a module: init -upgrade installs it (no lock to move)
  const unlocked = planUpgradeToNewest(widget({ constraint: '~> 1.0', newest: '1.1.0' }), tf('~> 1.0'), 'versions.tf');
  assert.deepEqual([unlocked.edit, unlocked.relock], [undefined, undefined]);
  assert.match(unlocked.message!, /nothing to edit, tofu init already selects it/);
  const text = 'module "net" {\n  source  = "acme/net/aws"\n  version = "~> 5"\n}\n';
  const mod = planUpgradeToNewest(dep({ constraint: '~> 5', locked: '5.0.0', newest: '6.0.0' }), text, 'main.tf');
  assert.deepEqual([mod.edit, mod.relock], [undefined, undefined]);
  assert.equal(mod.message, '"~> 5" already allows 6.0.0: nothing to edit, tofu init -upgrade installs it (installed: 5.0.0)');
  // nothing can be done: the reason is given, never an empty plan
  const stuck = planUpgradeToNewest(widget({ constraint: '> 5.0', locked: null, newest: '2.0.0', status: 'unsatisfiable' }), tf('> 5.0'), 'versions.tf');
  assert.deepEqual([stuck.edit, stuck.relock, stuck.message], [undefined, undefined, 'cannot rewrite "> 5.0" to reach 2.0.0']);
});

test('"Upgrade to newest" on a provider only a child module or the lock file declares: relock when its constraints allow the newest', () => {
  const child = (over: Partial<Dependency>) => dep({ kind: 'provider', name: 'widget', source: 'registry.opentofu.org/acme/widget', site: undefined, ...over });
  const ok = planUndeclaredUpgrade(child({ constraint: '>= 1.0', locked: '1.0.0', newest: '1.1.0', status: 'update-in-range' }));
  assert.deepEqual([ok.relock, ok.version], [true, '1.1.0']);
  const held = planUndeclaredUpgrade(child({ constraint: '< 2.0.0', locked: '1.0.0', newest: '2.0.0' }));
  assert.equal(held.relock, undefined);
  assert.equal(held.message, 'provider "widget" is declared only by a child module or the lock file: change its constraint there');
  assert.equal(planUndeclaredUpgrade(child({ constraint: null, locked: '1.0.0', newest: '1.1.0' })).relock, true);
});
