// npm run bench: runs every bench/*.bench.ts module (compiled to out/bench) in one process and
// prints each target as a measured value with its ratio against a baseline measured in the same run.
// Exit code 1 when a target is missed, a suite throws, or no suite matched: CI must see a regression.
// The run starts with the machine (CPU, cores, load, Node) and every suite's header names the load
// at its start: a figure means something only beside what else the machine was doing.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadText, machineHeader } from './machine';

export interface BenchReporter {
  /** One result line: name, measured value with unit, and optionally the target it is held to. */
  result(name: string, value: string, target?: string, ok?: boolean): void;
  note(text: string): void;
}

export interface BenchModule {
  title: string;
  run(report: BenchReporter): Promise<void>;
}

export interface BenchOutcome {
  suites: number;
  /** Results reported with ok === false. */
  misses: number;
  /** Targets stated as an absolute throughput (MB/s, requests/s): refused, whatever they measured. */
  absoluteTargets: number;
  /** Suites that threw (loading or running), with the message. */
  failed: { suite: string; message: string }[];
}

/**
 * The absolute throughput unit of a target ("≥ 40 MB/s" → "MB/s"), if it has one. Such a target
 * passes or fails with the machine it ran on: a target is a ratio against a baseline measured in
 * the same run, a count, or a floor measured in the same run (a throughput may still be printed
 * as a value or a note).
 */
export function absoluteThroughputUnit(target: string): string | undefined {
  return /(?:[kKMGT]i?B|bytes?|B|requests?|req|ops?|files?|lines?|archives?)\s*\/\s*(?:s|sec|second)\b/.exec(target)?.[0]
    ?? /\b(?:[kKMGT]i?B|bytes?|requests?|ops?|files?|lines?) per (?:CPU-)?second\b/.exec(target)?.[0];
}

/** Runs the suites in order; one that throws is reported and counted, and the others still run. */
export async function runSuites(suites: { name: string; load(): BenchModule }[], print: (line: string) => void = console.log): Promise<BenchOutcome> {
  const outcome: BenchOutcome = { suites: suites.length, misses: 0, absoluteTargets: 0, failed: [] };
  for (const s of suites) {
    const report: BenchReporter = {
      result(name, value, target, ok) {
        const unit = target === undefined ? undefined : absoluteThroughputUnit(target);
        if (unit) outcome.absoluteTargets++;
        else if (ok === false) outcome.misses++;
        const verdict = unit ? `  REFUSED: an absolute throughput target (${unit}) depends on the machine; state it against a baseline of this run`
          : ok === undefined ? '' : ok ? '  ok' : '  MISSED';
        print(`  ${name.padEnd(52)} ${value.padStart(16)}${target ? `   (target ${target})` : ''}${verdict}`);
      },
      note(text) { print(`  · ${text}`); },
    };
    try {
      const mod = s.load();
      print(`\n## ${mod.title}   [${loadText()}]`);
      await mod.run(report);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      outcome.failed.push({ suite: s.name, message });
      print(`  FAILED ${s.name}: ${message}`);
    }
  }
  return outcome;
}

/** The process exit code of a bench run: 0 only when every suite ran and met every target. */
export function benchExitCode(o: BenchOutcome): number {
  return o.suites === 0 || o.misses > 0 || o.absoluteTargets > 0 || o.failed.length > 0 ? 1 : 0;
}

export function summary(o: BenchOutcome): string {
  if (!o.suites) return 'bench: no suite matches';
  const failed = o.failed.length ? `, ${o.failed.length} suites failed (${o.failed.map((f) => f.suite).join(', ')})` : '';
  const absolute = o.absoluteTargets ? `, ${o.absoluteTargets} absolute throughput targets refused` : '';
  return `bench: ${o.suites} suites, ${o.misses} targets missed${absolute}${failed}`;
}

async function main(): Promise<void> {
  const filter = process.argv.slice(2);
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.bench.js')).sort()
    .filter((f) => !filter.length || filter.some((x) => f.includes(x)));
  for (const line of machineHeader()) console.log(line);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const outcome = await runSuites(files.map((f) => ({ name: f, load: () => require(join(__dirname, f)) as BenchModule })));
  console.log(`\nat end: ${loadText()}\n${summary(outcome)}`);
  process.exitCode = benchExitCode(outcome);
}

// Only when run (node out/bench/index.js), not when a test imports the runner.
if (require.main === module) {
  // Ctrl-C / SIGTERM through process.exit: the suites' temp directories (test/support/temp.ts) and
  // the engine's (a lock run's downloads) are removed by their exit hooks instead of staying behind.
  for (const [signal, n] of [['SIGINT', 2], ['SIGTERM', 15]] as const) process.on(signal, () => process.exit(128 + n));
  main().catch((err) => { console.error(`bench: ${err instanceof Error ? err.message : String(err)}`); process.exitCode = 1; });
}
