// The input variables a module declares, with parsed type constraints and checked defaults: what a
// `module` block calling it may (and must) set.
import * as path from 'node:path';
import type { Diagnostic, Range } from '../config/ast';
import { loadConfigDir, LoadedFile } from '../config/files';
import type { VariableDecl } from '../config/extract';
import { ANY, Type } from '../types/model';
import { parseTypeConstraint } from '../types/parse';
import { convertValue } from '../types/convert';
import { Value, valueFromExpression, rangeAtPath } from '../types/value';
import { renderType } from '../types/render';

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
  /** Type constraint and default problems, per file path. */
  diagnostics: { path: string; diagnostic: Diagnostic }[];
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

/** The variables declared by the files of one loaded module directory (override files merged). */
export function interfaceFromFiles(dir: string, files: LoadedFile[]): ModuleInterface {
  const byName = new Map<string, ModuleVariable>();
  const diagnostics: ModuleInterface['diagnostics'] = [];
  const ordered = [...files.filter((f) => !f.override), ...files.filter((f) => f.override)];
  for (const f of ordered) {
    for (const decl of f.summary.variables) {
      const { variable, diagnostics: d } = analyzeVariable(decl, f.text, f.path, f.file.syntax);
      for (const diagnostic of d) diagnostics.push({ path: f.path, diagnostic });
      const prev = byName.get(decl.name);
      if (prev && f.override) {
        // An override replaces only the arguments it sets.
        byName.set(decl.name, {
          ...prev,
          ...(decl.type ? { type: variable.type, typeText: variable.typeText, typed: true } : {}),
          ...(decl.default ? { required: false, default: variable.default, defaultText: variable.defaultText } : {}),
          ...(decl.description !== null ? { description: variable.description } : {}),
          ...(decl.nullable !== null ? { nullable: variable.nullable } : {}),
        });
      } else if (!prev) byName.set(decl.name, variable);
    }
  }
  return { dir, variables: [...byName.values()], diagnostics };
}

export async function loadModuleInterface(dir: string): Promise<ModuleInterface> {
  const { files } = await loadConfigDir(path.resolve(dir));
  return interfaceFromFiles(path.resolve(dir), files);
}
