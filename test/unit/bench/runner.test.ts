// `npm run bench` must be able to fail: the runner's exit code (bench/index.ts) for missed targets,
// suites that throw and targets stated as an absolute throughput, a missing extension bundle as a
// missed target, and the real extension host's activation figures ignored when they measured
// another bundle (bench/editor.bench.ts). The suites themselves are not run here; their sources
// are read for throughput targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { absoluteThroughputUnit, benchExitCode, BenchModule, runSuites, summary } from '../../../bench/index';
import { lastActivation, reportBundle } from '../../../bench/editor.bench';
import { tempDir } from '../../support/temp';

const suite = (title: string, run: BenchModule['run']) => ({ name: `${title}.bench.js`, load: () => ({ title, run }) });

test('bench runner: a missed target or a suite that throws makes the exit code 1; every suite still runs', async () => {
  const lines: string[] = [];
  const ran: string[] = [];
  const outcome = await runSuites([
    suite('fast', async (r) => { ran.push('fast'); r.result('x', '1 ms', '≤ 2 ms', true); r.result('baseline', '3 ms'); }),
    suite('slow', async (r) => { ran.push('slow'); r.result('y', '9 ms', '≤ 2 ms', false); }),
    suite('broken', async () => { ran.push('broken'); throw new Error('fixture server did not start'); }),
    { name: 'unloadable.bench.js', load: () => { throw new Error('Cannot find module'); } },
    suite('after', async (r) => { ran.push('after'); r.note('still runs'); }),
  ], (l) => lines.push(l));
  assert.deepEqual(ran, ['fast', 'slow', 'broken', 'after']);
  assert.equal(outcome.misses, 1);
  assert.deepEqual(outcome.failed, [
    { suite: 'broken.bench.js', message: 'fixture server did not start' },
    { suite: 'unloadable.bench.js', message: 'Cannot find module' },
  ]);
  assert.equal(benchExitCode(outcome), 1);
  assert.equal(summary(outcome), 'bench: 5 suites, 1 targets missed, 2 suites failed (broken.bench.js, unloadable.bench.js)');
  assert.ok(lines.some((l) => /y .*MISSED$/.test(l)) && lines.includes('  FAILED broken.bench.js: fixture server did not start'), lines.join('\n'));

  assert.equal(benchExitCode(await runSuites([suite('ok', async (r) => r.result('x', '1 ms', '≤ 2 ms', true))], () => undefined)), 0);
  assert.equal(benchExitCode(await runSuites([], () => undefined)), 1, 'no suite matched: nothing was measured');
});

test('bench runner: a target with an absolute throughput unit is refused and makes the exit code 1, even when "met"', async () => {
  const lines: string[] = [];
  const outcome = await runSuites([suite('throughput', async (r) => {
    r.result('inspect throughput', '42.5 MB/s', '≥ 40 MB/s', true); // met on the fast machine: still refused
    r.result('parse rate', '9000 files/s', '≥ 5000 files/s', true);
    r.result('speed-up vs hcl2json', '23.1×', '≥ 10×', true);
    r.result('hcl2json throughput', '1.8 MB/s'); // a throughput as information, without a target
    r.result('vs its floor', '1.20× (240 ms)', '≤ 1.5× floor: 4 dependent round trips × 50 ms = 200 ms', true);
  })], (l) => lines.push(l));
  assert.equal(outcome.absoluteTargets, 2, lines.join('\n'));
  assert.equal(outcome.misses, 0);
  assert.equal(benchExitCode(outcome), 1);
  assert.equal(summary(outcome), 'bench: 1 suites, 0 targets missed, 2 absolute throughput targets refused');
  assert.ok(lines.some((l) => /inspect throughput .*REFUSED: an absolute throughput target \(MB\/s\)/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /speed-up vs hcl2json .*ok$/.test(l)) && lines.some((l) => /vs its floor .*ok$/.test(l)), lines.join('\n'));

  for (const t of ['≥ 40 MB/s', '≥ 1 GiB/s', '≥ 500 kB / s', '≥ 100 requests/s', '≥ 20 MB per CPU-second']) assert.ok(absoluteThroughputUnit(t), t);
  for (const t of ['≥ 10×', '≤ 200 MB', '≤ 1 ms', '≥ 0.5× sha256sum', '= 30 + 30', '≥ 20×, 0', '< 1 parse (6.7 ms)']) assert.equal(absoluteThroughputUnit(t), undefined, t);
});

test('bench suites: no suite states a target as an absolute throughput (the sources of bench/*.ts)', () => {
  const dir = resolve(__dirname, '../../../../bench');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  assert.ok(files.some((f) => f.endsWith('.bench.ts')), `no suites found in ${dir}`);
  const found: string[] = [];
  for (const f of files) {
    const source = ts.createSourceFile(f, readFileSync(join(dir, f), 'utf8'), ts.ScriptTarget.ES2022, true);
    // Every string and template literal that reads as a target (it starts with a comparison), and
    // whatever is passed as the target of a result() call.
    const check = (text: string, where: ts.Node) => {
      if (absoluteThroughputUnit(text)) found.push(`${f}:${source.getLineAndCharacterOfPosition(where.getStart()).line + 1}: ${text}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        if (/^\s*[≥≤<>=]/.test(node.text)) check(node.text, node);
      } else if (ts.isTemplateExpression(node)) {
        const text = node.head.text + node.templateSpans.map((sp) => `\${…}${sp.literal.text}`).join('');
        if (/^\s*[≥≤<>=]/.test(text)) check(text, node);
      } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'result' && node.arguments.length >= 3) {
        check(node.arguments[2].getText(source), node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.deepEqual([...new Set(found)], []);
});

test('editor bench: a missing dist/extension.js is a missed target, not a skip', async () => {
  const root = tempDir('bench-root-');
  const lines: string[] = [];
  const outcome = await runSuites([suite('editor', async (r) => reportBundle(r, root))], (l) => lines.push(l));
  assert.equal(outcome.misses, 1, lines.join('\n'));
  assert.equal(benchExitCode(outcome), 1);
  assert.ok(lines.some((l) => /bundle size dist\/extension\.js .*missing.*MISSED$/.test(l)), lines.join('\n'));
});

test('editor bench: the real host activation figure counts only for the bundle it measured', () => {
  const root = tempDir('bench-activation-');
  mkdirSync(join(root, 'dist'));
  const bundle = join(root, 'dist', 'extension.js');
  const act = join(root, 'activation.json');
  const figures = { activationMs: 12.5, vscode: '1.99.0' };
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

  assert.match(JSON.stringify(lastActivation(act, bundle)), /run the integration tests first/);
  writeFileSync(act, JSON.stringify(figures));
  assert.match(JSON.stringify(lastActivation(act, bundle)), /no dist\/extension\.js/);
  writeFileSync(bundle, 'bundle v1');

  // Without a recorded hash: by age.
  at(act, 1_000_000); at(bundle, 2_000_000);
  const stale = lastActivation(act, bundle);
  assert.equal(stale.kind, 'ignored');
  assert.match((stale as { note: string }).note, /older than dist\/extension\.js \(stale\)/);
  at(act, 3_000_000);
  assert.deepEqual(lastActivation(act, bundle), { kind: 'current', figures });

  // With the hash of the bundle it measured: a rebuild of the same bytes keeps it, other bytes do not.
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  writeFileSync(act, JSON.stringify({ ...figures, bundleSha256: sha('bundle v1') }));
  at(act, 1_000_000);
  assert.equal(lastActivation(act, bundle).kind, 'current');
  writeFileSync(bundle, 'bundle v2');
  at(act, 3_000_000); at(bundle, 2_000_000);
  assert.match(JSON.stringify(lastActivation(act, bundle)), /measured another build of dist\/extension\.js \(stale\)/);

  writeFileSync(act, '{"not": "figures"}');
  assert.match(JSON.stringify(lastActivation(act, bundle)), /not readable/);
});
