// tofu-registry mirror / hash: the headless front end of the provider mirror engine.
//   mirror [--platform os_arch]... [--out DIR] [--from-mirror URL] [--concurrency N] [--json] [DIR...]
//     --json → {"out","mirrored":[{"provider","version","platform","hashes"}],"upToDate":[…],
//               "failed":[{"provider","version","platform","step","message"}]}; exit 1 when anything failed.
//   hash [--json] ZIP...
//     one line per file `h1:… zh:… PATH`; --json → [{"path","h1","zh"}]
import { resolve } from 'node:path';
import { CliIO, flag, parseArgs, printJson, reportFailure, UsageError, value, values } from './common';
import { hashPackage } from '../engine/mirror/hash';
import { findConfigDirs, mirrorProviders } from '../engine/mirror';
import { defaultPlatforms } from '../engine/mirror/types';
import { Engine } from '../engine/engine';

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
  const parsed = parseArgs(args, { booleans: ['json'], values: ['platform', 'out', 'from-mirror', 'concurrency', 'ca-file'] });
  const json = flag(parsed, 'json');
  const platforms = values(parsed, 'platform').flatMap((p) => p.split(',')).map((p) => p.trim()).filter(Boolean);
  for (const p of platforms) if (!/^[a-z0-9]+_[a-z0-9]+$/.test(p)) throw new UsageError(`--platform must be os_arch (e.g. linux_amd64), got ${JSON.stringify(p)}`);
  const concurrencyText = value(parsed, 'concurrency');
  const concurrency = concurrencyText === undefined ? 8 : Number(concurrencyText);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError('--concurrency must be an integer from 1 to 64');
  const out = resolve(io.cwd, value(parsed, 'out') ?? 'mirror');
  const roots = (parsed.positionals.length ? parsed.positionals : ['.']).map((d) => resolve(io.cwd, d));
  // Every directory with .tf/.tofu files under each DIR is a configuration (like the workspace scan).
  const dirs = [...new Set((await Promise.all(roots.map((r) => findConfigDirs(r)))).flat())];
  if (!dirs.length) throw new UsageError(`no .tf/.tofu files under ${roots.join(', ')}`);
  const fromMirror = value(parsed, 'from-mirror');

  const caFile = value(parsed, 'ca-file');
  const engine = new Engine({ env: io.env, caFiles: caFile ? [resolve(io.cwd, caFile)] : [] });
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const report = await mirrorProviders({
      engine, dirs, out, fromMirror, concurrency, signal: ac.signal,
      platforms: platforms.length ? [...new Set(platforms)] : defaultPlatforms(),
      onProgress: json ? undefined : (e) => {
        if (e.kind === 'done') {
          const t = e.target;
          io.stderr(`${e.outcome.padEnd(10)} ${t.provider} ${t.version} ${t.platform}${e.message ? ` — ${e.message}` : ''}\n`);
        }
      },
    });
    if (json) {
      printJson(io, {
        out: report.out,
        mirrored: report.mirrored,
        upToDate: report.upToDate,
        failed: report.failed,
      });
    } else {
      for (const n of report.notes) io.stdout(`note: ${n}\n`);
      io.stdout(`${report.out}: ${report.mirrored.length} mirrored, ${report.upToDate.length} up to date, ${report.failed.length} failed\n`);
      for (const f of report.failed) io.stdout(`FAILED ${f.provider} ${f.version} ${f.platform} [${f.step}]: ${f.message}\n`);
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
