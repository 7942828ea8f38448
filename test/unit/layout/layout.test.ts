// The project's layout rules, checked on the sources: no import cycles among src/ modules (type-only
// imports count: they tie the modules together just the same) and no source file of 400 lines or more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { walkTree } from '../../../src/engine/fstree';

// out/test/unit/layout → <repo>
const ROOT = path.resolve(__dirname, '../../../..');
const IMPORT_RE = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  await walkTree(path.join(ROOT, dir), {
    directory(d, entries) { for (const e of entries) if (e.isFile() && e.name.endsWith('.ts')) out.push(path.join(d, e.name)); },
    descend: (name) => name !== 'fixtures' && name !== 'node_modules',
  });
  return out.sort();
}

/** Module → the modules it imports (relative imports resolved to files). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps: string[] = [];
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2];
      const base = path.resolve(path.dirname(f), spec);
      const target = [`${base}.ts`, path.join(base, 'index.ts')].find((p) => existsSync(p));
      if (target) deps.push(target);
    }
    graph.set(f, deps);
  }
  return graph;
}

/** Strongly connected components with more than one module (Tarjan), or a module importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.map((p) => path.relative(ROOT, p)).sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

test('layout: no import cycles among the modules of src/ (type-only imports included)', async () => {
  const files = await sources('src');
  assert.ok(files.length > 50, `found only ${files.length} source files under ${ROOT}/src`);
  assert.deepEqual(cycles(importGraph(files)), []);
  // The check itself finds a cycle when there is one.
  const a = path.join(ROOT, 'a.ts'), b = path.join(ROOT, 'b.ts'), c = path.join(ROOT, 'c.ts');
  assert.deepEqual(cycles(new Map([[a, [b]], [b, [c]], [c, [a]]])), [['a.ts', 'b.ts', 'c.ts']]);
  assert.deepEqual(cycles(new Map([[a, [b]], [b, []]])), []);
});

test('layout: every source file stays under 400 lines', async () => {
  const files = (await Promise.all(['src', 'test', 'bench', 'scripts'].map(sources))).flat();
  const long = files.map((f) => [path.relative(ROOT, f), readFileSync(f, 'utf8').split('\n').length - 1] as const).filter(([, n]) => n >= 400);
  assert.ok(files.length > 100, `found only ${files.length} files`);
  assert.deepEqual(long, []);
});
