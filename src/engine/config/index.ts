// The configuration engine: tolerant HCL native-syntax and JSON-syntax parsing, extraction of
// module calls / required_providers / variables, OpenTofu's file rules, and cursor helpers.
// Layer: syntax and data (docs/architecture.md: it imports only the folders listed below it there).
export * from './ast';
export { parseHcl, parseExpression } from './parser';
export type { ParseOptions, ParseScope } from './parser';
export { parseJsonConfig } from './json';
export { warmUpParser } from './warmup';
export {
  parseConfig, isConfigFileName, isOverrideFile, isJsonConfigFile, configExtension, applyTofuPrecedence, tofuTwin,
  loadConfigDir, loadFile, findConfigFiles, findConfigFilesSync,
} from './files';
export type { LoadedFile } from './files';
export { extractFile, extractModule, extractVariable, extractOutput, extractRequiredProvider, extractRequiredProviders, valueInfo } from './extract';
export { overviewOf, OVERVIEW_SCOPE } from './overview';
export type { ConfigOverview, ModuleOverview, VariableOverview } from './overview';
export type { ValueInfo, ArgumentInfo, ModuleCall, RequiredProvider, VariableDecl, OutputDecl, FileSummary } from './extract';
export { rangeContains, findNodeAt, locateCursor } from './locate';
export type { CursorContext, NodePathEntry } from './locate';
