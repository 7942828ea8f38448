// File-tree IO shared by every reader of configuration trees (inspect, types check, mirror and
// module discovery, the editor's workspace scan): parallel walks with entry types, bounded
// concurrency, one read per file; and the writing side both mirrors and the lock run share: the
// output directory (outdir.ts: one lock, archive stamps, atomic writes, temp-file sweep) and
// the checks that keep path segments from the network inside it (safe-paths.ts).
// Layer: IO with limits (docs/architecture.md: it imports only the folders listed below it there).
export { createLimiter, exhaustedMessage, FS_CONCURRENCY, isExhausted, mapLimit, OPEN_FILES_LIMIT, withOpenFile } from './limit';
export type { Limiter } from './limit';
export { entryPath, walkTree } from './walk';
export { walkTreeSync } from './walk-sync';
export type { TreeVisitor } from './walk';
export { readText, readTextCapped, readTextIfExists } from './read';
export { liveTempDirs, makeTempDir, removeTempDir } from './temp';
