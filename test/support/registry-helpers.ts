// Small helpers for tests that talk to the test registry through a real Engine.
import { Engine, EngineOptions, LogEntry } from '../../src/engine/engine';
import { startTestRegistry, TestRegistry } from './registry-server';
import { removeTempDir, tempDir as makeTempDir } from './temp';

/** A temp directory (removed at process exit at the latest) with a `remove` for earlier cleanup. */
export function tempDir(prefix = 'tofu-registry-test-'): { path: string; remove: () => void } {
  const path = makeTempDir(prefix);
  return { path, remove: () => removeTempDir(path) };
}

/** An engine that trusts the test CA and sees an empty environment (never the real HOME). */
export function testEngine(reg: TestRegistry, options: EngineOptions = {}): Engine & { logs: LogEntry[] } {
  const logs: LogEntry[] = [];
  const engine = new Engine({
    env: { HOME: '/nonexistent-home-for-tests' },
    caFiles: [reg.caCertPath],
    timeoutMs: 5_000,
    ...options,
    log: (e) => { logs.push(e); options.log?.(e); },
  });
  return Object.assign(engine, { logs });
}

/** Run `fn` with a fresh registry and stop it afterwards. */
export async function withRegistry<T>(opts: { token?: string }, fn: (reg: TestRegistry) => Promise<T>): Promise<T> {
  const reg = await startTestRegistry(opts);
  try {
    return await fn(reg);
  } finally {
    await reg.stop();
  }
}
