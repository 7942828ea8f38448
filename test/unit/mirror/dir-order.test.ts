// mirrorProviders reads its configuration directories in parallel: the report still lists notes
// and configuration failures in the order the directories were given, and a directory that cannot
// be read fails the run with the first such directory in that order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { mirrorProviders } from '../../../src/engine/mirror';
import { tempDir } from '../../support/temp';

const BUILT_IN = 'terraform {\n  required_providers {\n    terraform = {\n      source = "terraform.io/builtin/terraform"\n    }\n  }\n}\n';
const BROKEN = 'terraform {\n  required_providers {\n    x = {\n      source = "not a/valid/address/x"\n    }\n  }\n}\n';

test('directories read in parallel, reported in the order given', async () => {
  const root = tempDir('mirror-dir-order-');
  // The first directory is slow to read (400 files), the last one quick: completion order is reversed.
  const dirs = ['slow', 'medium', 'quick'].map((name, i) => {
    const dir = join(root, name);
    mkdirSync(dir);
    for (let f = 0; f < [400, 40, 0][i]; f++) writeFileSync(join(dir, `f${f}.tf`), `# ${'filler '.repeat(200)}\n`);
    writeFileSync(join(dir, 'builtin.tf'), BUILT_IN);
    writeFileSync(join(dir, 'broken.tf'), BROKEN);
    return dir;
  });
  const engine = new Engine({ env: {}, networkAllowed: () => false });
  try {
    const r = await mirrorProviders({ engine, dirs, out: join(root, 'out'), platforms: ['linux_amd64'] });
    assert.deepEqual(r.notes.filter((n) => n.includes('built into OpenTofu,')).map((n) => n.slice(root.length + 1, n.indexOf(':'))), ['slow', 'medium', 'quick']);
    assert.deepEqual(r.failed.map((f) => [f.step, /\/(\w+)\/broken\.tf: provider "x"/.exec(f.message)?.[1]]), [['config', 'slow'], ['config', 'medium'], ['config', 'quick']]);

    const missing = [join(root, 'missing-1'), join(root, 'missing-2')];
    await assert.rejects(mirrorProviders({ engine, dirs: [dirs[0], ...missing], out: join(root, 'out'), platforms: ['linux_amd64'] }),
      (e: Error) => e.message.includes(missing[0]) && !e.message.includes(missing[1]));
  } finally {
    await engine.dispose();
  }
});
