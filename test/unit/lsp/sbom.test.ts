// The language server's "Export SBOM" command (workspace/executeCommand tofuRegistry.exportSbom):
// the same document as `tofu-registry sbom` (features/sbom.ts), written to the file given with
// work-done progress; offline (or without "out") the document comes back in the result.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { packDirectory } from '../../../src/engine/modmirror/tarball';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { startLsp } from '../../support/lsp-client';
import { tempDir } from '../../support/temp';

let reg: TestRegistry;
let work: string;
let archive: Buffer;

before(async () => {
  reg = await startTestRegistry({ fixtures: false });
  work = tempDir('tofu-registry-lsp-sbom-');
  mkdirSync(path.join(work, 'pkg'), { recursive: true });
  writeFileSync(path.join(work, 'pkg', 'main.tf'), 'variable "name" {\n  type = string\n}\n');
  await packDirectory(path.join(work, 'pkg'), path.join(work, 'net.tar.gz'));
  archive = readFileSync(path.join(work, 'net.tar.gz'));
  reg.addFile('/archives/net-1.0.0.tar.gz', archive, 'application/gzip');
  reg.addModule({ namespace: 'acme', name: 'net', system: 'aws', versions: ['1.0.0'] , location: (v) => ({ kind: 'json', location: `${reg.origin}/archives/net-${v}.tar.gz` }) });
  mkdirSync(path.join(work, 'ws'), { recursive: true });
  writeFileSync(path.join(work, 'ws', 'main.tf'), `module "net" {\n  source  = "${reg.host}/acme/net/aws"\n  version = "1.0.0"\n}\n`);
});
after(async () => {
  await reg.stop();
  rmSync(work, { recursive: true, force: true });
});

test('lsp: tofuRegistry.exportSbom writes a schema-valid CycloneDX document with the fetched package\'s hash; offline, the document comes back without a hash', async () => {
  const ws = path.join(work, 'ws');
  const s = startLsp(['--stdio', '--cache-dir', path.join(work, 'cache')], { PATH: process.env.PATH, HOME: path.join(work, 'home'), SOURCE_DATE_EPOCH: '1767225600' });
  try {
    await s.conn.sendRequest('initialize', {
      processId: process.pid, rootUri: pathToFileURL(ws).href, workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }], capabilities: {},
      initializationOptions: { tofuRegistry: { caFile: reg.caCertPath } },
    });
    await s.conn.sendNotification('initialized', {});
    const progress: string[] = [];
    s.conn.onNotification('$/progress', (p: { token: string; value: { kind: string } }) => { if (p.token === 'sbom-1') progress.push(p.value.kind); });
    const out = path.join(work, 'sbom.cdx.json');
    const r = await s.conn.sendRequest('workspace/executeCommand', { command: 'tofuRegistry.exportSbom', arguments: [{ out }], workDoneToken: 'sbom-1' }) as
      { format: string; out: string; text?: string; components: number; offline: boolean };
    assert.deepEqual([r.format, r.out, r.text, r.offline, r.components], ['cyclonedx', out, undefined, false, 2]);
    const text = readFileSync(out, 'utf8');
    assert.equal(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text), null);
    const doc = JSON.parse(text) as { metadata: { timestamp: string }; components: Array<{ 'bom-ref': string; hashes?: Array<{ content: string }> }> };
    assert.equal(doc.metadata.timestamp, '2026-01-01T00:00:00Z');
    assert.deepEqual(doc.components.find((c) => c['bom-ref'] === `module:${reg.host}/acme/net/aws@1.0.0`)?.hashes?.map((h) => h.content),
      [createHash('sha256').update(archive).digest('hex')]);
    assert.deepEqual(progress, ['begin', 'end']);

    const off = await s.conn.sendRequest('workspace/executeCommand', { command: 'tofuRegistry.exportSbom', arguments: [{ dirs: [ws], format: 'spdx', offline: true }] }) as
      { text: string; offline: boolean; notes: string[] };
    assert.equal(off.offline, true);
    const spdx = JSON.parse(off.text) as { spdxVersion: string; packages: Array<{ name: string; checksums?: unknown }> };
    assert.equal(spdx.spdxVersion, 'SPDX-2.3');
    assert.equal(spdx.packages.find((p) => p.name === `${reg.host}/acme/net/aws`)?.checksums, undefined, 'offline: no hash invented');
    assert.ok(off.notes.some((n) => /not installed \(run tofu init\)/.test(n)), off.notes.join('\n'));
    await assert.rejects(s.conn.sendRequest('workspace/executeCommand', { command: 'tofuRegistry.exportSbom', arguments: [{ format: 'xml' }] }), /"format" must be/);
  } finally {
    await s.close();
  }
});
