// tofu-registry mirror-modules: the headless front end of the module mirror engine.
//   mirror-modules [--out DIR] [--all-matching] [--base-url URL] [--concurrency N] [--json] [DIR...]
//          (also --ca-file PEM, --timeout SECONDS, --cache-dir DIR | --no-cache like the other commands)
//     --json → {"out","mirrored":[{"module","version","location","archive"}],"upToDate":[{"module","version"}],
//               "failed":[{"module","version","step","message"}],"skipped":[{"source","reason"}],"cliConfig"};
//     exit 1 when anything failed. The human output ends with the same `host` blocks.
import { resolve } from 'node:path';
import { cacheDirOption, CliIO, flag, parseArgs, printJson, reportFailure, timeoutMsOption, UsageError, value, values } from './common';
import { findConfigDirs } from '../engine/mirror';
import { mirrorModules } from '../engine/modmirror';
import { Engine } from '../engine/engine';

export async function runMirrorModules(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json', 'no-cache', 'all-matching'], values: ['out', 'base-url', 'concurrency', 'ca-file', 'cache-dir', 'timeout'] });
  const json = flag(parsed, 'json');
  const concurrencyText = value(parsed, 'concurrency');
  const concurrency = concurrencyText === undefined ? 8 : Number(concurrencyText);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError('--concurrency must be an integer from 1 to 64');
  const baseUrl = value(parsed, 'base-url');
  if (baseUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(baseUrl)) {
    throw new UsageError(`--base-url must be the http(s) URL OUT is served at, without query or fragment (e.g. https://mirror.example.com/tofu/), got ${JSON.stringify(baseUrl)}`);
  }
  const out = resolve(io.cwd, value(parsed, 'out') ?? 'mirror');
  const roots = (parsed.positionals.length ? parsed.positionals : ['.']).map((d) => resolve(io.cwd, d));
  // Every directory with .tf/.tofu files under each DIR is a configuration (as `mirror` reads them).
  const dirs = [...new Set((await Promise.all(roots.map((r) => findConfigDirs(r)))).flat())];
  if (!dirs.length) throw new UsageError(`no .tf/.tofu files under ${roots.join(', ')}`);

  // Discovery and version lists come from the CLI's disk cache (like the other commands): an
  // unchanged re-run asks the registries nothing; --no-cache asks them again.
  const engine = new Engine({
    env: io.env,
    cacheDir: cacheDirOption(parsed, io),
    caFiles: values(parsed, 'ca-file').map((f) => resolve(io.cwd, f)),
    timeoutMs: timeoutMsOption(parsed),
    cliConfigFile: io.env.TF_CLI_CONFIG_FILE || undefined,
  });
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const report = await mirrorModules({
      engine, dirs, out, baseUrl, concurrency, allMatching: flag(parsed, 'all-matching'), signal: ac.signal,
      // One line per module version as it finishes, on stderr: stdout carries only the result.
      onProgress: json ? undefined : (e) => {
        if (e.kind === 'failed') for (const f of e.failures) io.stderr(`${'FAILED'.padEnd(10)} ${f.message}\n`);
        if (e.kind === 'done') io.stderr(`${(e.outcome === 'failed' ? 'FAILED' : e.outcome).padEnd(10)} ${e.message ?? `${e.module} ${e.version}`}\n`);
      },
    });
    if (json) {
      printJson(io, {
        out: report.out, mirrored: report.mirrored, upToDate: report.upToDate, failed: report.failed, skipped: report.skipped, cliConfig: report.cliConfig,
      });
    } else {
      for (const s of report.skipped) io.stdout(`skipped: ${s.source}: ${s.reason}\n`);
      io.stdout(`${report.out}: ${report.mirrored.length} mirrored, ${report.upToDate.length} up to date, ${report.failed.length} failed, ${report.skipped.length} sources skipped\n`);
      for (const f of report.failed) io.stdout(`FAILED ${f.message}\n`);
      if (report.cliConfig) {
        io.stdout(`\nServe ${report.out} as a static website and put this in your CLI configuration (~/.tofurc)${baseUrl ? '' : ', with the URL it is served at (--base-url)'}:\n\n${report.cliConfig}`);
      }
    }
    return report.failed.length ? 1 : 0;
  } catch (err) {
    return reportFailure(io, err, json);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await engine.dispose();
  }
}
