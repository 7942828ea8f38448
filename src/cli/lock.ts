// tofu-registry lock: `.terraform.lock.hcl` for every platform of the team, as `tofu providers lock`
// writes it, for one or more configuration directories (the front end of src/engine/lockfile).
//   lock [--platform os_arch]... [--upgrade] [--net-mirror URL | --fs-mirror DIR | --oci-mirror TEMPLATE] [--concurrency N]
//        [--json] [--ca-file PEM] [--timeout S] [--cache-dir DIR | --no-cache] [DIR...]
//   --json → {"lockFiles":[{"dir","path","changed","providers":[{"provider","version","constraints","hashes","platforms"}]}],
//             "failed":[{"dir","provider","version","platform","step","message"}]}; exit 1 when anything failed.
// Progress (one line per package, and per lock file) goes to stderr.
import { parseRepositoryTemplate } from '../engine/addresses/oci-template';
import { promises as fs } from 'node:fs';
import { resolve } from 'node:path';
import { CliIO, concurrencyOption, flag, moduleLimitsOption, withInterrupt, parseArgs, platformsOption, printJson, reportFailure, UsageError, value } from './common';
import { makeEngine } from './registry';
import { isConfigFileName } from '../engine/config/files';
import { LockReport, LockSource, lockProviders } from '../engine/lock';
import { currentPlatform } from '../engine/providerpkg/platform';

export async function runLock(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, {
    booleans: ['json', 'upgrade', 'no-cache'],
    values: ['platform', 'net-mirror', 'fs-mirror', 'oci-mirror', 'concurrency', 'ca-file', 'cache-dir', 'timeout', 'max-modules'],
  });
  const moduleLimits = moduleLimitsOption(parsed);
  const json = flag(parsed, 'json');
  const platforms = platformsOption(parsed);
  const concurrency = concurrencyOption(parsed);
  const netMirror = value(parsed, 'net-mirror');
  const fsMirror = value(parsed, 'fs-mirror');
  const ociMirror = value(parsed, 'oci-mirror');
  const given = [['--net-mirror', netMirror], ['--fs-mirror', fsMirror], ['--oci-mirror', ociMirror]].filter(([, v]) => v !== undefined).map(([n]) => n);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')} exclude each other`);
  let source: LockSource = { kind: 'registry' };
  if (netMirror !== undefined) {
    let u: URL | undefined;
    try { u = new URL(netMirror); } catch { /* reported below */ }
    if (u?.protocol !== 'https:') throw new UsageError('--net-mirror needs a valid https: URL (the mirror\'s base URL)');
    source = { kind: 'net-mirror', url: netMirror };
  }
  if (fsMirror !== undefined) {
    if (!fsMirror) throw new UsageError('--fs-mirror needs a directory');
    source = { kind: 'fs-mirror', dir: resolve(io.cwd, fsMirror) };
  }
  if (ociMirror !== undefined) {
    try {
      parseRepositoryTemplate(ociMirror);
    } catch (err) {
      throw new UsageError(`--oci-mirror: ${(err as Error).message}`);
    }
    source = { kind: 'oci-mirror', template: ociMirror };
  }
  // Each DIR is a root module (its child modules are read through it, never locked on their own).
  const dirs = [...new Set((parsed.positionals.length ? parsed.positionals : ['.']).map((d) => resolve(io.cwd, d)))];
  for (const d of dirs) {
    const names = await fs.readdir(d).catch(() => undefined);
    if (!names) throw new UsageError(`${d} is not a readable directory`);
    if (!names.some(isConfigFileName)) throw new UsageError(`${d} has no .tf/.tofu files`);
  }

  const engine = makeEngine(parsed, io);
  try {
    const report = await withInterrupt((signal) => lockProviders({
      engine, dirs, source, concurrency, signal, moduleLimits, upgrade: flag(parsed, 'upgrade'),
      platforms: platforms.length ? platforms : [currentPlatform()], // tofu's default: this machine
      // Progress on stderr names a failure as it happens; its reason is printed once, in the
      // summary on stdout (both streams end up in one CI log).
      onProgress: (e) => {
        if (e.kind === 'package') io.stderr(`${e.outcome.padEnd(10)} ${e.provider} ${e.version} ${e.platform}${e.outcome === 'failed' ? ' (reason below)' : ''}\n`);
        else if (e.kind === 'failed') for (const f of e.failures.filter((x) => !x.platform)) io.stderr(`${'failed'.padEnd(10)} ${[f.dir, f.provider, f.version].filter(Boolean).join(' ')} (reason below)\n`);
        else if (e.kind === 'written') io.stderr(`${(e.changed ? 'written' : 'unchanged').padEnd(10)} ${e.path}\n`);
      },
    }));
    if (json) printJson(io, contract(report));
    else printHuman(io, report);
    return report.failed.length ? 1 : 0;
  } catch (err) {
    return reportFailure(io, err, json);
  } finally {
    await engine.dispose();
  }
}

/** Exactly the fields of the public JSON contract. */
function contract(r: LockReport) {
  return {
    lockFiles: r.lockFiles.map((f) => ({
      dir: f.dir, path: f.path, changed: f.changed,
      providers: f.providers.map((p) => ({ provider: p.provider, version: p.version, constraints: p.constraints, hashes: p.hashes, platforms: p.platforms })),
    })),
    failed: r.failed.map((f) => ({ dir: f.dir, provider: f.provider, version: f.version, platform: f.platform, step: f.step, message: f.message })),
  };
}

function printHuman(io: CliIO, r: LockReport): void {
  for (const n of r.notes) io.stdout(`note: ${n}\n`);
  for (const f of r.lockFiles) {
    const failed = r.failed.some((x) => x.dir === f.dir);
    io.stdout(`${f.path}: ${failed ? 'not written (see the failures below)' : f.changed ? 'updated' : 'up to date'}\n`);
    for (const p of f.providers) {
      const version = p.previousVersion && p.previousVersion !== p.version ? `${p.previousVersion} → ${p.version}` : p.version;
      const added = p.platforms.filter((x) => !p.previousPlatforms.includes(x));
      io.stdout(`  ${p.provider} ${version}${p.constraints ? ` (${p.constraints})` : ''}: h1: for ${p.platforms.join(', ') || 'no platform'}${p.previousVersion === p.version && added.length ? ` (added ${added.join(', ')})` : ''}\n`);
    }
  }
  io.stdout(`${r.lockFiles.length} lock file(s), ${r.lockFiles.filter((f) => f.changed).length} changed, ${r.archivesDownloaded} archive(s) downloaded, ${r.failed.length} failure(s)\n`);
  for (const f of r.failed) io.stdout(`FAILED ${f.message}\n`);
}
