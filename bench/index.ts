// npm run bench: runs every bench/*.bench.ts module (compiled to out/bench) in one process and
// prints each target as a measured value with its ratio against a baseline measured in the same run.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchReporter {
  /** One result line: name, measured value with unit, and optionally the target it is held to. */
  result(name: string, value: string, target?: string, ok?: boolean): void;
  note(text: string): void;
}

export interface BenchModule {
  title: string;
  run(report: BenchReporter): Promise<void>;
}

async function main(): Promise<void> {
  const filter = process.argv.slice(2);
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.bench.js')).sort()
    .filter((f) => !filter.length || filter.some((x) => f.includes(x)));
  let misses = 0;
  for (const f of files) {
    const mod = require(join(__dirname, f)) as BenchModule;
    console.log(`\n## ${mod.title}`);
    const report: BenchReporter = {
      result(name, value, target, ok) {
        if (ok === false) misses++;
        const verdict = ok === undefined ? '' : ok ? '  ok' : '  MISSED';
        console.log(`  ${name.padEnd(52)} ${value.padStart(16)}${target ? `   (target ${target})` : ''}${verdict}`);
      },
      note(text) { console.log(`  · ${text}`); },
    };
    await mod.run(report);
  }
  console.log(`\nbench: ${files.length} suites, ${misses} targets missed`);
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
