// The module site under stress: hostile packages and names are refused one by one, two workspaces
// merge into one OUT, a cancelled run leaves a valid site the next run completes, lost stamps and
// a damaged archive are handled, and a second run on a locked OUT is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tar from 'tar';
import { parseModuleSource, RegistryModuleSource } from '../../../src/engine/addresses/module-source';
import { MirrorLockedError } from '../../../src/engine/mirror';
import { mirrorModules } from '../../../src/engine/modmirror';
import { versionPaths } from '../../../src/engine/modmirror/paths';
import { startModuleOrigin, ModuleOrigin } from '../../support/module-origin';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
before(async () => { o = await startModuleOrigin(); });
after(async () => { await o.stop(); });

const call = (name: string, source: string, version?: string) =>
  `module "${name}" {\n  source = "${source}"\n${version ? `  version = "${version}"\n` : ''}}\n`;
const listed = (out: string, module: string) => {
  const f = join(out, 'modules', o.reg.host, ...module.split('/'), 'versions');
  return existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')).modules[0].versions.map((v: { version: string }) => v.version) : [];
};
/** Every file below `dir` (the site must hold nothing else: no temp files, no escaped paths). */
const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((e) => !e.isDirectory()).map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(dir.length + 1)).sort();

test('hostile packages, locations and names: each fails alone with the reason, nothing is written outside OUT', async () => {
  const h = o.reg.host;
  o.reg.addModule({ namespace: 'evil', name: 'versions', system: 'aws', versions: ['../../../../x', '1.0.0/../../y', '1.0.0'],
    location: () => ({ kind: 'json', location: `${o.reg.origin}/archives/base/1.0.0.tar.gz` }) });
  const ws = o.workspace('hostile', {
    'main.tf': ['escape', 'link', 'subdir', 's3', 'versions'].map((m) => call(m, `${h}/evil/${m}/aws`)).join('\n')
      + call('traversal', `${h}/evil/../../aws`) + call('bad_ns', `${h}/-x-/y/aws`),
  });
  const parent = tempDir('modmirror-hostile-');
  const out = join(parent, 'site');
  const r = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  const failed = Object.fromEntries(r.failed.map((f) => [f.module || f.message.replace(/^.*module "(\w+)".*$/, '$1'), [f.step, f.message]]));
  assert.deepEqual(failed[`${h}/evil/escape/aws`][0], 'fetch');
  assert.match(failed[`${h}/evil/escape/aws`][1], /refusing to extract the module package from .*evil\.tar\.gz: unsafe path "\.\.\/\.\.\/escaped\.tf"/);
  assert.deepEqual(failed[`${h}/evil/subdir/aws`][0], 'fetch');
  assert.match(failed[`${h}/evil/subdir/aws`][1], /invalid subdirectory "\.\.\/\.\.\/etc"/);
  assert.deepEqual(failed[`${h}/evil/s3/aws`][0], 'unsupported');
  assert.match(failed[`${h}/evil/s3/aws`][1], /the s3 getter \(Amazon S3 bucket\) is not supported/);
  assert.deepEqual(failed.traversal[0], 'config');
  assert.deepEqual(failed.bad_ns[0], 'config');
  // the hostile version strings are not versions: only 1.0.0 was considered and mirrored; a link
  // to /etc/passwd is unpacked as tofu's go-getter unpacks it (an empty file) and mirrored so
  assert.deepEqual(r.mirrored.map((m) => `${m.module} ${m.version}`).sort(), [`${h}/evil/link/aws 1.0.0`, `${h}/evil/versions/aws 1.0.0`]);
  const linkArchive = join(out, 'modules', h, 'evil', 'link', 'aws', '1.0.0.tar.gz');
  const entries: Array<[string, string, number]> = [];
  await tar.t({ file: linkArchive, onReadEntry: (e) => { entries.push([e.path, e.type, e.size ?? 0]); } });
  assert.deepEqual(entries, [['main.tf', 'File', 1], ['passwd.tf', 'File', 0]]);
  assert.deepEqual(readdirSync(parent), ['site']);
  assert.deepEqual(files(out).filter((f) => !/^modules\/[^/]+\/evil\/(versions|link)\/aws\//.test(f)).filter((f) => !f.startsWith('.tofu-registry-mirror-state')), []);
  assert.ok(!existsSync(join(dirname(ws), 'escaped.tf')) && !existsSync(join(parent, 'escaped.tf')));
  // segments that could leave OUT never become paths
  const a = parseModuleSource(`${h}/acme/app/aws`) as RegistryModuleSource;
  for (const [what, bad] of [['version', '../../x'], ['version', '1.0.0/../x'], ['version', '..'], ['namespace', '..'], ['name', 'a/b'], ['system', 'AWS'], ['host', '../x']] as const) {
    const addr = what === 'version' ? a : { ...a, [what]: bad };
    assert.throws(() => versionPaths(out, addr, what === 'version' ? bad : '1.0.0'), /refusing unsafe|unsafe/, `${what} ${bad}`);
  }
});

test('two workspaces merge into one OUT: versions already there stay listed', async () => {
  const h = o.reg.host;
  const out = join(tempDir('modmirror-merge-'), 'site');
  const one = o.workspace('merge-one', { 'main.tf': call('base', `${h}/acme/base/aws`, '~> 1.0') });
  const two = o.workspace('merge-two', { 'main.tf': call('base', `${h}/acme/base/aws`, '2.0.0') + call('multi', `${h}/acme/multi/aws//dns`) });
  const first = await mirrorModules({ engine: o.engine(), dirs: [one], out });
  assert.deepEqual(first.mirrored.map((m) => m.version), ['1.1.0']);
  const second = await mirrorModules({ engine: o.engine(), dirs: [two], out });
  assert.deepEqual(second.mirrored.map((m) => `${m.module} ${m.version}`), [`${h}/acme/base/aws 2.0.0`, `${h}/acme/multi/aws 2.0.0`]);
  assert.deepEqual(listed(out, 'acme/base/aws'), ['1.1.0', '2.0.0']);
  assert.deepEqual(listed(out, 'acme/multi/aws'), ['2.0.0']);
});

test('a cancelled run leaves a valid site (nothing half-written, nothing listed without its archive); the next run completes it', async () => {
  const h = o.reg.host;
  const out = join(tempDir('modmirror-cancel-'), 'site');
  const ws = o.workspace('cancel', { 'main.tf': call('app', `${h}/acme/app/aws`, '1.0.0') });
  o.reg.setFault('/archives/base/', 'hang');
  const ac = new AbortController();
  o.reg.server.resetLog();
  try {
    const r = await mirrorModules({
      engine: o.engine(), dirs: [ws], out, signal: ac.signal, onProgress: (e) => {
        if (e.kind !== 'start' || !e.module.endsWith('/acme/base/aws')) return;
        // cancel once the archive request hangs on the server
        const poll = setInterval(() => { if (o.reg.server.count('/archives/base/')) { clearInterval(poll); ac.abort(); } }, 10);
      },
    });
    // leaf (called from inside app, like base) may or may not have finished before the cancel
    assert.deepEqual(r.mirrored.map((m) => m.module).filter((m) => !m.endsWith('/leaf/aws')), [`${h}/acme/app/aws`]);
    assert.ok(r.failed.length >= 1 && r.failed.every((f) => f.step === 'cancelled'), JSON.stringify(r.failed));
    assert.ok(r.failed.some((f) => f.module === `${h}/acme/base/aws`));
  } finally {
    o.reg.setFault('/archives/base/', null);
  }
  assert.deepEqual(listed(out, 'acme/app/aws'), ['1.0.0']);
  assert.deepEqual(listed(out, 'acme/base/aws'), []);
  assert.deepEqual(files(out).filter((f) => /\.(part|tmp)$/.test(f) || f.endsWith('.lock')), []);
  const again = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  assert.deepEqual(again.upToDate.map((m) => m.module).filter((m) => !m.endsWith('/leaf/aws')), [`${h}/acme/app/aws`]);
  assert.deepEqual(again.mirrored.map((m) => m.module).filter((m) => !m.endsWith('/leaf/aws')), [`${h}/acme/base/aws`]);
  assert.equal(again.mirrored.length + again.upToDate.length, 3);
  assert.deepEqual(again.failed, []);
});

test('lost stamps: archives are re-read locally, not fetched; a damaged archive is fetched again; a locked OUT is refused', async () => {
  const h = o.reg.host;
  const out = join(tempDir('modmirror-stamps-'), 'site');
  const ws = o.workspace('stamps', { 'main.tf': call('app', `${h}/acme/app/aws`, '1.1.0') + call('vpc', `${h}/acme/multi/aws//vpc`) });
  const first = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  assert.equal(first.mirrored.length, 4);
  rmSync(join(out, '.tofu-registry-mirror-state.json'));
  o.reg.server.resetLog();
  const reread = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  assert.equal(reread.upToDate.length, 4, 'the nested modules are found again from the archives in OUT');
  assert.equal(o.counts().archives, 0);
  const multi = versionPaths(out, parseModuleSource(`${h}/acme/multi/aws`) as RegistryModuleSource, '2.0.0');
  // stamps and `download` both lost: the origin's //subdir is asked of the registry, the archive is kept
  rmSync(join(out, '.tofu-registry-mirror-state.json'));
  rmSync(multi.downloadFile);
  const relisted = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  assert.equal(relisted.upToDate.length, 4);
  assert.deepEqual(JSON.parse(readFileSync(multi.downloadFile, 'utf8')), { location: '../2.0.0.tar.gz//modules' });
  assert.equal(o.counts().archives, 0);
  truncateSync(multi.archive, 10);
  writeFileSync(multi.downloadFile, '{"location":"../2.0.0.tar.gz//modules"}');
  const repaired = await mirrorModules({ engine: o.engine(), dirs: [ws], out });
  assert.deepEqual(repaired.mirrored.map((m) => m.module), [`${h}/acme/multi/aws`]);
  assert.equal(o.counts().archives, 1);

  writeFileSync(join(out, '.tofu-registry-mirror.lock'), JSON.stringify({ pid: process.pid, host: require('node:os').hostname() }));
  await assert.rejects(mirrorModules({ engine: o.engine(), dirs: [ws], out }), MirrorLockedError);
});
