// gitrefs — git-sourced modules as versioned dependencies: the remote and `?ref=` of every source
// `tofu init` fetches with git, one `git ls-remote` per remote (run as tofu init runs git: the
// user's configuration, credential helpers and SSH agent, never interactive), cached like version
// lists, and what a ref selects (tag, branch, commit) with tags ordered as versions.
// Layer: engine, above addresses/, versions/, net/, credentials/, discovery/ and modules/ (the clone
// path's argument rules and CA roots); below deps/ and the Engine (engine.listGitRefs).
export { parseGitModuleSource, withGitRef, encodeRef, refSpanOf, remoteHost, GitModuleSource } from './source';
export {
  parseLsRemote, resolveGitRef, gitRefOrder, newestGitTag, tagVersion, safeRefName,
  GitRefs, GitBranch, GitTag, GitRefKind, ResolvedGitRef, GitRefItem,
} from './refs';
export { lsRemote, credentialPlaces, LsRemoteOptions } from './lsremote';
export { GitRefLookup, GitRefList, GitRefLookupOptions } from './lookup';
