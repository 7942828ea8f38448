#!/usr/bin/env node
// Runs the same Mocha integration suite (out/test/integration/index.js) in desktop VS Code through
// @vscode/test-electron — for developers with network access or a local VS Code
// (VSCODE_EXECUTABLE=/path/to/code skips the download). CI uses scripts/run-vscode-tests.js.
// Usage: npm run test:electron [-- --untrusted | --coexist]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runTests } = require('@vscode/test-electron');

const ROOT = path.resolve(__dirname, '..');

async function main() {
  const untrusted = process.argv.includes('--untrusted');
  const coexist = process.argv.includes('--coexist');
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'vscode-electron-'));
  // Removed however the run ends: normally, on an error, or on Ctrl-C / SIGTERM.
  const removeState = () => fs.rmSync(state, { recursive: true, force: true, maxRetries: 3 });
  for (const [signal, n] of [['SIGINT', 2], ['SIGTERM', 15]]) process.once(signal, () => { removeState(); process.exit(128 + n); });
  try {
    return await runIn(state, untrusted, coexist);
  } finally {
    removeState();
  }
}

async function runIn(state, untrusted, coexist) {
  // Whatever VS Code and the extension host put in a temp directory stays under state, and so do
  // the XDG directories (as in run-vscode-tests.js): the credentials-helper test installs its helper
  // into $XDG_DATA_HOME/opentofu/plugins, which must never be the developer's own plugin directory.
  for (const d of ['tmp', 'xdg/data', 'xdg/cache']) fs.mkdirSync(path.join(state, d), { recursive: true });
  process.env.TMPDIR = path.join(state, 'tmp');
  process.env.XDG_CONFIG_HOME = path.join(state, 'xdg');
  process.env.XDG_DATA_HOME = path.join(state, 'xdg/data');
  process.env.XDG_CACHE_HOME = path.join(state, 'xdg/cache');
  const ws = path.join(state, 'ws');
  fs.cpSync(path.join(ROOT, 'test/fixtures/ws'), ws, { recursive: true });
  const userData = path.join(state, 'ud');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'User/settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': untrusted,
    'security.workspace.trust.startupPrompt': 'never', 'tofuRegistry.diagnostics.debounceMs': 150,
  }));
  const results = path.join(state, 'results.txt');
  const exts = path.join(state, 'exts');
  // --coexist: an installed extension that claims `.tf` like hashicorp.terraform (so extensions stay enabled).
  if (coexist) fs.cpSync(path.join(ROOT, 'test/fixtures/ext-terraform-like'), path.join(exts, 'fixture.terraform-like-0.0.1'), { recursive: true });
  const launchArgs = [ws, '--user-data-dir', userData, '--extensions-dir', exts,
    ...(coexist ? [] : ['--disable-extensions']), '--skip-welcome', '--skip-release-notes'];
  if (!untrusted) launchArgs.push('--disable-workspace-trust');
  let code = 0;
  try {
    await runTests({
      ...(process.env.VSCODE_EXECUTABLE ? { vscodeExecutablePath: process.env.VSCODE_EXECUTABLE } : {}),
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: path.join(ROOT, 'out/test/integration/index.js'),
      launchArgs,
      extensionTestsEnv: {
        VSCODE_TEST_RESULTS: results,
        TOFU_REGISTRY_TEST_MODE: untrusted ? 'untrusted' : coexist ? 'coexist' : 'integration',
        TOFU_REGISTRY_TEST_WORKSPACE: ws,
      },
    });
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    code = 1;
  }
  if (fs.existsSync(results)) process.stdout.write(fs.readFileSync(results, 'utf8'));
  else console.log('0 passed, 1 failed');
  return code;
}

main().then((c) => process.exit(c), (e) => { console.error(e instanceof Error ? e.message : e); process.exit(2); });
