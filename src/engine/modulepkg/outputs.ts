// Module outputs: what `module.NAME.` offers. The called module's `output` blocks (override files
// merged: they replace description/sensitive), completion and hover texts, and the check that a
// reference names an output the module declares (OpenTofu: "Unsupported attribute").
import * as path from 'node:path';
import type { Body, ConfigFile, Diagnostic, Expression, Range } from '../config/ast';
import type { ModuleCall } from '../config/extract';
import { loadConfigDir, LoadedFile } from '../config/files';
import { childExpressions, findNodeAt } from '../config/locate';
import { compareStrings } from '../types/model';

export interface ModuleOutput {
  name: string;
  description: string | null;
  sensitive: boolean;
  file: string;
  nameRange: Range;
  range: Range;
}

export function outputsFromFiles(files: LoadedFile[]): ModuleOutput[] {
  const byName = new Map<string, ModuleOutput>();
  const ordered = [...files.filter((f) => !f.override), ...files.filter((f) => f.override)];
  for (const f of ordered) {
    for (const o of f.summary.outputs) {
      const prev = byName.get(o.name);
      if (f.override) {
        if (prev) byName.set(o.name, { ...prev, ...(o.description !== null ? { description: o.description } : {}), ...(o.sensitive !== null ? { sensitive: o.sensitive } : {}) });
        continue;
      }
      if (!prev) byName.set(o.name, { name: o.name, description: o.description, sensitive: o.sensitive ?? false, file: f.path, nameRange: o.nameRange, range: o.range });
    }
  }
  return [...byName.values()].sort((a, b) => compareStrings(a.name, b.name));
}

/** A `module.NAME.OUTPUT` reference (also `module.NAME[0].OUTPUT`, `module.NAME["k"].OUTPUT`). */
export interface OutputReference {
  module: string;
  output: string;
  /** The whole `module.NAME….OUTPUT` traversal. */
  range: Range;
  /** Just OUTPUT. */
  outputRange: Range;
}

function asReference(e: Expression): OutputReference | undefined {
  if (e.kind !== 'getattr') return undefined;
  let t = e.target;
  if (t.kind === 'index') t = t.target;
  if (t.kind !== 'getattr' || t.target.kind !== 'variable' || t.target.name !== 'module') return undefined;
  const end = e.range.end;
  const outputRange = end.character >= e.name.length
    ? { start: { line: end.line, character: end.character - e.name.length, offset: end.offset - e.name.length }, end } : e.range;
  return { module: t.name, output: e.name, range: e.range, outputRange };
}

/** The output reference under a position. */
export function outputReferenceAt(file: ConfigFile, line: number, character: number): OutputReference | undefined {
  const nodes = findNodeAt(file, line, character);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i];
    if (n.kind === 'attribute' || n.kind === 'block') break;
    const r = asReference(n);
    if (r) return r;
  }
  return undefined;
}

/** Every output reference of a file. */
export function outputReferences(file: ConfigFile): OutputReference[] {
  const out: OutputReference[] = [];
  const visit = (e: Expression): void => {
    const r = asReference(e);
    if (r) out.push(r);
    for (const c of childExpressions(e)) visit(c);
  };
  const body = (b: Body): void => {
    for (const item of b.items) {
      if (item.kind === 'attribute') visit(item.expr);
      else body(item.body);
    }
  };
  body(file.body);
  return out;
}

/** Completion after `module.NAME.` (with an optional index): the module name and the typed prefix. */
export function outputCompletionContext(linePrefix: string): { module: string; prefix: string } | undefined {
  const m = /(?:^|[^A-Za-z0-9_.-])module\.([A-Za-z_][A-Za-z0-9_-]*)(?:\[[^\]\n]*\])?\.([A-Za-z0-9_-]*)$/.exec(linePrefix);
  return m ? { module: m[1], prefix: m[2] } : undefined;
}

/** The module calls visible from a file: those of every file in its directory, with `current` in place of its file on disk. */
export async function moduleCallsOfDirectory(current: { path: string; calls: ModuleCall[] }): Promise<ModuleCall[]> {
  const dir = path.dirname(path.resolve(current.path));
  const calls = [...current.calls];
  try {
    for (const f of (await loadConfigDir(dir)).files) {
      if (path.resolve(f.path) !== path.resolve(current.path) && !f.override) calls.push(...f.summary.modules);
    }
  } catch {
    // an unreadable directory (e.g. an untitled document): the file alone
  }
  return calls;
}

export function outputMarkdown(moduleName: string, o: ModuleOutput): string {
  const parts = ['```hcl\noutput "' + o.name + '"\n```', `Output of module \`${moduleName}\``];
  if (o.description) parts.push(o.description);
  if (o.sensitive) parts.push('**Sensitive**: its value is hidden in plan and apply output.');
  return parts.join('\n\n');
}

/**
 * Warnings for references to outputs a called module does not declare. `outputsOf` returns the
 * module's outputs, or undefined when the module could not be loaded (then nothing is reported).
 */
export function checkOutputReferences(file: ConfigFile, outputsOf: (module: string) => ModuleOutput[] | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const r of outputReferences(file)) {
    const outputs = outputsOf(r.module);
    if (!outputs || outputs.some((o) => o.name === r.output)) continue;
    out.push({
      message: `Unsupported attribute: module "${r.module}" has no output named "${r.output}".${outputs.length ? ` Its outputs: ${outputs.map((o) => o.name).join(', ')}.` : ' It declares no outputs.'}`,
      range: r.outputRange, severity: 'warning',
    });
  }
  return out;
}
