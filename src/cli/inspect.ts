// tofu-registry inspect [--json] PATH...
// Module calls, required_providers, variables and parse diagnostics of configuration files.
//
// PATH may be files or directories (walked recursively, skipping .terraform/, .git/, node_modules/).
// Syntax errors are reported as diagnostics (exit 0); only usage errors (2) and unreadable paths (1)
// fail the command.
//
// `.tofu` precedence: inside each walked directory, a `.tf` file with a `.tofu` twin (and a `.tf.json`
// with a `.tofu.json` twin) is ignored, as OpenTofu ignores it. Decision: the shadowed file is NOT
// listed in the JSON `files` array (its shape is a public contract and OpenTofu never reads the
// file); the human output lists it with a note, and with --json a one-line note goes to stderr.
// A file named explicitly on the command line is always inspected.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FS_CONCURRENCY, mapLimit } from '../engine/fstree';
import { CliIO, flag, parseArgs, reportFailure, UsageError } from './common';
import { filesDocument, renderFile } from './inspect-render';
import { applyTofuPrecedence, findConfigFiles, tofuTwin } from '../engine/config';

export { jsonRange, summaryToJson } from './inspect-render';

export async function runInspect(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json'] });
  const json = flag(parsed, 'json');
  if (!parsed.positionals.length) throw new UsageError('needs at least one PATH (file or directory)');

  let files: string[];
  const shadowed: string[] = [];
  try {
    const explicit = new Set<string>();
    const found: string[] = [];
    const listed = await mapLimit(parsed.positionals, FS_CONCURRENCY, async (given) => {
      const abs = path.resolve(io.cwd, given);
      const list = await findConfigFiles([abs]); // first: its error names the path
      return { given, abs, list, isDir: (await fs.stat(abs)).isDirectory() };
    });
    for (const { given, abs, list, isDir } of listed) {
      for (const f of list) {
        const shown = path.join(given, path.relative(abs, f)) || given;
        if (!isDir) explicit.add(shown);
        found.push(shown);
      }
    }
    // Apply .tofu precedence per directory to the files found by walking.
    const byDir = new Map<string, string[]>();
    for (const f of [...new Set(found)]) {
      const dir = path.dirname(path.resolve(io.cwd, f));
      if (!byDir.has(dir)) byDir.set(dir, []);
      byDir.get(dir)!.push(f);
    }
    files = [];
    for (const group of byDir.values()) {
      const r = applyTofuPrecedence(group.map((f) => path.resolve(io.cwd, f)));
      const hidden = new Set(r.shadowed);
      for (const f of group) {
        if (hidden.has(path.resolve(io.cwd, f)) && !explicit.has(f)) shadowed.push(f);
        else files.push(f);
      }
    }
    files.sort();
  } catch (err) {
    return reportFailure(io, err, json);
  }

  // In file order; each file's syntax tree is dropped once it is rendered. The first unreadable
  // file fails the command.
  const parts: string[] = [];
  for (const f of files) {
    const r = renderFile(f, path.resolve(io.cwd, f), json);
    if ('error' in r) return reportFailure(io, new Error(r.error), json);
    if (json) parts.push(r.output);
    else io.stdout(r.output);
  }
  for (const s of shadowed) {
    const note = `${s}: ignored, ${path.basename(tofuTwin(s)!)} takes precedence`;
    if (json) io.stderr(`tofu-registry inspect: note: ${note}\n`);
    else io.stdout(`${note}\n`);
  }
  if (json) io.stdout(filesDocument(parts));
  else if (!files.length) io.stdout('no configuration files found\n');
  return 0;
}
