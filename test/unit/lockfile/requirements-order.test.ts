// Modules of a tree are read in parallel: the result must still list everything in the order a
// one-at-a-time depth-first walk would (files, modules, errors, each provider's origins). The
// resolver here answers the first calls last, so a result built in completion order would differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { collectProviderRequirements } from '../../../src/engine/lock';
import type { ModuleRequest } from '../../../src/engine/modulepkg/resolve';
import { tempTree } from '../../support/temp';

const requires = (constraint: string, extra = '') =>
  `terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = "${constraint}"\n    }\n${extra}  }\n}\n`;
const call = (name: string, source: string) => `module "${name}" {\n  source = "${source}"\n}\n`;

test('several child modules read in parallel: every list in depth-first call order, as read one at a time', async () => {
  const root = tempTree('lock-order-', {
    'root/main.tf': requires('>= 5.0') + call('a', 'corp/a/aws') + call('b', 'corp/b/aws') + call('bad', 'corp/missing/aws')
      + call('c', 'corp/c/aws') + call('l', './local'),
    'root/local/main.tf': requires('>= 5.6'),
    'a/main.tf': requires('>= 5.1') + call('a1', 'corp/a1/aws') + call('a2', 'corp/a2/aws'),
    'a/z.tf': 'resource "random_id" "a" {}\n',
    'a1/main.tf': requires('>= 5.11'),
    'a2/main.tf': requires('>= 5.12', '    broken = {\n      source = "not a/valid/address/x"\n    }\n'),
    'b/main.tf': requires('not a constraint'),
    'c/main.tf': requires('>= 5.3') + 'provider "google" {\n  version = "~> 4.0"\n}\n',
  });
  // Earlier calls answer later: a after 80 ms, b after 40 ms, c at once; a1 after a2.
  const delays: Record<string, number> = { 'corp/a/aws': 80, 'corp/b/aws': 40, 'corp/c/aws': 0, 'corp/a1/aws': 50, 'corp/a2/aws': 0, 'corp/missing/aws': 10 };
  const started: string[] = [];
  const resolver = {
    async resolve(req: ModuleRequest) {
      started.push(req.source);
      await new Promise((r) => setTimeout(r, delays[req.source]));
      if (req.source === 'corp/missing/aws') throw new Error('no such module');
      return { dir: join(root, req.source.split('/')[1]) };
    },
  };
  const r = await collectProviderRequirements(join(root, 'root'), { resolver });
  assert.ok(started.indexOf('corp/c/aws') < started.indexOf('corp/a1/aws'), `siblings resolved in parallel: ${started.join(', ')}`);

  const rel = (p: string) => p.slice(root.length + 1);
  assert.deepEqual(r.files.map(rel), ['root/main.tf', 'a/main.tf', 'a/z.tf', 'a1/main.tf', 'a2/main.tf', 'b/main.tf', 'c/main.tf', 'root/local/main.tf']);
  assert.deepEqual(r.modules.map((m) => [m.path, rel(m.dir)]), [
    ['a', 'a'], ['a.a1', 'a1'], ['a.a2', 'a2'], ['b', 'b'], ['c', 'c'], ['l', 'root/local'],
  ]);
  assert.deepEqual(r.errors.map((e) => [e.file && rel(e.file), e.message.replace(/:.*$/s, '')]), [
    ['a2/main.tf', 'provider "broken"'],
    ['b/main.tf', 'invalid version constraint "not"'],
    ['root/main.tf', 'module "bad" (corp/missing/aws) could not be read, so its providers are unknown'],
  ]);
  const aws = r.providers.find((p) => p.address === 'registry.opentofu.org/hashicorp/aws')!;
  assert.deepEqual(aws.origins.map((o) => [o.module, o.constraint]), [
    ['', '>= 5.0'], ['a', '>= 5.1'], ['a.a1', '>= 5.11'], ['a.a2', '>= 5.12'], ['b', null], ['c', '>= 5.3'], ['l', '>= 5.6'],
  ]);
  assert.deepEqual(aws.constraints, ['>= 5.0', '>= 5.1', '>= 5.11', '>= 5.12', '>= 5.3', '>= 5.6']);
  assert.deepEqual(r.providers.map((p) => p.address), ['registry.opentofu.org/hashicorp/aws', 'registry.opentofu.org/hashicorp/google', 'registry.opentofu.org/hashicorp/random']);

  // The same tree read again gives the same result, whatever the timing this time.
  for (const k of Object.keys(delays)) delays[k] = 80 - delays[k];
  assert.deepEqual(await collectProviderRequirements(join(root, 'root'), { resolver }), r);
});
