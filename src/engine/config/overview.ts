// A file's overview: what `inspect` reports (module calls with their source and version,
// required_providers entries, variable types, diagnostics), from a parse scoped to those parts.
// Over a large tree most of the text is resources, outputs, locals and module inputs: the scoped
// parse still reads all of it for diagnostics, but computes no ranges and no string values there.
import { Diagnostic } from './ast';
import { extractModule, extractRequiredProviders, extractVariable, ModuleCall, RequiredProvider, VariableDecl } from './extract';
import { parseConfig } from './files';
import { ParseScope } from './parser';

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
