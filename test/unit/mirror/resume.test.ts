// Cancellation, a killed process, and the CLI contract (`tofu-registry mirror|hash`).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { mirrorProviders } from '../../../src/engine/mirror';
import { LOCK_NAME } from '../../../src/engine/mirror/layout';
import { Fixture, startFixture, validateMirror, writeConfig } from './fixture';
import { tempDir } from '../../support/temp';

const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64'];
let fx: Fixture;
const outDir = () => tempDir('mirror-resume-');

before(async () => {
  fx = await startFixture();
  await fx.addProvider('slow', 'one', ['1.0.0'], PLATFORMS);
  await fx.addProvider('slow', 'two', ['2.0.0'], PLATFORMS);
});
after(async () => { await fx.stop(); });

const config = () => writeConfig(fx.root, {
  one: { source: `${fx.reg.host}/slow/one` }, two: { source: `${fx.reg.host}/slow/two` },
});

test('cancellation stops cleanly: partial files removed, the mirror stays valid, the next run completes it', async () => {
  const out = outDir();
  const dir = config();
  fx.files.latencyMs = 100;
  fx.files.fault('terraform-provider-two_2.0.0_darwin_arm64.zip', { kind: 'hang' });
  const ac = new AbortController();
  let started = 0;
  const r = await mirrorProviders({
    engine: fx.engine(), dirs: [dir], out, platforms: PLATFORMS, concurrency: 8, signal: ac.signal,
    onProgress: (e) => {
      if (e.kind === 'start') started++;
      if (e.kind === 'done' && e.outcome === 'mirrored') ac.abort();
    },
  });
  fx.files.latencyMs = 0;
  fx.files.fault('terraform-provider-two_2.0.0_darwin_arm64.zip', undefined);
  assert.ok(started > 1);
  assert.ok(r.mirrored.length >= 1 && r.mirrored.length < 8, `mirrored ${r.mirrored.length}`);
  assert.ok(r.failed.length >= 1);
  assert.ok(r.failed.every((f) => f.step === 'cancelled'), JSON.stringify(r.failed));
  assert.equal(r.mirrored.length + r.failed.length, 8);
  assert.ok(!existsSync(join(out, LOCK_NAME)), 'lock released');
  assert.equal(await validateMirror(out), r.mirrored.length);

  const again = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: PLATFORMS });
  assert.deepEqual(again.failed, []);
  assert.equal(again.upToDate.length, r.mirrored.length);
  assert.equal(again.mirrored.length, 8 - r.mirrored.length);
  assert.equal(await validateMirror(out), 8);
});

test('a killed CLI process leaves a valid mirror that the next run completes', async () => {
  const out = outDir();
  const dir = config();
  for (const t of ['one_1.0.0', 'two_2.0.0']) {
    for (const p of PLATFORMS) fx.files.fault(`terraform-provider-${t}_${p}.zip`, { kind: 'delay', ms: 400 });
  }
  const cli = join(__dirname, '..', '..', '..', 'src', 'cli.js');
  const child = spawn(process.execPath, [cli, 'mirror', '--json', '--out', out, '--concurrency', '2',
    '--ca-file', fx.reg.caCertPath, ...PLATFORMS.flatMap((p) => ['--platform', p]), dir],
  { env: { HOME: fx.root, PATH: process.env.PATH, TMPDIR: process.env.TMPDIR }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Wait until the child has placed at least one archive, then kill it mid-run.
  const deadline = Date.now() + 20_000;
  const listed = () => existsSync(join(out, fx.reg.host, 'slow')) &&
    readdirSync(join(out, fx.reg.host, 'slow')).some((t) => existsSync(join(out, fx.reg.host, 'slow', t, 'index.json')));
  while (!listed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(listed(), 'the child mirrored something');
  child.kill('SIGKILL');
  await exited;
  for (const t of ['one_1.0.0', 'two_2.0.0']) for (const p of PLATFORMS) fx.files.fault(`terraform-provider-${t}_${p}.zip`, undefined);

  assert.ok(existsSync(join(out, LOCK_NAME)), 'the killed run left its lock');
  const placed = await validateMirror(out, { allowTemp: true });
  assert.ok(placed >= 1 && placed < 8, `placed ${placed}`);
  // Whatever temp files the kill left (a .part download, a half-written .tmp JSON) are swept by
  // the next run, also from a provider directory where nothing needs downloading.
  const pdir = join(out, fx.reg.host, 'slow', 'one');
  mkdirSync(pdir, { recursive: true });
  writeFileSync(join(pdir, '.1.0.0.json.deadbeef.tmp'), '{"archives":');
  const again = await mirrorProviders({ engine: fx.engine(), dirs: [dir], out, platforms: PLATFORMS });
  assert.deepEqual(again.failed, []);
  assert.equal(again.upToDate.length + again.mirrored.length, 8);
  assert.ok(again.upToDate.length >= placed);
  assert.equal(await validateMirror(out), 8);
});

test('Ctrl+C (SIGINT) stops the CLI cleanly: JSON report with cancelled archives, lock released, no temp files', async () => {
  const out = outDir();
  const dir = config();
  for (const t of ['one_1.0.0', 'two_2.0.0']) {
    for (const p of PLATFORMS) fx.files.fault(`terraform-provider-${t}_${p}.zip`, { kind: 'delay', ms: 300 });
  }
  const cli = join(__dirname, '..', '..', '..', 'src', 'cli.js');
  const child = spawn(process.execPath, [cli, 'mirror', '--json', '--no-cache', '--out', out, '--concurrency', '2',
    '--ca-file', fx.reg.caCertPath, ...PLATFORMS.flatMap((p) => ['--platform', p]), dir],
  { env: { HOME: fx.root, PATH: process.env.PATH, TMPDIR: process.env.TMPDIR }, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  const listed = () => existsSync(join(out, fx.reg.host, 'slow')) &&
    readdirSync(join(out, fx.reg.host, 'slow')).some((t) => existsSync(join(out, fx.reg.host, 'slow', t, 'index.json')));
  while (!listed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGINT');
  const code = await exited;
  for (const t of ['one_1.0.0', 'two_2.0.0']) for (const p of PLATFORMS) fx.files.fault(`terraform-provider-${t}_${p}.zip`, undefined);
  assert.equal(code, 1);
  const doc = JSON.parse(stdout);
  assert.ok(doc.mirrored.length >= 1 && doc.mirrored.length < 8, stdout);
  assert.ok(doc.failed.length >= 1 && doc.failed.every((f: { step: string }) => f.step === 'cancelled'), stdout);
  assert.equal(doc.mirrored.length + doc.failed.length, 8);
  assert.ok(!existsSync(join(out, LOCK_NAME)), 'lock released');
  assert.equal(await validateMirror(out), doc.mirrored.length);
});

function capture() {
  const io = { out: '', err: '', stdout: (t: string) => { io.out += t; }, stderr: (t: string) => { io.err += t; }, env: { HOME: fx.root }, cwd: fx.root };
  return io;
}

test('CLI: mirror --json prints the documented shape and exits 1 when anything failed', async () => {
  const out = outDir();
  const dir = config();
  const io = capture();
  const code = await main(['mirror', '--json', '--out', out, '--ca-file', fx.reg.caCertPath, '--platform', 'linux_amd64', '--platform', 'solaris_sparc', dir], io);
  assert.equal(code, 1);
  const doc = JSON.parse(io.out);
  assert.deepEqual(Object.keys(doc), ['out', 'mirrored', 'upToDate', 'failed']);
  assert.equal(doc.out, out);
  assert.deepEqual(doc.mirrored.map((m: Record<string, unknown>) => Object.keys(m)), [['provider', 'version', 'platform', 'hashes'], ['provider', 'version', 'platform', 'hashes']]);
  assert.deepEqual(doc.failed.map((f: Record<string, unknown>) => [Object.keys(f), f.platform, f.step]), [
    [['provider', 'version', 'platform', 'step', 'message'], 'solaris_sparc', 'metadata'],
    [['provider', 'version', 'platform', 'step', 'message'], 'solaris_sparc', 'metadata'],
  ]);
  // An unchanged re-run (a new process in real life): discovery and version lists come from the
  // CLI's disk cache and the archives are up to date, so the registry sees no request at all.
  fx.reg.server.resetLog();
  const io2 = capture();
  assert.equal(await main(['mirror', '--json', '--out', out, '--ca-file', fx.reg.caCertPath, '--platform', 'linux_amd64', dir], io2), 0);
  const doc2 = JSON.parse(io2.out);
  assert.equal(doc2.mirrored.length, 0);
  assert.equal(doc2.upToDate.length, 2);
  assert.deepEqual(fx.reg.server.requests.map((r) => r.path), []);
  // --no-cache asks the registry again (but still downloads nothing).
  const io3 = capture();
  assert.equal(await main(['mirror', '--json', '--no-cache', '--out', out, '--ca-file', fx.reg.caCertPath, '--platform', 'linux_amd64', dir], io3), 0);
  assert.ok(fx.reg.server.count('/v1/providers/slow/one/versions') >= 1);
  assert.equal(fx.reg.server.count('/files/'), 0);
  assert.equal(await main(['mirror', '--platform', 'linux', dir], capture()), 2);
});

test('CLI: human output — per-archive progress on stderr naming failures; each reason once, in the summary on stdout, grouped across platforms', async () => {
  const out = outDir();
  const dir = writeConfig(fx.root, { one: { source: `${fx.reg.host}/slow/one` }, gone: { source: `${fx.reg.host}/slow/gone` } });
  const io = capture();
  const code = await main(['mirror', '--out', out, '--ca-file', fx.reg.caCertPath, '--platform', 'linux_amd64', '--platform', 'solaris_sparc', dir], io);
  assert.equal(code, 1);
  const host = fx.reg.host;
  const live = io.err.trim().split('\n');
  assert.deepEqual([...live].sort(), [
    `failed     ${host}/slow/gone (any version) linux_amd64, solaris_sparc (reason below)`,
    `failed     ${host}/slow/one 1.0.0 solaris_sparc (reason below)`,
    `mirrored   ${host}/slow/one 1.0.0 linux_amd64`,
  ]);
  // the version that cannot be chosen shows up live (before any archive), its reason only in the summary
  assert.equal(live[0], `failed     ${host}/slow/gone (any version) linux_amd64, solaris_sparc (reason below)`);
  assert.doesNotMatch(io.err, /FAILED|fetching|choosing|\b404\b/);
  const lines = io.out.trim().split('\n');
  assert.equal(lines[0], `${out}: 1 mirrored, 0 up to date, 3 failed`);
  // The unknown provider fails the same way on both platforms: one line naming both.
  assert.match(lines[1], new RegExp(`^FAILED ${host}/slow/gone \\(any version\\) linux_amd64, solaris_sparc: choosing the version failed: .*404`));
  assert.match(lines[2], new RegExp(`^FAILED ${host}/slow/one 1\\.0\\.0 solaris_sparc: fetching the package metadata failed: `));
  assert.equal(lines.length, 3);
});

test('CLI: hash prints h1 and zh per file, --json as [{path,h1,zh}]', async () => {
  const p = fx.pkg('slow', 'one', '1.0.0', 'linux_amd64');
  const io = capture();
  assert.equal(await main(['hash', p.path], io), 0);
  const [h1, zh, path] = io.out.trim().split(' ');
  assert.match(h1, /^h1:[A-Za-z0-9+/]{43}=$/);
  assert.equal(zh, `zh:${p.sha256}`);
  assert.equal(path, p.path);
  const io2 = capture();
  assert.equal(await main(['hash', '--json', p.path], io2), 0);
  assert.deepEqual(JSON.parse(io2.out), [{ path: p.path, h1, zh }]);
  const io3 = capture();
  assert.equal(await main(['hash', join(fx.root, 'missing.zip')], io3), 1);
  assert.match(io3.err, /missing\.zip/);
});

test('the bundled CLI: an unchanged re-run sends nothing and loads none of Node\'s network, process or worker modules', async () => {
  const cli = join(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');
  assert.ok(existsSync(cli), 'dist/ is not built: run npm run build (npm test and npm run test:unit do)');
  const out = outDir();
  const dir = config();
  const work = tempDir('mirror-cli-run-');
  const env = { HOME: fx.root, PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, XDG_CACHE_HOME: join(work, 'cache') };
  // Which of Node's own modules the process loaded, written at exit by a preload (stdout goes to a
  // file: a pipe would make Node load net for stdout itself).
  const preload = join(work, 'loaded-modules.js');
  writeFileSync(preload, "process.on('exit', () => require('fs').writeSync(2, '\\n@loaded ' + JSON.stringify(process.moduleLoadList) + '\\n'));");
  const run = async () => {
    const file = join(work, 'stdout.json');
    const fd = openSync(file, 'w');
    try {
      // (not spawnSync: the registry answers from this process)
      const child = spawn(process.execPath, ['-r', preload, cli, 'mirror', '--json', '--out', out, '--ca-file', fx.reg.caCertPath, '--platform', 'linux_amd64', dir],
        { env, stdio: ['ignore', fd, 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c) => { stderr += c; });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      const loaded = JSON.parse(stderr.slice(stderr.lastIndexOf('\n@loaded ') + 9).split('\n')[0]) as string[];
      return { doc: JSON.parse(readFileSync(file, 'utf8')), loaded: new Set(loaded) };
    } finally {
      closeSync(fd);
    }
  };
  const first = await run();
  assert.equal(first.doc.mirrored.length, 2);
  assert.ok(first.loaded.has('NativeModule tls'), 'a first run downloads (the check below can see a module load)');
  fx.reg.server.resetLog();
  const again = await run();
  assert.equal(again.doc.upToDate.length, 2);
  assert.deepEqual(fx.reg.server.requests.map((r) => r.path), []);
  // Required on first use (scripts/build.mjs, lazy builtins): a re-run that asks nothing and
  // hashes nothing does not pay for loading them. (zlib is loaded: its crc32 checks the V8 code
  // cache's entries against the bundles, src/cli/code-cache.ts, ≈ 0.5 ms for ≈ 10 ms saved.)
  for (const m of ['child_process', 'tls', 'net', 'worker_threads']) assert.ok(!again.loaded.has(`NativeModule ${m}`), `${m} loaded by a re-run`);
});
