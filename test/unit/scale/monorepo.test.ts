// Issue 23 (monorepo scale), end to end through the CLI against the HTTPS test registry over real
// files: on a workspace of several root modules that call the same registry modules with several
// constraint forms, every command asks for each distinct thing once (counted on the server: no
// request path twice), and a re-run with the same disk cache asks nothing. A walk over more
// directories than --max-dirs says so (stderr, --json, exit 1). A run under `ulimit -n 256`
// works within the open-files limit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { Monorepo, MONOREPO_PLATFORM, serveMonorepoPools, writeMonorepo } from '../../support/monorepo';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';

const POOLS = { providers: 6, modules: 8 };
let reg: TestRegistry;
let work: string;
let repo: Monorepo;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  work = tempDir('tofu-registry-monorepo-');
  await serveMonorepoPools(reg, join(work, 'pools'), POOLS);
  repo = writeMonorepo(join(work, 'ws'), reg.host, { roots: 12, ...POOLS });
});

after(async () => { await reg.stop(); });

async function cli(args: string[], cacheDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, '--ca-file', reg.caCertPath, '--cache-dir', cacheDir], {
    stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { HOME: work }, cwd: repo.root,
  });
  return { code, stdout, stderr };
}

/** The request paths the server saw since the last reset, and those asked more than once. */
function requests(): { paths: string[]; repeated: string[] } {
  const paths = reg.server.requests.map((r) => r.path);
  const seen = new Set<string>();
  return { paths, repeated: [...new Set(paths.filter((p) => seen.has(p) || !seen.add(p)))] };
}

const count = (paths: string[], re: RegExp) => paths.filter((p) => re.test(p)).length;
const moduleLists = /^\/v1\/modules\/.*\/versions$/;
const moduleLocations = /^\/v1\/modules\/.*\/download$/;
const archives = /^\/archives\//;

/** Runs a command cold (its own empty cache), checks each distinct thing was asked once, then warm: no request. */
async function onceThenNothing(name: string, args: string[], expectCode: number[]): Promise<string[]> {
  const cache = join(work, `cache-${name}`);
  reg.server.resetLog();
  const cold = await cli(args, cache);
  assert.ok(expectCode.includes(cold.code), `${name}: exit ${cold.code}\n${cold.stderr}\n${cold.stdout.slice(0, 2000)}`);
  const { paths, repeated } = requests();
  assert.deepEqual(repeated, [], `${name}: asked more than once`);
  reg.server.resetLog();
  const warm = await cli(args, cache);
  assert.ok(expectCode.includes(warm.code), `${name} (re-run): exit ${warm.code}\n${warm.stderr}`);
  assert.deepEqual(requests().paths, [], `${name}: a re-run with the same cache sends no request`);
  return paths;
}

test('types check: one download location and one archive per distinct (module, selected version); one version list per module (pins too are selected from it, as tofu init selects them); a re-run asks nothing', async () => {
  const paths = await onceThenNothing('types', ['types', 'check', '.'], [0]);
  assert.equal(count(paths, moduleLocations), repo.expected.moduleVersions.size);
  assert.equal(count(paths, archives), repo.expected.moduleVersions.size);
  assert.equal(count(paths, moduleLists), repo.expected.modules.size);
  assert.ok(repo.expected.moduleVersions.size < repo.dirs.length * 5, 'the workspace repeats module versions across roots');
});

test('sbom: one download location and one archive per distinct (module, selected version), one version list per unpinned module and per unlocked provider; every module version listed with its hash; a re-run asks nothing and gives the same bytes', async () => {
  const paths = await onceThenNothing('sbom', ['sbom', '.'], [0]);
  assert.equal(count(paths, moduleLocations), repo.expected.moduleVersions.size);
  assert.equal(count(paths, archives), repo.expected.moduleVersions.size);
  assert.equal(count(paths, moduleLists), repo.expected.modulesNeedingList.size);
  assert.equal(count(paths, /^\/v1\/providers\/.*\/versions$/), repo.expected.providers.size);
  const a = await cli(['sbom', '.'], join(work, 'cache-sbom'));
  const b = await cli(['sbom', '.'], join(work, 'cache-sbom'));
  // without SOURCE_DATE_EPOCH the time (and the serial number made from the content) may differ; nothing else
  const timeless = (t: string) => t.replace(/"(timestamp|serialNumber)": "[^"]*"/g, '"$1": ""');
  assert.equal(timeless(a.stdout), timeless(b.stdout));
  const doc = JSON.parse(a.stdout) as { components: Array<{ 'bom-ref': string; hashes?: unknown[] }> };
  const listed = doc.components.filter((c) => c['bom-ref'].startsWith('module:') && !c['bom-ref'].includes('//'));
  assert.deepEqual(listed.map((c) => c['bom-ref'].slice('module:'.length).replace('@', ' ')).sort(), [...repo.expected.moduleVersions].sort());
  assert.ok(listed.every((c) => c.hashes?.length === 1), 'each module version with its archive hash');
});

test('outdated: one version list per module and provider, one fetch per (module, selected version) for child providers; a re-run asks nothing', async () => {
  const paths = await onceThenNothing('outdated', ['outdated', '--json', '.'], [0, 1]);
  assert.equal(count(paths, moduleLists), repo.expected.modules.size);
  assert.equal(count(paths, /^\/v1\/providers\/.*\/versions$/), repo.expected.providers.size);
  assert.equal(count(paths, moduleLocations), repo.expected.moduleVersions.size);
  const out = await cli(['outdated', '--json', '.'], join(work, 'cache-outdated'));
  const dirs = new Set((JSON.parse(out.stdout) as { dependencies: Array<{ dir: string }> }).dependencies.map((d) => d.dir));
  assert.equal(dirs.size, repo.dirs.length, 'every root listed once, child modules not');
});

test('lock: each provider version asked once for all roots, child modules fetched once per selected version; the pinned re-run asks nothing', async () => {
  const paths = await onceThenNothing('lock', ['lock', '--platform', MONOREPO_PLATFORM, ...repo.dirs], [0]);
  assert.equal(count(paths, /^\/v1\/providers\/.*\/versions$/), repo.expected.providers.size);
  assert.equal(count(paths, /^\/v1\/providers\/.*\/download\//), repo.expected.providers.size);
  assert.equal(count(paths, moduleLocations), repo.expected.moduleVersions.size);
  for (const d of repo.dirs) assert.ok(existsSync(join(d, '.terraform.lock.hcl')), d);
});

test('mirror-modules: one version list per module, one location and archive per version it mirrors; a re-run into the same OUT asks nothing', async () => {
  const paths = await onceThenNothing('modmirror', ['mirror-modules', '--out', join(work, 'modmirror-out'), '--json', '.'], [0]);
  assert.equal(count(paths, moduleLists), repo.expected.modules.size);
  assert.equal(count(paths, archives), repo.expected.moduleVersions.size);
});

test('a walk over more configuration directories than --max-dirs says so: stderr, --json, exit 1; never a silent subset', async () => {
  const cap = 5; // the workspace has 2 × 12 + 1 configuration directories
  const out = await cli(['outdated', '--json', '--max-dirs', String(cap), '.'], join(work, 'cache-outdated'));
  assert.equal(out.code, 1);
  assert.match(out.stderr, /warning: .*stopped after 5 configuration directories \(the limit set by --max-dirs/);
  const doc = JSON.parse(out.stdout) as { warnings?: string[]; dependencies: unknown[] };
  assert.equal(doc.warnings?.length, 1);
  assert.match(doc.warnings![0], /stopped after 5 configuration directories/);
  const mm = await cli(['mirror-modules', '--out', join(work, 'modmirror-capped'), '--json', '--max-dirs', String(cap), '.'], join(work, 'cache-modmirror'));
  assert.equal(mm.code, 1);
  const skipped = (JSON.parse(mm.stdout) as { skipped: Array<{ source: string; reason: string }> }).skipped;
  assert.ok(skipped.some((s) => s.source === repo.root && /stopped after 5 configuration directories/.test(s.reason)), JSON.stringify(skipped));
  const mirror = await cli(['mirror', '--platform', MONOREPO_PLATFORM, '--out', join(work, 'mirror-capped'), '--json', '--max-dirs', String(cap), '.'], join(work, 'cache-mirror'));
  assert.equal(mirror.code, 1);
  assert.match((JSON.parse(mirror.stdout) as { warnings: string[] }).warnings[0], /stopped after 5/);
  // under the cap: no warning, no extra field
  const full = await cli(['outdated', '--json', '.'], join(work, 'cache-outdated'));
  assert.equal((JSON.parse(full.stdout) as { warnings?: unknown }).warnings, undefined);
  assert.doesNotMatch(full.stderr, /warning/);
});

test('under ulimit -n 256, outdated and lock over 300 roots work within the open-files limit; under ulimit -n 32 outdated fails naming it', { timeout: 300_000 }, async () => {
  const big = writeMonorepo(join(work, 'ws-300'), reg.host, { roots: 300, ...POOLS });
  const cli = join(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');
  const run = (args: string[], openFiles = 256) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', `ulimit -n ${openFiles}; exec "$0" "$@"`, process.execPath, cli, ...args, '--ca-file', reg.caCertPath, '--cache-dir', join(work, 'cache-ulimit')],
      { cwd: big.root, env: { PATH: process.env.PATH, HOME: work } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const outdated = await run(['outdated', '--json', '.']);
  assert.doesNotMatch(outdated.stderr + outdated.stdout, /EMFILE|too many open files/i);
  assert.ok(outdated.code === 0 || outdated.code === 1, outdated.stderr);
  assert.ok(outdated.stdout.trim(), `no output: ${outdated.stderr.slice(-2000)}`);
  const deps = (JSON.parse(outdated.stdout) as { dependencies: Array<{ dir: string; status: string }> }).dependencies;
  assert.equal(new Set(deps.map((d) => d.dir)).size, 300, 'every root counted once');
  assert.deepEqual(deps.filter((d) => d.status === 'error'), []);
  // Far too few open files for the process: it fails, naming the reason, and lists no partial workspace.
  const starved = await run(['outdated', '--json', '.'], 32);
  assert.equal(starved.code, 1);
  assert.match(starved.stderr, /too many open files.*\(raise the open-files limit, ulimit -n\)/);
  assert.doesNotMatch(starved.stdout, /"dependencies"/);
  const lock = await run(['lock', '--platform', MONOREPO_PLATFORM, '--json', ...big.dirs.map((d) => d.slice(big.root.length + 1))]);
  assert.doesNotMatch(lock.stderr, /EMFILE|too many open files/i);
  assert.equal(lock.code, 0, lock.stderr.slice(-2000));
  assert.equal((JSON.parse(lock.stdout) as { lockFiles: unknown[] }).lockFiles.length, 300);
});

test('the test workspace helper writes what the counts above assume', () => {
  mkdirSync(join(work, 'probe'), { recursive: true });
  writeFileSync(join(work, 'probe', 'x'), '');
  assert.equal(repo.dirs.length, 12);
  assert.ok(repo.expected.modulesNeedingList.size < repo.expected.modules.size || repo.expected.modules.size > 0);
});
