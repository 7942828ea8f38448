// tofu-registry outdated [--json] [--ca-file F] [--timeout S] [--cache-dir D | --no-cache] [DIR...]
//   Every root configuration directory under each DIR (default "."): each module call and provider
//   with its constraint, locked/installed version, what `tofu init` selects now, the newest matching
//   and the newest release, and a status. A directory another one calls as a local module is a
//   child module, not listed (its providers count in its caller's); a DIR given is always listed.
//   Exit 1 when any dependency is not up-to-date (like `npm outdated`), 0 otherwise, 2 on usage.
//   A registry that cannot be reached is a `status: "error"` entry, not a failure of the command.
//   --json: {"dependencies":[{"dir","kind","name","source","constraint","locked","selected",
//            "newestMatching","newest","status","message"}]}   (dir relative to the working directory)
//   oci:// module calls: locked null, selected = the tag (or digest), newest = the newest version-like
//   tag, status up-to-date | update-available | pinned | not-found | error.
//   git-sourced module calls (git::, ssh, GitHub/Bitbucket): selected = the ref (the default branch
//   without one), newest = the newest version-like tag, status up-to-date | update-available |
//   pinned (a commit) | unpinned (a branch or no ref) | not-found | error.
//   --max-dirs N: configuration directories collected under each DIR (default 50,000); a walk cut
//     short is a warning on stderr and in "warnings" (only present then), and exit 1.
import * as path from 'node:path';
import { buildDependencyGraph, Dependency, dependencyLabel } from '../engine/deps';
import { redactUrls, shortText, shownUrl } from '../engine/net/http-errors';
import { CliIO, flag, maxDirsOption, moduleLimitsOption, parseArgs, printJson } from './common';
import { scanRootModules, withModuleResolver } from './resolverRun';

export async function runOutdated(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json', 'no-cache'], values: ['ca-file', 'cache-dir', 'timeout', 'max-modules', 'max-dirs'] });
  const moduleLimits = moduleLimitsOption(parsed);
  const maxDirs = maxDirsOption(parsed);
  const json = flag(parsed, 'json');
  const explicit = parsed.positionals.map((p) => path.resolve(io.cwd, p));
  // Child modules not installed yet are fetched (for their provider constraints) like `types check` does.
  return withModuleResolver(parsed, io, false, async (engine, resolver) => {
    const { scan, roots } = await scanRootModules(io, explicit, maxDirs);
    // The resolver lives as long as this run: its modules.json memo serves the graph too.
    const graph = await buildDependencyGraph(roots, { engine, resolver, installed: resolver.installed, moduleLimits });
    const shown = (p: string) => path.relative(io.cwd, p) || '.';
    const deps = graph.directories.flatMap((d) => [...d.modules, ...d.providers]);
    if (json) printJson(io, { dependencies: deps.map((d) => toJson(d, shown(d.dir))), ...(scan.warnings.length ? { warnings: scan.warnings } : {}) });
    else printTable(io, deps, shown);
    // problems of the walk (a module tree past the budget, unreadable modules) on stderr either way: the JSON has no field for them
    for (const d of graph.directories) for (const e of d.errors) io.stderr(`${shown(d.dir)}: ${shortText(redactUrls(e))}\n`);
    return scan.truncated || deps.some((d) => d.status !== 'up-to-date') ? 1 : 0;
  });
}

/** The public JSON shape of one dependency (field order as documented); a source's secrets hidden. */
function toJson(d: Dependency, dir: string) {
  return {
    dir, kind: d.kind, name: d.name, source: shownUrl(d.source), constraint: d.constraint, locked: d.locked,
    selected: d.selected, newestMatching: d.newestMatching, newest: d.newest, status: statusOf(d), message: d.message === null ? null : redactUrls(d.message),
  };
}

/** The status shown: an oci:// call's in OCI terms (up-to-date, update-available, pinned, not-found, error), a git call's in git terms (… unpinned). */
function statusOf(d: Dependency): string {
  return d.oci?.status ?? d.git?.status ?? d.status;
}

function printTable(io: CliIO, deps: Dependency[], shown: (p: string) => string): void {
  if (!deps.length) {
    io.stdout('no modules or providers found\n');
    return;
  }
  const header = ['DIR', 'KIND', 'NAME', 'CONSTRAINT', 'LOCKED', 'SELECTED', 'MATCHING', 'NEWEST', 'STATUS'];
  const rows = deps.map((d) => [shown(d.dir), d.kind, dependencyLabel(d), d.constraint ?? '-', d.locked ?? '-', d.selected ?? '-',
    d.newestMatching ?? '-', d.newest ?? '-', statusOf(d)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ') + '\n';
  io.stdout(line(header));
  for (const r of rows) io.stdout(line(r));
  const notes = deps.filter((d) => d.message && (d.status !== 'up-to-date' || d.git?.status === 'unpinned'));
  if (notes.length) io.stdout('\n');
  for (const d of notes) io.stdout(`${shown(d.dir)}: ${d.kind} ${dependencyLabel(d)}: ${redactUrls(d.message!).replace(/\s*\n\s*/g, ' ')}\n`);
  const outdated = deps.filter((d) => d.status === 'update-in-range' || d.status === 'update-out-of-range').length;
  const problems = deps.filter((d) => d.status !== 'up-to-date' && d.status !== 'update-in-range' && d.status !== 'update-out-of-range').length;
  io.stderr(`${deps.length} dependencies: ${outdated} outdated, ${problems} with problems\n`);
}
