// Hostile registry, class 1: decompression bombs in module packages. ~1 MB tar.gz files that
// inflate to a gibibyte, served by a real HTTPS registry on 127.0.0.1 to the real CLI (a child
// process): the run ends with a clear refusal (or, for zeros after the end of the archive, which
// tofu never reads either, the package as it is), its peak RSS stays under 300 MB (the old code
// inflated the whole archive in memory before any check), nothing of a refused package is kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';
import { assertNoCrash, mb, runCli, tarHeader, writeGzipBomb, writeGzipOfZeros } from '../../support/hostile-archives';

const GiB = 1024 ** 3;
const RSS_LIMIT = 300 * 1024 * 1024;
let reg: TestRegistry;
let root: string;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  root = tempDir('hostile-bombs-');
  // one entry that says (truthfully) it is 1 GiB of zeros
  const declared = join(root, 'declared.tar.gz');
  await writeGzipOfZeros(declared, tarHeader('main.tf', GiB), GiB, Buffer.alloc(1024));
  // a valid little package followed by 1 GiB of zeros after its end-of-archive blocks (tar ignores them)
  const trailing = join(root, 'trailing.tar.gz');
  const tf = Buffer.from('variable "name" {\n  type = string\n}\n');
  const head = Buffer.concat([tarHeader('main.tf', tf.length), tf, Buffer.alloc(512 - tf.length)]);
  await writeGzipOfZeros(trailing, head, GiB, Buffer.alloc(1024));
  // 1024 GNU long-name headers of 1 MiB each: no entry, no declared size, only inflated bytes
  const longName = join(root, 'longname.tar.gz');
  await writeGzipBomb(longName, Buffer.alloc(0), Buffer.concat([tarHeader('././@LongLink', 1024 * 1024, 'L'), Buffer.alloc(1024 * 1024)]), 1024, Buffer.alloc(1024));
  for (const name of ['declared', 'trailing', 'longname']) {
    reg.addModule({ namespace: 'evil', name, system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/${name}.tar.gz` }) });
    reg.addFile(`/archives/${name}.tar.gz`, readFileSync(join(root, `${name}.tar.gz`)), 'application/gzip');
  }
});
after(async () => { await reg.stop(); });

function workspace(name: string, module: string): string {
  const dir = join(root, 'ws', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.tf'), `module "bomb" {\n  source  = "${reg.host}/evil/${module}/aws"\n  version = "1.0.0"\n  name    = "x"\n}\n`);
  return dir;
}

for (const module of ['declared', 'longname']) {
  test(`types check: a ~1 MB tar.gz inflating to 1 GiB (${module}) is refused as it inflates; peak RSS < 300 MB`, { timeout: 120_000 }, async (t) => {
    const ws = workspace(`types-${module}`, module);
    const cache = join(root, `cache-types-${module}`);
    const run = await runCli(['types', 'check', '--ca-file', reg.caCertPath, '--cache-dir', cache, ws]);
    t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
    assert.equal(assertNoCrash(run), undefined);
    assert.match(run.stdout, /warning: Cannot check the inputs of module "bomb": refusing to extract the module package from https:\/\/127\.0\.0\.1:\d+\/archives\/\w+\.tar\.gz: (it inflates to )?more than (100 times its \d+-byte size \(\d+ bytes\)|\d+ bytes)/, run.stdout + run.stderr);
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
    // nothing of the refused package stays in the cache
    assert.deepEqual(readdirSync(join(cache, 'modules')).filter((n) => !n.startsWith('.')), []);
  });
}

test('types check: 1 GiB of zeros after the end of the archive is never inflated (Go\'s tar reader stops there too): the package is read; peak RSS < 300 MB', { timeout: 120_000 }, async (t) => {
  const ws = workspace('types-trailing', 'trailing');
  const run = await runCli(['types', 'check', '--ca-file', reg.caCertPath, '--cache-dir', join(root, 'cache-trailing'), ws]);
  t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.stdout, '', 'the module was read: name = "x" is a string, nothing to report');
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
  assert.ok(run.ms < 30_000, `took ${run.ms} ms`);
});

test('mirror-modules: the bomb fails alone with the reason; peak RSS < 300 MB; OUT holds no package of it', { timeout: 120_000 }, async (t) => {
  const ws = workspace('mirror', 'longname');
  const out = join(tempDir('hostile-bombs-out-'), 'site');
  const run = await runCli(['mirror-modules', '--json', '--no-cache', '--ca-file', reg.caCertPath, '--out', out, ws]);
  t.diagnostic(`peak RSS ${mb(run.peakRss)}, ${run.ms} ms`);
  assert.equal(assertNoCrash(run), undefined);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.mirrored, []);
  assert.equal(report.failed.length, 1);
  assert.equal(report.failed[0].step, 'fetch');
  assert.match(report.failed[0].message, /refusing to extract the module package from .*longname\.tar\.gz: it inflates to more than 100 times its \d+-byte size/);
  assert.ok(run.peakRss < RSS_LIMIT, `peak RSS ${mb(run.peakRss)} (limit 300 MB)`);
  assert.deepEqual(readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.tar.gz')), []);
});
