// `tofu-registry lsp` over stdio on git-sourced module calls, against a real smart-HTTP git remote
// over TLS whose credentials come from the user's git credential helper: refs completed inside
// ?ref= (version-like tags newest first, the written one preselected), a missing ref diagnosed on
// the ref, the hover naming the commit, the "Update ref to newest tag" and "Pin to commit" fixes.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeAction, CompletionItem, CompletionList, Hover, InitializeResult, TextEdit } from 'vscode-languageserver-protocol/node';
import { eventually, startLsp } from '../../support/lsp-client';
import { GitHttpServer, gitClientHome, makeRepo, MadeRepo, startGitHttpServer } from '../../support/git-server';
import { tempDir } from '../../support/temp';
import { testPki } from '../../support/tls';

let srv: GitHttpServer;
let repo: MadeRepo;
before(async () => {
  srv = await startGitHttpServer({ users: { dev: 'lsp-pw' } });
  repo = makeRepo(srv.root, 'net', { tags: [{ name: 'v1.0.0' }, { name: 'v1.1.0', annotated: true }, { name: 'stable' }], branches: ['develop'] });
});
after(async () => { await srv.stop(); });

function posOf(text: string, needle: string, delta = 0): { line: number; character: number } {
  const i = text.indexOf(needle) + delta;
  const before = text.slice(0, i);
  return { line: before.split('\n').length - 1, character: i - (before.lastIndexOf('\n') + 1) };
}

describe('tofu-registry lsp: git module sources', () => {
  it('completes refs inside ?ref=, diagnoses a missing ref on the ref, hovers the commit, offers Update ref and Pin to commit', { timeout: 90_000 }, async () => {
    const home = gitClientHome({ username: 'dev', password: 'lsp-pw' });
    const cache = tempDir('lsp-git-cache-');
    const dir = tempDir('lsp-git-ws-');
    mkdirSync(dir, { recursive: true });
    const { NODE_EXTRA_CA_CERTS: _ca, ...env } = home.env; // the CA comes from the caFile setting, as a user's would
    const s = startLsp(['--stdio', '--cache-dir', cache], { ...env, XDG_CACHE_HOME: cache });
    try {
      await s.conn.sendRequest('initialize', {
        processId: process.pid, rootUri: pathToFileURL(dir).href, workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
        capabilities: { textDocument: { publishDiagnostics: {} } }, initializationOptions: { tofuRegistry: { caFile: testPki().caCertPath } },
      }) as InitializeResult;
      await s.conn.sendNotification('initialized', {});
      const base = `git::${srv.origin}/net.git`;
      const text = `module "net" {\n  source = "${base}//vpc?ref=v1.0.0"\n}\n\nmodule "gone" {\n  source = "${base}?ref=v9.9.9"\n}\n`;
      const file = path.join(dir, 'main.tf');
      writeFileSync(file, text);
      const uri = pathToFileURL(file).href;
      void s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'terraform', version: 1, text } });
      const got = await eventually('ref items', async () => {
        const r = await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, 'ref=v1.0.0', 6) });
        const list = Array.isArray(r) ? r as CompletionItem[] : (r as CompletionList | null)?.items ?? [];
        return list.length ? list : undefined;
      });
      assert.deepEqual(got.map((i) => i.label), ['v1.1.0', 'v1.0.0', 'stable', 'main', 'develop']);
      assert.equal(got.find((i) => i.preselect)?.label, 'v1.0.0');
      assert.deepEqual((got[0].textEdit as TextEdit).range, { start: posOf(text, 'ref=v1.0.0', 4), end: posOf(text, 'ref=v1.0.0', 10) });
      const d = await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'ref-not-found'));
      const nf = d.diagnostics.filter((x) => x.code === 'ref-not-found');
      assert.equal(nf.length, 1);
      assert.deepEqual(nf[0].range, { start: posOf(text, 'v9.9.9'), end: posOf(text, 'v9.9.9', 6) }, 'on the ref');
      const hover = await eventually('hover with the commit', async () => {
        const h = await s.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: posOf(text, 'net.git//vpc', 2) }) as Hover | null;
        const v = h && typeof h.contents === 'object' && 'value' in h.contents ? String(h.contents.value) : '';
        return v.includes('commit') ? v : undefined;
      });
      assert.ok(hover.includes(repo.commits['v1.0.0']), hover);
      assert.match(hover, /Newest version-like tag: `v1\.1\.0`/);
      const actions = await s.conn.sendRequest('textDocument/codeAction', {
        textDocument: { uri }, range: { start: posOf(text, 'ref=v1.0.0'), end: posOf(text, 'ref=v1.0.0') }, context: { diagnostics: [] },
      }) as CodeAction[];
      assert.deepEqual(actions.map((a) => a.title), ['Update ref to newest tag v1.1.0 (currently v1.0.0)', `Pin to commit ${repo.commits['v1.0.0']} (what tag v1.0.0 points at now)`]);
      const [edit] = actions[0].edit!.changes![uri];
      const lines = text.split('\n');
      const line = lines[edit.range.start.line];
      lines[edit.range.start.line] = line.slice(0, edit.range.start.character) + edit.newText + line.slice(edit.range.end.character);
      assert.equal(lines[1], `  source = "${base}//vpc?ref=v1.1.0"`);
    } finally {
      await s.close();
    }
  });
});
