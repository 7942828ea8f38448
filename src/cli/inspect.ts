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
import { CliIO, flag, parseArgs, printJson, reportFailure, UsageError } from './common';
import { applyTofuPrecedence, extractFile, findConfigFiles, FileSummary, parseConfig, Range, tofuTwin, ValueInfo } from '../engine/config';
import { parseTypeConstraint } from '../engine/types/parse';
import { renderType } from '../engine/types/render';

type JsonValue = string | { expression: string } | null;

function jsonValue(v: ValueInfo | null): JsonValue {
  if (!v) return null;
  return v.literal !== null ? v.literal : { expression: v.text };
}

export function jsonRange(r: Range): { start: { line: number; character: number }; end: { line: number; character: number } } {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

export function summaryToJson(p: string, s: FileSummary): unknown {
  return {
    path: p,
    modules: s.modules.map((m) => ({ name: m.name, source: jsonValue(m.source), version: jsonValue(m.version), range: jsonRange(m.range) })),
    requiredProviders: s.requiredProviders.map((r) => ({ name: r.name, source: jsonValue(r.source), version: jsonValue(r.version) })),
    variables: s.variables.map((v) => ({ name: v.name, type: jsonValue(v.type) })),
    diagnostics: s.diagnostics.map((d) => ({ message: d.message, range: jsonRange(d.range) })),
  };
}

function human(v: ValueInfo | null): string {
  if (!v) return '-';
  return v.literal !== null ? JSON.stringify(v.literal) : v.text.replace(/\s+/g, ' ');
}

/** A type on one line, canonical when it parses (newline-separated object attributes stay readable). */
function humanType(v: ValueInfo | null): string {
  if (!v || v.literal !== null) return human(v);
  const parsed = parseTypeConstraint(v.expr);
  return parsed.diagnostics.some((d) => d.severity === 'error') ? human(v) : renderType(parsed.type);
}

function humanSummary(p: string, s: FileSummary): string {
  const lines = [p];
  for (const m of s.modules) lines.push(`  module ${JSON.stringify(m.name)}  source ${human(m.source)}  version ${human(m.version)}  (line ${m.range.start.line + 1})`);
  for (const r of s.requiredProviders) lines.push(`  provider ${r.name}  source ${human(r.source)}  version ${human(r.version)}${r.legacy ? '  (legacy string form)' : ''}`);
  for (const v of s.variables) lines.push(`  variable ${JSON.stringify(v.name)}  type ${humanType(v.type)}`);
  for (const d of s.diagnostics) lines.push(`  ${d.severity} ${d.range.start.line + 1}:${d.range.start.character + 1}  ${d.message}`);
  if (lines.length === 1) lines.push('  (no modules, providers or variables)');
  return lines.join('\n') + '\n';
}

export async function runInspect(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json'] });
  const json = flag(parsed, 'json');
  if (!parsed.positionals.length) throw new UsageError('needs at least one PATH (file or directory)');

  let files: string[];
  const shadowed: string[] = [];
  try {
    const explicit = new Set<string>();
    const found: string[] = [];
    for (const given of parsed.positionals) {
      const abs = path.resolve(io.cwd, given);
      const list = await findConfigFiles([abs]);
      const st = await fs.stat(abs);
      for (const f of list) {
        const shown = path.join(given, path.relative(abs, f)) || given;
        if (!st.isDirectory()) explicit.add(shown);
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

  const out: unknown[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = await fs.readFile(path.resolve(io.cwd, f), 'utf8');
    } catch (err) {
      return reportFailure(io, new Error(`cannot read ${f}: ${(err as Error).message}`), json);
    }
    const summary = extractFile(parseConfig(text, f), text);
    if (json) out.push(summaryToJson(f, summary));
    else io.stdout(humanSummary(f, summary));
  }
  for (const s of shadowed) {
    const note = `${s}: ignored, ${path.basename(tofuTwin(s)!)} takes precedence`;
    if (json) io.stderr(`tofu-registry inspect: note: ${note}\n`);
    else io.stdout(`${note}\n`);
  }
  if (json) printJson(io, { files: out });
  else if (!files.length) io.stdout('no configuration files found\n');
  return 0;
}
