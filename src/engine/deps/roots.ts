// Which discovered configuration directories are root modules. Walking a workspace finds every
// directory with configuration files, child modules included (`stack/modules/child`); reporting a
// child as a configuration of its own counts its dependencies twice (its providers already join
// its caller's through the requirement collector) and shows constraints `tofu init` never
// evaluates alone. So a directory that another discovered directory calls as a local module is
// left out. Directories named explicitly (CLI arguments) are always kept. The mirror and lock
// commands walk with findConfigDirs too but want every directory: this filter is ours only.
import * as path from 'node:path';
import { loadConfigDir } from '../config/files';
import { exhaustedMessage, FS_CONCURRENCY, isExhausted, mapLimit } from '../fstree';
import { localModuleDir } from '../modulepkg/locate';

/**
 * The local module directories `dir` calls (resolved, absolute), override files included. A
 * directory that cannot be read calls none here — it stays a root, and its own read reports why
 * (directoryDependencies) — but running out of open files fails the whole run, naming it: taken as
 * calling nothing, every directory it hit would list its child modules as roots.
 */
async function localCalls(dir: string): Promise<string[]> {
  let files;
  try {
    files = (await loadConfigDir(dir)).files;
  } catch (err) {
    if (isExhausted(err)) throw new Error(exhaustedMessage(`${dir} to tell root modules from child modules`, err));
    return [];
  }
  return files.flatMap((f) => f.summary.modules).flatMap((m) => localModuleDir(dir, m.source?.literal) ?? []);
}

/**
 * `found` (directories discovered by walking) without those another of them calls as a local
 * module, plus every directory of `explicit`, in the order of `found`. A directory only reachable
 * through a cycle of local calls (no root calls it) is kept, so a cycle never hides everything.
 */
export async function rootConfigDirs(found: readonly string[], explicit: Iterable<string> = []): Promise<string[]> {
  const dirs = found.map((d) => path.resolve(d));
  const known = new Set(dirs);
  const calls = new Map<string, string[]>();
  await mapLimit(dirs, FS_CONCURRENCY, async (d) => {
    calls.set(d, (await localCalls(d)).filter((c) => c !== d && known.has(c)));
  });
  const called = new Set([...calls.values()].flat());
  // Everything reachable from an uncalled directory is some root's child module.
  const reached = new Set<string>();
  const visit = (d: string) => { for (const c of calls.get(d) ?? []) if (!reached.has(c)) { reached.add(c); visit(c); } };
  for (const d of dirs) if (!called.has(d)) visit(d);
  const keep = new Set([...explicit].map((d) => path.resolve(d)));
  return dirs.filter((d) => keep.has(d) || !called.has(d) || !reached.has(d));
}
