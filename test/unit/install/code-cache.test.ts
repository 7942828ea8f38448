// The CLI's V8 code cache (src/cli/code-cache.ts, recorded by scripts/build.mjs): the build leaves
// an entry for every command bundle and for undici, a run compiles its bundles from them, and an
// entry that does not match its bundle byte for byte, or whose data is damaged, is ignored (the
// bundle is compiled as usual and the command answers the same).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeCacheDir } from '../../../src/cli/code-cache';
import { tempDir } from '../../support/temp';

const ROOT = join(__dirname, '..', '..', '..', '..');
const DIST = join(ROOT, 'dist');
const GROUPS = ['inspect', 'registry', 'mirror', 'modmirror', 'lock', 'types', 'outdated', 'publish', 'publish-provider', 'sbom', 'lsp'];
const CONFIG = 'terraform {\n  required_providers {\n    x = { source = "127.0.0.1:1/t/x" }\n  }\n}\nmodule "m" {\n  source  = "127.0.0.1:1/t/m/aws"\n  version = "~> 1.0"\n}\n';

/** Runs `node <dist>/cli.js args` in a clean environment; its stdout and the code-cache report line. */
function cli(dist: string, args: string[], home: string, nodeArgs: string[] = []): { status: number | null; stdout: string; report: string } {
  const r = spawnSync(process.execPath, [...nodeArgs, join(dist, 'cli.js'), ...args], {
    cwd: home, encoding: 'utf8', timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, 'cache'), TOFU_REGISTRY_DEBUG_CODE_CACHE: '1' },
  });
  const report = r.stderr.split('\n').find((l) => l.startsWith('tofu-registry: code cache')) ?? '';
  return { status: r.status, stdout: r.stdout, report };
}

function withDist(run: (dir: string) => void): void {
  assert.ok(existsSync(join(DIST, 'cli.js')), 'dist/ is not built (npm run build)');
  const dir = tempDir('tofu-code-cache-');
  try {
    writeFileSync(join(dir, 'main.tf'), CONFIG);
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the build records an entry for every command bundle and undici, and a run compiles its bundles from them', () => withDist((home) => {
  const entries = readdirSync(codeCacheDir(DIST)).sort();
  for (const g of GROUPS) assert.ok(entries.includes(`cli-${g}.js.bin`), `dist/code-cache has cli-${g}.js (${entries.join(', ')})`);
  assert.ok(entries.includes('vendor_undici.js.bin'), 'undici (loaded by every network command) has an entry');

  const inspect = cli(DIST, ['inspect', '--json', home], home);
  assert.equal(inspect.status, 0);
  assert.match(inspect.report, /from the cache cli-inspect\.js; compiled none$/);
  // A network command: its bundle and undici from the cache (nothing listens on port 1).
  const versions = cli(DIST, ['versions', '127.0.0.1:1/t/m/aws', '--json', '--timeout', '5'], home);
  assert.equal(versions.status, 1);
  assert.match(versions.report, /from the cache cli-registry\.js, vendor\/undici\.js; compiled none$/);
}));

test('an entry made from other source, or with damaged data, is ignored: the bundle is compiled and answers the same', () => withDist((home) => {
  const copy = join(home, 'dist');
  cpSync(DIST, copy, { recursive: true, filter: (src) => !src.endsWith('.map') });
  const expected = cli(DIST, ['inspect', '--json', home], home);
  assert.match(expected.report, /from the cache cli-inspect\.js;/);

  // The same length, one character different: a hand-edited bundle.
  const bundle = join(copy, 'cli-inspect.js');
  const source = readFileSync(bundle, 'utf8');
  assert.ok(source.includes('"use strict";'));
  writeFileSync(bundle, source.replace('"use strict";', '"use stricT";'));
  const edited = cli(copy, ['inspect', '--json', home], home);
  assert.equal(edited.status, 0);
  assert.match(edited.report, /from the cache none; compiled cli-inspect\.js$/);
  assert.equal(edited.stdout, expected.stdout);

  // The bundle back as built, its entry's V8 data damaged (one byte in the middle).
  writeFileSync(bundle, source);
  const entry = join(codeCacheDir(copy), 'cli-inspect.js.bin');
  const data = readFileSync(entry);
  data[data.length >> 1] ^= 0xff;
  writeFileSync(entry, data);
  const damaged = cli(copy, ['inspect', '--json', home], home);
  assert.equal(damaged.status, 0);
  assert.match(damaged.report, /from the cache none; compiled cli-inspect\.js$/);
  assert.equal(damaged.stdout, expected.stdout);

  // A Node without zlib.crc32 (before 20.15: Electron's, running `cli.js lsp`): no cache, same answer.
  const preload = join(home, 'no-crc32.js');
  writeFileSync(preload, "delete require('node:zlib').crc32;\n");
  const oldNode = cli(DIST, ['inspect', '--json', home], home, ['-r', preload]);
  assert.equal(oldNode.status, 0);
  assert.match(oldNode.report, /from the cache none; compiled cli-inspect\.js$/);
  assert.equal(oldNode.stdout, expected.stdout);

  // No cache at all (another Node version finds no directory of its own): compiled, same answer.
  rmSync(join(copy, 'code-cache'), { recursive: true, force: true });
  const none = cli(copy, ['inspect', '--json', home], home);
  assert.match(none.report, /from the cache none; compiled cli-inspect\.js$/);
  assert.equal(none.stdout, expected.stdout);
}));
