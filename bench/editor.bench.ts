// Editor handler speed on a 5,000-line file (warm: document parsed, registry answers cached),
// activation time, and bundle size. Baselines measured in the same run: a full parse of the file
// (what the per-version parse cache saves on every request).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReporter } from './index';
import type { ActivationSample } from './activate-child';
import { timedNode, withoutExtraCa } from './floors';
import { readyTimed, readyTimedSync } from './machine';
import { parseConfig } from '../src/engine/config';
import { versionCompletions } from '../src/features/completion';
import { computeDiagnostics } from '../src/features/diagnostics';
import { versionHover } from '../src/features/hover';
import { locateAttribute, locateString } from '../src/features/locate';
import { RegistryLookup } from '../src/features/lookup';
import { collectRefs } from '../src/features/refs';

export const title = 'editor: completion / hover handlers, activation, bundle';

const ROOT = join(__dirname, '..', '..');
const VERSIONS = Array.from({ length: 120 }, (_, i) => `${Math.floor(i / 20)}.${i % 20}.${i % 3}`).concat(['9.0.0-rc1']);

function bigFile(lines: number): string {
  const out: string[] = ['terraform {', '  required_providers {'];
  for (let i = 0; i < 20; i++) out.push(`    p${i} = {`, `      source  = "registry.example.com/corp/p${i}"`, '      version = "~> 2.0"', '    }');
  out.push('  }', '}');
  let i = 0;
  while (out.length < lines) {
    out.push(`module "m${i}" {`, `  source  = "registry.example.com/corp/mod${i % 50}/aws"`, `  version = "~> ${i % 6}.${i % 20}"`,
      `  name    = "m${i}"`, '  tags = {', `    team = "t${i % 7}"`, '  }', '}', '');
    i++;
  }
  return out.join('\n');
}

/**
 * Warm cost of fn: 5 untimed calls, then the best of 9 ready times (machine.ts). Two such figures
 * compared with each other are both the least disturbed run of warm code on this machine now.
 */
function bestWarm(fn: () => void): number {
  for (let i = 0; i < 5; i++) fn();
  return Math.min(...Array.from({ length: 9 }, () => readyTimedSync(fn).readyMs));
}

function p99(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
}

export async function run(report: BenchReporter): Promise<void> {
  const text = bigFile(5000);
  const lineCount = text.split('\n').length;
  const lineStarts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (off: number) => { let lo = 0, hi = lineStarts.length - 1; while (lo < hi) { const m = (lo + hi + 1) >> 1; if (lineStarts[m] <= off) lo = m; else hi = m - 1; } return lo; };

  // Baseline: one full parse (what every request would cost without the per-version cache).
  let file = parseConfig(text, 'big.tf');
  const parseMs = bestWarm(() => { file = parseConfig(text, 'big.tf'); });
  const refs = collectRefs(file, text);
  report.note(`${lineCount} lines, ${refs.modules.length} module calls, ${refs.providers.length} providers, ${VERSIONS.length} versions each`);

  // Warm registry answers (an in-memory backend stands in for the already-cached engine).
  const lookup = new RegistryLookup({
    discover: async (host) => ({ host, url: `https://${host}/.well-known/terraform.json`, services: {} }),
    moduleVersions: async () => VERSIONS, providerVersions: async () => VERSIONS, downloadLocation: async () => 'x',
  });
  const versionOffsets = [...text.matchAll(/version = "/g)].map((m) => m.index! + 12);
  for (const r of [...refs.modules, ...refs.providers]) { const info = locateAttribute(refs, r.version!.range.start.offset); if (info?.info.target) await lookup.versions(info.info.target); }

  // Warm-up: every distinct constraint in the file seen once (items are memoized per answer + text).
  for (const off of versionOffsets) {
    const loc = locateString(text, refs, off, lineOf(off))!;
    versionCompletions(await lookup.versions(loc.info.target!), loc.info.target!.kind, loc.at.value);
  }
  const N = 3000;
  const comp: number[] = [];
  const hov: number[] = [];
  let items = 0;
  // Per call, the ready time (machine.ts): a busy machine's waits for a core are not the handler's.
  for (let i = 0; i < N; i++) {
    const off = versionOffsets[(i * 7919) % versionOffsets.length];
    comp.push((await readyTimed(async () => {
      const loc = locateString(text, refs, off, lineOf(off))!;
      const versions = await lookup.versions(loc.info.target!);
      items += versionCompletions(versions, loc.info.target!.kind, loc.at.value).length;
    })).readyMs);
    hov.push((await readyTimed(async () => {
      const hit = locateAttribute(refs, off)!;
      const vs = await lookup.versions(hit.info.target!);
      versionHover({ target: hit.info.target!, constraint: hit.value.value, versions: { value: vs }, networkAllowed: true });
    })).readyMs);
  }
  if (items === 0) throw new Error('no completion items');
  const cP99 = p99(comp);
  const hP99 = p99(hov);
  report.result('warm completion handler p99 (5,000-line file)', `${cP99.toFixed(3)} ms`, '≤ 1 ms', cP99 <= 1);
  report.result('warm hover handler p99 (5,000-line file)', `${hP99.toFixed(3)} ms`, '≤ 1 ms', hP99 <= 1);
  report.note(`p99 of ready times (machine.ts); baseline full parse: ${parseMs.toFixed(2)} ms → completion p99 is ${(cP99 / parseMs * 100).toFixed(2)}% of a parse, hover ${(hP99 / parseMs * 100).toFixed(2)}%; margin to the 1 ms budget ${(1 / Math.max(cP99, hP99)).toFixed(0)}×`);
  // Measured as the parse baseline is: a single first call timed V8 compiling the diagnostics
  // code, not the warm cost the target is about.
  let d = computeDiagnostics(refs, (x) => lookup.peekVersions(x), true);
  const diagMs = bestWarm(() => { d = computeDiagnostics(refs, (x) => lookup.peekVersions(x), true); });
  report.result('diagnostics for the whole file (warm, best of 9)', `${diagMs.toFixed(2)} ms`, `< 1 parse (${parseMs.toFixed(2)} ms, best of 9)`, diagMs < parseMs);
  report.note(`${d.diagnostics.length} diagnostics`);

  reportBundle(report, ROOT);
}

/** Bundle size, its load + activate() time (a minimal vscode shim), and the last real host's figures. */
export function reportBundle(report: BenchReporter, root: string): void {
  // Bundle: size, and the time to load it (the bulk of activation) with a minimal vscode shim.
  const bundle = join(root, 'dist', 'extension.js');
  if (!existsSync(bundle)) {
    // Not measured is not met: a bench without the bundle must fail, not pass quietly.
    report.result('bundle size dist/extension.js', 'missing', '≤ 1.5 MB', false);
    report.note('dist/extension.js is missing: run npm run build (npm run bench does)');
  } else {
    const size = statSync(bundle).size;
    report.result('bundle size dist/extension.js', `${(size / 1e6).toFixed(2)} MB`, '≤ 1.5 MB', size <= 1.5e6);
    const vendorDir = join(root, 'dist', 'vendor');
    if (existsSync(vendorDir)) {
      const vendor = readdirSync(vendorDir).filter((f) => f.endsWith('.js')).map((f) => [f, statSync(join(vendorDir, f)).size] as const);
      const total = vendor.reduce((n, [, b]) => n + b, 0);
      report.note(`loaded on first use, not at activation: dist/vendor/ ${vendor.map(([f, b]) => `${f} ${(b / 1e3).toFixed(0)} kB`).join(', ')} — ${((size + total) / 1e6).toFixed(2)} MB with the bundle`);
    }
    const jobs = join(root, 'dist', 'extension-commands.js');
    if (existsSync(jobs)) report.note(`the job commands (mirrors, publish, SBOM), read on a command's first use: dist/extension-commands.js ${(statSync(jobs).size / 1e3).toFixed(0)} kB`);
    // A fresh process each (bench/activate-child.ts), the best of 3 ready times (machine.ts),
    // against Node's own start-up in fresh processes (node -e 0, without this environment's
    // NODE_EXTRA_CA_CERTS), the best of 3 ready times too.
    const runs = [0, 1, 2].map(() => activationSample(bundle));
    const { loadMs, activateMs, vendorLoaded } = runs.reduce((a, b) => (a.loadMs + a.activateMs <= b.loadMs + b.activateMs ? a : b));
    const start = Math.min(...[0, 1, 2].map(() => timedNode(['-e', '0'], withoutExtraCa()).readyMs));
    const act = loadMs + activateMs;
    report.result('bundle evaluation (require dist/extension.js)', `${loadMs.toFixed(1)} ms`);
    report.result('bundle evaluation + activate() (stand-in host, best of 3)', `${act.toFixed(1)} ms`);
    report.result('the same vs Node\'s own start-up (node -e 0, best of 3)', `${(act / start).toFixed(2)}× (${start.toFixed(1)} ms)`, '≤ 1× Node\'s start-up', act <= start);
    report.note(`ready times ${runs.map((r) => (r.loadMs + r.activateMs).toFixed(1)).join(' / ')} ms (a busy machine's waits for a core taken off), wall times ${runs.map((r) => r.wallMs.toFixed(1)).join(' / ')} ms. ` +
      `The 50 ms budget ${act <= 25 ? 'is met with a wide margin' : act <= 50 ? 'is met, but not with a wide margin' : 'is not met'} here (${act.toFixed(1)} ms); ` +
      'the target is a floor of the same run instead, as slow or fast as the machine: activating costs no more than starting Node');
    report.note(vendorLoaded.length ? `loaded at activation from dist/vendor/: ${vendorLoaded.join(', ')}` : 'nothing from dist/vendor/ loaded at activation');
  }
  const act = lastActivation(join(root, 'test-output', 'activation.json'), bundle);
  if (act.kind === 'current') {
    const a = act.figures;
    report.result('activate() in a real extension host (last test run)', `${a.activationMs.toFixed(1)} ms`, '≤ 50 ms', a.activationMs <= 50);
    if (a.loadAndActivateMs !== undefined) report.result('bundle evaluation + activate() (same run)', `${a.loadAndActivateMs.toFixed(1)} ms`, '≤ 50 ms', a.loadAndActivateMs <= 50);
    if (a.sinceLoadMs !== undefined) report.note(`from loading the bundle to the end of activate(), including the host's own work in between: ${a.sinceLoadMs.toFixed(1)} ms (VS Code ${a.vscode})`);
  } else report.note(act.note);
}

/** One load + activate() of the bundle in a process of its own. */
function activationSample(bundle: string): ActivationSample {
  const r = spawnSync(process.execPath, [join(__dirname, 'activate-child.js'), bundle], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`loading ${bundle} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as ActivationSample;
}

export interface ActivationFigures { activationMs: number; loadAndActivateMs?: number; sinceLoadMs?: number; vscode: string; bundleSha256?: string }

/**
 * The real extension host's activation figures from the last integration run, only when they were
 * measured on the current dist/extension.js: the file records the SHA-256 of the bundle it measured
 * (a rebuild of the same code keeps its figures, since every build rewrites the file); without
 * one, a file older than the bundle is stale. Anything else is ignored with a note saying why.
 */
export function lastActivation(file: string, bundle: string): { kind: 'current'; figures: ActivationFigures } | { kind: 'ignored'; note: string } {
  const ignored = (why: string) => ({ kind: 'ignored' as const, note: `activation time of the last test run ignored: ${why}` });
  if (!existsSync(file)) return { kind: 'ignored', note: 'activation time: run the integration tests first (writes test-output/activation.json)' };
  if (!existsSync(bundle)) return ignored('there is no dist/extension.js it could have measured');
  let figures: ActivationFigures | undefined;
  try { figures = JSON.parse(readFileSync(file, 'utf8')) as ActivationFigures; } catch { figures = undefined; }
  if (typeof figures?.activationMs !== 'number') return ignored('test-output/activation.json is not readable');
  const stale = 'test-output/activation.json is older than dist/extension.js (stale); run the integration tests again';
  if (figures.bundleSha256 !== undefined) {
    const now = createHash('sha256').update(readFileSync(bundle)).digest('hex');
    return figures.bundleSha256 === now ? { kind: 'current', figures }
      : ignored('test-output/activation.json measured another build of dist/extension.js (stale); run the integration tests again');
  }
  if (statSync(file).mtimeMs < statSync(bundle).mtimeMs) return ignored(stale);
  return { kind: 'current', figures };
}
