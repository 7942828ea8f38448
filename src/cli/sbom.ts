// tofu-registry sbom [--format cyclonedx|spdx] [--output FILE] [--offline] [--max-modules N] [--max-dirs N]
//                    [--ca-file F] [--timeout S] [--cache-dir D | --no-cache] [DIR...]
//   A software bill of materials of the root modules under each DIR (default "."), the same roots
//   as `outdated`: every module call (recursively, through fetched packages), every provider with
//   the lock file's version and hashes. CycloneDX 1.6 JSON (default) or SPDX 2.3 JSON, on stdout
//   or written to FILE (atomically). The same workspace and registry state give the same bytes;
//   the timestamp is SOURCE_DATE_EPOCH when set. --offline reads only lock files and
//   .terraform/modules/modules.json. What could not be known is said in the document and, one
//   line each, on stderr. Exit 0 when written (also with notes), 1 when it could not be, 2 on usage.
import * as path from 'node:path';
import { writeFileAtomic } from '../engine/fstree/outdir';
import { collectSbom, printable, renderSbom, SBOM_FORMATS, SbomFormat, sbomTimestamp } from '../engine/sbom';
import { sbomGitCommits } from '../features/sbom';
import { CliIO, flag, maxDirsOption, moduleLimitsOption, parseArgs, UsageError, value } from './common';
import { scanRootModules, withModuleResolver } from './resolverRun';

declare const __TOFU_REGISTRY_VERSION__: string | undefined;

export async function runSbom(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['offline', 'no-cache'], values: ['format', 'output', 'ca-file', 'cache-dir', 'timeout', 'max-modules', 'max-dirs'] });
  const format = (value(parsed, 'format') ?? 'cyclonedx') as SbomFormat;
  if (!SBOM_FORMATS.includes(format)) throw new UsageError(`--format must be ${SBOM_FORMATS.join(' or ')}, got ${JSON.stringify(value(parsed, 'format'))}`);
  const output = value(parsed, 'output');
  if (output === '') throw new UsageError('--output needs a file name');
  const offline = flag(parsed, 'offline');
  const moduleLimits = moduleLimitsOption(parsed);
  const maxDirs = maxDirsOption(parsed);
  let timestamp: string;
  try { timestamp = sbomTimestamp(io.env); } catch (err) { throw new UsageError((err as Error).message); }
  const explicit = parsed.positionals.map((p) => path.resolve(io.cwd, p));
  return withModuleResolver(parsed, io, offline, async (engine, resolver) => {
    const { dirs, scan, roots } = await scanRootModules(io, explicit, maxDirs);
    if (!roots.length) throw new Error(`no OpenTofu configuration found under ${dirs.map((d) => path.relative(io.cwd, d) || '.').join(', ')}`);
    const inv = await collectSbom(roots, { engine, resolver, offline, baseDir: io.cwd, moduleLimits, gitCommit: sbomGitCommits(engine) });
    const name = roots.length === 1 ? path.basename(roots[0]) : path.basename(path.resolve(io.cwd));
    const text = renderSbom(inv, format, { timestamp, name, toolVersion: typeof __TOFU_REGISTRY_VERSION__ === 'string' ? __TOFU_REGISTRY_VERSION__ : '0.0.0-dev' });
    // what could not be known, once each (the document holds it too)
    const notes = new Set([...inv.notes, ...inv.components.flatMap((c) => c.notes.map((n) => `${c.name}${c.version ? ` ${c.version}` : ''}: ${n}`))]);
    for (const n of notes) io.stderr(`tofu-registry: note: ${printable(n)}\n`);
    if (output === undefined) io.stdout(text);
    else await writeFileAtomic(path.resolve(io.cwd, output), text);
    if (output !== undefined) io.stderr(`wrote ${path.relative(io.cwd, path.resolve(io.cwd, output))}: ${inv.components.length} components (${format})\n`);
    return scan.truncated ? 1 : 0;
  });
}

