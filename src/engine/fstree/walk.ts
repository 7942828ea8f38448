// Parallel directory walking: every directory is read once with its entry types (readdir
// withFileTypes: no stat per entry), with a bounded number of reads in flight.
import { Dirent, readdir } from 'node:fs';
import * as path from 'node:path';
import { FS_CONCURRENCY } from './limit';

export interface TreeVisitor {
  /** Called once per directory read, with its entries in the order the file system returned them. */
  directory(dir: string, entries: Dirent[], depth: number): void;
  /** Whether to read the subdirectory `name` (a real directory; symbolic links are never followed). */
  descend(name: string, depth: number): boolean;
  /** A directory that cannot be read. Throw to fail the walk; return to skip it. Default: throw. */
  unreadable?(dir: string, err: NodeJS.ErrnoException): void;
  /** Checked before each read: true ends the walk early (e.g. a result limit is reached). */
  done?(): boolean;
}

/** Walks the tree under `root` (depth 0), reading up to `concurrency` directories at once. */
export function walkTree(root: string, visitor: TreeVisitor, concurrency = FS_CONCURRENCY): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
    let active = 0;
    let failed = false;
    const fail = (err: unknown) => {
      failed = true;
      reject(err);
    };
    // The callback API: the promise API's per-call overhead was about a third of a warm walk.
    const read = (dir: string, depth: number, done: (err?: unknown) => void): void => {
      readdir(dir, { withFileTypes: true }, (readErr, entries) => {
        try {
          if (readErr) {
            if (!visitor.unreadable) throw readErr;
            visitor.unreadable(dir, readErr);
            return done();
          }
          visitor.directory(dir, entries, depth);
          for (const e of entries) {
            if (e.isDirectory() && visitor.descend(e.name, depth + 1)) queue.push({ dir: entryPath(dir, e.name, depth), depth: depth + 1 });
          }
          done();
        } catch (err) {
          done(err);
        }
      });
    };
    const pump = () => {
      if (failed) return;
      while (active < concurrency && queue.length && !visitor.done?.()) {
        const { dir, depth } = queue.pop()!;
        active++;
        read(dir, depth, (err) => {
          active--;
          if (err) fail(err);
          else pump();
        });
      }
      if (active === 0) resolve();
    };
    pump();
  });
}

/**
 * The path of entry `name` of the directory `dir` that the walk reached at `depth`: what
 * path.join(dir, name) gives, without normalizing again below the root (≈ 1 µs a name; a large
 * tree has tens of thousands). Below the root every directory path is one this function made from
 * a normalized parent and a name read from the directory, which holds no separator.
 */
export function entryPath(dir: string, name: string, depth: number): string {
  return depth === 0 ? path.join(dir, name) : dir + path.sep + name;
}
