// Conformance of the site with the modules.v1 protocol as tofu init uses it: OUT is served by a
// plain static file server (extensionless files as application/octet-stream), a CLI configuration
// `host` block points the origin host's modules.v1 at it, the origin registry and the git server
// are stopped, and every module is installed through the engine's own modules.v1 client exactly as
// tofu init installs it (versions → selection → download → relative location resolved against the
// download URL → whole package fetched → location subdir + call subdir applied). The installed
// files equal those of a direct install from the origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseModuleSource, RegistryModuleSource } from '../../../src/engine/addresses/module-source';
import type { Engine } from '../../../src/engine/engine';
import { mirrorModules } from '../../../src/engine/modmirror';
import { engineCaCertificates, fetchPackage, moduleDirectory } from '../../../src/engine/modulepkg/fetch';
import { selectVersions } from '../../../src/engine/versions';
import type { TestHttpsServer } from '../../support/https-server';
import { startModuleOrigin, ModuleOrigin, treeOf } from '../../support/module-origin';
import { startStaticServer } from '../../support/static-server';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
let site: TestHttpsServer;
after(async () => { await Promise.all([o.stop(), site?.stop()]); });
before(async () => { o = await startModuleOrigin(); });

/** Installs one module call the way tofu init does; returns what lands on disk. */
async function install(engine: Engine, source: string, constraint: string | null, cacheDir: string) {
  const src = parseModuleSource(source) as RegistryModuleSource;
  const sel = selectVersions((await engine.listModuleVersions(src)).versions, constraint, 'module');
  assert.ok(sel.selected, `${source} ${constraint}: ${JSON.stringify(sel)}`);
  const { location } = await engine.resolveDownloadLocation(src, sel.selected);
  const pkg = await fetchPackage(location, `${src.fullAddress}@${sel.selected}`, { http: engine.http, cacheDir, caCertificates: engineCaCertificates(engine) });
  const dir = await moduleDirectory(pkg.root, path.posix.join(pkg.subdir || '.', src.subdir ?? '.'), location);
  return { version: sel.selected, location, module: treeOf(dir), pkg: treeOf(pkg.root) };
}

test('served by a static file server through a host block, with the origin stopped, every module installs exactly as from the origin', async () => {
  const h = o.reg.host;
  // What tofu init installs for this configuration, nested calls included.
  const calls: Array<[string, string | null]> = [
    [`${h}/acme/app/aws`, '~> 1.0'], [`${h}/acme/base/aws`, '~> 1.0'], [`${h}/acme/leaf/aws`, null], [`${h}/acme/leaf/aws`, '0.1.0'],
    [`${h}/acme/multi/aws//vpc`, null], [`${h}/acme/gitmod/aws`, '1.0.0'],
  ];
  const ws = o.workspace('conformance', {
    'main.tf': [0, 4, 5].map((i) => `module "m${i}" {\n  source = "${calls[i][0]}"\n${calls[i][1] ? `  version = "${calls[i][1]}"\n` : ''}}\n`).join('\n'),
    'child/main.tf': `module "leaf" {\n  source  = "${h}/acme/leaf/aws"\n  version = "0.1.0"\n}\n`,
  });
  const out = path.join(tempDir('modmirror-conf-'), 'site');
  const report = await mirrorModules({ engine: o.engine(), dirs: [ws, path.join(ws, 'child')], out });
  assert.deepEqual(report.failed, []);
  assert.equal(report.mirrored.length, 5);

  const direct = o.engine();
  const expected = [];
  for (const [source, constraint] of calls) expected.push(await install(direct, source, constraint, tempDir('modmirror-conf-direct-')));

  site = await startStaticServer(out);
  const rc = path.join(tempDir('modmirror-conf-rc-'), 'tofurc');
  writeFileSync(rc, report.cliConfig.replace('https://mirror.example.com/', `${site.origin}/`));
  await Promise.all([o.reg.stop(), o.git.stop()]); // air-gapped from here on
  const viaMirror = o.engine({ cliConfigFile: rc });
  for (const [i, [source, constraint]] of calls.entries()) {
    const got = await install(viaMirror, source, constraint, tempDir('modmirror-conf-mirror-'));
    assert.equal(got.version, expected[i].version, source);
    assert.ok(got.location.startsWith(`${site.origin}/modules/${h}/`), got.location);
    assert.deepEqual(got.module, expected[i].module, `${source}: the module directory`);
    assert.deepEqual(got.pkg, expected[i].pkg, `${source}: the whole package`);
  }
  assert.equal(expected[4].location.endsWith('.tar.gz//modules'), true, 'the origin location has a //subdir');
  assert.equal(expected[4].module['main.tf'], 'variable "cidr" {}\n');
  assert.equal(expected[0].pkg['scripts/setup.sh'].startsWith('(x) '), true, 'the execute bit survives');
  // What the static server was asked: only the protocol's paths, never with credentials.
  const asked = [...new Set(site.requests.map((r) => r.path))].sort();
  assert.deepEqual(asked, [
    ...['app/aws/1.1.0', 'base/aws/1.1.0', 'gitmod/aws/1.0.0', 'leaf/aws/0.1.0', 'multi/aws/2.0.0'].flatMap((p) => [`${p}.tar.gz`, `${p}/download`]),
    ...['app', 'base', 'gitmod', 'leaf', 'multi'].map((m) => `${m}/aws/versions`),
  ].map((p) => `/modules/${h}/acme/${p}`).sort());
  assert.ok(site.requests.every((r) => r.authorization === undefined));
});
