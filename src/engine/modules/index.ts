// Module inputs and outputs: the checks of a module call's arguments against the called module's
// variables and of `module.NAME.x` references against its outputs (types check, the editor's
// module diagnostics, completion and hovers). The packages and what they declare are modulepkg/
// (re-exported here, as before).
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
export {
  analyzeVariable, interfaceFromFiles, loadModuleInterface, variableReferenceAt, variablesOfDirectory, ModuleInterface, ModuleVariable,
} from '../modulepkg/variables';
export {
  checkModuleCall, moduleInputCompletions, variableMarkdown, typeHoverMarkdown, variableDeclMarkdown,
  inputCursor, InputCompletion, InputCursor, MODULE_META_ARGUMENTS,
} from './inputs';
export { ModuleResolver, ModuleRequest, ResolvedModule, ResolverOptions } from '../modulepkg/resolve';
export { locateModule, localModuleDir, LocatedModule, LocateOptions, ModulePackageFetcher, FetchedFacts } from '../modulepkg/locate';
export { fetchModule, fetchModuleWithFacts, PackageFacts, fetchPackage, moduleDirectory, packageSource, engineCaCertificates, safeRelativePath, shownLocation, ModuleFetchError, FetchOptions, FetchedPackage } from '../modulepkg/fetch';
export { checkFile, checkDirectory, callSource, FileCheckInput, FileCheckResult, DirectoryCheckResult } from './check';
