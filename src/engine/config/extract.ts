// Extraction API: module calls, required_providers entries, variable declarations and parse
// diagnostics of one file, with the ranges the editor needs.
import { Attribute, Block, ConfigFile, Diagnostic, Expression, Range } from './ast';

export interface ValueInfo {
  /** The string value when the expression is a literal string, else null. */
  literal: string | null;
  /** Source text of the expression. */
  text: string;
  expr: Expression;
  range: Range;
  /** For a quoted string: the range between the quotes (to the end of the line when unterminated). */
  contentRange?: Range;
}

export interface ArgumentInfo {
  name: string;
  nameRange: Range;
  value: ValueInfo;
  range: Range;
}

export interface ModuleCall {
  name: string;
  nameRange: Range;
  range: Range;
  source: ValueInfo | null;
  version: ValueInfo | null;
  /** Every attribute other than source/version (count, for_each, providers, depends_on, inputs). */
  arguments: ArgumentInfo[];
  block: Block;
}

export interface RequiredProvider {
  name: string;
  nameRange: Range;
  range: Range;
  source: ValueInfo | null;
  version: ValueInfo | null;
  /** `name = "constraint"` (the pre-0.13 string form). */
  legacy: boolean;
  /** The `name = …` attribute inside required_providers. */
  attribute: Attribute;
}

export interface VariableDecl {
  name: string;
  nameRange: Range;
  range: Range;
  type: ValueInfo | null;
  default: ValueInfo | null;
  description: string | null;
  nullable: boolean | null;
  sensitive: boolean | null;
  block: Block;
}

export interface OutputDecl {
  name: string;
  nameRange: Range;
  range: Range;
  description: string | null;
  sensitive: boolean | null;
  block: Block;
}

export interface FileSummary {
  modules: ModuleCall[];
  requiredProviders: RequiredProvider[];
  variables: VariableDecl[];
  outputs: OutputDecl[];
  diagnostics: Diagnostic[];
}

export function valueInfo(expr: Expression, text: string): ValueInfo {
  const info: ValueInfo = {
    literal: expr.kind === 'literal' && typeof expr.value === 'string' ? expr.value : null,
    text: text.slice(expr.range.start.offset, expr.range.end.offset),
    expr,
    range: expr.range,
  };
  if (expr.kind === 'literal' || expr.kind === 'template') {
    if (expr.contentRange) info.contentRange = expr.contentRange;
    else if ((expr.kind === 'literal' && expr.quoting === 'quoted') || (expr.kind === 'template' && !expr.heredoc)) {
      // A quoted string sits on one line: the content is between the quotes (to the end when unterminated).
      const { start, end } = expr.range;
      const cs = { line: start.line, character: start.character + 1, offset: start.offset + 1 };
      info.contentRange = expr.unterminated ? { start: cs, end } : { start: cs, end: { line: end.line, character: end.character - 1, offset: end.offset - 1 } };
    }
  }
  return info;
}

function argument(attr: Attribute, text: string): ArgumentInfo {
  return { name: attr.name, nameRange: attr.nameRange, value: valueInfo(attr.expr, text), range: attr.range };
}

function labelOf(block: Block): { name: string; nameRange: Range } {
  const l = block.labels[0];
  return l ? { name: l.value, nameRange: l.range } : { name: '', nameRange: block.typeRange };
}

/** `arguments` is left empty when `withArguments` is false (a caller that reads only source and version). */
export function extractModule(block: Block, text: string, withArguments = true): ModuleCall {
  let source: ValueInfo | null = null;
  let version: ValueInfo | null = null;
  const args: ArgumentInfo[] = [];
  for (const item of block.body.items) {
    if (item.kind !== 'attribute') continue;
    if (item.name === 'source' && !source) source = valueInfo(item.expr, text);
    else if (item.name === 'version' && !version) version = valueInfo(item.expr, text);
    else if (withArguments) args.push(argument(item, text));
  }
  const { name, nameRange } = labelOf(block);
  return { name, nameRange, range: block.range, source, version, arguments: args, block };
}

export function extractVariable(block: Block, text: string): VariableDecl {
  const { name, nameRange } = labelOf(block);
  const v: VariableDecl = {
    name, nameRange, range: block.range, type: null, default: null, description: null, nullable: null, sensitive: null, block,
  };
  for (const item of block.body.items) {
    if (item.kind !== 'attribute') continue;
    const e = item.expr;
    switch (item.name) {
      case 'type': v.type = valueInfo(e, text); break;
      case 'default': v.default = valueInfo(e, text); break;
      case 'description': v.description = e.kind === 'literal' && typeof e.value === 'string' ? e.value : null; break;
      case 'nullable': v.nullable = e.kind === 'literal' && typeof e.value === 'boolean' ? e.value : null; break;
      case 'sensitive': v.sensitive = e.kind === 'literal' && typeof e.value === 'boolean' ? e.value : null; break;
    }
  }
  return v;
}

export function extractOutput(block: Block): OutputDecl {
  const { name, nameRange } = labelOf(block);
  const o: OutputDecl = { name, nameRange, range: block.range, description: null, sensitive: null, block };
  for (const item of block.body.items) {
    if (item.kind !== 'attribute') continue;
    const e = item.expr;
    if (item.name === 'description' && e.kind === 'literal' && typeof e.value === 'string') o.description = e.value;
    if (item.name === 'sensitive' && e.kind === 'literal' && typeof e.value === 'boolean') o.sensitive = e.value;
  }
  return o;
}

function objectKey(key: Expression): string | null {
  return key.kind === 'literal' && typeof key.value === 'string' ? key.value : null;
}

export function extractRequiredProvider(attr: Attribute, text: string): RequiredProvider {
  const rp: RequiredProvider = { name: attr.name, nameRange: attr.nameRange, range: attr.range, source: null, version: null, legacy: false, attribute: attr };
  const e = attr.expr;
  if (e.kind === 'object') {
    for (const item of e.items) {
      const key = objectKey(item.key);
      if (key === 'source' && !rp.source) rp.source = valueInfo(item.value, text);
      else if (key === 'version' && !rp.version) rp.version = valueInfo(item.value, text);
    }
  } else {
    rp.legacy = true;
    rp.version = valueInfo(e, text);
  }
  return rp;
}

/** The entries of the required_providers blocks of one `terraform` block. */
export function extractRequiredProviders(terraform: Block, text: string): RequiredProvider[] {
  const out: RequiredProvider[] = [];
  for (const inner of terraform.body.items) {
    if (inner.kind !== 'block' || inner.type !== 'required_providers') continue;
    for (const rp of inner.body.items) if (rp.kind === 'attribute') out.push(extractRequiredProvider(rp, text));
  }
  return out;
}

/** Summarises one parsed file. `text` must be the text the file was parsed from. */
export function extractFile(file: ConfigFile, text: string): FileSummary {
  const modules: ModuleCall[] = [];
  const requiredProviders: RequiredProvider[] = [];
  const variables: VariableDecl[] = [];
  const outputs: OutputDecl[] = [];
  for (const item of file.body.items) {
    if (item.kind !== 'block') continue;
    if (item.type === 'module') modules.push(extractModule(item, text));
    else if (item.type === 'variable') variables.push(extractVariable(item, text));
    else if (item.type === 'output') outputs.push(extractOutput(item));
    else if (item.type === 'terraform') requiredProviders.push(...extractRequiredProviders(item, text));
  }
  return { modules, requiredProviders, variables, outputs, diagnostics: file.diagnostics };
}
