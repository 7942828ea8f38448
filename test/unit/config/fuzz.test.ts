// Property test: mutated real files (random deletions, insertions of HCL-significant text,
// truncations) never make the parser throw or hang, and every range stays inside the text.
// The runs happen in a worker thread so that a hang is detected (the worker is terminated and the
// test fails) instead of blocking the test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { extractFile, findNodeAt, locateCursor, parseExpression, parseHcl } from '../../../src/engine/config';
import { BROKEN, CORPUS, corpusFiles } from './cases';

const RUNS = 1000;
const LIMIT_MS = 60_000;

type Edit = { kind: 'delete' | 'insert' | 'truncate'; at: number; len: number; text: string };

const PIECES = ['"', '{', '}', '[', ']', '(', ')', '=', '${', '%{', '~}', '<<EOT\n', '<<-X\n', '\n', '/*', '*/', '#', '//', ',', '.', '*', '?', ':', '=>', '...', '${ {', '"${foo(\n', 'for ', ' in ', 'if ', '\\', 'module "m" {', '\u00e9', '😀'];

function applyEdits(text: string, edits: Edit[]): string {
  let t = text;
  for (const e of edits) {
    const at = Math.floor(e.at * (t.length + 1));
    if (e.kind === 'delete') t = t.slice(0, at) + t.slice(at + e.len);
    else if (e.kind === 'insert') t = t.slice(0, at) + e.text + t.slice(at);
    else t = t.slice(0, at);
  }
  return t;
}

function checkRanges(node: unknown, len: number): void {
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if ((k === 'range' || k === 'nameRange' || k === 'typeRange' || k === 'contentRange') && v && typeof v === 'object') {
      const r = v as { start: { offset: number }; end: { offset: number } };
      if (!(r.start.offset >= 0 && r.start.offset <= r.end.offset && r.end.offset <= len)) {
        throw new Error(`bad ${k} ${r.start.offset}..${r.end.offset} (text length ${len})`);
      }
    } else if (k !== 'block') {
      checkRanges(v, len);
    }
  }
}

function fuzz(sources: string[], runs: number, seed: number): number {
  const edit = fc.record({
    kind: fc.constantFrom<'delete' | 'insert' | 'truncate'>('delete', 'insert', 'insert', 'delete', 'truncate'),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    len: fc.integer({ min: 1, max: 200 }),
    text: fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 8 }), fc.constantFrom(...BROKEN.map(([, s]) => s))),
  });
  let count = 0;
  fc.assert(
    fc.property(fc.integer({ min: 0, max: sources.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 6 }), fc.nat(), (i, edits, cursor) => {
      const text = applyEdits(sources[i], edits);
      const file = parseHcl(text);
      assert.ok(!file.diagnostics.some((d) => d.message.startsWith('Internal parser error')), 'the parser handled it itself');
      checkRanges(file.body, text.length);
      checkRanges(file.diagnostics, text.length);
      const summary = extractFile(file, text);
      const lines = text.split('\n');
      const line = cursor % lines.length;
      const character = lines[line].length ? cursor % (lines[line].length + 1) : 0;
      locateCursor(summary, line, character, text);
      findNodeAt(file, line, character);
      parseExpression(text.slice(0, 200));
      count++;
    }),
    { numRuns: runs, seed },
  );
  return count;
}

if (!isMainThread && workerData?.fuzz) {
  const sources = (workerData.files as string[]).map((f) => readFileSync(f, 'utf8'));
  parentPort!.postMessage({ runs: fuzz(sources, workerData.runs as number, workerData.seed as number) });
} else {
  test('fuzz: mutated corpus files never throw and never hang', async () => {
    const files: string[] = [];
    if (existsSync(CORPUS)) {
      files.push(...corpusFiles());
    } else {
      files.push(path.resolve(__dirname, '../../../../examples/demo/main.tf'), path.resolve(__dirname, '../../../../examples/demo/variables.tf'));
    }
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
    const result = await new Promise<{ runs?: number; error?: string }>((resolve) => {
      const w = new Worker(__filename, { workerData: { fuzz: true, files, runs: RUNS, seed } });
      const timer = setTimeout(() => { void w.terminate(); resolve({ error: `no answer within ${LIMIT_MS} ms: the parser hangs (seed ${seed})` }); }, LIMIT_MS);
      w.once('message', (m: { runs: number }) => { clearTimeout(timer); resolve(m); void w.terminate(); });
      w.once('error', (err) => { clearTimeout(timer); resolve({ error: `seed ${seed}: ${err.stack ?? err.message}` }); });
    });
    assert.equal(result.error, undefined, result.error);
    assert.equal(result.runs, RUNS);
  });
}
