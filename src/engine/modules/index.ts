// Module inputs: the called module's variables (local, installed, fetched), and checks against them.
export {
  analyzeVariable, interfaceFromFiles, loadModuleInterface, variableReferenceAt, variablesOfDirectory, ModuleInterface, ModuleVariable,
} from '../modulepkg/variables';
export {
  checkModuleCall, moduleInputCompletions, variableMarkdown, typeHoverMarkdown, variableDeclMarkdown,
  inputCursor, InputCompletion, InputCursor, MODULE_META_ARGUMENTS,
} from './inputs';
export { ModuleResolver, ModuleRequest, ResolvedModule, ResolverOptions } from '../modulepkg/resolve';
export { locateModule, localModuleDir, LocatedModule, LocateOptions, ModulePackageFetcher } from '../modulepkg/locate';
export { fetchModule, fetchPackage, moduleDirectory, packageSource, engineCaCertificates, safeRelativePath, shownLocation, ModuleFetchError, FetchOptions, FetchedPackage } from '../modulepkg/fetch';
export { checkFile, checkDirectory, callSource, FileCheckInput, FileCheckResult, DirectoryCheckResult } from './check';
