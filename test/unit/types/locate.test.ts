// One resolver for a module call's package (modulepkg/locate.ts): the requirement collector, the
// module resolver (inputs/outputs), sharedModuleReader (dependency graph, lock) and the pure
// localModuleDir agree on every kind of source — local, missing local, absolute path, installed by
// `tofu init` (registry and oci:// calls), not installed — with one message each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectProviderRequirements } from '../../../src/engine/lock/requirements';
import { localModuleDir, locateModule } from '../../../src/engine/modulepkg/locate';
import { ModuleResolver, sharedModuleReader, InstalledModules } from '../../../src/engine/modulepkg/resolve';
import { tempDir } from '../../support/temp';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

test('one resolver: every reader finds the same package directory, or fails with the same message', async () => {
  const ws = tempDir('locate-');
  try {
    const abs = join(ws, 'elsewhere');
    const caller = join(ws, 'root');
    const calls: Record<string, string> = {
      net: './modules/net',
      gone: './modules/gone',
      absolute: `${abs}//sub`,
      reg: 'acme/net/aws',
      oci: 'oci://registry.example.com/modules/vpc?tag=v1.2.0',
      fresh: 'oci://registry.example.com/modules/new',
    };
    write(ws, {
      'root/main.tf': Object.entries(calls).map(([n, s]) => `module "${n}" {\n  source = "${s}"\n}\n`).join(''),
      'root/modules/net/main.tf': 'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n',
      'elsewhere/sub/main.tf': 'resource "random_id" "x" {}\n',
      'root/.terraform/modules/reg/main.tf': 'resource "null_resource" "x" {}\n',
      'root/.terraform/modules/oci/main.tf': 'resource "tls_private_key" "x" {}\n',
      'root/.terraform/modules/modules.json': JSON.stringify({
        Modules: [
          { Key: '', Source: '', Dir: '.' },
          { Key: 'net', Source: './modules/net', Dir: 'modules/net' },
          { Key: 'reg', Source: 'registry.opentofu.org/acme/net/aws', Version: '1.2.0', Dir: '.terraform/modules/reg' },
          { Key: 'oci', Source: calls.oci, Dir: '.terraform/modules/oci' },
        ],
      }),
    });
    const want: Record<string, { dir: string; via: string } | RegExp> = {
      net: { dir: join(caller, 'modules/net'), via: 'local' },
      gone: new RegExp(`module directory \\./modules/gone does not exist \\(resolved to ${join(caller, 'modules/gone')}\\)$`),
      absolute: { dir: join(abs, 'sub'), via: 'local' },
      reg: { dir: join(caller, '.terraform/modules/reg'), via: 'installed' },
      oci: { dir: join(caller, '.terraform/modules/oci'), via: 'installed' },
      fresh: /module oci:\/\/registry\.example\.com\/modules\/new is not installed \(run tofu init\)/,
    };
    const resolver = new ModuleResolver({}); // no engine: nothing is fetched
    const reader = sharedModuleReader(undefined, { installed: new InstalledModules() });
    for (const [name, source] of Object.entries(calls)) {
      const req = { callerDir: caller, name, source };
      const expected = want[name];
      for (const [who, run] of [
        ['locateModule', () => locateModule(req, { installed: new InstalledModules() })],
        ['ModuleResolver.resolve', () => resolver.resolve(req)],
        ['sharedModuleReader', () => reader.resolve(req)],
      ] as const) {
        if (expected instanceof RegExp) {
          await assert.rejects(run(), expected, `${who}: ${name}`);
        } else {
          const got = await run();
          assert.equal(got.dir, expected.dir, `${who}: ${name}`);
          if ('via' in got) assert.equal(got.via, expected.via, `${who}: ${name}`);
        }
      }
      // the pure form, for walks that must not touch the disk (root-module filter, local call tree)
      assert.equal(localModuleDir(caller, source), source.startsWith('./') ? join(caller, source) : undefined, name);
    }
    assert.equal((await resolver.resolve({ callerDir: caller, name: 'oci', source: calls.oci })).iface.variables.length, 0);

    // The requirement collector: the same directories (installed ones through the reader), the same messages.
    const reqs = await collectProviderRequirements(caller, { resolver: reader });
    assert.deepEqual(reqs.modules.map((m) => [m.path, m.dir]), [
      ['net', join(caller, 'modules/net')], ['absolute', join(abs, 'sub')], ['reg', join(caller, '.terraform/modules/reg')], ['oci', join(caller, '.terraform/modules/oci')],
    ]);
    assert.deepEqual(reqs.providers.map((p) => p.address), ['registry.opentofu.org/hashicorp/aws', 'registry.opentofu.org/hashicorp/null', 'registry.opentofu.org/hashicorp/random', 'registry.opentofu.org/hashicorp/tls']);
    const problems = reqs.errors.map((e) => e.message.replace(/^module "(\w+)" \(.*?\) could not be read, so its providers are unknown: /, '$1: '));
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0], /^gone: module directory \.\/modules\/gone does not exist \(resolved to /);
    assert.match(problems[1], /^fresh: module oci:\/\/registry\.example\.com\/modules\/new is not installed \(run tofu init\)$/);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
