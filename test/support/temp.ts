// Temp directories for tests. Every directory made here is removed when the test process exits
// (node:test runs each test file in a process of its own; the extension host exits after the
// integration suite), so a test that fails half-way leaves nothing behind either. `removeTempDir`
// removes one earlier, e.g. in an after() hook.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}

/** A fresh directory under the OS temp directory, removed at the latest when the process exits. */
export function tempDir(prefix = 'tofu-registry-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', removeAll);
  }
  return dir;
}

/** Removes a directory made by tempDir now (idempotent). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.delete(dir);
}

/** A fresh temp directory holding `files` (relative path → content). */
export function tempTree(prefix: string, files: Record<string, string>): string {
  return writeFiles(tempDir(prefix), files);
}

/** Writes `files` (relative path → content) below `dir`, making directories as needed; returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}
