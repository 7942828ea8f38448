// Module packages, for every job that reads a called module: where a module call's package is
// (locate.ts: local, installed by tofu init, registry, remote, oci://), fetching it from every
// source — registry and HTTP archives (fetch.ts, unpack.ts), git (git.ts), OCI (oci-fetch.ts,
// oci-registry.ts) — into a cache, the bound on a module tree walk (budget.ts), and what a package
// declares (variables.ts, outputs.ts), which the ModuleResolver (resolve.ts) loads once per package.
// Layer: packages (docs/architecture.md: it imports only the folders listed below it there).
export * from './budget';
export * from './fetch';
export { gitClone, parseGitSource, treeSize } from '../git/clone';
export type { GitCloneOptions, GitSource } from '../git/clone';
export * from './locate';
export * from './location';
export * from './resolve';
export * from './variables';
export * from './outputs';
export * from './oci-fetch';
export * from './oci-registry';
