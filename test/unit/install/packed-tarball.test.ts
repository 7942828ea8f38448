// The npm package as a user installs it (README, Install): `npm pack` of this build, then
// `npm install -g --prefix EMPTY ./tofu-registry-X.tgz` with no network — offline mode, a private
// empty npm cache, a registry address nothing listens on — and the installed `tofu-registry` run
// from outside the clone (so nothing resolves from its node_modules): `--version`, `hash` (the
// vendor bundles and the hashing worker the package must carry) and a language-server exchange
// (initialize, its capabilities, shutdown, exit) over stdio with a real JSON-RPC client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createProtocolConnection, InitializeResult, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';
import { removeTempDir, tempDir } from '../../support/temp';
import { writeZip } from '../../support/zip-writer';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

let dir: string;
/** A clean environment: no npm_config_* from `npm run`, no NODE_PATH, a home of its own. */
let env: NodeJS.ProcessEnv;

function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
}

/** A loopback port with nothing listening: the npm registry address, so any request fails at once. */
async function closedPort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli.js')), 'dist/cli.js is missing: run npm run build first');
  dir = tempDir('tofu-registry-pack-');
  for (const d of ['home', 'cache', 'prefix', 'work']) mkdirSync(join(dir, d));
  env = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`, // node first: the bin starts with #!/usr/bin/env node
    HOME: join(dir, 'home'),
    TMPDIR: process.env.TMPDIR,
    npm_config_registry: `http://127.0.0.1:${await closedPort()}/`,
    npm_config_userconfig: join(dir, 'home', '.npmrc'),
    npm_config_update_notifier: 'false',
  };
});
after(() => { removeTempDir(dir); });

test('the packed tarball installs into an empty prefix without the network and runs --version, hash and the language server', { timeout: 180_000 }, async () => {
  // The test runner built dist/ (the unit suite's precondition); `npm pack` would build again (prepack).
  const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  assert.equal(packed.status, 0, packed.stderr);
  const tarball = join(dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0].filename);
  assert.equal(tarball, join(dir, `${PKG.name}-${PKG.version}.tgz`));

  const prefix = join(dir, 'prefix');
  const installed = npm(['install', '-g', '--prefix', prefix, '--offline', '--cache', join(dir, 'cache'), '--no-audit', '--no-fund', '--ignore-scripts', tarball], join(dir, 'work'));
  assert.equal(installed.status, 0, `npm install -g of the tarball, offline:\n${installed.stdout}\n${installed.stderr}`);
  const pkgDir = join(prefix, 'lib', 'node_modules', PKG.name);
  assert.ok(!existsSync(join(pkgDir, 'node_modules')), 'the install fetched no dependency (the bundles carry them)');
  const bin = join(prefix, 'bin', 'tofu-registry');
  assert.ok(existsSync(bin), `${bin} is on the prefix's PATH`);

  const version = spawnSync(bin, ['--version'], { cwd: join(dir, 'work'), env, encoding: 'utf8' });
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout, `tofu-registry ${PKG.version}\n`);

  // hash loads yauzl from dist/vendor/ and starts dist/hash-worker.js: both must be in the package.
  const zip = join(dir, 'work', 'terraform-provider-demo_1.0.0_linux_amd64.zip');
  await writeZip(zip, [{ name: 'terraform-provider-demo_v1.0.0', data: Buffer.from('#!/bin/sh\necho demo\n') }]);
  const fromPackage = spawnSync(bin, ['hash', '--json', zip], { cwd: join(dir, 'work'), env, encoding: 'utf8' });
  assert.equal(fromPackage.status, 0, fromPackage.stderr);
  const fromClone = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'hash', '--json', zip], { env, encoding: 'utf8' });
  assert.equal(fromClone.status, 0, fromClone.stderr);
  assert.match(fromPackage.stdout, /"h1:[A-Za-z0-9+/]{43}="/);
  assert.equal(fromPackage.stdout, fromClone.stdout, 'the installed CLI hashes as the clone\'s build does');
  // The build's V8 code cache rides along (this Node built it): the installed CLI compiles its
  // bundle from it, though npm changed every file's time.
  const cached = spawnSync(bin, ['hash', '--json', zip], { cwd: join(dir, 'work'), env: { ...env, TOFU_REGISTRY_DEBUG_CODE_CACHE: '1' }, encoding: 'utf8' });
  assert.match(cached.stderr, /code cache \(.*\): from the cache cli-mirror\.js;/, cached.stderr);

  // `lock` starts dist/signature-worker.js (which loads openpgp from dist/vendor/; without it the
  // checks would quietly run on the main thread) and every request loads dist/vendor/undici.js.
  for (const f of ['dist/signature-worker.js', 'dist/vendor/openpgp.js', 'dist/vendor/undici.js']) {
    assert.ok(existsSync(join(pkgDir, f)), `${f} is in the package`);
  }

  const child = spawn(bin, ['lsp', '--stdio'], { cwd: join(dir, 'work'), env: { ...env, XDG_CACHE_HOME: join(dir, 'home', '.cache') }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  conn.onRequest('client/registerCapability', () => null);
  conn.listen();
  const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    const root = pathToFileURL(join(dir, 'work')).href;
    const init = await conn.sendRequest('initialize', { processId: process.pid, rootUri: root, workspaceFolders: [{ uri: root, name: 'work' }], capabilities: {} }) as InitializeResult;
    assert.deepEqual(init.serverInfo, { name: 'tofu-registry', version: PKG.version });
    const c = init.capabilities;
    assert.ok(c.completionProvider && c.hoverProvider && c.codeActionProvider, `capabilities: ${JSON.stringify(c)}`);
    assert.equal(typeof c.textDocumentSync === 'object' && c.textDocumentSync.change, 2, 'incremental sync');
    await conn.sendNotification('initialized', {});
    assert.equal(await conn.sendRequest('shutdown'), null);
    await conn.sendNotification('exit');
    assert.equal(await exited, 0, `the server exits 0 after shutdown and exit: ${stderr}`);
  } finally {
    clearTimeout(kill);
    if (child.exitCode === null) child.kill('SIGKILL');
    conn.dispose();
  }
});
