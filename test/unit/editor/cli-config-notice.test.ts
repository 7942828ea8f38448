// The editors' engine (src/features/engine.ts, what the VS Code adapter and the language server both
// build): a CLI configuration file that does not parse is one warning shown to the user per session
// — not one per engine, which is rebuilt on every settings change — and a warning line in the log
// of each engine that reads it; a file that parses shows nothing. Real files, real HTTPS registry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, EngineHost } from '../../../src/features/engine';
import { objectReader, settingsFrom } from '../../../src/features/settings';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/registry-helpers';

let reg: TestRegistry;
let work: { path: string; remove: () => void };
before(async () => {
  reg = await startTestRegistry();
  work = tempDir('tofu-registry-cliconfig-notice-');
});
after(async () => {
  await reg.stop();
  work.remove();
});

test('one notification per problem and session, a log warning per engine; none for a file that parses', async () => {
  const broken = join(work.path, 'broken.tfrc');
  writeFileSync(broken, `credentials "${reg.host}" {\n  token = "t"\n`);
  const fine = join(work.path, 'fine.tfrc');
  writeFileSync(fine, `credentials "${reg.host}" {\n  token = "t"\n}\n`);
  const shown: string[] = [];
  const warned: string[] = [];
  const log = { debug() {}, info() {}, warn(m: string) { warned.push(m); }, error() {} };
  const host: EngineHost = { userAgent: 'test', networkAllowed: () => true, allowCredentialsHelper: () => false, showWarning: (m) => shown.push(m) };
  for (const [file, rounds] of [[broken, 2], [fine, 1]] as const) {
    for (let i = 0; i < rounds; i++) {
      // a settings change rebuilds the engine: it reads the files again
      const engine = createEngine(settingsFrom(objectReader({ caFile: reg.caCertPath, cliConfigFile: file, requestTimeoutSeconds: 5 + i })), join(work.path, 'cache'), log, host);
      try {
        await engine.discoverServices(reg.host);
      } finally {
        await engine.dispose();
      }
    }
  }
  assert.equal(shown.length, 1, shown.join('\n'));
  assert.match(shown[0], new RegExp(`^There are some problems with the CLI configuration: Error parsing ${broken.replace(/[.]/g, '\\.')}: line \\d+: `));
  assert.deepEqual(warned, [shown[0], shown[0]], 'logged by each engine that read it');
});

test('a filesystem mirror listing cut at its bound: one notification per session, a log warning per engine, however often the list is asked for', async () => {
  const { mkdirSync } = await import('node:fs');
  const { Engine } = await import('../../../src/engine/engine');
  const { engineOptions, backendOf } = await import('../../../src/features/engine');
  const { parseProviderSource } = await import('../../../src/engine/addresses/provider-source');
  const mirror = join(work.path, 'fs-mirror');
  const typeDir = join(mirror, 'registry.opentofu.org', 'hashicorp', 'random');
  for (const v of ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0']) mkdirSync(join(typeDir, v, 'linux_amd64'), { recursive: true });
  const rc = join(work.path, 'mirror.tfrc');
  writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
  const shown: string[] = [];
  const warned: string[] = [];
  const log = { debug() {}, info() {}, warn(m: string) { warned.push(m); }, error() {} };
  const host: EngineHost = { userAgent: 'test', networkAllowed: () => true, allowCredentialsHelper: () => false, showWarning: (m) => shown.push(m) };
  for (let i = 0; i < 2; i++) {
    // a settings change rebuilds the engine; the directory holds 5 entries, 3 are read
    const engine = new Engine({ ...engineOptions(settingsFrom(objectReader({ cliConfigFile: rc, requestTimeoutSeconds: 5 + i })), join(work.path, `cache-${i}`), log, host), maxFsMirrorEntries: 3 });
    try {
      const backend = backendOf(engine);
      for (let k = 0; k < 3; k++) assert.deepEqual([...await backend.providerVersions(parseProviderSource('hashicorp/random'))], ['1.2.0', '1.1.0', '1.0.0']);
    } finally {
      await engine.dispose();
    }
  }
  assert.equal(shown.length, 1, shown.join('\n'));
  assert.match(shown[0], new RegExp(`^the filesystem mirror directory ${typeDir.replace(/[.]/g, '\\.')} holds 5 entries: only the first 3 by name were read, so what is listed from it may be incomplete$`));
  assert.deepEqual(warned, [shown[0], shown[0]], 'logged by each engine that read it');
});
