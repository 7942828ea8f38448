// Shared by the commands that read called modules (types check, outdated): one Engine from the
// network flags, a ModuleResolver that fetches remote modules into the disk cache (--no-cache: a
// temporary directory removed at the end), and the failure contract of every command.
import type { Engine } from '../engine/engine';
import { makeTempDir, removeTempDir } from '../engine/fstree';
import { ModuleResolver } from '../engine/modulepkg/resolve';
import { cacheDirOption, CliIO, flag, ParsedArgs, reportFailure, timeoutMsOption, UsageError } from './common';
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
