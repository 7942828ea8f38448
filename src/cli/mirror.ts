// tofu-registry mirror / hash: the headless front end of the provider mirror engine.
//   mirror [--platform os_arch]... [--out DIR] [--from-mirror URL] [--concurrency N] [--json] [DIR...]
//          (also --ca-file PEM, --timeout SECONDS, --cache-dir DIR | --no-cache like the other commands)
//     --json → {"out","mirrored":[{"provider","version","platform","hashes"}],"upToDate":[…],
//               "failed":[{"provider","version","platform","step","message"}]}; exit 1 when anything failed.
//     --max-dirs N: configuration directories collected under each DIR (default 50,000); a walk cut
//       short is a warning on stderr and in "warnings" (only present then), and exit 1.
//   mirror --oci TEMPLATE [--platform os_arch]... [--from-mirror URL] [--concurrency N] [--json] [DIR...]
//     the same providers and versions, verified the same way, pushed into the OCI registry TEMPLATE
//     (OpenTofu's repository_template) names, in OpenTofu's layout (src/engine/ocimirror);
//     --json → {"repositoryTemplate","pushed":[{"provider","version","platform","repository","tag","digest"}],
//               "upToDate":[…same fields…],"failed":[{"provider","version","platform","step","message"}]}
//     (digest: the platform manifest's); exit 1 when anything failed, 2 on usage errors; prints the
//     provider_installation block that makes tofu init use it.
//   hash [--json] ZIP...
//     one line per file `h1:… zh:… PATH`; --json → [{"path","h1","zh"}]
import { resolve } from 'node:path';
import { CliIO, concurrencyOption, flag, isUsageError, maxDirsOption, parseArgs, ParsedArgs, platformsOption, printJson, printWarnings, reportFailure, UsageError, value, withInterrupt } from './common';
import { makeEngine } from './registry';
import { hashPackage } from '../engine/providerpkg/hash';
import { failureDetail, MirrorFailure, mirrorProviders, scanConfigDirs } from '../engine/mirror';
import { defaultPlatforms } from '../engine/providerpkg/platform';
import type { ConfigDirScan } from '../engine/mirror';
import { mirrorToOci, parseRepositoryTemplate, TemplateError } from '../engine/ocimirror';

export async function runHash(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json'] });
  const json = flag(parsed, 'json');
  if (!parsed.positionals.length) throw new UsageError('hash needs at least one ZIP file');
  const results: Array<{ path: string; h1: string; zh: string }> = [];
  for (const p of parsed.positionals) {
    try {
      const h = await hashPackage(resolve(io.cwd, p));
      results.push({ path: p, h1: h.h1, zh: h.zh });
    } catch (err) {
      return reportFailure(io, { message: `cannot hash ${p}: ${(err as Error).message}` }, json);
    }
  }
  if (json) printJson(io, results);
  else for (const r of results) io.stdout(`${r.h1} ${r.zh} ${r.path}\n`);
  return 0;
}

export async function runMirror(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json', 'no-cache'], values: ['platform', 'out', 'from-mirror', 'concurrency', 'ca-file', 'cache-dir', 'timeout', 'max-dirs', 'oci'] });
  if (value(parsed, 'oci') !== undefined) return runOciMirror(parsed, io);
  const json = flag(parsed, 'json');
  const platforms = platformsOption(parsed);
  const { concurrency, out, dirs, scan } = await mirrorTargets(parsed, io);
  const fromMirror = value(parsed, 'from-mirror');

  // Discovery and version lists come from the CLI's disk cache (like the other commands), so an
  // unchanged re-run needs no request at all; --no-cache asks the registries again.
  const engine = makeEngine(parsed, io);
  try {
    const report = await withInterrupt((signal) => mirrorProviders({
      engine, dirs, out, fromMirror, concurrency, signal,
      platforms: platforms.length ? platforms : defaultPlatforms(),
      // Progress goes to stderr, one line per archive as it finishes, so that stdout carries only
      // the result. Both streams end up in a CI log: a failure is named live (lowercase, like the
      // other outcomes) and explained once, in the summary on stdout.
      onProgress: json ? undefined : (e) => {
        if (e.kind === 'failed') for (const name of failureNames(e.failures)) io.stderr(`${'failed'.padEnd(10)} ${name} (reason below)\n`);
        if (e.kind !== 'done') return;
        const t = e.target;
        const what = e.outcome === 'failed' ? `${t.provider} ${t.version} ${t.platform} (reason below)` : e.message ?? `${t.provider} ${t.version} ${t.platform}`;
        io.stderr(`${e.outcome.padEnd(10)} ${what}\n`);
      },
    }));
    if (json) {
      printJson(io, {
        out: report.out,
        mirrored: report.mirrored,
        upToDate: report.upToDate,
        failed: report.failed,
        ...(scan.warnings.length ? { warnings: scan.warnings } : {}),
      });
    } else {
      for (const n of report.notes) io.stdout(`note: ${n}\n`);
      io.stdout(`${report.out}: ${report.mirrored.length} mirrored, ${report.upToDate.length} up to date, ${report.failed.length} failed\n`);
      for (const line of failureLines(report.failed)) io.stdout(`FAILED ${line}\n`);
    }
    return report.failed.length || scan.truncated ? 1 : 0;
  } catch (err) {
    return reportFailure(io, err, json);
  } finally {
    await engine.dispose();
  }
}

async function runOciMirror(parsed: ParsedArgs, io: CliIO): Promise<number> {
  const json = flag(parsed, 'json');
  const template = value(parsed, 'oci')!;
  if (value(parsed, 'out') !== undefined) throw new UsageError('--out and --oci exclude each other (--oci pushes into the registry the template names)');
  try {
    parseRepositoryTemplate(template);
  } catch (err) {
    throw new UsageError(`--oci: ${(err as Error).message}`);
  }
  const platforms = platformsOption(parsed);
  const { concurrency, dirs, scan } = await mirrorTargets(parsed, io);
  const engine = makeEngine(parsed, io);
  try {
    const report = await withInterrupt((signal) => mirrorToOci({
      engine, dirs, template, fromMirror: value(parsed, 'from-mirror'), concurrency, signal,
      platforms: platforms.length ? platforms : defaultPlatforms(),
      onProgress: json ? undefined : (e) => {
        if (e.kind === 'failed') for (const name of failureNames(e.failures)) io.stderr(`${'failed'.padEnd(10)} ${name} (reason below)\n`);
        if (e.kind !== 'done') return;
        const t = e.target;
        const outcome = e.outcome === 'mirrored' ? 'pushed' : e.outcome;
        io.stderr(`${outcome.padEnd(10)} ${t.provider} ${t.version} ${t.platform}${e.outcome === 'failed' ? ' (reason below)' : ''}\n`);
      },
    })).catch((err: unknown) => {
      if (err instanceof TemplateError) throw new UsageError(`--oci: ${err.message}`);
      throw err;
    });
    if (json) {
      printJson(io, {
        repositoryTemplate: report.repositoryTemplate,
        pushed: report.pushed,
        upToDate: report.upToDate,
        failed: report.failed,
        ...(scan.warnings.length ? { warnings: scan.warnings } : {}),
      });
    } else {
      for (const n of report.notes) io.stdout(`note: ${n}\n`);
      io.stdout(`${report.repositoryTemplate}: ${report.pushed.length} pushed, ${report.upToDate.length} up to date, ${report.failed.length} failed\n`);
      for (const line of failureLines(report.failed)) io.stdout(`FAILED ${line}\n`);
      if (report.pushed.length || report.upToDate.length) {
        io.stdout(`\nFor tofu init to install these providers from the registry, add to the CLI configuration (~/.tofurc):\n\n${report.providerInstallation}`);
      }
    }
    return report.failed.length || scan.truncated ? 1 : 0;
  } catch (err) {
    if (isUsageError(err)) throw err;
    return reportFailure(io, err, json);
  } finally {
    await engine.dispose();
  }
}

/** --concurrency (1–64, default 8), --out (default ./mirror) and the configuration directories under DIR... (default .). */
export async function mirrorTargets(parsed: ParsedArgs, io: CliIO): Promise<{ concurrency: number; out: string; dirs: string[]; roots: string[]; scan: ConfigDirScan }> {
  const concurrency = concurrencyOption(parsed);
  const out = resolve(io.cwd, value(parsed, 'out') ?? 'mirror');
  const roots = (parsed.positionals.length ? parsed.positionals : ['.']).map((d) => resolve(io.cwd, d));
  // Every directory with .tf/.tofu files under each DIR is a configuration (like the workspace scan).
  const scan = await scanConfigDirs(roots, { maxDirs: maxDirsOption(parsed) });
  printWarnings(io, scan.warnings);
  if (!scan.dirs.length) throw new UsageError(`no .tf/.tofu files under ${roots.join(', ')}`);
  return { concurrency, out, dirs: scan.dirs, roots, scan };
}

/**
 * Failures that differ only by platform (a provider whose version could not be chosen fails on
 * every platform alike) form one group.
 */
function groupFailures(failed: readonly MirrorFailure[]): { f: MirrorFailure; platforms: string[] }[] {
  const groups = new Map<string, { f: MirrorFailure; platforms: string[] }>();
  for (const f of failed) {
    const key = [f.provider, f.version, f.step, failureDetail(f)].join('\0');
    const g = groups.get(key);
    if (g) g.platforms.push(f.platform);
    else groups.set(key, { f, platforms: [f.platform] });
  }
  return [...groups.values()];
}

/** One line per group of failures, with the reason. */
export function failureLines(failed: readonly MirrorFailure[]): string[] {
  return groupFailures(failed).map(({ f, platforms }) => (platforms.length === 1 ? f.message
    : `${f.provider} ${f.version || '(any version)'} ${platforms.join(', ')}: ${failureDetail(f)}`));
}

/** What failed, one per group, without the reason (for progress lines). */
function failureNames(failed: readonly MirrorFailure[]): string[] {
  return groupFailures(failed).map(({ f, platforms }) => `${f.provider} ${f.version || '(any version)'} ${platforms.join(', ')}`);
}
