// An online SBOM of git module calls whose packages cannot be cloned, against a real smart-HTTP git
// remote over TLS that lists its refs (`git ls-remote`) but refuses every pack download (as behind
// a proxy that cuts them): each component records the commit its ref names on the remote —
// the one `tofu-registry resolve` reports (an annotated tag peeled, a branch, the default branch
// without a ref, a full commit id as written) — as the `tofu-registry:git-commit` property,
// CycloneDX `pedigree.commits` and SPDX `git+URL@COMMIT`, through the CLI's `sbom` and the
// features layer's exportSbom (the editors' Export SBOM). A ref the remote lacks stays NOASSERTION;
// a package that was cloned keeps the commit its clone checked out, and offline nothing is asked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { Engine } from '../../../src/engine/engine';
import { exportSbom } from '../../../src/features/sbom';
import { GitHttpServer, gitClientHome, makeRepo, MadeRepo, startGitHttpServer } from '../../support/git-server';
import { tempDir } from '../../support/temp';
import { testPki } from '../../support/tls';

let srv: GitHttpServer;
let net: MadeRepo;
let ok: MadeRepo;
let env: NodeJS.ProcessEnv;
let ws: string;
let src: Record<'tag' | 'branch' | 'head' | 'commit' | 'missing' | 'cloned', string>;

before(async () => {
  srv = await startGitHttpServer({ refusePacks: ['net.git'] });
  net = makeRepo(srv.root, 'net', { tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }], branches: ['develop'] });
  ok = makeRepo(srv.root, 'ok', { tags: [{ name: 'v2.0.0', annotated: true }] });
  env = { ...gitClientHome().env, SOURCE_DATE_EPOCH: '1767225600' };
  ws = tempDir('sbom-git-');
  const o = srv.origin;
  src = {
    tag: `git::${o}/net.git?ref=v1.1.0`,
    branch: `git::${o}/net.git?ref=develop`,
    head: `git::${o}/net.git`,
    commit: `git::${o}/net.git?ref=${net.commits['v1.0.0']}`,
    missing: `git::${o}/net.git?ref=v9.9.9`,
    cloned: `git::${o}/ok.git?ref=v2.0.0`,
  };
  mkdirSync(join(ws, 'root'), { recursive: true });
  writeFileSync(join(ws, 'root', 'main.tf'), Object.entries(src).map(([name, s]) => `module "${name}" {\n  source = "${s}"\n}\n`).join('\n'));
});
after(async () => { await srv.stop(); });

/** What the commit of each call must be (undefined: NOASSERTION). */
const expected = () => ({
  tag: net.commits['v1.1.0'], branch: net.commits.develop, head: net.commits.main, commit: net.commits['v1.0.0'], missing: undefined, cloned: ok.commits['v2.0.0'],
});

type Cdx = { components: Array<{ 'bom-ref': string; properties?: Array<{ name: string; value: string }>; pedigree?: { commits: Array<{ uid: string }> } }> };
type Spdx = { packages: Array<{ name: string; downloadLocation: string; comment: string }> };

function checkCycloneDx(text: string): void {
  const doc = JSON.parse(text) as Cdx;
  for (const [name, commit] of Object.entries(expected())) {
    const c = doc.components.find((x) => x['bom-ref'] === `module:${src[name as keyof typeof src]}`);
    assert.ok(c, `component of module "${name}"`);
    const props = (p: string) => c.properties?.filter((x) => x.name === p).map((x) => x.value) ?? [];
    const notes = props('tofu-registry:note');
    assert.deepEqual(props('tofu-registry:git-commit'), commit ? [commit] : [], `module "${name}": ${notes.join(' | ')}`);
    assert.deepEqual(c.pedigree, commit ? { commits: [{ uid: commit }] } : undefined, name);
    if (name === 'cloned') {
      assert.ok(!notes.some((n) => /not cloned|package not fetched/.test(n)), notes.join(' | '));
      continue;
    }
    // the not-cloned case: the clone was refused, the document says so and where the commit came from
    assert.ok(notes.some((n) => /^package not fetched: git clone of .*net\.git failed/.test(n)), notes.join(' | '));
    if (name === 'commit') assert.ok(notes.includes('git commit as the source names it (?ref= is a full commit id); the package was not cloned'), notes.join(' | '));
    else if (commit) assert.ok(notes.includes('git commit read from the remote (git ls-remote): the one the ref names now; the package was not cloned'), notes.join(' | '));
    else assert.ok(notes.includes('git commit unknown (NOASSERTION): the package was not cloned, and the remote names no such ref'), notes.join(' | '));
  }
}

function checkSpdx(text: string): void {
  const doc = JSON.parse(text) as Spdx;
  const gitUrl = (repo: string) => `git+${srv.origin}/${repo}.git`;
  for (const [name, commit] of Object.entries(expected())) {
    const source = src[name as keyof typeof src];
    const p = doc.packages.find((x) => x.name === source);
    assert.ok(p, `package of module "${name}"`);
    const repo = name === 'cloned' ? 'ok' : 'net';
    const ref = /[?&]ref=([^&]+)/.exec(source)?.[1];
    assert.equal(p.downloadLocation, commit ? `${gitUrl(repo)}@${commit}` : `${gitUrl(repo)}@${ref}`, name);
    assert.equal(p.comment.includes(`tofu-registry:git-commit=${commit}`), !!commit, p.comment);
  }
}

async function cli(args: string[]) {
  let stdout = '', stderr = '';
  const code = await main(['sbom', ...args, '--ca-file', testPki().caCertPath, '--cache-dir', join(ws, 'cache')],
    { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env, cwd: join(ws, 'root') });
  return { code, stdout, stderr };
}

test('sbom (CLI): a git package that could not be cloned gets the commit its ref names on the remote, in CycloneDX and SPDX', { timeout: 120_000 }, async () => {
  const refusedBefore = srv.packsRefused('net.git');
  const cdx = await cli([]);
  assert.equal(cdx.code, 0, cdx.stderr);
  assert.ok(srv.packsRefused('net.git') > refusedBefore, 'the clones were tried and refused (the package is not cloned)');
  checkCycloneDx(cdx.stdout);
  assert.match(cdx.stderr, /note: .*git commit read from the remote \(git ls-remote\)/);
  const spdx = await cli(['--format', 'spdx']);
  assert.equal(spdx.code, 0, spdx.stderr);
  checkSpdx(spdx.stdout);

  // offline: no remote is asked, every not-cloned commit stays NOASSERTION …
  const ads = srv.refAdvertisements();
  const off = await cli(['--offline']);
  assert.equal(off.code, 0, off.stderr);
  assert.equal(srv.refAdvertisements(), ads, 'offline: no ls-remote');
  const doc = JSON.parse(off.stdout) as Cdx;
  // … except the call whose ?ref= is a full commit id: the source names the commit tofu init checks out.
  const withCommit = doc.components.filter((c) => c['bom-ref'].startsWith('module:git::') && c.pedigree);
  assert.deepEqual(withCommit.map((c) => [c['bom-ref'], c.pedigree]), [[`module:${src.commit}`, { commits: [{ uid: net.commits['v1.0.0'] }] }]], 'offline: only the full-commit ref has its commit');
});

test('exportSbom (features: Export SBOM in the editors): the same commits for a git package that could not be cloned', { timeout: 120_000 }, async () => {
  const engine = new Engine({ env, caFiles: [testPki().caCertPath], timeoutMs: 20_000 });
  try {
    const refusedBefore = srv.packsRefused('net.git');
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const ctx = { engine, log, networkAllowed: () => true, cacheDir: join(ws, 'editor-cache') };
    const cdx = await exportSbom(ctx, { dirs: [join(ws, 'root')], format: 'cyclonedx', env });
    assert.equal(cdx.offline, false);
    assert.ok(srv.packsRefused('net.git') > refusedBefore, 'the clones were tried and refused');
    checkCycloneDx(cdx.text);
    checkSpdx((await exportSbom(ctx, { dirs: [join(ws, 'root')], format: 'spdx', env })).text);
  } finally {
    await engine.dispose();
  }
});
