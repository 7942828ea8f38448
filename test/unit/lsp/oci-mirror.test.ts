// The language server's mirror command into an OCI registry: {"oci": TEMPLATE} or {"oci": true}
// with the tofuRegistry.oci.providerRepositoryTemplate setting — the same report as
// `mirror --oci --json`, pushed to a real registry (CNCF Distribution on 127.0.0.1), with $/progress.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Fixture, startFixture, writeConfig } from '../mirror/fixture';
import { startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/registry-helpers';
import { startLsp } from '../../support/lsp-client';

let fx: Fixture;
let reg: TestOciRegistry;
let tmp: { path: string; remove: () => void };

before(async () => {
  fx = await startFixture();
  await fx.addProvider('acme', 'alpha', ['1.0.0'], ['linux_amd64', 'darwin_arm64']);
  reg = await startOciRegistry({ auth: 'none' });
  tmp = tempDir('tofu-registry-lsp-oci-');
});
after(async () => {
  await reg.stop();
  await fx.stop();
  tmp.remove();
});

test('lsp: tofuRegistry.mirrorProviders with "oci" pushes into the registry the setting names; a re-run is up to date; "out" and "oci" exclude each other', async () => {
  const dir = writeConfig(fx.root, { alpha: { source: `${fx.reg.host}/acme/alpha`, version: '1.0.0' } });
  const ws = path.join(tmp.path, 'ws');
  mkdirSync(ws, { recursive: true });
  const template = `${reg.host}/mirror/\${namespace}/\${type}`;
  const s = startLsp(['--stdio', '--cache-dir', path.join(tmp.path, 'cache')], { PATH: process.env.PATH, HOME: path.join(tmp.path, 'home') });
  try {
    await s.conn.sendRequest('initialize', {
      processId: process.pid, rootUri: pathToFileURL(ws).href, workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }], capabilities: {},
      initializationOptions: { tofuRegistry: { caFile: fx.reg.caCertPath, oci: { providerRepositoryTemplate: template } } },
    });
    await s.conn.sendNotification('initialized', {});
    const progress: string[] = [];
    s.conn.onNotification('$/progress', (p: { token: string; value: { kind: string } }) => { if (p.token === 'oci-1') progress.push(p.value.kind); });
    type Report = { repositoryTemplate: string; pushed: Array<{ platform: string; repository: string; tag: string; digest: string }>; upToDate: unknown[]; failed: unknown[] };
    const first = await s.conn.sendRequest('workspace/executeCommand', {
      command: 'tofuRegistry.mirrorProviders', arguments: [{ dirs: [dir], oci: true, platforms: ['linux_amd64', 'darwin_arm64'] }], workDoneToken: 'oci-1',
    }) as Report;
    assert.equal(first.repositoryTemplate, template);
    assert.deepEqual(first.failed, []);
    assert.deepEqual(first.pushed.map((p) => p.platform).sort(), ['darwin_arm64', 'linux_amd64']);
    assert.ok(first.pushed.every((p) => p.repository === `${reg.host}/mirror/acme/alpha` && p.tag === '1.0.0' && /^sha256:[0-9a-f]{64}$/.test(p.digest)));
    assert.ok(reg.requests.some((r) => r.method === 'PUT' && r.path.includes('/mirror/acme/alpha/manifests/1.0.0')), 'the tag was written on the registry');
    assert.deepEqual(progress, ['begin', 'report', 'report', 'end'], 'work-done progress: one report per platform package');

    const again = await s.conn.sendRequest('workspace/executeCommand', {
      command: 'tofuRegistry.mirrorProviders', arguments: [{ dirs: [dir], oci: template, platforms: ['linux_amd64', 'darwin_arm64'] }],
    }) as Report;
    assert.deepEqual([again.pushed.length, again.upToDate.length, again.failed.length], [0, 2, 0]);

    await assert.rejects(s.conn.sendRequest('workspace/executeCommand', {
      command: 'tofuRegistry.mirrorProviders', arguments: [{ dirs: [dir], oci: template, out: path.join(tmp.path, 'out') }],
    }), /exclude each other/);
  } finally {
    await s.close();
  }
});
