// A file's overview: what `inspect` reports (module calls with their source and version,
// required_providers entries, variable types, diagnostics), from a parse scoped to those parts.
// Over a large tree most of the text is resources, outputs, locals and module inputs: the scoped
// parse still reads all of it for diagnostics, but computes no ranges and no string values there.
// Faster still, a file the skim (skim.ts) reads whole without a doubt: the blocks out of scope are
// only skimmed, and of the blocks in scope only what the overview reports is parsed.
import { Diagnostic, Expression, Range } from './ast';
import { extractModule, extractRequiredProviders, extractVariable, ModuleCall, RequiredProvider, ValueInfo, valueInfo, VariableDecl } from './extract';
import { isJsonConfigFile, parseConfig } from './files';
import { parseBlockAt, ParseScope, parseValueAt } from './parser';
import { skimBody } from './skim';
import { identEnd, isIdentStart, labelStringEnd, skimmedAttributes, skipBlank } from './skimhelpers';
import { decode } from './templates';
import { LineMap } from './tokens';

export type ModuleOverview = Pick<ModuleCall, 'name' | 'nameRange' | 'range' | 'source' | 'version'>;
export type VariableOverview = Pick<VariableDecl, 'name' | 'nameRange' | 'range' | 'type'>;

/** What `inspect` reports of one file. A FileSummary (extractFile) has all of it, and more. */
export interface ConfigOverview {
  modules: ModuleOverview[];
  requiredProviders: RequiredProvider[];
  variables: VariableOverview[];
  diagnostics: Diagnostic[];
}

/** The parts of a file the overview reads; everything else is parsed for its diagnostics only. */
export const OVERVIEW_SCOPE: ParseScope = new Map([
  ['module', { attributes: ['source', 'version'], blocks: [] }],
  ['variable', { attributes: ['type'], blocks: [] }],
  ['terraform', { attributes: [], blocks: ['required_providers'] }],
]);

/**
 * The overview of one file from its text (`name` picks the syntax), equal to the same fields of
 * extractFile(parseConfig(text, name), text).
 */
export function overviewOf(text: string, name: string): ConfigOverview {
  if (!isJsonConfigFile(name)) {
    let skimmed: ConfigOverview | undefined;
    try {
      skimmed = skimmedOverview(text);
    } catch {
      skimmed = undefined; // the parse below says what is wrong, if anything
    }
    if (skimmed) return skimmed;
  }
  return parsedOverview(text, name);
}

/** The overview from the scoped parse of the whole file (what overviewOf is equal to in every case). */
export function parsedOverview(text: string, name: string): ConfigOverview {
  const file = parseConfig(text, name, { scope: OVERVIEW_SCOPE });
  const modules: ModuleOverview[] = [];
  const requiredProviders: RequiredProvider[] = [];
  const variables: VariableOverview[] = [];
  for (const item of file.body.items) {
    if (item.kind !== 'block') continue;
    if (item.type === 'module') {
      const { name: n, nameRange, range, source, version } = extractModule(item, text, false);
      modules.push({ name: n, nameRange, range, source, version });
    } else if (item.type === 'variable') {
      const { name: n, nameRange, range, type } = extractVariable(item, text);
      variables.push({ name: n, nameRange, range, type });
    } else if (item.type === 'terraform') {
      requiredProviders.push(...extractRequiredProviders(item, text));
    }
  }
  return { modules, requiredProviders, variables, diagnostics: file.diagnostics };
}

/**
 * The overview of a native-syntax file that the skim reads whole, or undefined (the caller then
 * parses it). Top-level blocks only (a top-level attribute is given up); each body is skimmed, then
 * a module's first `source` and `version`, a variable's last `type` (extractModule and
 * extractVariable's rules) and a whole `terraform` block are parsed where they are. Whatever the
 * scanner or parser would report there, or a skim it is not sure of, gives undefined: an overview
 * returned here has no diagnostics, as the file has none.
 */
export function skimmedOverview(text: string): ConfigOverview | undefined {
  const n = text.length;
  const overview: ConfigOverview = { modules: [], requiredProviders: [], variables: [], diagnostics: [] };
  let lm: LineMap | undefined;
  let i = 0;
  for (;;) {
    i = skipBlank(text, i, true);
    if (i < 0) return undefined;
    if (i >= n) break;
    if (!isIdentStart(text.charCodeAt(i))) return undefined;
    const typeStart = i;
    i = identEnd(text, i + 1);
    const typeEnd = i;
    let labelStart = -1;
    let labelEnd = -1;
    for (;;) {
      while (i < n && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
      const c = text.charCodeAt(i);
      if (c === 123) break;
      const s = i;
      if (isIdentStart(c)) i = identEnd(text, i + 1);
      else if (c === 34) i = labelStringEnd(text, i);
      else return undefined;
      if (i < 0) return undefined;
      if (labelStart < 0) { labelStart = s; labelEnd = i; }
    }
    const type = text.slice(typeStart, typeEnd);
    const end = skimBody(text, i + 1, type === 'module' || type === 'variable');
    if (end < 0) return undefined;
    if (type === 'module' || type === 'variable' || type === 'terraform') {
      lm ??= new LineMap(text, true); // dropped when this returns
      if (!readInScope(text, lm, type, typeStart, typeEnd, labelStart, labelEnd, end, overview)) return undefined;
    }
    i = end;
  }
  return overview;
}

/**
 * What the overview takes of one skimmed block in scope (its body's attributes in
 * skimmedAttributes); false when a part parsed here has a diagnostic after all.
 */
function readInScope(text: string, lm: LineMap, type: string, typeStart: number, typeEnd: number, labelStart: number, labelEnd: number, end: number, overview: ConfigOverview): boolean {
  const { modules, requiredProviders, variables } = overview;
  if (type === 'terraform') {
    const block = parseBlockAt(text, lm, typeStart, end, OVERVIEW_SCOPE);
    if (!block) return false;
    requiredProviders.push(...extractRequiredProviders(block, text));
    return true;
  }
  // labelOf's rule: the first label, else the type keyword's range and no name.
  let name = '';
  let nameRange: Range;
  if (labelStart < 0) nameRange = lm.range(typeStart, typeEnd);
  else {
    nameRange = lm.range(labelStart, labelEnd);
    name = text.charCodeAt(labelStart) === 34 ? decode(text.slice(labelStart + 1, labelEnd - 1), true) : text.slice(labelStart, labelEnd);
  }
  const range = lm.range(typeStart, end);
  const attrs = skimmedAttributes.list;
  const count = skimmedAttributes.count * 4;
  if (type === 'module') {
    let source: ValueInfo | null = null;
    let version: ValueInfo | null = null;
    for (let a = 0; a < count; a += 4) {
      const isSource = !source && attributeNamed(text, attrs[a], attrs[a + 1], 'source');
      if (!isSource && (version || !attributeNamed(text, attrs[a], attrs[a + 1], 'version'))) continue;
      const expr = valueAt(text, lm, attrs[a + 2], attrs[a + 3]);
      if (!expr) return false;
      if (isSource) source = valueInfo(expr, text);
      else version = valueInfo(expr, text);
    }
    modules.push({ name, nameRange, range, source, version });
    return true;
  }
  let typeInfo: ValueInfo | null = null;
  for (let a = count - 4; a >= 0; a -= 4) {
    if (!attributeNamed(text, attrs[a], attrs[a + 1], 'type')) continue;
    const expr = valueAt(text, lm, attrs[a + 2], attrs[a + 3]);
    if (!expr) return false;
    typeInfo = valueInfo(expr, text);
    break;
  }
  variables.push({ name, nameRange, range, type: typeInfo });
  return true;
}

/**
 * The value in `text.slice(start, end)` (an attribute's, to its line break or `}`) as parseValueAt
 * gives it. The two most common forms are built here without the parser, as it builds them: a
 * quoted string with no escape or template sequence (its fast path) and a lone name.
 */
function valueAt(text: string, lm: LineMap, start: number, end: number): Expression | undefined {
  let s = start;
  while (s < end && (text.charCodeAt(s) === 32 || text.charCodeAt(s) === 9)) s++;
  let e = end;
  while (e > s && (text.charCodeAt(e - 1) === 32 || text.charCodeAt(e - 1) === 9 || text.charCodeAt(e - 1) === 13)) e--;
  const c = text.charCodeAt(s);
  if (c === 34 && e - s >= 2 && text.charCodeAt(e - 1) === 34) {
    let i = s + 1;
    for (; i < e - 1; i++) {
      const d = text.charCodeAt(i);
      if (d === 34 || d === 92 || d === 36 || d === 37 || d === 10) break;
    }
    if (i === e - 1) return { kind: 'literal', value: text.slice(s + 1, e - 1), range: lm.range(s, e), unterminated: undefined, quoting: 'quoted' };
  } else if (isIdentStart(c) && identEnd(text, s + 1) === e) {
    const name = text.slice(s, e);
    if (name !== 'true' && name !== 'false' && name !== 'null') return { kind: 'variable', name, range: lm.range(s, e) };
  }
  return parseValueAt(text, lm, start, end);
}

function attributeNamed(text: string, start: number, end: number, name: string): boolean {
  return end - start === name.length && text.startsWith(name, start);
}
