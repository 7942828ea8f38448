// Child process of the mirror benchmarks: mirrors one configuration (into OUT, or with `template`
// into that OCI registry) and reports its own peak RSS (process.resourceUsage().maxRSS, KiB) so the
// parent's memory does not count.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../src/engine/engine';
import { mirrorProviders } from '../src/engine/mirror';
import { mirrorToOci } from '../src/engine/ocimirror';

/** A configuration directory requiring every given source (any version). */
export function writeConfigDir(dir: string, sources: string[]): string {
  mkdirSync(dir, { recursive: true });
  const body = sources.map((s, i) => `    p${i} = {\n      source = "${s}"\n    }`).join('\n');
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n${body}\n  }\n}\n`);
  return dir;
}

async function child(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as { ca: string | string[]; dir: string; out: string; platforms: string[]; home: string; template?: string };
  const engine = new Engine({ env: { HOME: args.home }, caFiles: ([] as string[]).concat(args.ca), timeoutMs: 60_000 });
  if (args.template) {
    const o = await mirrorToOci({ engine, dirs: [args.dir], template: args.template, platforms: args.platforms, concurrency: 8 });
    await engine.dispose();
    if (o.failed.length) { process.stdout.write(JSON.stringify({ failed: o.failed })); process.exitCode = 1; return; }
    process.stdout.write(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, mirrored: o.pushed.length, bytes: o.bytesDownloaded }));
    return;
  }
  const r = await mirrorProviders({ engine, dirs: [args.dir], out: args.out, platforms: args.platforms, concurrency: 8 });
  await engine.dispose();
  if (r.failed.length) {
    process.stdout.write(JSON.stringify({ failed: r.failed }));
    process.exitCode = 1;
    return;
  }
  process.stdout.write(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, mirrored: r.mirrored.length, bytes: r.bytesDownloaded }));
}

if (require.main === module) child().catch((err) => { process.stderr.write(String(err?.stack ?? err)); process.exitCode = 1; });
