// The ready-to-paste `host` blocks (cliConfig): a host block replaces the origin's service
// discovery as a whole, so it must carry every other service the origin announced — base URLs and
// objects such as login.v1 — for `tofu login` and providers from that host to keep working, with
// only modules.v1 pointing at the mirror. Checked by reading the rendered HCL back with the
// project's own CLI configuration reader, and by discovery through an engine using that block.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCliConfigHcl } from '../../../src/engine/cliconfig/read';
import { mirrorModules } from '../../../src/engine/modmirror';
import { startModuleOrigin, ModuleOrigin } from '../../support/module-origin';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
before(async () => { o = await startModuleOrigin(); });
after(async () => { await o.stop(); });

const LOGIN = { client: 'tofu-cli', grant_types: ['authz_code'], authz: '/oauth/authorization', token: 'https://auth.example.com/oauth/token', ports: [10000, 10010] };

test('cliConfig carries the origin\'s other services unchanged, objects (login.v1) as HCL objects; modules.v1 points at the mirror', async () => {
  const h = o.reg.host;
  o.reg.setDiscovery({
    'modules.v1': '/v1/modules', 'providers.v1': '/v1/providers/', 'tfe.v2.1': '/api/v2/', 'login.v1': LOGIN,
    'flags.v1': { enabled: true, limits: { max: 3, names: ['a', 'b'] }, unset: null }, 'gone.v1': null,
  });
  try {
    const ws = o.workspace('hostblocks', { 'main.tf': `module "b" {\n  source  = "${h}/acme/base/aws"\n  version = "1.0.0"\n}\n` });
    const r = await mirrorModules({ engine: o.engine(), dirs: [ws], out: join(tempDir('modmirror-hostblocks-'), 'site'), baseUrl: 'https://artifacts.example.com/tf' });
    assert.deepEqual(r.failed, []);
    const expected = {
      'modules.v1': `https://artifacts.example.com/tf/modules/${h}/`,
      'providers.v1': `${o.reg.origin}/v1/providers/`,
      'tfe.v2.1': `${o.reg.origin}/api/v2/`,
      // relative to the discovery URL at the origin: made absolute, it means the same from a host block
      'login.v1': { ...LOGIN, authz: `${o.reg.origin}/oauth/authorization` },
      'flags.v1': { enabled: true, limits: { max: 3, names: ['a', 'b'] } },
    };
    assert.deepEqual(parseCliConfigHcl(r.cliConfig).hosts, [{ host: h, services: expected }]);
    assert.ok(r.cliConfig.includes(`    "login.v1"     = {\n      "client"      = "tofu-cli"\n      "grant_types" = ["authz_code"]\n`), r.cliConfig);

    // tofu (here the engine) given that block discovers the origin's services as before, modules.v1 aside
    const rc = join(tempDir('modmirror-hostblocks-rc-'), 'tofurc');
    writeFileSync(rc, r.cliConfig);
    const viaBlock = await o.engine({ cliConfigFile: rc }).discoverServices(h);
    const direct = await o.engine().discoverServices(h);
    assert.equal(viaBlock.source, 'cli-config');
    assert.deepEqual(viaBlock.objectServices, { 'login.v1': expected['login.v1'], 'flags.v1': expected['flags.v1'] });
    assert.deepEqual(direct.objectServices, { 'login.v1': expected['login.v1'], 'flags.v1': { ...expected['flags.v1'], unset: null } });
    assert.deepEqual({ ...viaBlock.services, 'modules.v1': undefined }, { ...direct.services, 'modules.v1': undefined });
  } finally {
    o.reg.setDiscovery({ 'modules.v1': '/v1/modules', 'providers.v1': '/v1/providers/' });
  }
});
