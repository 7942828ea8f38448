// Lock runs (`tofu-registry lock`, the editor's lock diagnostics and relocking): every provider a
// module tree requires, the hashes each platform needs (cache, `packages`, archives), the lock file
// written as OpenTofu writes it, and its status. The format itself is lockfile/ (re-exported here).
// Plain data in, plain data out; never imports vscode.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
//
//   readLockFile(text)            → { providers: [{ address, version, constraints, hashes, range, … }], diagnostics }
//                                    tolerant (a half-typed file yields every readable block), with ranges,
//                                    and OpenTofu's own checks as diagnostics (errors = tofu init refuses it).
//   renderLockFile(entries)       → the exact bytes OpenTofu writes for them (header, order, alignment,
//                                    sorted unique hashes); canonicalConstraints(list) → the `constraints` string.
//   collectProviderRequirements(dir, { resolver?, overlay? })
//                                 → every provider of the root module and all child modules, each
//                                    constraint with its origin (module path, file, range), plus errors.
//   lockProviders({ engine, dirs, platforms, upgrade?, source?, concurrency?, signal?, onProgress? })
//                                 → LockReport: per directory, select versions, gather hashes (cache,
//                                    `packages`, or the archive), merge, write atomically when changed.
//   platformCoverage(engine, entries, platforms, { network })
//                                 → which platforms each locked version's h1:/zh: cover (cache, `packages`,
//                                    SHA256SUMS names; never downloads an archive).
//   lockStatus({ requirements, lock, lockPath, platforms, coverage })
//                                 → diagnostics per file: version outside the constraints, provider missing
//                                    from the lock or no longer required, team platform without h1:.
export { readLockFile, isHashString } from '../lockfile/read';
export type { LockFile, LockedProvider, LockDiagnostic, LockDiagnosticCode } from '../lockfile/read';
export { renderLockFile, canonicalConstraints, normalizeHashes, LOCK_FILE_NAME, LOCK_FILE_HEADER } from '../lockfile/render';
export type { LockEntry } from '../lockfile/render';
export { collectProviderRequirements, problemText } from './requirements';
export type { ProviderRequirements, RequiredProviderInfo, ConstraintOrigin, RequirementProblem, CollectOptions, ModuleDirResolver } from './requirements';
export { lockProviders } from './lock';
export type { LockProvidersOptions } from './lock';
export type { LockSource, GatherOutcome } from './gather';
export type { LockReport, LockFileReport, LockedProviderReport, LockFailure, LockProgressEvent } from './types';
export { LockHashCache, lockHashCacheFor } from './cache';
export type { PlatformHashes, VersionSums } from './cache';
export { platformCoverage, sumsPlatforms, zhPlatforms } from './coverage';
export type { ProviderCoverage } from './coverage';
export { lockStatus, coverageKey } from './status';
export type { LockStatusDiagnostic, LockStatusCode, LockStatusInput, PlatformCoverage } from './status';
