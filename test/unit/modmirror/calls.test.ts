// Which module calls the mirror follows: override files merged like OpenTofu merges module blocks,
// JSON syntax, and inside a package only what tofu init reaches from the called module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexedDir, indexedFile, indexFiles, indexPackage, reachableCalls, readModuleCalls } from '../../../src/engine/modmirror/calls';
import { packDirectory } from '../../../src/engine/modmirror/tarball';
import { tempDir } from '../../support/temp';

function write(root: string, files: Record<string, string>): string {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), text);
  }
  return root;
}

test('a directory\'s calls: override files replace only the source/version they set; JSON syntax; expressions kept as text', async () => {
  const dir = write(tempDir('modmirror-calls-'), {
    'main.tf': 'module "a" {\n  source  = "acme/a/aws"\n  version = "~> 1.0"\n}\n\nmodule "b" {\n  source = "acme/b/aws"\n}\n\nmodule "c" {\n  source  = "${var.where}/c/aws"\n  version = var.v\n}\n',
    'override.tf': 'module "a" {\n  version = "1.2.0"\n}\n',
    'b_override.tf': 'module "b" {\n  source = "acme/b2/aws"\n}\n',
    'extra.tf.json': JSON.stringify({ module: { d: { source: 'acme/d/aws', version: '>= 2' } } }),
  });
  const calls = Object.fromEntries((await readModuleCalls(dir)).map((c) => [c.name, c]));
  assert.deepEqual([calls.a.source, calls.a.version, calls.a.file, calls.a.line], ['acme/a/aws', '1.2.0', 'main.tf', 1]);
  assert.deepEqual([calls.b.source, calls.b.version, calls.b.file], ['acme/b2/aws', null, 'b_override.tf']);
  assert.deepEqual([calls.c.source, calls.c.sourceText, calls.c.version, calls.c.versionText], [null, '"${var.where}/c/aws"', null, 'var.v']);
  assert.deepEqual([calls.d.source, calls.d.version, calls.d.file], ['acme/d/aws', '>= 2', 'extra.tf.json']);
});

test('inside a package: calls reached from the called module through local modules; examples and escapes are not followed', async () => {
  const root = write(tempDir('modmirror-pkg-'), {
    'main.tf': 'module "inner" {\n  source = "./modules/inner"\n}\n',
    'modules/inner/main.tf': 'module "leaf" {\n  source = "acme/leaf/aws"\n}\nmodule "sibling" {\n  source = "../sibling"\n}\n',
    'modules/sibling/main.tf': 'module "git" {\n  source = "git::https://example.com/x.git"\n}\nmodule "out" {\n  source = "../../../outside"\n}\nmodule "back" {\n  source = "../inner"\n}\n',
    'examples/demo/main.tf': 'module "unused" {\n  source = "acme/unused/aws"\n}\n',
    'wrapper/x/main.tf': 'module "w" {\n  source = "acme/w/aws"\n}\n',
  });
  const index = await indexPackage(root);
  // the index built from what packDirectory read equals the one read from disk
  const files = new Map<string, Buffer>();
  await packDirectory(root, join(tempDir('modmirror-pkg-out-'), 'p.tar.gz'), { keep: indexedFile, files });
  assert.deepEqual(indexFiles(files), index);
  assert.ok([...files.keys()].every((f) => f.endsWith('.tf')), 'only configuration files are kept');
  assert.deepEqual(Object.keys(index.dirs).sort(), ['', 'examples/demo', 'modules/inner', 'modules/sibling', 'wrapper/x']);
  const { calls, escapes } = reachableCalls(index, '');
  assert.deepEqual(calls.map((c) => `${c.dir}:${c.call.source}`), ['modules/inner:acme/leaf/aws', 'modules/sibling:git::https://example.com/x.git']);
  assert.deepEqual(escapes.map((c) => `${c.dir}:${c.call.source}`), ['modules/sibling:../../../outside']);
  assert.deepEqual(reachableCalls(index, 'modules/sibling/').calls.length, 2, 'a subdir start, trailing slash normalised');
  assert.equal(indexedDir(index, 'modules/inner'), 'modules/inner');
  assert.equal(indexedDir(index, 'wrapper/*'), 'wrapper/x', 'a glob with exactly one match');
  assert.equal(indexedDir(index, 'modules/*'), undefined, 'ambiguous glob');
  assert.equal(indexedDir(index, 'nothing'), undefined);
});
