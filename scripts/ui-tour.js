// A screenshot tour of the extension as a user sees it, driven through the real workbench
// (code-server + headless Chromium, keyboard only). Used by `node scripts/run-vscode-tests.js --tour`:
// that script starts code-server and the browser; this module prepares a realistic workspace against
// the embedded demo registry (test/support/demo-registry.ts: private modules with 200-JSON and
// 204-header downloads, a typed module archive, signed providers) and walks through the features,
// writing one PNG per step into --out DIR (default test-output/tour/). Each step also checks the
// text the widget shows, so the tour fails loudly when a feature did not appear.
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts the demo registry and writes main.tf / versions.tf into `folder`. */
async function prepareTour(folder, state) {
  const supportJs = path.join(ROOT, 'out/test/support/demo-registry.js');
  if (!fs.existsSync(supportJs)) throw new Error(`${supportJs} missing: run npm run compile`);
  const demo = await require(supportJs).startDemoRegistry();
  const host = demo.registry.host;
  // Only the tour's own files: the fixture workspace's extra files would clutter the Problems panel.
  for (const f of fs.readdirSync(folder)) fs.rmSync(path.join(folder, f), { recursive: true, force: true });
  const main = [
    '# Modules from the private registry ' + host,
    'module "network" {',
    `  source  = "${host}/acme/network/aws"`,
    '  version = ""',
    '}',
    '',
    'module "storage" {',
    `  source  = "${host}/acme/storage/azurerm"`,
    '  version = "~> 1.0"',
    '}',
    '',
    'module "vpc" {',
    `  source  = "${host}/infra/vpc/google"`,
    '  version = "~> 1.0"',
    '',
    '  name        = "demo"',
    '  cidr_blocks = "10.0.0.0/16"',
    '',
    '}',
    '',
    'module "cluster" {',
    `  source  = "${host}/platform/cluster/kubernetes"`,
    '  version = ">= 1.0"',
    '}',
    '',
    'module "dns" {',
    `  source = "${host}/infra/dns/google"`,
    '}',
    '',
    'module "queue" {',
    `  source  = "${host}/acme/queue/aws"`,
    '  version = "~> 2.0"',
    '}',
    '',
  ].join('\n');
  const versions = [
    'terraform {',
    '  required_providers {',
    '    cloud = {',
    `      source  = "${host}/acme/cloud"`,
    '      version = "~> 1.2"',
    '    }',
    '    dns = {',
    `      source  = "${host}/acme/dns"`,
    '      version = ""',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(folder, 'main.tf'), main);
  fs.writeFileSync(path.join(folder, 'versions.tf'), versions);
  // Dependencies view: a lock file that holds cloud back at 1.2.0, and a second stack.
  fs.writeFileSync(path.join(folder, '.terraform.lock.hcl'), `provider "${host}/acme/cloud" {\n  version = "1.2.0"\n}\n`);
  fs.mkdirSync(path.join(folder, 'stacks', 'prod'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'stacks', 'prod', 'main.tf'), [
    'module "vpc" {', `  source  = "${host}/infra/vpc/google"`, '  version = "~> 2.0"', '}', '',
    'terraform {', '  required_providers {', '    dns = {', `      source  = "${host}/acme/dns"`, '      version = "~> 0.5"', '    }', '  }', '}', '',
  ].join('\n'));
  const outputs = 'output "vpc" {\n  value = module.vpc.\n}\n';
  fs.writeFileSync(path.join(folder, 'outputs.tf'), outputs);
  const mirrorOut = path.join(state, 'mirror');
  fs.mkdirSync(mirrorOut, { recursive: true });
  return { demo, registry: demo.registry, uiFile: path.join(folder, 'main.tf'), files: { main, versions, outputs }, mirrorOut };
}

/** 1-based line:column of the n-th `needle` in `text`, plus `delta` characters. */
function lineCol(text, needle, delta = 0) {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`tour: ${needle} not in file`);
  const before = text.slice(0, at + delta).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

async function runTour(page, t, outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  const results = [];
  const kb = page.keyboard;
  const step = async (name, fn) => {
    const t0 = Date.now();
    let text = '';
    let ok = false;
    try {
      ({ text, ok } = await fn());
    } catch (e) {
      text = `error: ${e && e.message}`;
    }
    await page.screenshot({ path: path.join(outDir, `${name}.png`) }).catch(() => {});
    results.push({ name, ok });
    console.log(`${ok ? 'ok' : 'not ok'} - tour ${name} (${Date.now() - t0}ms): ${JSON.stringify(text.slice(0, 900))}`);
  };
  const escape = async (n = 2) => { for (let i = 0; i < n; i++) { await kb.press('Escape'); await sleep(150); } };
  const goTo = async (where) => {
    await escape();
    await kb.press('Control+G');
    await sleep(300);
    await kb.type(where);
    await kb.press('Enter');
    await sleep(300);
  };
  const palette = async (command) => {
    await escape();
    await kb.press('F1');
    await page.waitForSelector('.quick-input-widget', { state: 'visible', timeout: 10000 });
    await kb.type(command);
    await sleep(600);
    await kb.press('Enter');
  };
  const openFile = async (name) => {
    await escape();
    await kb.press('Control+P');
    await sleep(400);
    await kb.type(name);
    await sleep(800);
    await kb.press('Enter');
    await sleep(800);
  };
  const textOf = (sel) => page.$$eval(sel, (els) => els.filter((e) => e.getClientRects().length > 0).map((e) => e.innerText).join('\n---\n'));
  /** Retries `attempt` until `want` matches the text it returns. */
  const until = async (attempt, want, ms = 30000) => {
    let text = '';
    for (const end = Date.now() + ms; Date.now() < end;) {
      text = await attempt().catch((e) => `error: ${e.message}`);
      if (want.test(text)) return { text, ok: true };
      await sleep(700);
    }
    return { text, ok: false };
  };
  const suggestAt = async (where, want) => until(async () => {
    await goTo(where);
    await kb.press('Control+Space');
    await page.waitForSelector('.suggest-widget.visible .monaco-list-row', { timeout: 5000 });
    await sleep(700);
    // show the details pane of the focused item (the documentation of the completion)
    const list = await textOf('.suggest-widget.visible');
    if (!want.test(list)) return list;
    // the details pane of the focused item (what the completion's detail/documentation say)
    await kb.press('Control+Space');
    await sleep(500);
    return textOf('.suggest-widget.visible, .suggest-details-container');
  }, want);
  const hoverAt = async (where, want) => until(async () => {
    await goTo(where);
    await kb.press('Control+K');
    await kb.press('Control+I');
    await page.waitForSelector('.monaco-hover:not(.hidden) .hover-contents', { timeout: 6000 });
    await sleep(500);
    return textOf('.monaco-hover .hover-contents');
  }, want);

  const main = t.files.main;
  await page.waitForSelector('.monaco-editor .view-lines', { timeout: 90000 });
  await page.click('.monaco-editor .view-lines');

  await step('01-completion-module-version', () => suggestAt(lineCol(main, 'version = ""', 11), /2\.1\.0[\s\S]*selected/));
  await kb.press('Enter'); // accept the preselected version: the file is now valid
  await sleep(300);

  await step('02-hover-constraint', () => hoverAt(lineCol(main, '"~> 1.0"', 3), /tofu init/));
  await step('03-hover-source-204', () => hoverAt(lineCol(main, 'acme/storage/azurerm', 2), /downloads\.example\.com/));
  await step('04-hover-source-json', () => hoverAt(lineCol(main, 'acme/network/aws', 2), /git\.example\.com/));
  await escape();

  await step('05-diagnostics-problems', () => until(async () => {
    await kb.press('Control+Shift+M');
    await sleep(800);
    return textOf('.markers-panel');
  }, /not found[\s\S]*satisf|satisf[\s\S]*not found/));
  await step('06-codelens', async () => {
    await goTo(lineCol(main, 'module "vpc"', 0));
    return until(() => textOf('.contentWidgets .codelens-decoration, .codelens-decoration'), /newer version|missing version/);
  });
  await step('07-quickfix-menu', () => until(async () => {
    await goTo(lineCol(main, '">= 1.0"', 3));
    await kb.press('Control+.');
    await page.waitForSelector('.action-widget', { state: 'visible', timeout: 5000 });
    await sleep(500);
    return textOf('.action-widget');
  }, /0\.3\.0/));
  await escape();
  await step('08-type-mismatch', () => hoverAt(lineCol(main, '"10.0.0.0/16"', 3), /list|string/));
  await step('09-completion-module-inputs', () => suggestAt(lineCol(main, '  cidr_blocks = "10.0.0.0/16"\n\n', 30), /subnets/));
  await escape();

  await openFile('versions.tf');
  await step('10-completion-provider-version', () => suggestAt(lineCol(t.files.versions, 'version = ""', 11), /0\.5\.0/));
  await kb.press('Enter');
  await sleep(300);

  await step('11-mirror-report', async () => {
    await palette('OpenTofu: Mirror providers');
    // the output folder: VS Code's simple file dialog in the browser (a path in a quick input)
    await page.waitForSelector('.quick-input-widget .quick-input-box input', { state: 'visible', timeout: 10000 });
    await sleep(800);
    await kb.press('Control+A');
    await kb.type(t.mirrorOut);
    // the dialog validates the typed path asynchronously: accept until it closes
    for (let i = 0; i < 5 && await page.isVisible('.quick-input-widget'); i++) {
      await sleep(1200);
      await kb.press('Enter');
    }
    // the report opens as Markdown source plus its preview (a webview): read every frame
    return until(async () => {
      let text = '';
      for (const f of page.frames()) text += (await f.evaluate(() => (document.body ? document.body.innerText : '')).catch(() => '')) + '\n';
      return text;
    }, /Provider mirror/, 90000);
  });
  await sleep(1500);
  await step('12-mirror-report-preview', async () => {
    const frames = page.frames();
    let text = '';
    for (const f of frames) text += await f.evaluate(() => document.body && document.body.innerText).catch(() => '') || '';
    return { text, ok: /provider_installation|filesystem_mirror/.test(text) };
  });
  await step('13-show-log', async () => {
    await palette('OpenTofu Registry: Show log');
    return until(() => textOf('.output-view, .part.panel .monaco-editor .view-lines'), /GET\s/);
  });

  await palette('View: Close Panel');
  await openFile('outputs.tf');
  await step('14-completion-module-outputs', () => until(async () => {
    await goTo(lineCol(t.files.outputs, 'module.vpc.', 11));
    await kb.press('Control+Space');
    await page.waitForSelector('.suggest-widget.visible .monaco-list-row', { timeout: 5000 });
    await sleep(500);
    for (let i = 0; i < 2; i++) await kb.press('ArrowDown'); // vpc_id, with its description
    await sleep(300);
    // the details pane's visibility is remembered across sessions: show it when hidden
    if (!(await page.isVisible('.suggest-details-container .suggest-details'))) await kb.press('Control+Space');
    await sleep(500);
    return textOf('.suggest-widget.visible, .suggest-details-container');
  }, /flow_log_key[\s\S]*vpc_id[\s\S]*ID of the VPC/));
  await escape();
  await step('15-dependencies-view', async () => {
    // earlier steps typed into versions.tf: put back a clean file (dns held below its newest)
    await openFile('versions.tf');
    fs.writeFileSync(path.join(path.dirname(t.uiFile), 'versions.tf'), t.files.versions.replace('version = ""', 'version = "~> 0.4.0"'));
    await palette('File: Revert File');
    await palette('Explorer: Focus on OpenTofu Dependencies View');
    // room for the tree: the folder section collapsed, the side bar wider
    const folders = await page.$('.explorer-folders-view');
    if (folders) await page.click('.split-view-view:has(.explorer-folders-view) .pane-header').catch(() => {});
    const sash = await page.$('.part.sidebar + .monaco-sash, .sidebar ~ .monaco-sash.vertical');
    const box = await page.evaluate(() => {
      const el = document.querySelector('.part.sidebar');
      const r = el && el.getBoundingClientRect();
      return r ? { x: r.right, y: r.top + r.height / 2 } : null;
    });
    if (box && !sash) {
      await page.mouse.move(box.x, box.y);
      await page.mouse.down();
      await page.mouse.move(box.x + 330, box.y, { steps: 8 });
      await page.mouse.up();
    }
    return until(() => textOf('.pane'), /OPENTOFU DEPENDENCIES[\s\S]*locked 1\.2\.0[\s\S]*newest 2\.0\.0[\s\S]*~> 0\.4\.0/i, 60000);
  });

  const passed = results.filter((r) => r.ok).length;
  console.log(`[vscode-tour] screenshots in ${outDir}`);
  console.log(`${passed} passed, ${results.length - passed} failed`);
  return passed === results.length ? 0 : 1;
}

module.exports = { prepareTour, runTour };
