// File-tree IO shared by every reader of configuration trees (inspect, types check, mirror and
// module discovery, the editor's workspace scan): parallel walks with entry types, bounded
// concurrency, one read per file.
export { createLimiter, exhaustedMessage, FS_CONCURRENCY, isExhausted, mapLimit, OPEN_FILES_LIMIT, withOpenFile } from './limit';
export type { Limiter } from './limit';
export { entryPath, walkTree } from './walk';
export { walkTreeSync } from './walk-sync';
export type { TreeVisitor } from './walk';
export { readText, readTextCapped, readTextIfExists } from './read';
export { liveTempDirs, makeTempDir, removeTempDir } from './temp';
