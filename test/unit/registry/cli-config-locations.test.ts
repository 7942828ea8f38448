// Which CLI configuration files are read, and in which order, ported from OpenTofu's
// internal/command/cliconfig/config_locations_unix_test.go (TestConfigFileLocations,
// TestDataDirLocations) with the same generated files (testdata/config-location.tpl): file i
// declares host "config{i}" and one host "{j}and{k}" per other file, each with "modules.v{i}", so
// the merged hosts show which files were read and which one won. Real files in a temp HOME.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliConfigLocations } from '../../../src/engine/cliconfig/locations';
import { loadCliSettings } from '../../../src/engine/cliconfig/settings';
import { currentPlatform } from '../../../src/engine/providerpkg/platform';
import { tempDir } from '../../support/temp';

/** OpenTofu's getFile(i, n) rendered through config-location.tpl. */
function locationFile(i: number, n: number): string {
  const host = (name: string) => `host "${name}.example.com" {\n  services = {\n    "modules.v${i}" = "https://${name}.example.com/",\n  }\n}\n`;
  const pairs = Array.from({ length: n }, (_, x) => x).filter((x) => x !== i).map((x) => (x < i ? `${x}and${i}` : `${i}and${x}`));
  return [host(`config${i}`), ...pairs.map(host)].join('');
}

type Expected = Record<string, number>; // host prefix → the v of "modules.vN"

const CASES: Array<{ name: string; files: string[]; dirs?: string[]; env?: Record<string, string>; expected: Expected }> = [
  { name: '.tofurc only', files: ['.tofurc'], expected: { config0: 0 } },
  { name: '.terraformrc only', files: ['.terraformrc'], expected: { config0: 0 } },
  { name: '.terraformrc and .tofurc', files: ['.terraformrc', '.tofurc'], expected: { config1: 1, '0and1': 1 } },
  { name: 'xdg directory, but with .tofurc and .terraformrc present', files: ['.terraformrc', '.tofurc', '.myconfig/opentofu/tofurc'],
    dirs: ['.myconfig'], env: { XDG_CONFIG_HOME: '.myconfig' }, expected: { config1: 1, '0and1': 1, '1and2': 1 } },
  { name: 'xdg directory without .tofurc and .terraformrc present', files: ['.myconfig/opentofu/tofurc'], dirs: ['.myconfig'],
    env: { XDG_CONFIG_HOME: '.myconfig' }, expected: { config0: 0 } },
  { name: 'ignore everything else when env override is present', files: ['mytofufile', '.terraformrc', '.tofurc'],
    env: { TF_CLI_CONFIG_FILE: 'mytofufile' }, expected: { config0: 0, '0and1': 0, '0and2': 0 } },
  { name: 'tfrc files are loaded from xdg config dirs and config home',
    files: ['.myconfig/opentofu/home.tfrc', 'confdir/opentofu/conf.tfrc', 'confdir2/opentofu/conf.tfrc'],
    dirs: ['.myconfig', 'confdir/opentofu', 'confdir2/opentofu'], env: { XDG_CONFIG_HOME: '.myconfig', XDG_CONFIG_DIRS: 'confdir:confdir2' },
    expected: { '0and1': 0, '0and2': 0, '1and2': 1, config0: 0, config1: 1, config2: 2 } },
  { name: '.tofurc and conf dir tfrc files are loaded', files: ['.tofurc', 'confdir/opentofu/conf.tfrc'], dirs: ['confdir/opentofu'],
    env: { XDG_CONFIG_DIRS: 'confdir' }, expected: { '0and1': 1, config0: 0, config1: 1 } },
];

for (const c of CASES) {
  test(`cli config locations (OpenTofu TestConfigFileLocations): ${c.name}`, { skip: process.platform === 'win32' ? 'Unix locations' : false }, () => {
    const home = tempDir('cliconf-loc-');
    const abs = (p: string) => join(home, p);
    for (const d of c.dirs ?? []) mkdirSync(abs(d), { recursive: true });
    c.files.forEach((f, i) => {
      mkdirSync(dirname(abs(f)), { recursive: true });
      writeFileSync(abs(f), locationFile(i, c.files.length));
    });
    const env: NodeJS.ProcessEnv = { HOME: home };
    for (const [k, v] of Object.entries(c.env ?? {})) env[k] = v.split(':').map(abs).join(':');
    const settings = loadCliSettings(cliConfigLocations(env).files);
    const got = Object.fromEntries([...settings.hosts.values()].map((h) => [h.host.replace(/\.example\.com$/, ''), Number(Object.keys(h.services)[0].slice('modules.v'.length))]));
    assert.deepEqual(got, c.expected);
  });
}

test('cli config locations: credentials helpers are looked for in the data directories (OpenTofu TestDataDirLocations + globalPluginDirs)', { skip: process.platform === 'win32' ? 'Unix locations' : false }, () => {
  const home = tempDir('cliconf-data-');
  const td = join(home, '.terraform.d');
  assert.deepEqual(cliConfigLocations({ HOME: home }).pluginDirs, [join(td, 'plugins'), join(td, 'plugins', currentPlatform())]);
  const xdg = join(home, '.mydata');
  assert.deepEqual(cliConfigLocations({ HOME: home, XDG_DATA_HOME: xdg }).pluginDirs,
    [join(td, 'plugins'), join(td, 'plugins', currentPlatform()), join(xdg, 'opentofu', 'plugins'), join(xdg, 'opentofu', 'plugins', currentPlatform())]);
  // TestConfigDirLocations: $XDG_CONFIG_HOME/opentofu only while ~/.terraform.d does not exist
  const xdgConfig = join(home, '.myconfig');
  mkdirSync(join(xdgConfig, 'opentofu'), { recursive: true });
  writeFileSync(join(xdgConfig, 'opentofu', 'a.tfrc'), '');
  assert.deepEqual(cliConfigLocations({ HOME: home, XDG_CONFIG_HOME: xdgConfig }).files, [join(xdgConfig, 'opentofu', 'a.tfrc')]);
  mkdirSync(td);
  writeFileSync(join(td, 'b.tfrc'), '');
  assert.deepEqual(cliConfigLocations({ HOME: home, XDG_CONFIG_HOME: xdgConfig }).files, [join(td, 'b.tfrc')]);
});
