// Shared by the commands that read called modules (types check, outdated, sbom): one Engine from the
// network flags, a ModuleResolver that fetches remote modules into the disk cache (--no-cache: a
// temporary directory removed at the end), and the failure contract of every command.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { rootConfigDirs } from '../engine/deps';
import type { Engine } from '../engine/engine';
import { ConfigDirScan, scanConfigDirs } from '../engine/mirror/requirements';
import { makeTempDir, removeTempDir } from '../engine/fstree';
import { ModuleResolver } from '../engine/modulepkg/resolve';
import { cacheDirOption, CliIO, flag, ParsedArgs, printWarnings, reportFailure, timeoutMsOption, UsageError } from './common';
import { makeEngine } from './registry';

export async function withModuleResolver(
  parsed: ParsedArgs, io: CliIO, offline: boolean,
  run: (engine: Engine, resolver: ModuleResolver) => Promise<number>,
): Promise<number> {
  const json = flag(parsed, 'json');
  const timeoutMs = timeoutMsOption(parsed);
  const cacheDir = cacheDirOption(parsed, io);
  let engine: Engine | undefined;
  let scratch: string | undefined;
  try {
    engine = makeEngine(parsed, io, { networkAllowed: () => !offline });
    // --no-cache: remote modules still need a directory to be unpacked into; it goes at the end.
    if (cacheDir === undefined) scratch = await makeTempDir('tofu-registry-');
    const resolver = new ModuleResolver({ engine, cacheDir: cacheDir ?? scratch, networkAllowed: () => !offline, timeoutMs });
    return await run(engine, resolver);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return reportFailure(io, err, json);
  } finally {
    await engine?.dispose();
    if (scratch) await removeTempDir(scratch);
  }
}

/**
 * The root modules under the DIRs a command was given (`dirs`; default the working directory), as
 * `outdated` and `sbom` read them: each DIR must be a directory, the walk's warnings go to stderr
 * (and stay in `scan` for --json and the exit code).
 */
export async function scanRootModules(io: CliIO, explicit: string[], maxDirs: number | undefined): Promise<{ dirs: string[]; scan: ConfigDirScan; roots: string[] }> {
  const dirs = explicit.length ? explicit : [path.resolve(io.cwd)];
  for (const d of dirs) {
    const st = await fs.stat(d).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${path.relative(io.cwd, d) || d} is not a directory`);
  }
  const scan = await scanConfigDirs(dirs, { maxDirs });
  printWarnings(io, scan.warnings);
  return { dirs, scan, roots: await rootConfigDirs(scan.dirs, explicit) };
}
