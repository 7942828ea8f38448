// The input variables a module declares, with parsed type constraints and checked defaults: what a
// `module` block calling it may (and must) set.
import * as path from 'node:path';
import type { ConfigFile, Diagnostic, Range } from '../config/ast';
import { loadConfigDir, LoadedFile } from '../config/files';
import { findNodeAt } from '../config/locate';
import type { VariableDecl } from '../config/extract';
import { ANY, compareStrings, Type } from '../types/model';
import { parseTypeConstraint } from '../types/parse';
import { convertValue } from '../types/convert';
import { Value, valueFromExpression, rangeAtPath } from '../types/value';
import { renderType } from '../types/render';
import { ModuleOutput, outputsFromFiles } from './outputs';

export interface ModuleVariable {
  name: string;
  /** The declared type constraint (`any` when there is no `type`). */
  type: Type;
  /** Canonical rendering of `type`. */
  typeText: string;
  /** True when `type` was written; false means any value is accepted. */
  typed: boolean;
  /** No `default` argument: the caller must set it. */
  required: boolean;
  /** The default, converted to the type (unknown when it is not a literal). */
  default?: Value;
  /** The default as written in the source. */
  defaultText?: string;
  description: string | null;
  /** OpenTofu's default is true. */
  nullable: boolean;
  sensitive: boolean;
  file: string;
  nameRange: Range;
  range: Range;
}

export interface ModuleInterface {
  dir: string;
  variables: ModuleVariable[];
  /** The module's `output` blocks, by name. */
  outputs: ModuleOutput[];
  /** Type constraint and default problems, per file path. */
  diagnostics: { path: string; diagnostic: Diagnostic }[];
  /** Only the problems that come from merging override files (also in `diagnostics`). */
  overrideDiagnostics: { path: string; diagnostic: Diagnostic }[];
}

/** Parse one variable block: its type, default conversion, and the diagnostics OpenTofu gives. */
export function analyzeVariable(decl: VariableDecl, text: string, filePath: string, syntax: 'hcl' | 'json' = 'hcl'): { variable: ModuleVariable; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  let type: Type = ANY;
  if (decl.type) {
    // The JSON parser already turns a JSON `type` string into an HCL expression.
    const r = parseTypeConstraint(decl.type.expr, { text, legacyQuoted: syntax !== 'json' });
    type = r.type;
    diagnostics.push(...r.diagnostics);
  }
  const nullable = decl.nullable ?? true;
  const variable: ModuleVariable = {
    name: decl.name, type, typeText: renderType(type), typed: !!decl.type, required: !decl.default,
    description: decl.description, nullable, sensitive: decl.sensitive ?? false,
    file: filePath, nameRange: decl.nameRange, range: decl.range,
  };
  if (decl.default) {
    variable.defaultText = decl.default.text;
    const raw = valueFromExpression(decl.default.expr, text);
    const typeOk = !diagnostics.some((d) => d.severity === 'error');
    if (typeOk) {
      const r = convertValue(raw, type);
      if (!r.ok) {
        diagnostics.push({
          message: `Invalid default value for variable: this default value is not compatible with the variable's type constraint ${renderType(type)}: ${r.error.message}.`,
          range: rangeAtPath(decl.default.expr, r.error.path), severity: 'error',
        });
      } else variable.default = r.value;
    } else variable.default = raw;
    if (!nullable && raw.kind === 'null') {
      diagnostics.push({ message: 'Invalid default value for variable: a null default value is not valid when nullable=false.', range: decl.default.range, severity: 'error' });
    }
  }
  return { variable, diagnostics };
}

/**
 * The variables declared by the files of one loaded module directory, with override files merged
 * the way OpenTofu merges them (configs.Variable.merge): an override replaces only the arguments
 * it sets (type, default, description, nullable, sensitive), then the resulting default is
 * converted again to the resulting type. `diagnostics` holds every variable's own problems plus
 * the merge problems; `overrideDiagnostics` only the merge problems (a default that no longer fits
 * the overridden type, an override of a variable no primary file declares).
 */
export function interfaceFromFiles(dir: string, files: LoadedFile[]): ModuleInterface {
  const byName = new Map<string, { variable: ModuleVariable; raw?: Value }>();
  const diagnostics: ModuleInterface['diagnostics'] = [];
  const overrideDiagnostics: ModuleInterface['diagnostics'] = [];
  const ordered = [...files.filter((f) => !f.override), ...files.filter((f) => f.override)];
  for (const f of ordered) {
    for (const decl of f.summary.variables) {
      const { variable, diagnostics: d } = analyzeVariable(decl, f.text, f.path, f.file.syntax);
      for (const diagnostic of d) diagnostics.push({ path: f.path, diagnostic });
      const raw = decl.default ? valueFromExpression(decl.default.expr, f.text) : undefined;
      const prev = byName.get(decl.name);
      if (!f.override) {
        if (!prev) byName.set(decl.name, { variable, raw });
        continue;
      }
      if (!prev) {
        overrideDiagnostics.push({ path: f.path, diagnostic: {
          message: `Missing base variable declaration to override: there is no variable named ${JSON.stringify(decl.name)}. An override file can only override a variable that was already declared in a primary configuration file.`,
          range: decl.nameRange, severity: 'error',
        } });
        continue;
      }
      const merged: ModuleVariable = {
        ...prev.variable,
        ...(decl.type ? { type: variable.type, typeText: variable.typeText, typed: true } : {}),
        ...(decl.default ? { required: false, defaultText: variable.defaultText } : {}),
        ...(decl.description !== null ? { description: variable.description } : {}),
        ...(decl.nullable !== null ? { nullable: variable.nullable } : {}),
        ...(decl.sensitive !== null ? { sensitive: variable.sensitive } : {}),
      };
      const mergedRaw = decl.default ? raw : prev.raw;
      if (mergedRaw !== undefined) {
        const r = convertValue(mergedRaw, merged.type);
        if (r.ok) merged.default = r.value;
        else {
          merged.default = mergedRaw;
          overrideDiagnostics.push({ path: f.path, diagnostic: {
            message: `Invalid default value for variable: the overridden default value is not compatible with the variable's type constraint ${merged.typeText}: ${r.error.message}.`,
            range: decl.default?.range ?? decl.type?.range ?? decl.nameRange, severity: 'error',
          } });
        }
      }
      byName.set(decl.name, { variable: merged, raw: mergedRaw });
    }
  }
  diagnostics.push(...overrideDiagnostics);
  return { dir, variables: [...byName.values()].map((v) => v.variable), outputs: outputsFromFiles(files), diagnostics, overrideDiagnostics };
}

export async function loadModuleInterface(dir: string): Promise<ModuleInterface> {
  const { files } = await loadConfigDir(path.resolve(dir));
  return interfaceFromFiles(path.resolve(dir), files);
}

/** The `var.NAME` reference under a position (anywhere in `var.NAME`, also inside `var.NAME.attr`). */
export function variableReferenceAt(file: ConfigFile, line: number, character: number): { name: string; range: Range } | undefined {
  const nodes = findNodeAt(file, line, character);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i];
    if (n.kind === 'getattr' && n.target.kind === 'variable' && n.target.name === 'var') return { name: n.name, range: n.range };
  }
  return undefined;
}

/**
 * The variables visible from a configuration file: those of every file in its directory (override
 * files merged), with `current` (e.g. an editor's unsaved text) in place of that file on disk.
 */
export async function variablesOfDirectory(current: LoadedFile): Promise<ModuleInterface> {
  const dir = path.dirname(path.resolve(current.path));
  let files: LoadedFile[] = [];
  try {
    files = (await loadConfigDir(dir)).files.filter((f) => path.resolve(f.path) !== path.resolve(current.path));
  } catch {
    // an unreadable directory (e.g. an untitled document): the file alone
  }
  files.push(current);
  files.sort((a, b) => compareStrings(a.path, b.path));
  return interfaceFromFiles(dir, files);
}
