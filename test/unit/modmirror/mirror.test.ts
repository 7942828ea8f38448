// The module mirror end to end against the HTTPS test registry (token required) and a git server:
// what is mirrored, where it lands, what the site's JSON says, what each host is sent, and that an
// unchanged re-run fetches and clones nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mirrorModules } from '../../../src/engine/modmirror';
import { findConfigDirs } from '../../../src/engine/mirror';
import { startModuleOrigin, ModuleOrigin, MODULE_TOKEN } from '../../support/module-origin';
import { archiveFiles } from '../../support/module-site';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
let ws: string;
let out: string;
let cacheDir: string;

before(async () => {
  o = await startModuleOrigin();
  const h = o.reg.host;
  ws = o.workspace('a', {
    'main.tf': [
      `module "app" {\n  source  = "${h}/acme/app/aws"\n  version = "~> 1.0"\n}`,
      `module "vpc" {\n  source = "${h}/acme/multi/aws//vpc"\n}`,
      `module "git" {\n  source  = "${h}/acme/gitmod/aws"\n  version = "1.0.0"\n}`,
      `module "broken" {\n  source = "${h}/acme/broken/aws"\n}`,
      'module "direct" {\n  source = "git::https://git.example.com/direct.git?ref=v1"\n}',
      'module "bucket" {\n  source = "s3::https://s3.amazonaws.com/bucket/mod.zip"\n}',
      'module "local" {\n  source = "./child"\n}',
    ].join('\n\n') + '\n',
    'child/main.tf': `module "leaf" {\n  source  = "${h}/acme/leaf/aws"\n  version = "0.1.0"\n}\n`,
  });
  out = join(tempDir('modmirror-out-'), 'site');
  cacheDir = tempDir('modmirror-cache-');
});

after(async () => { await o.stop(); });

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

test('mirrors every registry module call, recursively, into a modules.v1 site; sources it cannot serve are listed', async () => {
  const h = o.reg.host;
  const engine = o.engine({ cacheDir });
  o.reg.server.resetLog();
  o.git.resetLog();
  const r = await mirrorModules({ engine, dirs: await findConfigDirs(ws), out, concurrency: 4, fetch: {} });
  assert.deepEqual(r.mirrored.map((m) => `${m.module} ${m.version}`), [
    `${h}/acme/app/aws 1.1.0`, `${h}/acme/base/aws 1.1.0`, `${h}/acme/gitmod/aws 1.0.0`, `${h}/acme/leaf/aws 0.1.0`, `${h}/acme/multi/aws 2.0.0`,
  ]);
  const app = r.mirrored[0];
  assert.equal(app.location, `${o.reg.origin}/archives/app/1.1.0.tar.gz`);
  assert.equal(app.archive, `modules/${h}/acme/app/aws/1.1.0.tar.gz`);
  assert.equal(r.mirrored[2].location, `git::https://127.0.0.1:${o.git.port}/gitmod.git//sub?ref=v1.0.0`);
  assert.equal(r.mirrored[3].location, `${o.reg.origin}/dl/leaf-0.1.0?archive=zip`);
  assert.deepEqual(r.upToDate, []);
  assert.deepEqual(r.failed.map((f) => [f.module, f.version, f.step]), [[`${h}/acme/broken/aws`, '1.0.0', 'fetch']]);
  assert.match(r.failed[0].message, new RegExp(`^${h}/acme/broken/aws 1\\.0\\.0: fetching the package failed: .*404 Not Found.*does-not-exist\\.tar\\.gz`));
  assert.deepEqual(r.skipped.map((s) => s.source), [
    'git::https://git.example.com/direct.git?ref=v1', 'git::https://git.example.com/vendored.git?ref=v1', 's3::https://s3.amazonaws.com/bucket/mod.zip',
  ]);
  assert.match(r.skipped[0].reason, /^Git repository: not mirrorable without changing the source .*main\.tf:\d+\)$/);
  assert.match(r.skipped[1].reason, new RegExp(`\\(${h}/acme/app/aws 1\\.1\\.0: main\\.tf:\\d+\\)$`));
  assert.deepEqual(r.hosts, [h]);

  // the site: versions lists exactly what was mirrored, download points at the archive beside it
  const site = join(out, 'modules', h, 'acme');
  const versions = (m: string) => JSON.parse(readFileSync(join(site, m, 'aws', 'versions'), 'utf8'));
  const download = (m: string, v: string) => JSON.parse(readFileSync(join(site, m, 'aws', v, 'download'), 'utf8'));
  assert.deepEqual(versions('app'), { modules: [{ versions: [{ version: '1.1.0' }] }] });
  assert.deepEqual(versions('base'), { modules: [{ versions: [{ version: '1.1.0' }] }] });
  assert.deepEqual(download('app', '1.1.0'), { location: '../1.1.0.tar.gz' });
  assert.deepEqual(download('multi', '2.0.0'), { location: '../2.0.0.tar.gz//modules' }, 'the origin location\'s //subdir is kept');
  assert.deepEqual(download('gitmod', '1.0.0'), { location: '../1.0.0.tar.gz//sub' });
  // the git module's package is the tree at ?ref=v1.0.0, not the repository's HEAD (v2.0.0)
  assert.deepEqual(await archiveFiles(join(site, 'gitmod', 'aws', '1.0.0.tar.gz')), {
    'README.md': '# git module\n', 'sub/main.tf': 'variable "from_git" {\n  default = "v1"\n}\n',
  });
  assert.ok(!existsSync(join(site, 'broken')), 'a version that failed is never listed');
  assert.ok(!existsSync(join(site, 'unused')), 'modules only called from examples/ inside a package are not followed');
  assert.deepEqual(readdirSync(join(site, 'app', 'aws')).sort(), ['1.1.0', '1.1.0.tar.gz', 'versions']);
  assert.ok(!existsSync(join(out, '.tofu-registry-mirror.lock')), 'lock released');

  // credentials went to the registry only: never to archives (same host) or the git server
  const reqs = o.reg.server.requests;
  assert.ok(reqs.filter((q) => q.path.startsWith('/v1/')).every((q) => q.authorization === `Bearer ${MODULE_TOKEN}`));
  assert.ok(reqs.filter((q) => q.path.startsWith('/archives/') || q.path.startsWith('/dl/')).every((q) => q.authorization === undefined));
  assert.ok(o.git.requests.length > 0 && o.git.requests.every((q) => q.authorization === undefined && !JSON.stringify(q.headers).includes(MODULE_TOKEN)));
  assert.ok(r.cliConfig.includes(`host "${h}" {\n  services = {\n    "modules.v1"   = "https://mirror.example.com/modules/${h}/"\n    "providers.v1" = "${o.reg.origin}/v1/providers/"\n  }\n}\n`), r.cliConfig);
  await engine.dispose();
});

test('an unchanged re-run fetches no archive, clones nothing and (with the disk cache) asks the registry nothing', async () => {
  const before = Object.fromEntries(['app/aws/1.1.0.tar.gz', 'gitmod/aws/1.0.0.tar.gz'].map((f) => [f, sha(join(out, 'modules', o.reg.host, 'acme', f))]));
  o.reg.server.resetLog();
  o.git.resetLog();
  const engine = o.engine({ cacheDir });
  const r = await mirrorModules({ engine, dirs: await findConfigDirs(ws), out });
  assert.deepEqual(r.mirrored, []);
  assert.equal(r.upToDate.length, 5);
  assert.deepEqual(r.failed.map((f) => f.module), [`${o.reg.host}/acme/broken/aws`], 'the failed one is tried again');
  const c = o.counts();
  assert.equal(c.git, 0, 'no clone');
  assert.equal(c.archives, 1, 'only the archive that failed last time is asked for again');
  assert.equal(c.registry, 1, 'only the download location of the failed version (lists and discovery come from the disk cache)');
  for (const [f, digest] of Object.entries(before)) assert.equal(sha(join(out, 'modules', o.reg.host, 'acme', f)), digest, `${f} untouched`);
  await engine.dispose();
});

test('local modules are followed from the directory given: ./child, and from there a ../ path elsewhere in the workspace', async () => {
  const h = o.reg.host;
  const root = o.workspace('locals', {
    'stacks/prod/main.tf': 'module "app" {\n  source = "./child"\n}\n',
    'stacks/prod/child/main.tf': `module "net" {\n  source = "../../../modules/net"\n}\n\nmodule "leaf" {\n  source  = "${h}/acme/leaf/aws"\n  version = "0.1.0"\n}\n`,
    'modules/net/main.tf': `module "base" {\n  source  = "${h}/acme/base/aws"\n  version = "2.0.0"\n}\n`,
  });
  const siteDir = join(tempDir('modmirror-locals-'), 'site');
  // only the root directory is given: its local modules hold the only registry calls
  const r = await mirrorModules({ engine: o.engine(), dirs: [join(root, 'stacks', 'prod')], out: siteDir });
  assert.deepEqual(r.failed, []);
  assert.deepEqual(r.mirrored.map((m) => `${m.module} ${m.version}`), [`${h}/acme/base/aws 2.0.0`, `${h}/acme/leaf/aws 0.1.0`]);
});
