// The engine walks that take the caller's signal — getProviderPackage, the lock-file hover, the
// dependency graph, the lock gatherer, the module mirror — stop their network work at once when it
// aborts (a cancelled request, Ctrl+C): the real HTTPS test registry holds the request without
// answering, and sees its connection closed right after the abort, long before the 60 s request
// timeout; the walk itself settles at once too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { buildDependencyGraph } from '../../../src/engine/deps/graph';
import { lockProviders } from '../../../src/engine/lock';
import { mirrorModules } from '../../../src/engine/modmirror';
import type { FeatureContext } from '../../../src/features/context';
import { backendOf } from '../../../src/features/engine';
import { LockStatus } from '../../../src/features/lockStatus';
import { RegistryLookup } from '../../../src/features/lookup';
import { objectReader, settingsFrom } from '../../../src/features/settings';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/registry-helpers';

let reg: TestRegistry;
let work: { path: string; remove: () => void };
const engines: Engine[] = [];

/** Requests under `prefix` are held unanswered while `holding`; each says when its connection closed. */
const held: Array<{ path: string; closed: Promise<void> }> = [];
let holding = false;

before(async () => {
  reg = await startTestRegistry();
  work = tempDir('tofu-registry-cancel-');
  reg.server.route('/v1/', (_req, res: ServerResponse, url) => {
    if (!holding) return false;
    const closed = new Promise<void>((resolve) => res.once('close', () => { if (!res.writableFinished) resolve(); }));
    held.push({ path: url.pathname, closed });
    return undefined; // never answered
  });
});
after(async () => {
  for (const e of engines) await e.dispose();
  await reg.stop();
  work.remove();
});

function engine(): Engine {
  // a request timeout far past what the test waits: only the signal can end these requests
  const e = new Engine({ caFiles: [reg.caCertPath], env: { HOME: '/nonexistent' }, timeoutMs: 60_000, maxAttempts: 1 });
  engines.push(e);
  return e;
}

function dir(name: string, files: Record<string, string>): string {
  const d = join(work.path, name);
  mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return d;
}

async function until<T>(what: string, p: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `walk(signal)`, waits until a request is held at the registry, aborts, then expects every
 * held connection closed and the walk settled soon after.
 */
async function abortsItsRequests(what: string, walk: (signal: AbortSignal) => Promise<unknown>, pathPrefix: string): Promise<void> {
  held.length = 0;
  holding = true;
  const ac = new AbortController();
  const running = walk(ac.signal).then(() => 'settled', () => 'settled');
  try {
    await until(`${what}: a request held at ${pathPrefix}`, (async () => {
      while (!held.some((h) => h.path.startsWith(pathPrefix))) await new Promise((r) => setTimeout(r, 10));
    })());
    ac.abort();
    await until(`${what}: the held connections closed after the abort`, Promise.all(held.map((h) => h.closed)), 3000);
    assert.equal(await until(`${what}: the walk settled after the abort`, running, 3000), 'settled');
  } finally {
    holding = false;
  }
}

const H = () => reg.host;

test('getProviderPackage: the download answer\'s request is aborted with the signal', async () => {
  const e = engine();
  await e.discoverServices(H());
  await abortsItsRequests('getProviderPackage', (signal) => e.getProviderPackage(`${H()}/acme/widget`, '1.1.0', 'linux', 'amd64', { signal }),
    '/v1/providers/acme/widget/1.1.0/download/linux/amd64');
});

test('the lock gatherer (lockProviders): the version list request is aborted with the run\'s signal', async () => {
  const e = engine();
  const d = dir('lock', { 'main.tf': `terraform {\n  required_providers {\n    widget = { source = "${H()}/acme/widget" }\n  }\n}\n` });
  await abortsItsRequests('lockProviders', (signal) => lockProviders({ engine: e, dirs: [d], platforms: ['linux_amd64'], signal }),
    '/v1/providers/acme/widget/versions');
});

test('the dependency graph: module and provider version lists are aborted with its signal', async () => {
  const e = engine();
  const d = dir('graph', {
    'main.tf': `module "net" {\n  source  = "${H()}/acme/network/aws"\n  version = "~> 1.0"\n}\n`
      + `terraform {\n  required_providers {\n    widget = { source = "${H()}/acme/widget", version = "~> 1.0" }\n  }\n}\n`,
  });
  await abortsItsRequests('buildDependencyGraph', (signal) => buildDependencyGraph([d], { engine: e, signal }), '/v1/modules/acme/network/aws/versions');
});

test('the module mirror: its version list request is aborted with the run\'s signal', async () => {
  const e = engine();
  const d = dir('modmirror', { 'main.tf': `module "vpc" {\n  source  = "${H()}/infra/vpc/google"\n  version = "1.1.0"\n}\n` });
  await abortsItsRequests('mirrorModules', (signal) => mirrorModules({ engine: e, dirs: [d], out: join(work.path, 'modmirror-out'), signal }),
    '/v1/modules/infra/vpc/google/versions');
});

test('the lock-file hover: the download answer it asks for platform coverage is aborted with the hover', async () => {
  const e = engine();
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const ctx: FeatureContext = {
    engine: e, lookup: new RegistryLookup(backendOf(e)), log: silent, cacheDir: join(work.path, 'hover-cache'),
    networkAllowed: () => true,
    // no lock diagnostics run in the background: what the test sees is the hover's own work
    settings: () => settingsFrom(objectReader({ diagnostics: { enabled: false }, lock: { platforms: ['linux_amd64'] } })),
  };
  const d = dir('lock-hover', {});
  const text = `provider "${H()}/acme/widget" {\n  version = "1.1.0"\n  hashes = [\n    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",\n  ]\n}\n`;
  writeFileSync(join(d, '.terraform.lock.hcl'), text);
  const status = new LockStatus(ctx, { openTexts: () => new Map(), folderOf: () => d, publish: () => {} });
  try {
    await e.discoverServices(H());
    await abortsItsRequests('lock-file hover', (signal) => status.hover(join(d, '.terraform.lock.hcl'), text, text.indexOf('widget'), signal),
      '/v1/providers/acme/widget/1.1.0/download/');
  } finally {
    status.dispose();
  }
});
