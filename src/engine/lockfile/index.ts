// The lock file format (.terraform.lock.hcl, OpenTofu's internal/depsfile): read tolerantly with
// ranges and tofu's own checks as diagnostics (read.ts), written byte for byte as tofu writes it
// (render.ts). Everything that honours lock pins reads it here; the lock runs are lock/.
// Layer: syntax and data (docs/architecture.md: it imports only the folders listed below it there).
export { isHashString, readLockFile } from './read';
export type { LockDiagnostic, LockDiagnosticCode, LockedProvider, LockFile } from './read';
export { canonicalConstraints, LOCK_FILE_HEADER, LOCK_FILE_NAME, normalizeHashes, renderLockFile } from './render';
export type { LockEntry } from './render';
