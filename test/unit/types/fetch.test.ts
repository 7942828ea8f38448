// Registry / HTTP-archive modules: resolved through the real HTTPS test registry, fetched as
// tar.gz or zip into a cache, every archive path validated before anything is written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { fetchModule, fetchPackage, safeRelativePath } from '../../../src/engine/modulepkg/fetch';
import { checkFile } from '../../../src/engine/modules/check';
import { parseHcl } from '../../../src/engine/config/parser';
import { extractFile } from '../../../src/engine/config/extract';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { writeZip } from '../../support/zip-writer';
import { tarGz } from './archives';
import { writeZipDirectoryBomb } from '../../support/hostile-archives';
import { tempDir } from '../../support/temp';

let reg: TestRegistry;
let engine: Engine;
let work: string;

const VARS = 'variable "name" {\n  type = string\n}\nvariable "ports" {\n  type    = list(number)\n  default = []\n}\n';
const INNER = 'variable "inner_only" {\n  type = bool\n}\n';

before(async () => {
  reg = await startTestRegistry();
  engine = new Engine({ caFiles: [reg.caCertPath], env: {} });
  work = tempDir('types-fetch-');
  reg.addModule({ namespace: 'acme', name: 'net', system: 'aws', versions: ['1.0.0', '1.1.0', '2.0.0'] });
  for (const v of ['1.0.0', '1.1.0', '2.0.0']) {
    reg.addFile(`/archives/acme/net/aws/${v}.tar.gz`, tarGz([
      { name: 'variables.tf', data: VARS.replace('"ports"', `"ports_${v.replace(/\./g, '_')}"`) },
      { name: 'modules/', type: '5' },
      { name: 'modules/inner/', type: '5' },
      { name: 'modules/inner/variables.tf', data: INNER },
    ]), 'application/gzip');
  }
  const zipPath = join(work, 'z.zip');
  await writeZip(zipPath, [
    { name: 'pkg/' }, { name: 'pkg/variables.tf', data: Buffer.from('variable "zone" {\n  type = string\n}\n') },
  ]);
  reg.addFile('/archives/zipped', require('node:fs').readFileSync(zipPath), 'application/octet-stream');
  reg.addModule({
    namespace: 'acme', name: 'zipped', system: 'aws', versions: ['0.1.0'],
    location: () => ({ kind: 'header', location: '/archives/zipped//pkg?archive=zip' }),
  });
});

after(async () => {
  await engine.dispose();
  await reg.stop();
  rmSync(work, { recursive: true, force: true });
});

function resolver(cacheDir: string) {
  return new ModuleResolver({ engine, cacheDir });
}

async function check(text: string, r: ModuleResolver) {
  const file = parseHcl(text);
  const path = join(work, 'main.tf');
  return (await checkFile({ path, text, syntax: 'hcl', summary: extractFile(file, text) }, r)).diagnostics
    .map((d) => `${text.slice(d.range.start.offset, d.range.end.offset)}: ${d.message}`);
}

test('registry module: version constraint selects 1.1.0, tar.gz fetched once into the cache, inputs checked', async () => {
  const cache = join(work, 'cache1');
  const text = `module "net" {\n  source  = "${reg.host}/acme/net/aws"\n  version = "~> 1.0"\n  name    = ["x"]\n  ports_1_1_0 = ["80", "http"]\n}\n`;
  reg.server.resetLog();
  assert.deepEqual(await check(text, resolver(cache)), [
    '["x"]: Invalid value for input variable "name": the given value is not suitable for type string: string required, but got tuple.',
    '"http": Invalid value for input variable "ports_1_1_0": the given value is not suitable for type list(number): element 1: a number is required, but got "http".',
  ]);
  assert.equal(reg.server.count('/archives/acme/net/aws/1.1.0.tar.gz'), 1);
  // a new resolver (new session) reuses the extracted cache: no second archive download
  const again = resolver(cache);
  const mod = await again.resolve({ callerDir: work, name: 'net', source: `${reg.host}/acme/net/aws`, version: '~> 1.0' });
  assert.equal(mod.via, 'registry');
  assert.equal(mod.version, '1.1.0');
  assert.deepEqual(mod.iface.variables.map((v) => v.name), ['name', 'ports_1_1_0']);
  assert.equal(reg.server.count('/archives/'), 1);
});

test('registry module with //subdir in the source', async () => {
  const r = resolver(join(work, 'cache2'));
  const mod = await r.resolve({ callerDir: work, name: 'inner', source: `${reg.host}/acme/net/aws//modules/inner`, version: '2.0.0' });
  assert.deepEqual(mod.iface.variables.map((v) => [v.name, v.typeText, v.required]), [['inner_only', 'bool', true]]);
});

test('X-Terraform-Get with //subdir and ?archive=zip (go-getter: the subdir comes before the query): zip archive', async () => {
  const r = resolver(join(work, 'cache3'));
  const text = `module "z" {\n  source = "${reg.host}/acme/zipped/aws"\n}\n`;
  assert.deepEqual(await check(text, r), [
    '"z": Missing required argument: the argument "zone" is required by module "z", but no definition was found.',
  ]);
});

test('no matching version and unknown modules become warnings naming the module', async () => {
  const r = resolver(join(work, 'cache4'));
  const text = `module "a" {\n  source  = "${reg.host}/acme/net/aws"\n  version = ">= 3.0"\n}\nmodule "b" {\n  source = "${reg.host}/acme/missing/aws"\n}\n`;
  const out = await check(text, r);
  assert.equal(out.length, 2);
  assert.match(out[0], /Cannot check the inputs of module "a": no version of module .*acme\/net\/aws.* matches ">= 3.0"/);
  assert.match(out[1], /Cannot check the inputs of module "b": .*acme\/missing\/aws/);
});

test('archive paths are validated before anything is written', async () => {
  const bad: Record<string, Parameters<typeof tarGz>[0]> = {
    dotdot: [{ name: 'ok.tf', data: 'x' }, { name: '../evil.tf', data: 'x' }],
    absolute: [{ name: '/tmp/evil.tf', data: 'x' }],
    through: [{ name: 'd/', type: '5' }, { name: 'd/l', type: '2', linkname: '..' }, { name: 'd/l/x.tf', data: 'x' }],
    fifo: [{ name: 'p', type: '6' }],
  };
  for (const [name, entries] of Object.entries(bad)) {
    reg.addFile(`/archives/bad/${name}.tar.gz`, tarGz(entries), 'application/gzip');
    const cache = join(work, `bad-${name}`);
    await assert.rejects(fetchModule(`${reg.origin}/archives/bad/${name}.tar.gz`, name, { http: engine.http, cacheDir: cache }),
      /refusing to extract the module package/, name);
    const left = existsSync(join(cache, 'modules')) ? readdirSync(join(cache, 'modules')) : [];
    assert.deepEqual(left, [], `${name}: nothing may stay in the cache`);
  }
  assert.ok(!existsSync(join(work, 'evil.tf')));
  await assert.rejects(fetchModule(`${reg.origin}/archives/bad/dotdot.tar.gz//../x`, 'dotdot2', { http: engine.http, cacheDir: join(work, 'dd') }), /invalid subdirectory/);
  assert.equal(safeRelativePath('a/../../b'), undefined);
  assert.equal(safeRelativePath('C:/x'), undefined);
  assert.equal(safeRelativePath('./a//b/'), 'a/b');
});

test('links in a package become empty files, as go-getter unpacks them for tofu: none is created, wherever it points', async () => {
  reg.addFile('/archives/links.tar.gz', tarGz([
    { name: 'a/', type: '5' }, { name: 'a/v.tf', data: INNER },
    { name: 'inside', type: '2', linkname: 'a' }, { name: 'up', type: '2', linkname: '../../../etc' },
    { name: 'abs.tf', type: '2', linkname: '/etc/passwd' }, { name: 'hard.tf', type: '1', linkname: 'a/v.tf' },
  ]), 'application/gzip');
  const pkg = await fetchPackage(`${reg.origin}/archives/links.tar.gz`, 'links', { http: engine.http, cacheDir: join(work, 'links') });
  for (const name of ['inside', 'up', 'abs.tf', 'hard.tf']) {
    const st = lstatSync(join(pkg.root, name));
    assert.ok(st.isFile() && st.size === 0, `${name} is an empty regular file`);
  }
  assert.equal(readFileSync(join(pkg.root, 'a', 'v.tf'), 'utf8'), INNER);
  // a //subdir naming a link names an empty file now, not a directory (tofu: the same)
  await assert.rejects(fetchModule(`${reg.origin}/archives/links.tar.gz//inside`, 'links', { http: engine.http, cacheDir: join(work, 'links') }),
    /subdirectory "inside" does not exist/);
});

test('zip packages: a name twice, a file that is also a directory, shared entries: refused before anything is written', async () => {
  const cases: Record<string, Parameters<typeof writeZip>[1]> = {
    twice: [{ name: 'main.tf', data: Buffer.from('a') }, { name: './main.tf', data: Buffer.from('b') }],
    filedir: [{ name: 'm', data: Buffer.from('a') }, { name: 'm/x.tf', data: Buffer.from('b') }],
  };
  for (const [name, entries] of Object.entries(cases)) {
    const file = join(work, `${name}.zip`);
    await writeZip(file, entries);
    reg.addFile(`/archives/bad/${name}.zip`, readFileSync(file), 'application/zip');
  }
  const shared = join(work, 'shared.zip');
  await writeZipDirectoryBomb(shared, { entries: 3, shared: true });
  reg.addFile('/archives/bad/shared.zip', readFileSync(shared), 'application/zip');
  for (const [name, why] of [['twice', /duplicate entry "\.\/main\.tf"/], ['filedir', /path "m\/x\.tf" goes through a file/], ['shared', /it has overlapping entries/]] as const) {
    const cache = join(work, `zip-${name}`);
    await assert.rejects(fetchModule(`${reg.origin}/archives/bad/${name}.zip`, name, { http: engine.http, cacheDir: cache }),
      (e: unknown) => e instanceof Error && /^refusing to extract the module package from https:\/\/127\.0\.0\.1:\d+\/archives\/bad\/\w+\.zip: /.test(e.message) && why.test(e.message), name);
    assert.deepEqual(existsSync(join(cache, 'modules')) ? readdirSync(join(cache, 'modules')) : [], [], `${name}: nothing stays in the cache`);
  }
});

test('download size cap and unsupported payloads', async () => {
  reg.addFile('/archives/big.tar.gz', tarGz([{ name: 'v.tf', data: Buffer.alloc(300_000, 'a') }]).subarray(0), 'application/gzip');
  reg.addFile('/archives/big.zip', Buffer.alloc(200_000, 1), 'application/zip');
  await assert.rejects(fetchModule(`${reg.origin}/archives/big.zip`, 'big', { http: engine.http, cacheDir: join(work, 'big'), maxBytes: 100_000 }),
    /larger than/);
  reg.addFile('/archives/plain', 'not an archive', 'text/plain');
  await assert.rejects(fetchModule(`${reg.origin}/archives/plain`, 'plain', { http: engine.http, cacheDir: join(work, 'plain') }),
    /neither a tar.gz nor a zip archive/);
  await assert.rejects(fetchModule(`${reg.origin}/archives/big.tar.gz`, 'bigx', { http: engine.http, cacheDir: join(work, 'bigx'), maxExtractedBytes: 1000 }),
    /more than 1000 bytes when extracted/);
});

test('CLI types check: registry modules go to the CLI disk cache (--cache-dir, $XDG_CACHE_HOME), --no-cache leaves nothing behind', async () => {
  const { main } = await import('../../../src/cli');
  const proj = join(work, 'cli-proj');
  require('node:fs').mkdirSync(proj, { recursive: true });
  require('node:fs').writeFileSync(join(proj, 'main.tf'), `module "net" {\n  source  = "${reg.host}/acme/net/aws"\n  version = "1.0.0"\n  name    = 1\n  ports_1_0_0 = ["x"]\n}\n`);
  const xdg = join(work, 'xdg');
  const run = async (...args: string[]) => {
    let stdout = '', stderr = '';
    const code = await main(['types', 'check', '--ca-file', reg.caCertPath, ...args, 'cli-proj'],
      { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { XDG_CACHE_HOME: xdg }, cwd: work });
    return { code, stdout, stderr };
  };
  const expected = 'cli-proj/main.tf:5:18: error: Invalid value for input variable "ports_1_0_0": the given value is not suitable for type list(number): element 0: a number is required, but got "x".\n';
  reg.server.resetLog();
  // --no-cache: fetched into a temporary directory that is removed; the default cache stays empty
  const fresh = await run('--no-cache');
  assert.equal(fresh.code, 1, fresh.stderr);
  assert.equal(fresh.stdout, expected);
  assert.ok(!existsSync(xdg), 'nothing written to $XDG_CACHE_HOME/tofu-registry');
  assert.equal(reg.server.count('/archives/acme/net/aws/1.0.0.tar.gz'), 1);
  // default: $XDG_CACHE_HOME/tofu-registry holds discovery, the version list (a pin too is selected
  // from it, as tofu init selects it), the download location and the module
  assert.equal((await run()).stdout, expected);
  assert.deepEqual(readdirSync(join(xdg, 'tofu-registry')).sort().filter((n) => ['modules', 'module-versions', 'module-locations'].includes(n)), ['module-locations', 'module-versions', 'modules']);
  reg.server.resetLog();
  assert.equal((await run()).stdout, expected);
  // discovery, the download location and the archive come from the disk cache: no request at all
  assert.deepEqual(reg.server.requests.map((r) => r.path), []);
  // --cache-dir DIR is relative to the working directory
  assert.equal((await run('--cache-dir', 'own-cache')).stdout, expected);
  assert.ok(existsSync(join(work, 'own-cache', 'modules')));
  assert.equal((await run('--cache-dir', 'x', '--no-cache')).code, 2);
});

test('an exact pin of a withdrawn version (the download endpoint answers, the list does not name it): types check says what tofu init says, as outdated does', async () => {
  const { main } = await import('../../../src/cli');
  // 1.0.5 was withdrawn: its archive (with an input of another type) still downloads, the list omits it
  reg.addModule({ namespace: 'acme', name: 'gone', system: 'aws', versions: ['1.0.0', '1.1.0'], withdrawn: ['1.0.5'] });
  reg.addFile('/archives/acme/gone/aws/1.0.5.tar.gz', tarGz([{ name: 'variables.tf', data: 'variable "count_of" {\n  type = number\n}\n' }]), 'application/gzip');
  const proj = join(work, 'withdrawn-proj');
  require('node:fs').mkdirSync(proj, { recursive: true });
  require('node:fs').writeFileSync(join(proj, 'main.tf'), `module "old" {\n  source   = "${reg.host}/acme/gone/aws"\n  version  = "1.0.5"\n  count_of = "x"\n}\n`);
  const run = async (...args: string[]) => {
    let stdout = '', stderr = '';
    const code = await main([...args, '--ca-file', reg.caCertPath, '--no-cache'],
      { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { HOME: '/nonexistent', XDG_CACHE_HOME: join(work, 'xdg-withdrawn') }, cwd: work });
    return { code, stdout, stderr };
  };
  reg.server.resetLog();
  const types = await run('types', 'check', 'withdrawn-proj');
  const said = types.stdout + types.stderr;
  assert.doesNotMatch(said, /count_of|number is required/, 'the withdrawn package is never checked against');
  assert.match(said, /Cannot check the inputs of module "old": no version of module .*acme\/gone\/aws.* matches "1\.0\.5"/);
  assert.equal(reg.server.count('/archives/acme/gone/aws/1.0.5.tar.gz'), 0, 'nor downloaded');
  assert.equal(reg.server.count('/v1/modules/acme/gone/aws/1.0.5/download'), 0, 'the version list decides, as in tofu init');
  const outdated = await run('outdated', '--json', 'withdrawn-proj');
  const dep = JSON.parse(outdated.stdout).dependencies.find((d: { name?: string; source?: string; kind: string }) => d.kind === 'module');
  assert.equal(dep.status, 'unsatisfiable');
  // a listed pin still resolves from the list, and its download location is asked for once
  require('node:fs').writeFileSync(join(proj, 'main.tf'), `module "old" {\n  source   = "${reg.host}/acme/gone/aws"\n  version  = "= 1.1.0"\n  count_of = "x"\n}\n`);
  reg.addFile('/archives/acme/gone/aws/1.1.0.tar.gz', tarGz([{ name: 'variables.tf', data: 'variable "count_of" {\n  type = number\n}\n' }]), 'application/gzip');
  const listed = await run('types', 'check', 'withdrawn-proj');
  assert.match(listed.stdout, /Invalid value for input variable "count_of"/);
  assert.equal(reg.server.count('/v1/modules/acme/gone/aws/1.1.0/download'), 1);
});

test('the same package asked for by many callers at once: one download, every caller gets it, nothing left over', async () => {
  const cache = join(work, 'cache-concurrent');
  const location = `${reg.origin}/archives/acme/net/aws/2.0.0.tar.gz`;
  reg.server.resetLog();
  const dirs = await Promise.all(Array.from({ length: 12 }, () => fetchModule(location, 'concurrent@2.0.0', { http: engine.http, cacheDir: cache })));
  assert.equal(new Set(dirs).size, 1);
  assert.ok(existsSync(join(dirs[0], 'variables.tf')));
  assert.equal(reg.server.count('/archives/acme/net/aws/2.0.0.tar.gz'), 1);
  assert.deepEqual(readdirSync(join(cache, 'modules')).filter((n) => n.includes('.tmp-')), [], 'no temp directory left');
});

test('CLI types check --no-cache ended by Ctrl-C while a module downloads: its scratch directory is removed', async () => {
  const { spawn } = await import('node:child_process');
  const fsSync = await import('node:fs');
  reg.addModule({ namespace: 'acme', name: 'slow', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'header', location: '/archives/hanging/slow.tar.gz' }) });
  reg.setFault('/archives/hanging/', 'hang');
  const proj = join(work, 'sigint-proj');
  fsSync.mkdirSync(proj, { recursive: true });
  fsSync.writeFileSync(join(proj, 'main.tf'), `module "slow" {\n  source  = "${reg.host}/acme/slow/aws"\n  version = "1.0.0"\n}\n`);
  const childTmp = tempDir('types-child-tmp-');
  try {
    reg.server.resetLog();
    const child = spawn(process.execPath, [join(__dirname, '../../../src/cli.js'), 'types', 'check', '--no-cache', '--ca-file', reg.caCertPath, proj],
      { env: { HOME: '/nonexistent', PATH: process.env.PATH, TMPDIR: childTmp }, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const t0 = Date.now();
    while (!reg.server.count('/archives/hanging/slow.tar.gz') && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
    assert.equal(reg.server.count('/archives/hanging/slow.tar.gz'), 1, 'the child reached the download');
    assert.deepEqual(readdirSync(childTmp).filter((n) => n.startsWith('tofu-registry-')).length, 1, 'its scratch directory exists');
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    assert.deepEqual(readdirSync(childTmp), []);
  } finally {
    reg.setFault('/archives/hanging/', null);
  }
});
