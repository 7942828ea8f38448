// tofu-registry mirror-modules: the headless front end of the module mirror engine.
//   mirror-modules [--out DIR] [--all-matching] [--base-url URL] [--concurrency N] [--json] [DIR...]
//          (also --ca-file PEM, --timeout SECONDS, --cache-dir DIR | --no-cache like the other commands)
//     --json → {"out","mirrored":[{"module","version","location","archive"}],"upToDate":[{"module","version"}],
//               "failed":[{"module","version","step","message"}],"skipped":[{"source","reason"}],"cliConfig"};
//     exit 1 when anything failed. The human output ends with the same `host` blocks.
//     --max-dirs N: configuration directories collected under each DIR (default 50,000); a walk cut
//       short is a warning on stderr and a `skipped` entry (source: the DIR), and exit 1.
import { CliIO, flag, moduleLimitsOption, parseArgs, printJson, reportFailure, UsageError, value, withInterrupt } from './common';
import { mirrorTargets } from './mirror';
import { makeEngine } from './registry';
import { mirrorModules } from '../engine/modmirror';

export async function runMirrorModules(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json', 'no-cache', 'all-matching'], values: ['out', 'base-url', 'concurrency', 'ca-file', 'cache-dir', 'timeout', 'max-modules', 'max-dirs'] });
  const moduleLimits = moduleLimitsOption(parsed);
  const json = flag(parsed, 'json');
  const baseUrl = value(parsed, 'base-url');
  if (baseUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(baseUrl)) {
    throw new UsageError(`--base-url must be the http(s) URL OUT is served at, without query or fragment (e.g. https://mirror.example.com/tofu/), got ${JSON.stringify(baseUrl)}`);
  }
  const { concurrency, out, dirs, scan } = await mirrorTargets(parsed, io);

  // Discovery and version lists come from the CLI's disk cache (like the other commands): an
  // unchanged re-run asks the registries nothing; --no-cache asks them again.
  const engine = makeEngine(parsed, io);
  try {
    const report = await withInterrupt((signal) => mirrorModules({
      engine, dirs, out, baseUrl, concurrency, allMatching: flag(parsed, 'all-matching'), signal, moduleLimits,
      // One line per module version as it finishes, on stderr: stdout carries only the result. A
      // failure is named as it happens; its reason is printed once, in the summary on stdout.
      onProgress: json ? undefined : (e) => {
        if (e.kind === 'failed') for (const f of e.failures) io.stderr(`${'failed'.padEnd(10)} ${[f.module, f.version].filter(Boolean).join(' ') || 'configuration'} (reason below)\n`);
        if (e.kind === 'done') io.stderr(`${e.outcome.padEnd(10)} ${e.module} ${e.version}${e.outcome === 'failed' ? ' (reason below)' : ''}\n`);
      },
    }));
    // A walk cut short left configuration directories out: their modules are not in OUT.
    const skipped = [...scan.warnings.map((w) => ({ source: w.slice(0, w.indexOf(': ')), reason: w.slice(w.indexOf(': ') + 2) })), ...report.skipped];
    if (json) {
      printJson(io, {
        out: report.out, mirrored: report.mirrored, upToDate: report.upToDate, failed: report.failed, skipped, cliConfig: report.cliConfig,
      });
    } else {
      for (const s of skipped) io.stdout(`skipped: ${s.source}: ${s.reason}\n`);
      io.stdout(`${report.out}: ${report.mirrored.length} mirrored, ${report.upToDate.length} up to date, ${report.failed.length} failed, ${skipped.length} sources skipped\n`);
      for (const f of report.failed) io.stdout(`FAILED ${f.message}\n`);
      if (report.cliConfig) {
        io.stdout(`\nServe ${report.out} as a static website and put this in your CLI configuration (~/.tofurc)${baseUrl ? '' : ', with the URL it is served at (--base-url)'}:\n\n${report.cliConfig}`);
      }
    }
    return report.failed.length || scan.truncated ? 1 : 0;
  } catch (err) {
    return reportFailure(io, err, json);
  } finally {
    await engine.dispose();
  }
}
