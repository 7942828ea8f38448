// Every example in the README and docs/ that runs tofu-registry is run, as written, against the
// demo registry (the one `npm run demo` starts): `registry.example.com` in the docs stands for it,
// `corp-ca.pem` in the working directory is its CA (also trusted through NODE_EXTRA_CA_CERTS, as on
// a machine set up for a private registry), and $REGISTRY, $CA and $DEMO are what
// `npm run demo -- --serve` prints for the README's quick start; `oci.example.com` stands for a real
// OCI registry (CNCF Distribution, anonymous, the same test CA); `dist/` beside them is a provider
// release as the release tooling writes it (acme/widget 1.0.0, signed by `release-key.asc`, whose
// public key is `release-key.pub.asc`), for the publish-provider examples. `tofu-registry` is the built CLI
// (dist/cli.js). A block runs under `bash -e -o pipefail` and must exit 0, or the code its
// `<!-- exit: N -->` marker names; `<!-- not-run: why -->` skips one (counted). A `json` block
// right after an example must have the shape the command printed: the same fields in the same
// order, the same types, recursively — so renaming a documented flag or a JSON field fails here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDemoRegistry, DemoRegistry } from '../../support/demo-registry';
import { startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';
import { codeBlocks, commandNames, markdownFiles, ROOT, scriptsOf } from './markdown';
import { buildRelease, keyFiles } from '../providerpublish/fixture';

const CLI = join(ROOT, 'dist', 'cli.js');
const DOC_HOST = 'registry.example.com';
const DOC_OCI_HOST = 'oci.example.com';

let demo: DemoRegistry;
let oci: TestOciRegistry;
let work: string;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build first`);
  demo = await startDemoRegistry();
  oci = await startOciRegistry();
  work = tempDir('doc-examples-');
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const shim = join(bin, 'tofu-registry');
  // A shim, as `npm install -g` makes one: the examples call tofu-registry by name.
  writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  chmodSync(shim, 0o755);
  const release = join(work, 'release');
  const key = await keyFiles(join(work, 'keys'), 'doc release signer');
  await buildRelease(join(release, 'dist'), key, { version: '1.0.0' });
  copyFileSync(key.privateFile, join(release, 'release-key.asc'));
  copyFileSync(key.publicFile, join(release, 'release-key.pub.asc'));
});
after(async () => {
  await demo?.stop();
  await oci?.stop();
});

interface Run { code: number; stdout: string; stderr: string }

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    // Asynchronous: the registry answers from this process.
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code: code ?? 1, stdout, stderr }); });
  });
}

/**
 * A CI snippet's install step (`npm install -g ./tools/tofu-registry-0.1.0.tgz`) becomes `true`: the
 * shim on PATH is what it installs (test/unit/install/packed-tarball.test.ts installs the real
 * tarball), and it must neither touch the machine's global prefix nor reach the npm registry.
 */
function withoutInstall(script: string): string {
  return script.replace(/^(\s*)npm install -g\b[^\n]*$/gm, '$1true');
}

/** A fresh sandbox per page: the demo configuration as the working directory, its CA as corp-ca.pem. */
function sandbox(name: string): { cwd: string; env: NodeJS.ProcessEnv } {
  const root = join(work, name.replace(/\W/g, '_'));
  const cwd = join(root, 'infra');
  mkdirSync(join(root, 'home'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const f of readdirSync(demo.configDir)) if (f.endsWith('.tf')) copyFileSync(join(demo.configDir, f), join(cwd, f));
  copyFileSync(demo.registry.caCertPath, join(cwd, 'corp-ca.pem'));
  cpSync(join(work, 'release'), cwd, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(work, 'bin')}:${process.env.PATH}`,
    HOME: join(root, 'home'),
    XDG_CACHE_HOME: join(root, 'cache'),
    XDG_CONFIG_HOME: join(root, 'home', '.config'),
    TMPDIR: process.env.TMPDIR,
    NODE_EXTRA_CA_CERTS: join(cwd, 'corp-ca.pem'),
    REGISTRY: demo.registry.host,
    CA: join(cwd, 'corp-ca.pem'),
    DEMO: cwd,
    GITHUB_STEP_SUMMARY: join(root, 'step-summary.md'),
  };
  return { cwd, env };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const kind = (v: Json) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Where the printed JSON's shape differs from the documented one (values may differ). */
export function shapeDiff(documented: Json, printed: Json, path = '$'): string[] {
  if (kind(documented) !== kind(printed)) return [`${path}: documented ${kind(documented)}, printed ${kind(printed)}`];
  if (Array.isArray(documented) && Array.isArray(printed)) {
    if (!documented.length !== !printed.length) return [`${path}: documented ${documented.length} items, printed ${printed.length}`];
    const n = Math.min(documented.length, printed.length);
    return Array.from({ length: n }, (_, i) => shapeDiff(documented[i], printed[i], `${path}[${i}]`)).flat();
  }
  if (kind(documented) === 'object') {
    const d = documented as Record<string, Json>;
    const p = printed as Record<string, Json>;
    const dk = Object.keys(d);
    const pk = Object.keys(p);
    if (dk.join(',') !== pk.join(',')) return [`${path}: documented fields ${dk.join(', ')}; printed ${pk.join(', ')}`];
    return dk.flatMap((k) => shapeDiff(d[k], p[k], `${path}.${k}`));
  }
  return [];
}

test('shapeDiff: field names, order, types and array items differ; values do not', () => {
  assert.deepEqual(shapeDiff({ a: 1, b: ['x'] }, { a: 2, b: ['y', 'z'] }), []);
  assert.deepEqual(shapeDiff({ a: 1, b: 2 }, { b: 2, a: 1 }), ['$: documented fields a, b; printed b, a']);
  assert.deepEqual(shapeDiff({ a: 1 }, { a: '1' }), ['$.a: documented number, printed string']);
  assert.deepEqual(shapeDiff({ a: [{ x: 1 }] }, { a: [{ y: 1 }] }), ['$.a[0]: documented fields x; printed y']);
  assert.deepEqual(shapeDiff({ a: [] }, { a: [1] }), ['$.a: documented 0 items, printed 1']);
  assert.deepEqual(shapeDiff({ a: null }, { a: 'x' }), ['$.a: documented null, printed string']);
});

const counts = { run: 0, notRun: 0, json: 0 };
/** cli.md: the sections whose JSON was compared with a real run. */
const comparedSections = new Set<string>();

for (const file of markdownFiles()) {
  const all = codeBlocks(file);
  const blocks = all.filter((b) => scriptsOf(b).length || b.notRun !== undefined);
  if (!blocks.length) continue;
  test(`${file}: every example that runs tofu-registry works against the demo registry`, async (t) => {
    const { cwd, env } = sandbox(file);
    for (const block of blocks) {
      const where = `${file}:${block.line}`;
      if (block.notRun !== undefined) {
        assert.ok(block.notRun.length > 0, `${where}: a not-run marker says why`);
        assert.ok(scriptsOf(block).length, `${where}: a not-run marker on a block that runs no tofu-registry`);
        counts.notRun++;
        t.diagnostic(`${where}: not run (${block.notRun})`);
        continue;
      }
      const results: Run[] = [];
      for (const script of scriptsOf(block)) results.push(await runScript(withoutInstall(script).replaceAll(DOC_HOST, demo.registry.host).replaceAll(DOC_OCI_HOST, oci.host), cwd, env));
      counts.run++;
      const code = results.find((r) => r.code !== 0)?.code ?? 0;
      const stdout = results.map((r) => r.stdout).join('');
      const stderr = results.map((r) => r.stderr).join('');
      assert.equal(code, block.exit, `${where}: exit ${code}, the docs say ${block.exit}\n${block.text}\nstdout: ${stdout}\nstderr: ${stderr}`);
      if (block.text.includes('$GITHUB_STEP_SUMMARY')) {
        // A CI snippet's job summary: the step wrote one (its exit code alone would not show a broken script).
        const summary = readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8');
        assert.match(summary, /\S/, `${where}: the step summary is empty`);
        assert.doesNotMatch(summary, /undefined/, `${where}: the step summary reads fields the JSON does not have:\n${summary}`);
      }
      const next = all.find((b) => b.follows === block && b.lang === 'json');
      if (next) {
        let printed: Json;
        try { printed = JSON.parse(stdout); } catch { assert.fail(`${where}: the example prints no JSON, the docs show some at line ${next.line}:\n${stdout}${stderr}`); }
        const documented = JSON.parse(next.text) as Json;
        assert.deepEqual(shapeDiff(documented, printed), [], `${where}: the JSON at line ${next.line} differs from what the command printed:\n${stdout}`);
        counts.json++;
        if (file === 'docs/cli.md') comparedSections.add(block.section);
      }
    }
  });
}

test('the CLI reference: every command section has a JSON example compared with a real run', async () => {
  const { stdout } = await runScript(`'${process.execPath}' '${CLI}' --help`, ROOT, { PATH: process.env.PATH });
  const commands = commandNames(stdout);
  assert.ok(commands.length >= 11, stdout);
  // `lsp` prints no JSON document: stdout is the language server protocol (test/unit/lsp/ talks it).
  for (const c of commands.filter((x) => x !== 'lsp')) assert.ok(comparedSections.has(`\`tofu-registry ${c}\``), `docs/cli.md: no JSON example of ${c} was compared (sections compared: ${[...comparedSections].join(', ')})`);
  assert.ok(comparedSections.has('Exit codes and errors'), 'docs/cli.md: the error document has a compared example');
});

test('the doc examples ran (a count that cannot be zero)', () => {
  // Runs after the page tests (node:test runs top-level tests in order).
  assert.ok(counts.run >= 25, `only ${counts.run} examples ran`);
  assert.ok(counts.json >= 12, `only ${counts.json} JSON outputs compared`);
  console.log(`# doc examples: ${counts.run} run, ${counts.json} JSON outputs compared, ${counts.notRun} not run (marked: need a real remote registry, proxy or served mirror)`);
});
