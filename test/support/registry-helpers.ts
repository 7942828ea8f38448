// Small helpers for tests that talk to the test registry through a real Engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, EngineOptions, LogEntry } from '../../src/engine/engine';
import { startTestRegistry, TestRegistry } from './registry-server';

export function tempDir(prefix = 'tofu-registry-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
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
