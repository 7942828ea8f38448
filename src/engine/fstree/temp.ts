// Temporary directories of a run (a lock run's downloads, a module mirror's work, the CLI's
// --no-cache scratch). Each run removes its own in a `finally`; this registry is the fallback for
// a process that ends while a run is still going — process.exit(), including from a SIGINT or
// SIGTERM handler (the CLI's and the bench's) — so that nothing named tofu-registry-* stays in
// the temp directory. Only SIGKILL (or a crash of Node itself) can still leave one behind.
import { promises as fs, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<string>();
let hooked = false;

function removeAllNow(): void {
  for (const dir of live) {
    try { rmSync(dir, { recursive: true, force: true, maxRetries: 2 }); } catch { /* exiting: nothing better to do */ }
  }
  live.clear();
}

/** A new directory `<os temp dir>/<prefix>XXXXXX`, removed at the latest when the process exits. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), prefix));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', removeAllNow);
  }
  return dir;
}

/** Removes a directory made by makeTempDir (idempotent). */
export async function removeTempDir(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 2 });
  } finally {
    live.delete(dir);
  }
}

/** How many made by makeTempDir are still there (tests). */
export function liveTempDirs(): number {
  return live.size;
}
