// git remotes as `tofu init` runs git (the user's configuration, credential helpers and SSH agent,
// never interactive, never a TF_TOKEN_*): the source forms and argument rules (source.ts), the
// clone of a `git::` module package (clone.ts, which modulepkg/ fetches through), and git-sourced
// modules as versioned dependencies — one `git ls-remote` per remote (lsremote.ts), cached like
// version lists (lookup.ts), what a `?ref=` selects (tag, branch, commit) with tags ordered as
// versions (refs.ts). Its own folder because module packages, the Engine's ref lookup, the
// dependency graph and the SBOM all use it.
// Layer: protocols (docs/architecture.md: it imports only the folders listed below it there).
export { parseGitModuleSource, withGitRef, encodeRef, refSpanOf, remoteHost, GitModuleSource } from './source';
export {
  parseLsRemote, resolveGitRef, gitRefOrder, newestGitTag, tagVersion, safeRefName,
  GitRefs, GitBranch, GitTag, GitRefKind, ResolvedGitRef, GitRefItem,
} from './refs';
export { lsRemote, credentialPlaces, LsRemoteOptions } from './lsremote';
export { GitRefLookup, GitRefList, GitRefLookupOptions } from './lookup';
