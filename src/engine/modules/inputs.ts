// Module inputs, editor-independent: diagnostics for a `module` block against the called module's
// variables, argument-name completions, and hover texts. Plain data in, plain data out.
import type { Diagnostic, Position, Range } from '../config/ast';
import type { ModuleCall, VariableDecl } from '../config/extract';
import { rangeContains } from '../config/locate';
import { convertValue } from '../types/convert';
import { compareStrings } from '../types/model';
import { renderTypePretty } from '../types/render';
import { rangeAtPath, valueFromExpression } from '../types/value';
import type { ModuleInterface, ModuleVariable } from '../modulepkg/variables';

/** Arguments of a module block that are not input variables. */
export const MODULE_META_ARGUMENTS = new Set(['source', 'version', 'count', 'for_each', 'providers', 'depends_on']);

/** OpenTofu's checks of one module call's arguments against the module's variables. */
export function checkModuleCall(call: ModuleCall, iface: ModuleInterface, text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const vars = new Map(iface.variables.map((v) => [v.name, v]));
  const given = new Set<string>();
  for (const arg of call.arguments) {
    if (MODULE_META_ARGUMENTS.has(arg.name)) continue;
    given.add(arg.name);
    const v = vars.get(arg.name);
    if (!v) {
      out.push({
        message: `Unsupported argument: an argument named "${arg.name}" is not expected here; module "${call.name}" has no variable "${arg.name}".${suggest(arg.name, [...vars.keys()])}`,
        range: arg.nameRange, severity: 'error',
      });
      continue;
    }
    const value = valueFromExpression(arg.value.expr, text);
    if (value.kind === 'null') {
      if (!v.nullable && v.required) {
        out.push({ message: `Invalid value for input variable "${v.name}": required variable may not be null (nullable = false).`, range: arg.value.range, severity: 'error' });
      }
      continue;
    }
    const r = convertValue(value, v.type);
    if (!r.ok) {
      out.push({
        message: `Invalid value for input variable "${v.name}": the given value is not suitable for type ${v.typeText}: ${r.error.message}.`,
        range: rangeAtPath(arg.value.expr, r.error.path), severity: 'error',
      });
    }
  }
  const hasBlock = call.block.body.items.some((i) => i.kind === 'block');
  const missing = iface.variables.filter((v) => v.required && !given.has(v.name)).map((v) => v.name);
  if (missing.length && !hasBlock) {
    const list = missing.map((m) => `"${m}"`).join(', ');
    out.push({
      message: missing.length === 1
        ? `Missing required argument: the argument ${list} is required by module "${call.name}", but no definition was found.`
        : `Missing required arguments: the arguments ${list} are required by module "${call.name}", but no definitions were found.`,
      range: call.nameRange, severity: 'error',
    });
  }
  return out;
}

function suggest(name: string, names: string[]): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of names) {
    const d = distance(name, n);
    if (d < bestD) { bestD = d; best = n; }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? ` Did you mean "${best}"?` : '';
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

// ---------------------------------------------------------------------------------------------
// Completion

export interface InputCompletion {
  name: string;
  required: boolean;
  /** Canonical type. */
  type: string;
  description: string | null;
  /** One-line detail: "required · list(string)" / "optional · string = \"x\"". */
  detail: string;
  /** Markdown documentation. */
  documentation: string;
  /** Sort key: required inputs first, then by name. */
  sortText: string;
  /** `name = ` plus a placeholder shaped like the type (snippet syntax). */
  snippet: string;
}

/** Completions of argument names for a module block: variables not set yet, required first. */
export function moduleInputCompletions(call: ModuleCall, iface: ModuleInterface): InputCompletion[] {
  const set = new Set(call.arguments.map((a) => a.name));
  return iface.variables
    .filter((v) => !set.has(v.name))
    .sort((a, b) => Number(b.required) - Number(a.required) || compareStrings(a.name, b.name))
    .map((v) => ({
      name: v.name,
      required: v.required,
      type: v.typeText,
      description: v.description,
      detail: `${v.required ? 'required' : 'optional'} · ${v.typeText}${v.required ? '' : ` = ${oneLine(v.defaultText ?? 'null')}`}`,
      documentation: variableMarkdown(v),
      sortText: `${v.required ? '0' : '1'}_${v.name}`,
      snippet: `${v.name} = ${placeholder(v)}`,
    }));
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ');
  return t.length > 40 ? `${t.slice(0, 39)}…` : t;
}

function placeholder(v: ModuleVariable): string {
  switch (v.type.kind) {
    case 'string': return '"$1"';
    case 'list': case 'set': case 'tuple': return '[$1]';
    case 'map': case 'object': return '{\n\t$1\n}';
    default: return '$1';
  }
}

// ---------------------------------------------------------------------------------------------
// Hover texts (Markdown)

function fence(code: string): string {
  return '```hcl\n' + code + '\n```';
}

/** Hover for a module input argument / a variable of a called module. */
export function variableMarkdown(v: ModuleVariable): string {
  const parts = [fence(`variable "${v.name}" {\n  type = ${indent(renderTypePretty(v.type), 2)}\n}`)];
  if (v.description) parts.push(v.description);
  const facts: string[] = [v.required ? '**Required**' : `**Optional**, default \`${oneLine(v.defaultText ?? 'null')}\``];
  if (!v.typed) facts.push('no type constraint (any value)');
  if (!v.nullable) facts.push('not nullable');
  if (v.sensitive) facts.push('sensitive');
  parts.push(facts.join(' · '));
  return parts.join('\n\n');
}

function indent(s: string, n: number): string {
  return s.split('\n').join('\n' + ' '.repeat(n));
}

/** Hover on a variable's `type` expression: the canonical type, optional attributes and defaults spelled out. */
export function typeHoverMarkdown(v: ModuleVariable): string {
  return `${fence(renderTypePretty(v.type))}\n\nType constraint of variable \`${v.name}\``;
}

/** Hover on a variable block label: type, default, description, nullable. */
export function variableDeclMarkdown(v: ModuleVariable, decl: VariableDecl): string {
  const lines = [fence(`variable "${v.name}"`), `**Type:** \`${v.typed ? v.typeText : 'any (no type constraint)'}\``];
  if (decl.default) lines.push(`**Default:** \`${oneLine(decl.default.text)}\``);
  else lines.push('**Required** (no default)');
  lines.push(`**Nullable:** ${v.nullable ? 'yes' : 'no'}`);
  if (v.sensitive) lines.push('**Sensitive**');
  if (v.description) lines.push('', v.description);
  return lines.join('  \n');
}

// ---------------------------------------------------------------------------------------------
// Where is the cursor?

export type InputCursor =
  | { kind: 'argument-name'; call: ModuleCall; name: string; range: Range }
  | { kind: 'argument-value'; call: ModuleCall; name: string; range: Range }
  /** Inside the module block body where a new argument name may be typed. */
  | { kind: 'body'; call: ModuleCall; prefix: string; range: Range };

/** Classify a position inside a module block (undefined when it is not in one). */
export function inputCursor(calls: ModuleCall[], pos: { line: number; character: number }, text: string, lineStartOffset?: number): InputCursor | undefined {
  const call = calls.find((c) => rangeContains(c.block.body.range, pos.line, pos.character));
  if (!call) return undefined;
  for (const a of call.arguments) {
    if (rangeContains(a.nameRange, pos.line, pos.character)) return { kind: 'argument-name', call, name: a.name, range: a.nameRange };
    if (rangeContains(a.value.range, pos.line, pos.character)) return { kind: 'argument-value', call, name: a.name, range: a.value.range };
  }
  // Nested blocks (lifecycle-like) are not argument positions.
  for (const item of call.block.body.items) {
    if (item.kind === 'block' && rangeContains(item.range, pos.line, pos.character)) return undefined;
    if (item.kind === 'attribute' && rangeContains(item.range, pos.line, pos.character)) return undefined;
  }
  // A bare word being typed at the start of a line.
  const lineStart = lineStartOffset ?? offsetOfLine(text, pos.line);
  const before = text.slice(lineStart, lineStart + pos.character);
  const m = /^\s*([A-Za-z_][A-Za-z0-9_-]*)?$/.exec(before);
  if (!m) return undefined;
  const prefix = m[1] ?? '';
  const start: Position = { line: pos.line, character: pos.character - prefix.length, offset: lineStart + pos.character - prefix.length };
  const end: Position = { line: pos.line, character: pos.character, offset: lineStart + pos.character };
  return { kind: 'body', call, prefix, range: { start, end } };
}

function offsetOfLine(text: string, line: number): number {
  let off = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf('\n', off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return off;
}
