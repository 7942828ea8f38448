// relockProviders (the dependency overview's lock step) against the HTTPS test registry with real
// signed provider packages: only the providers asked for move (to the newest version their
// constraints allow, unsaved buffers included), each directory is written once, the recorded
// hashes are those of the packages for the team's platforms, and a failed or cancelled relock
// leaves the lock file byte for byte (and inode for inode) as it was.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { relockProviders } from '../../../src/engine/deps';
import { lockProviders, LockProgressEvent, readLockFile, renderLockFile } from '../../../src/engine/lock';
import { expectedHashes } from '../../support/expected-lock';
import type { BuiltRelease } from '../../support/provider-packages';
import { LockFixture, snapshot, startLockFixture } from '../lockfile/fixture';

const TEAM = ['darwin_arm64', 'linux_amd64'];
let fx: LockFixture;
let widget: BuiltRelease[];
let gadget: BuiltRelease[];
let W: string;
let G: string;

const config = (widgetConstraint: string, gadgetConstraint = '~> 1.0') => fx.config({
  'main.tf': `terraform {\n  required_providers {\n    widget = {\n      source  = "${W}"\n      version = "${widgetConstraint}"\n    }\n    gadget = {\n      source  = "${G}"\n      version = "${gadgetConstraint}"\n    }\n  }\n}\n`,
});
const lockPath = (dir: string) => join(dir, '.terraform.lock.hcl');
const locked = (dir: string) => readLockFile(readFileSync(lockPath(dir), 'utf8')).providers.map((p) => [p.address, p.version]);
const release = (rels: BuiltRelease[], v: string) => rels.find((r) => r.version === v)!;

/** A directory locked at widget 1.0.0 and gadget 1.0.0 for the team, then given `~> 1.0` constraints (as after an edit). */
async function lockedAtOldest(): Promise<string> {
  const dir = config('1.0.0', '1.0.0');
  const r = await lockProviders({ engine: fx.lockEngine(), dirs: [dir], platforms: TEAM });
  assert.deepEqual(r.failed, []);
  writeFileSync(join(dir, 'main.tf'), readFileSync(join(dir, 'main.tf'), 'utf8').replace(/"1\.0\.0"/g, '"~> 1.0"'));
  return dir;
}

before(async () => {
  fx = await startLockFixture();
  W = `${fx.reg.host}/acme/widget`;
  G = `${fx.reg.host}/acme/gadget`;
  widget = await fx.addProvider('acme', 'widget', ['1.0.0', '1.1.0', '2.0.0'], ['darwin_arm64', 'linux_amd64', 'windows_amd64']);
  gadget = await fx.addProvider('acme', 'gadget', ['1.0.0', '1.2.0'], ['darwin_arm64', 'linux_amd64', 'windows_amd64']);
});
after(async () => { await fx.stop(); });

test('update within constraint: only the provider asked for moves, to the newest matching, with the team platforms\' hashes', async () => {
  const dir = await lockedAtOldest();
  const gadgetBefore = readLockFile(readFileSync(lockPath(dir), 'utf8')).providers.find((p) => p.address === G)!;
  const events: LockProgressEvent[] = [];
  const r = await relockProviders({ engine: fx.lockEngine(), providers: new Map([[dir, [W]]]), platforms: TEAM, onProgress: (e) => events.push(e) });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(r.lockFiles.map((f) => [f.dir, f.changed]), [[dir, true]]);
  assert.deepEqual(r.lockFiles[0].providers.map((p) => [p.provider, p.previousVersion, p.version, p.platforms]), [
    [G, '1.0.0', '1.0.0', TEAM],
    [W, '1.0.0', '1.1.0', TEAM],
  ]);
  // The bytes: the packages' own hashes for widget 1.1.0; gadget's entry as it was.
  assert.equal(readFileSync(lockPath(dir), 'utf8'), renderLockFile([
    { address: G, version: '1.0.0', constraints: '~> 1.0', hashes: gadgetBefore.hashes },
    { address: W, version: '1.1.0', constraints: '~> 1.0', hashes: await expectedHashes(release(widget, '1.1.0'), TEAM) },
  ]));
  assert.deepEqual(events.filter((e) => e.kind === 'written').length, 1);
});

test('upgrade to newest: the new constraint from an unsaved buffer selects 2.0.0; several directories, each written once', async () => {
  const a = await lockedAtOldest();
  const b = await lockedAtOldest();
  const edited = (dir: string) => readFileSync(join(dir, 'main.tf'), 'utf8').replace('"~> 1.0"', '"~> 2.0"'); // widget's constraint
  const overlay = new Map([[join(a, 'main.tf'), edited(a)], [join(b, 'main.tf'), edited(b)]]);
  const onDisk = readFileSync(join(a, 'main.tf'), 'utf8');
  const written: string[] = [];
  fx.reg.server.resetLog();
  // b also moves gadget: its own run; a's gadget stays.
  const r = await relockProviders({
    engine: fx.lockEngine(), providers: new Map([[a, [W]], [b, [W, G, W]]]), platforms: TEAM, overlay,
    onProgress: (e) => { if (e.kind === 'written') written.push(e.dir); },
  });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(written.sort(), [a, b].sort());
  assert.deepEqual(r.lockFiles.map((f) => f.dir), [a, b]);
  assert.deepEqual(locked(a), [[G, '1.0.0'], [W, '2.0.0']]);
  assert.deepEqual(locked(b), [[G, '1.2.0'], [W, '2.0.0']]);
  assert.equal(readFileSync(join(a, 'main.tf'), 'utf8'), onDisk, 'the overlay is read, never written');
  const w = readLockFile(readFileSync(lockPath(a), 'utf8')).providers.find((p) => p.address === W)!;
  assert.equal(w.constraints, '~> 2.0');
  assert.deepEqual(w.hashes, await expectedHashes(release(widget, '2.0.0'), TEAM));
  assert.deepEqual(readLockFile(readFileSync(lockPath(b), 'utf8')).providers.find((p) => p.address === G)!.hashes, await expectedHashes(release(gadget, '1.2.0'), TEAM));
  // The 2.0.0 archives were fetched once for both directories (the second run had them cached).
  assert.equal(fx.archiveRequests().filter((p) => p.includes('/widget/2.0.0/')).length, TEAM.length);
});

test('a failed relock names the failure and leaves the lock file untouched (bytes, mtime, inode), no temp file', async () => {
  const dir = await lockedAtOldest();
  const before = snapshot(lockPath(dir));
  const zip = release(widget, '1.1.0').packages.find((p) => p.platform === 'darwin_arm64')!.filename;
  fx.files.fault(zip, { kind: 'status', status: 500 });
  try {
    const r = await relockProviders({ engine: fx.lockEngine(), providers: new Map([[dir, [W]]]), platforms: TEAM });
    assert.deepEqual(r.failed.map((f) => [f.dir, f.provider, f.version, f.platform]), [[dir, W, '1.1.0', 'darwin_arm64']]);
    assert.equal(r.failed[0].message, `${W} 1.1.0 darwin_arm64: download failed: ${fx.reg.host} answered 500 Internal Server Error for ${fx.files.urlFor(release(widget, '1.1.0'), zip)}`);
    assert.deepEqual(r.lockFiles.map((f) => f.changed), [false]);
    assert.deepEqual(snapshot(lockPath(dir)), before);
    assert.deepEqual(readdirSync(dir).sort(), ['.terraform.lock.hcl', 'main.tf']);
  } finally {
    fx.files.fault(zip, undefined);
  }
});

test('cancelled while an archive hangs: nothing written; directories of later runs are not even started', async () => {
  const a = await lockedAtOldest();
  const b = await lockedAtOldest();
  const [beforeA, beforeB] = [snapshot(lockPath(a)), snapshot(lockPath(b))];
  const zip = release(gadget, '1.2.0').packages.find((p) => p.platform === 'linux_amd64')!.filename;
  fx.files.fault(zip, { kind: 'hang' });
  try {
    const ac = new AbortController();
    fx.reg.server.resetLog();
    // a moves gadget (first run, hangs), b moves widget (a second run, never started)
    const run = relockProviders({ engine: fx.lockEngine(), providers: new Map([[a, [G]], [b, [W]]]), platforms: TEAM, signal: ac.signal });
    while (!fx.archiveRequests().some((p) => p.endsWith(zip))) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const r = await run;
    assert.deepEqual([...new Set(r.failed.map((f) => `${f.dir === a ? 'a' : 'b'} ${f.step}`))].sort(), ['a cancelled', 'b cancelled']);
    assert.deepEqual(r.lockFiles.map((f) => [f.dir, f.changed]), [[a, false], [b, false]]);
    assert.deepEqual([snapshot(lockPath(a)), snapshot(lockPath(b))], [beforeA, beforeB]);
    assert.ok(!fx.archiveRequests().some((p) => p.includes('/widget/1.1.0/')), 'the second run sent nothing');
  } finally {
    fx.files.fault(zip, undefined);
  }
});
