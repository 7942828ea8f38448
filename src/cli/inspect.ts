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
import * as path from 'node:path';
import { CliIO, flag, parseArgs, reportFailure, UsageError } from './common';
import { filesDocument, humanFile, jsonFile } from './inspect-render';
import { findConfigFilesSync, isJsonConfigFile, tofuTwin, warmUpParser } from '../engine/config';

export { jsonRange, summaryToJson } from './inspect-render';

/** From this many files on, the parser is warmed up first (engine/config/warmup.ts): ≈ 1 ms that a long run earns back. */
const WARM_UP_FILES = 100;

/** A file to inspect: as the output names it (relative to the PATH given), and its absolute path. */
interface Target {
  shown: string;
  abs: string;
  /** Named on the command line itself (never hidden by .tofu precedence). */
  explicit: boolean;
}

/**
 * Everything here is synchronous on purpose: `inspect` has nothing else to do meanwhile, and for a
 * tree in the page cache one readdirSync / readFileSync per directory / file is several times
 * cheaper than the asynchronous calls' round trips through the thread pool (fstree/walk-sync.ts).
 */
export async function runInspect(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json'] });
  const json = flag(parsed, 'json');
  if (!parsed.positionals.length) throw new UsageError('needs at least one PATH (file or directory)');

  let targets: Target[];
  let shadowed: string[];
  try {
    ({ targets, shadowed } = findTargets(parsed.positionals, io.cwd));
  } catch (err) {
    return reportFailure(io, err, json);
  }

  // In file order. The first unreadable file fails the command. Nothing of a file's syntax tree or
  // text outlives its turn: human output is written per file, JSON kept as each file's text.
  if (targets.length >= WARM_UP_FILES) warmUpParser({ json: targets.some((t) => isJsonConfigFile(t.abs)), overview: true });
  const files: string[] = [];
  for (const t of targets) {
    const r = json ? jsonFile(t.shown, t.abs) : humanFile(t.shown, t.abs);
    if ('error' in r) return reportFailure(io, new Error(r.error), json);
    if (json) files.push(r.output);
    else io.stdout(r.output);
  }
  for (const s of shadowed) {
    const note = `${s}: ignored, ${path.basename(tofuTwin(s)!)} takes precedence`;
    if (json) io.stderr(`tofu-registry inspect: note: ${note}\n`);
    else io.stdout(`${note}\n`);
  }
  if (json) io.stdout(filesDocument(files));
  else if (!targets.length) io.stdout('no configuration files found\n');
  return 0;
}

/**
 * The files under the given PATHs, sorted by the name shown, without duplicates, with `.tofu`
 * precedence applied per directory to walked files. Throws (naming the path) when a PATH cannot
 * be read.
 */
function findTargets(positionals: string[], cwd: string): { targets: Target[]; shadowed: string[] } {
  const byShown = new Map<string, Target>();
  for (const given of positionals) {
    const abs = path.resolve(cwd, given);
    const list = findConfigFilesSync([abs]); // its error names the path
    // A file PATH comes back as itself; a directory gives only files below it.
    const explicit = list.length === 1 && list[0] === abs;
    // Shown names are path.join(given, part below abs); names read from directories need no
    // normalizing, so the PATH is normalized once and the parts appended.
    const base = path.normalize(given);
    const prefix = base === '.' ? '' : base.endsWith(path.sep) ? base : base + path.sep;
    for (const f of list) {
      const rel = f.length > abs.length ? f.slice(abs.length + (abs.endsWith(path.sep) ? 0 : 1)) : '';
      const shown = rel ? prefix + rel : base;
      const known = byShown.get(shown);
      if (known) known.explicit ||= explicit;
      else byShown.set(shown, { shown, abs: f, explicit });
    }
  }
  // .tofu precedence (applyTofuPrecedence's rule): a file is hidden by its .tofu twin in the same
  // directory. Every abs here is absolute and normalized, so the twin's name is compared as is.
  const present = new Set<string>();
  let tofu = false; // a twin can only be present when some file is a .tofu or .tofu.json one
  for (const t of byShown.values()) {
    present.add(t.abs);
    if (!tofu && (t.abs.endsWith('.tofu') || t.abs.endsWith('.tofu.json'))) tofu = true;
  }
  const targets: Target[] = [];
  const shadowed: string[] = [];
  for (const t of byShown.values()) {
    const twin = tofu ? tofuTwin(t.abs) : null;
    if (twin !== null && present.has(twin) && !t.explicit) shadowed.push(t.shown);
    else targets.push(t);
  }
  targets.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
  return { targets, shadowed };
}
