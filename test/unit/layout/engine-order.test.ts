// The engine's order (issue 27): docs/architecture.md lists src/engine's folders top down, in
// layers, and each folder (and engine.ts) may import only what is listed below it — type-only
// imports included, so the folder-level import graph has no cycle. The list is read from the doc
// (the test keeps no copy of it), must name exactly the folders that exist, and each folder's
// index.ts door opens with a comment that names the folder's layer as the doc does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

// out/test/unit/layout → <repo>
const ROOT = path.resolve(__dirname, '../../../..');
const ENGINE = 'src/engine';
const DOC = 'docs/architecture.md';
const SPEC_RE = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"\n]*|\.{1,2})\1/gm;

interface Unit { name: string; layer: string }

/**
 * The engine's units top down, from the code block of the doc that starts with `src/engine/`:
 * `  ── LAYER[: why]` opens a layer, `  NAME/  …` or `  NAME.ts  …` lists a unit in it.
 */
function engineOrder(doc: string): Unit[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${ENGINE}/ `));
  assert.ok(start >= 0, `${DOC} has no tree line starting "${ENGINE}/"`);
  const units: Unit[] = [];
  let layer = '';
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ') || line.startsWith('```')) break; // the next top-level entry (src/features/) or the block's end
    const heading = /^ {2}── ([^:]+?)\s*(?::.*)?$/.exec(line);
    if (heading) { layer = heading[1]; continue; }
    const unit = /^ {2}([a-z][a-z0-9-]*\/|[a-z][a-z0-9-]*\.ts)(?:\s|$)/.exec(line);
    if (unit) {
      assert.ok(layer, `${DOC}: ${unit[1]} is listed before any "── layer" line`);
      units.push({ name: unit[1].replace(/\/$/, ''), layer });
    }
  }
  return units;
}

/** The engine's units on disk: its folders (those holding .ts files) and its top-level .ts files. */
function unitsOnDisk(): string[] {
  return readdirSync(path.join(ROOT, ENGINE), { withFileTypes: true })
    .filter((e) => (e.isDirectory() ? tsFiles(path.join(ENGINE, e.name)).length > 0 : e.name.endsWith('.ts')))
    .map((e) => e.name).sort();
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The unit a path under src/engine belongs to ('mirror' for src/engine/mirror/run.ts, 'engine.ts'), or undefined. */
function unitOf(file: string): string | undefined {
  if (!file.startsWith(`${ENGINE}/`)) return undefined;
  return file.slice(ENGINE.length + 1).split('/')[0];
}

interface EngineImport { file: string; spec: string; target: string }

/** Each relative import of each engine file, resolved to the file it names (repo-relative). */
function engineImports(): EngineImport[] {
  return tsFiles(ENGINE).flatMap((file) => [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(SPEC_RE)].flatMap((m) => {
    const base = path.resolve(path.dirname(path.join(ROOT, file)), m[2]);
    const hit = [`${base}.ts`, path.join(base, 'index.ts'), base].find((p) => existsSync(p) && statSync(p).isFile());
    return hit ? [{ file, spec: m[2], target: path.relative(ROOT, hit).split(path.sep).join('/') }] : [];
  }));
}

const shown = (unit: string) => (unit.endsWith('.ts') ? unit : `${unit}/`);

/** Imports that run against the order: a unit importing a unit not listed below it. Each names the file and the import. */
function againstTheGrain(order: Unit[], imports: EngineImport[]): string[] {
  const rank = new Map(order.map((u, i) => [u.name, i]));
  const out: string[] = [];
  for (const i of imports) {
    const from = unitOf(i.file);
    const to = unitOf(i.target);
    if (!from || !to || from === to) continue;
    const a = rank.get(from), b = rank.get(to);
    if (a === undefined || b === undefined || b <= a) {
      out.push(`${i.file} imports '${i.spec}' (${shown(to)} is ${b === undefined ? 'not listed' : `listed above ${shown(from)}`} in ${DOC})`);
    }
  }
  return out;
}

const order = () => engineOrder(readFileSync(path.join(ROOT, DOC), 'utf8'));

test('engine order: the list in docs/architecture.md names exactly the engine folders and files, each once', () => {
  const listed = order().map((u) => u.name);
  assert.ok(listed.length >= 20, `read only ${listed.length} units from ${DOC}`);
  assert.deepEqual([...listed].sort(), unitsOnDisk(), `${DOC} lists other units than ${ENGINE}/ holds`);
  assert.equal(new Set(listed).size, listed.length, 'a unit is listed twice');
});

test('engine order: every engine folder imports only folders listed below it (type-only imports included)', () => {
  const imports = engineImports();
  assert.ok(imports.filter((i) => unitOf(i.target) !== unitOf(i.file)).length > 200, 'the check sees the cross-folder imports');
  assert.deepEqual(againstTheGrain(order(), imports), []);
});

test('engine order: the check names the file and the import that runs against the order, even without a cycle', () => {
  const units: Unit[] = [{ name: 'mirror', layer: 'jobs' }, { name: 'engine.ts', layer: 'session' }, { name: 'net', layer: 'IO' }];
  const down = { file: `${ENGINE}/mirror/run.ts`, spec: '../net/http', target: `${ENGINE}/net/http.ts` };
  const up = { file: `${ENGINE}/net/http.ts`, spec: '../mirror/types', target: `${ENGINE}/mirror/types.ts` };
  const toSession = { file: `${ENGINE}/net/errors.ts`, spec: '../engine', target: `${ENGINE}/engine.ts` };
  const unlisted = { file: `${ENGINE}/mirror/run.ts`, spec: '../newthing', target: `${ENGINE}/newthing/index.ts` };
  assert.deepEqual(againstTheGrain(units, [down]), []);
  assert.deepEqual(againstTheGrain(units, [down, up, toSession, unlisted]), [
    `${ENGINE}/net/http.ts imports '../mirror/types' (mirror/ is listed above net/ in ${DOC})`,
    `${ENGINE}/net/errors.ts imports '../engine' (engine.ts is listed above net/ in ${DOC})`,
    `${ENGINE}/mirror/run.ts imports '../newthing' (newthing/ is not listed in ${DOC})`,
  ]);
});

test('engine order: each engine folder opens with an index.ts door whose first comment says what it is for and names its layer', () => {
  const bad: string[] = [];
  for (const u of order().filter((x) => !x.name.endsWith('.ts'))) {
    const door = `${ENGINE}/${u.name}/index.ts`;
    if (!existsSync(path.join(ROOT, door))) { bad.push(`${door} is missing`); continue; }
    const head: string[] = [];
    for (const line of readFileSync(path.join(ROOT, door), 'utf8').split('\n')) {
      if (!line.startsWith('//')) break;
      head.push(line);
    }
    const layers = head.map((l) => /^\/\/ Layer: ([^(]+?)\s*(?:\(|$)/.exec(l)?.[1]).filter(Boolean);
    if (head.length < 2) bad.push(`${door} does not open with a comment saying what ${u.name}/ is for (and "// Layer: ${u.layer}")`);
    else if (layers.length !== 1 || layers[0] !== u.layer) bad.push(`${door}: its first comment names layer ${JSON.stringify(layers.join(', ') || 'none')}; ${DOC} lists ${u.name}/ under "${u.layer}"`);
  }
  assert.deepEqual(bad, []);
});
