// End to end in a real editor: headless Neovim (Debian's `neovim`, 0.7 on bookworm; installed by
// scripts/test-packages.sh) with its built-in LSP client and `tofu-registry lsp`, against the HTTPS
// test registry. Neovim runs with --clean and every XDG directory in the test's temp dir: it never
// reads or writes the user's configuration. test/fixtures/lsp/neovim-e2e.lua drives it.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/registry-helpers';
import { CLI } from '../../support/lsp-client';

const SCRIPT = path.resolve(__dirname, '../../../../test/fixtures/lsp/neovim-e2e.lua');
const nvim = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
const NVIM_MISSING = nvim.status === 0 ? false : 'nvim is not installed (scripts/test-packages.sh installs Debian\'s neovim)';

let reg: TestRegistry;
let tmp: { path: string; remove: () => void };
before(async () => {
  reg = await startTestRegistry();
  tmp = tempDir('tofu-registry-nvim-');
});
after(async () => {
  await reg.stop();
  tmp.remove();
});

interface E2eResult {
  steps: string[];
  error?: string;
  diagnostics: Array<{ code?: string; message: string; source?: string }>;
  shown: string[];
  completion: string[];
  hover: string;
  actions: string[];
  lines: string[];
}

describe('Neovim headless with its built-in LSP client', { skip: NVIM_MISSING }, () => {
  it('completes versions newest first, hovers the download location, flags an unknown module and applies a quick fix', async () => {
    const ws = path.join(tmp.path, 'ws');
    const home = path.join(tmp.path, 'home');
    for (const d of [ws, home]) mkdirSync(d, { recursive: true });
    const file = path.join(ws, 'main.tf');
    writeFileSync(file, [
      'module "net" {', `  source  = "${reg.host}/acme/network/aws"`, '  version = "~> 1.0"', '}', '',
      'module "vpc" {', `  source  = "${reg.host}/infra/vpc/google"`, '  version = ""', '}', '',
      'module "nope" {', `  source  = "${reg.host}/acme/nope/aws"`, '}', '',
    ].join('\n'));
    const result = path.join(tmp.path, 'result.json');
    const xdg = (name: string) => path.join(tmp.path, 'xdg', name);
    const env = {
      PATH: process.env.PATH, HOME: home, TERM: 'dumb', GIT_TERMINAL_PROMPT: '0',
      XDG_CONFIG_HOME: xdg('config'), XDG_DATA_HOME: xdg('data'), XDG_STATE_HOME: xdg('state'), XDG_CACHE_HOME: xdg('cache'), XDG_RUNTIME_DIR: xdg('run'),
      E2E_FILE: file, E2E_RESULT: result, E2E_NODE: process.execPath, E2E_CLI: CLI, E2E_CA: reg.caCertPath, E2E_CACHE: path.join(tmp.path, 'cache'),
    };
    mkdirSync(xdg('run'), { recursive: true, mode: 0o700 });
    const child = spawn('nvim', ['--clean', '--headless', '-n', '-i', 'NONE', '-c', `luafile ${SCRIPT}`], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: ws });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    assert.equal(code, 0, `nvim exited ${code}: ${stderr}`);
    const r = JSON.parse(readFileSync(result, 'utf8')) as E2eResult;
    assert.equal(r.error, undefined, `the Lua script failed after ${r.steps.join(', ')}: ${r.error}`);
    assert.deepEqual(r.steps, ['diagnostics', 'completion', 'hover', 'quick fix']);
    const nf = r.diagnostics.find((d) => d.code === 'not-found');
    assert.ok(nf, `a not-found diagnostic among ${JSON.stringify(r.diagnostics)}`);
    assert.match(nf.message, /infra|acme\/nope\/aws/);
    assert.ok(r.shown.some((m) => m.includes('acme/nope/aws')), 'Neovim shows it (vim.diagnostic.get)');
    assert.deepEqual(r.completion.slice(0, 3), ['2.0.0', '1.1.0', '1.0.0'], `versions newest first in Neovim's order: ${JSON.stringify(r.completion)}`);
    assert.ok(r.hover.includes('**Download** of 1.10.0'), `the hover says which version tofu init downloads: ${r.hover}`);
    assert.ok(r.hover.includes('git::https://git.example.com/acme/terraform-aws-network.git?ref=v1.10.0'), `the hover names the download location: ${r.hover}`);
    assert.ok(r.actions.some((t) => t.startsWith('Update constraint to "~> 2.1"')), JSON.stringify(r.actions));
    assert.equal(r.lines[2], '  version = "~> 2.1"', 'the quick fix edited the buffer');
  });
});
