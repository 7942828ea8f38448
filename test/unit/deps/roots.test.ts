// Root configuration directories among those found by walking: a directory another found one calls
// as a local module is a child module, left out; named directories are always kept; a cycle of
// local calls hides nothing. Real files; findConfigDirs does the walking, as `outdated` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rootConfigDirs } from '../../../src/engine/deps';
import { findConfigDirs } from '../../../src/engine/mirror';
import { tempTree } from '../../support/temp';

test('a directory another one calls as a local module is not a root; named directories are', async () => {
  const root = tempTree('tofu-registry-roots-', {
    // nested child, called with "./"; a grandchild called from the child
    'app/main.tf': 'module "child" {\n  source = "./modules/child"\n}\n',
    'app/modules/child/main.tf': 'module "grand" {\n  source = "../grand"\n}\n',
    'app/modules/grand/main.tf': 'variable "x" {}\n',
    // a shared module beside two stacks, called with "../"; a .tf.json caller
    'live/a/main.tf': 'module "s" {\n  source = "../../shared/net"\n}\n',
    'live/b/main.tf.json': '{"module": {"s": {"source": "../../shared/net"}}}',
    'shared/net/main.tf': 'variable "y" {}\n',
    // a module of the same name from a registry, a call to itself and to a missing directory: no effect
    'other/main.tf': 'module "r" {\n  source = "acme/net/aws"\n}\nmodule "self" {\n  source = "./"\n}\nmodule "gone" {\n  source = "./nothing"\n}\n',
    // two directories calling each other and nothing else: neither is hidden
    'loop/x/main.tf': 'module "y" {\n  source = "../y"\n}\n',
    'loop/y/main.tf': 'module "x" {\n  source = "../x"\n}\n',
  });
  const found = await findConfigDirs(root);
  assert.equal(found.length, 9);
  const rel = (dirs: string[]) => dirs.map((d) => d.slice(root.length + 1));
  assert.deepEqual(rel(await rootConfigDirs(found)), ['app', 'live/a', 'live/b', 'loop/x', 'loop/y', 'other']);
  // named on the command line: listed although called
  assert.deepEqual(rel(await rootConfigDirs(found, [join(root, 'app/modules/child'), join(root, 'shared/net/')])),
    ['app', 'app/modules/child', 'live/a', 'live/b', 'loop/x', 'loop/y', 'other', 'shared/net']);
  // the caller not among the directories: the called one is a root here
  assert.deepEqual(rel(await rootConfigDirs(found.filter((d) => !d.endsWith('/app')))), ['app/modules/child', 'live/a', 'live/b', 'loop/x', 'loop/y', 'other']);
});
