// The layers, checked on the sources and the bundles: the engine imports neither the features
// layer nor an editor adapter; the features layer imports no editor API (neither 'vscode' nor the
// language server's packages) and no adapter; only src/editor (and the extension entry) imports
// 'vscode'; and the extension bundle carries none of the language server's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const SPEC_RE = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|require\(['"]([^'"]+)['"]\)/gm;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Each import of each file under `dir`: the specifier, resolved to a path under src/ when relative. */
function imports(dir: string): Array<{ file: string; spec: string; target: string }> {
  return files(dir).flatMap((file) => [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(SPEC_RE)].map((m) => {
    const spec = m[1] ?? m[2] ?? m[3];
    return { file, spec, target: spec.startsWith('.') ? path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), spec)) : spec };
  }));
}

const EDITOR_APIS = /^(vscode|vscode-languageserver.*|vscode-jsonrpc.*)$/;

test('the engine imports neither the features layer nor an adapter', () => {
  const bad = imports('src/engine').filter((i) => /^src\/(features|editor|lsp|cli)\b/.test(i.target) || EDITOR_APIS.test(i.spec));
  assert.deepEqual(bad.map((i) => `${i.file}: ${i.spec}`), []);
});

test('the features layer imports no editor API and no adapter', () => {
  const all = imports('src/features');
  assert.ok(all.length > 20, 'the check sees the imports');
  const bad = all.filter((i) => /^src\/(editor|lsp|cli)\b/.test(i.target) || EDITOR_APIS.test(i.spec));
  assert.deepEqual(bad.map((i) => `${i.file}: ${i.spec}`), []);
});

test('only src/editor and the extension entry import vscode; only src/lsp and its command the language server', () => {
  const all = imports('src');
  const vscode = all.filter((i) => i.spec === 'vscode' && !i.file.startsWith('src/editor/') && i.file !== 'src/extension.ts');
  assert.deepEqual(vscode.map((i) => i.file), []);
  const lsp = all.filter((i) => /^vscode-languageserver/.test(i.spec) && !i.file.startsWith('src/lsp/') && i.file !== 'src/cli/lsp.ts');
  assert.deepEqual(lsp.map((i) => i.file), []);
  const editorToLsp = all.filter((i) => (i.file.startsWith('src/editor/') && i.target.startsWith('src/lsp')) || (i.file.startsWith('src/lsp/') && i.target.startsWith('src/editor')));
  assert.deepEqual(editorToLsp.map((i) => `${i.file}: ${i.spec}`), [], 'the two adapters share only src/features');
});

test('the extension bundle carries none of the language server, the CLI bundle all of it', () => {
  const ext = path.join(ROOT, 'dist', 'extension.js');
  const lsp = path.join(ROOT, 'dist', 'cli-lsp.js');
  assert.ok(existsSync(ext) && existsSync(lsp), 'dist/ is not built: run npm run build (npm test and npm run test:unit do)');
  // A string of vscode-jsonrpc's message reader and of the server's capability wiring.
  for (const marker of ['Content-Length', 'textDocument/publishDiagnostics']) {
    assert.ok(readFileSync(lsp, 'utf8').includes(marker), `dist/cli-lsp.js has "${marker}"`);
    assert.ok(!readFileSync(ext, 'utf8').includes(marker), `dist/extension.js has no "${marker}"`);
  }
  assert.ok(statSync(ext).size < statSync(lsp).size);
});

test('the job commands (mirrors, publish, SBOM) are a bundle of their own, read on first use; what they share with the extension\'s bundle comes from it', async () => {
  const ext = path.join(ROOT, 'dist', 'extension.js');
  const jobs = path.join(ROOT, 'dist', 'extension-commands.js');
  assert.ok(existsSync(ext), 'dist/ is not built: run npm run build (npm test and npm run test:unit do)');
  // activation neither parses nor evaluates the SBOM writer (CycloneDX's and SPDX's field names)
  for (const marker of ['bomFormat', 'spdxVersion']) {
    assert.ok(!readFileSync(ext, 'utf8').includes(marker), `dist/extension.js has no "${marker}"`);
    assert.ok(readFileSync(jobs, 'utf8').includes(marker), `dist/extension-commands.js has "${marker}"`);
  }
  // the commands' bundle against the extension's, in a process of their own with a vscode stand-in
  // (bench/activate-child.ts): each module it reads from the extension's bundle is there, and the
  // handlers of exactly the commands the extension registers for it come out
  const { spawnSync } = await import('node:child_process');
  const script = `
    const { loadAndActivate } = require(${JSON.stringify(path.join(ROOT, 'out', 'bench', 'activate-child.js'))});
    loadAndActivate(${JSON.stringify(ext)});
    const Module = require('node:module');
    const load = Module._load;
    Module._load = function (req, ...rest) { return req === 'vscode' ? {} : load.call(this, req, ...rest); };
    const shared = require(${JSON.stringify(ext)}).__shared;
    const wanted = [...require('node:fs').readFileSync(${JSON.stringify(jobs)}, 'utf8').matchAll(/__shared\\["([^"]+)"\\]/g)].map((m) => m[1]);
    const missing = wanted.filter((k) => !shared[k] || typeof shared[k] !== 'object');
    const { HANDLERS } = require(${JSON.stringify(jobs)});
    process.stdout.write(JSON.stringify({ wanted: wanted.length, missing, handlers: Object.keys(HANDLERS), kinds: Object.values(HANDLERS).map((h) => typeof h) }));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { wanted: number; missing: string[]; handlers: string[]; kinds: string[] };
  assert.ok(out.wanted > 10, 'the commands read the engine from the extension\'s bundle');
  assert.deepEqual(out.missing, []);
  // (src/editor/lazyCommands.ts's JOB_COMMANDS; it imports vscode, so it is read as text)
  const ids = [...readFileSync(path.join(ROOT, 'src', 'editor', 'lazyCommands.ts'), 'utf8').matchAll(/'(tofuRegistry\.\w+)'/g)].map((m) => m[1]);
  assert.equal(ids.length, 5);
  assert.deepEqual(out.handlers.sort(), ids.sort());
  assert.ok(out.kinds.every((k) => k === 'function'));
  // and the .vsix ships it beside the extension's bundle
  assert.match(readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8'), /^!dist\/extension-commands\.js$/m);
});
