// The module package zip publish-module pushes: the same files give the same bytes (built twice,
// with every file's time and the directory order changed in between), nothing from .git/,
// .terraform/, state files or what DIR's .gitignore / .terraformignore excludes, read back by a
// real zip reader (yauzl) with the fixed modes and times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import * as yauzl from 'yauzl';
import { buildModulePackage, ModulePackageError } from '../../../src/engine/publish/package-zip';
import { tempDir } from '../../support/temp';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

function readZip(file: string): Promise<Array<{ name: string; mode: number; time: number; date: number; extra: number; data: string }>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out: Array<{ name: string; mode: number; time: number; date: number; extra: number; data: string }> = [];
      zip.on('entry', (e: yauzl.Entry) => {
        const base = { name: e.fileName, mode: (e.externalFileAttributes >>> 16) & 0o7777, time: e.lastModFileTime, date: e.lastModFileDate, extra: e.extraFieldLength };
        if (e.fileName.endsWith('/')) { out.push({ ...base, data: '' }); zip.readEntry(); return; }
        zip.openReadStream(e, (e2, s) => {
          if (e2 || !s) return reject(e2);
          const chunks: Buffer[] = [];
          s.on('data', (c: Buffer) => chunks.push(c));
          s.on('end', () => { out.push({ ...base, data: Buffer.concat(chunks).toString() }); zip.readEntry(); });
        });
      });
      zip.on('end', () => { zip.close(); resolve(out); });
      zip.readEntry();
    });
  });
}

test('module package zip: same bytes every run; ignored, VCS, .terraform and state files left out', async () => {
  const ws = tempDir('pkgzip-');
  try {
    const mod = join(ws, 'module');
    write(mod, {
      'main.tf': 'variable "name" {\n  type = string\n}\n',
      'outputs.tf': 'output "id" {\n  value = var.name\n}\n',
      'modules/sub/main.tf': 'resource "null_resource" "x" {}\n',
      'modules/sub/README.md': '# sub\n',
      'scripts/run.sh': '#!/bin/sh\necho hi\n',
      'empty.txt': '',
      '.gitignore': 'secret.auto.tfvars\nbuild/\n',
      '.terraformignore': '*.log\n!keep.log\n',
      'secret.auto.tfvars': 'password = "x"\n',
      'build/out.bin': 'junk',
      'debug.log': 'noise',
      'keep.log': 'kept',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.terraform/modules/modules.json': '{}',
      'modules/sub/.terraform/x': 'y',
      'terraform.tfstate': '{}',
      'terraform.tfstate.backup': '{}',
      'terraform.tfstate.d/dev/terraform.tfstate': '{}',
      'ünïcode.tf': '# name in UTF-8\n',
    });
    chmodSync(join(mod, 'scripts/run.sh'), 0o750);
    chmodSync(join(mod, 'main.tf'), 0o600);
    symlinkSync('main.tf', join(mod, 'linked.tf'));
    const a = await buildModulePackage(mod, join(ws, 'a.zip'));
    // Another run later: other times, files rewritten (so created again in another directory order).
    utimesSync(join(mod, 'main.tf'), new Date('2031-05-06T07:08:09Z'), new Date('2031-05-06T07:08:09Z'));
    rmSync(join(mod, 'modules/sub/README.md'));
    writeFileSync(join(mod, 'modules/sub/README.md'), '# sub\n');
    const b = await buildModulePackage(mod, join(ws, 'b.zip'));
    const sha = (f: string) => `sha256:${createHash('sha256').update(readFileSync(f)).digest('hex')}`;
    assert.equal(sha(join(ws, 'a.zip')), sha(join(ws, 'b.zip')), 'the same bytes');
    assert.equal(a.digest, sha(join(ws, 'a.zip')));
    assert.equal(b.digest, a.digest);
    assert.equal(a.size, readFileSync(join(ws, 'a.zip')).length);
    assert.deepEqual(a.entries, [
      '.gitignore', '.terraformignore', 'empty.txt', 'keep.log', 'linked.tf', 'main.tf', 'modules/', 'modules/sub/', 'modules/sub/README.md', 'modules/sub/main.tf',
      'outputs.tf', 'scripts/', 'scripts/run.sh', 'ünïcode.tf',
    ]);
    assert.deepEqual(a.ignored, ['.git/', '.terraform/', 'build/', 'debug.log', 'modules/sub/.terraform/', 'secret.auto.tfvars', 'terraform.tfstate', 'terraform.tfstate.backup', 'terraform.tfstate.d/']);
    const read = await readZip(join(ws, 'a.zip'));
    assert.deepEqual(read.map((e) => e.name), a.entries);
    const by = new Map(read.map((e) => [e.name, e]));
    assert.equal(by.get('main.tf')!.data, 'variable "name" {\n  type = string\n}\n');
    assert.equal(by.get('linked.tf')!.data, by.get('main.tf')!.data, 'a link inside the package is stored as its file');
    assert.equal(by.get('main.tf')!.mode, 0o644);
    assert.equal(by.get('scripts/run.sh')!.mode, 0o755);
    assert.equal(by.get('modules/')!.mode, 0o755);
    for (const e of read) {
      assert.deepEqual([e.time, e.date, e.extra], [0, 0x21, 0], e.name);
    }
    assert.ok(!read.some((e) => /secret|tfstate|\.git\/|\.terraform\/|debug\.log|build\//.test(e.name)));

    // a link that leaves the package is refused
    symlinkSync(join(ws, 'a.zip'), join(mod, 'outside.tf'));
    await assert.rejects(buildModulePackage(mod, join(ws, 'c.zip')), (err: Error) => err instanceof ModulePackageError && /leading outside the package/.test(err.message));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
