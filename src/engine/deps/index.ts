// Dependency overview: the workspace dependency graph (what each configuration depends on, what
// is locked, what `tofu init` would select, what is newer) and constraint rewrites for upgrades.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
export * from './types';
export { buildDependencyGraph, directoryDependencies, GraphOptions } from './graph';
export { evaluateVersions, isNewer, Evaluation } from './status';
export { rewriteConstraint, constraintEdit, applyEdits, TextEdit } from './rewrite';
export { readLocalFacts, LocalFacts } from './collect';
export { rootConfigDirs } from './roots';
export { providerRequirements } from './children';
export { planUndeclaredUpgrade, planUpgradeToNewest, versionValueOf, UpgradePlan } from './upgrade';
export { relockProviders, RelockRequest } from './relock';
