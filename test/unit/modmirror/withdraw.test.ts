// "A version that failed is never listed", for versions already in OUT: a listed version whose
// archive is damaged or missing, and that cannot be fetched again, is taken off the site (and its
// `download` and the damaged archive with it) instead of staying listed; one whose `download` is
// lost and cannot be rewritten is unlisted but keeps its intact archive. The site stays valid
// throughout and the next run, with the origin back, lists them again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { parseModuleSource, RegistryModuleSource } from '../../../src/engine/addresses/module-source';
import { mirrorModules } from '../../../src/engine/modmirror';
import { versionPaths } from '../../../src/engine/modmirror/paths';
import { startModuleOrigin, ModuleOrigin } from '../../support/module-origin';
import { readSite } from '../../support/module-site';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
before(async () => { o = await startModuleOrigin(); });
after(async () => { await o.stop(); });

const call = (name: string, source: string, version?: string) =>
  `module "${name}" {\n  source = "${source}"\n${version ? `  version = "${version}"\n` : ''}}\n`;
const paths = (out: string, module: string, version: string) =>
  versionPaths(out, parseModuleSource(`${o.reg.host}/${module}`) as RegistryModuleSource, version);
const refs = (list: Array<{ module: string; version: string }>) => list.map((m) => `${m.module.slice(o.reg.host.length + 1)} ${m.version}`);

test('a listed version whose archive is damaged or missing and cannot be fetched again is taken off the site and reported failed', async () => {
  const h = o.reg.host;
  const out = join(tempDir('modmirror-withdraw-'), 'site');
  const ws = o.workspace('withdraw', { 'main.tf': call('base', `${h}/acme/base/aws`, '>= 1.0.0, < 2.0.0') + call('vpc', `${h}/acme/multi/aws//vpc`) });
  const first = await mirrorModules({ engine: o.engine(), dirs: [ws], out, allMatching: true });
  assert.deepEqual(refs(first.mirrored), ['acme/base/aws 1.0.0', 'acme/base/aws 1.1.0', 'acme/multi/aws 2.0.0']);
  const damaged = paths(out, 'acme/base/aws', '1.0.0');
  const missing = paths(out, 'acme/multi/aws', '2.0.0');
  truncateSync(damaged.archive, 10);
  rmSync(missing.archive);

  o.reg.setFault('/archives/base/1.0.0.tar.gz', '500');
  o.reg.setFault('/archives/multi-2.0.0.tar.gz', '500');
  let r;
  try {
    r = await mirrorModules({ engine: o.engine(), dirs: [ws], out, allMatching: true });
  } finally {
    o.reg.clearFaults();
  }
  assert.deepEqual(r.failed.map((f) => [f.module, f.version, f.step]), [[`${h}/acme/base/aws`, '1.0.0', 'fetch'], [`${h}/acme/multi/aws`, '2.0.0', 'fetch']]);
  for (const f of r.failed) assert.match(f.message, /fetching the package failed: .*500.*; its damaged or incomplete copy in OUT was removed, so it is not listed there$/, f.message);
  assert.deepEqual(refs(r.upToDate), ['acme/base/aws 1.1.0']);
  const site = await readSite(out);
  assert.deepEqual(site.problems, []);
  assert.deepEqual(site.listed, { [`${h}/acme/base/aws`]: ['1.1.0'], [`${h}/acme/multi/aws`]: [] });
  for (const p of [damaged, missing]) {
    assert.ok(!existsSync(p.archive) && !existsSync(p.downloadFile) && !existsSync(p.versionDir), `${p.archiveInOut}: nothing of it is left`);
  }

  // the origin answers again: the next run mirrors them and lists them again
  const again = await mirrorModules({ engine: o.engine(), dirs: [ws], out, allMatching: true });
  assert.deepEqual(again.failed, []);
  assert.deepEqual(refs(again.mirrored), ['acme/base/aws 1.0.0', 'acme/multi/aws 2.0.0']);
  assert.deepEqual(await readSite(out), { listed: { [`${h}/acme/base/aws`]: ['1.0.0', '1.1.0'], [`${h}/acme/multi/aws`]: ['2.0.0'] }, problems: [] });
});

test('a listed version whose download JSON is lost and cannot be rewritten is unlisted, its intact archive kept (no fetch when relisted)', async () => {
  const h = o.reg.host;
  const out = join(tempDir('modmirror-withdraw-dl-'), 'site');
  const ws = o.workspace('withdraw-dl', { 'main.tf': call('vpc', `${h}/acme/multi/aws//vpc`) });
  await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  const p = paths(out, 'acme/multi/aws', '2.0.0');
  // with the stamps and `download` both gone, the origin's //subdir must be asked of the registry
  rmSync(join(out, '.tofu-registry-mirror-state.json'));
  rmSync(p.downloadFile);
  o.reg.setFault('/v1/modules/acme/multi/aws/2.0.0/download', '500');
  let r;
  try {
    r = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  } finally {
    o.reg.clearFaults();
  }
  assert.deepEqual(r.failed.map((f) => [f.module, f.version, f.step]), [[`${h}/acme/multi/aws`, '2.0.0', 'location']]);
  assert.match(r.failed[0].message, /its download JSON in OUT could not be written, so it is no longer listed there \(the archive is kept\)$/);
  assert.deepEqual(await readSite(out), { listed: { [`${h}/acme/multi/aws`]: [] }, problems: [] });
  assert.ok(existsSync(p.archive));

  o.reg.server.resetLog();
  const again = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  assert.deepEqual(refs(again.upToDate), ['acme/multi/aws 2.0.0']);
  assert.equal(o.counts().archives, 0, 'the kept archive is not fetched again');
  assert.deepEqual(await readSite(out), { listed: { [`${h}/acme/multi/aws`]: ['2.0.0'] }, problems: [] });
});
