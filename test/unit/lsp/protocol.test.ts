// `tofu-registry lsp` over stdio with a real JSON-RPC client (vscode-languageserver-protocol)
// against the HTTPS test registry: initialize, completion, hover, diagnostics, quick fixes,
// cancellation, configuration changes and position encodings (UTF-16 and UTF-8).
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeAction, CompletionItem, CompletionList, Hover, InitializeResult, TextEdit } from 'vscode-languageserver-protocol/node';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/registry-helpers';
import { eventually, LspSession, startLsp } from '../../support/lsp-client';
import { DEFAULT_USERS as OCI_USERS, startOciRegistry } from '../../support/oci-registry';
import { Engine } from '../../../src/engine/engine';
import { publishModule } from '../../../src/engine/publish/publish';

let reg: TestRegistry;
let tmp: { path: string; remove: () => void };

before(async () => {
  reg = await startTestRegistry();
  tmp = tempDir('tofu-registry-lsp-');
});
after(async () => {
  await reg.stop();
  tmp.remove();
});

const env = () => ({ PATH: process.env.PATH, HOME: path.join(tmp.path, 'home'), XDG_CACHE_HOME: path.join(tmp.path, 'cache') });

async function session(opts: { encodings?: string[]; settings?: Record<string, unknown>; pull?: boolean; registry?: TestRegistry } = {}): Promise<{ s: LspSession; init: InitializeResult; dir: string }> {
  const dir = path.join(tmp.path, `ws-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const s = startLsp(['--stdio', '--cache-dir', path.join(tmp.path, 'cache')], env());
  const init = await s.conn.sendRequest('initialize', {
    processId: process.pid, rootUri: pathToFileURL(dir).href, workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
    capabilities: { general: opts.encodings ? { positionEncodings: opts.encodings } : undefined, textDocument: { publishDiagnostics: {}, ...(opts.pull ? { diagnostic: {} } : {}) } },
    initializationOptions: { tofuRegistry: { caFile: (opts.registry ?? reg).caCertPath, ...opts.settings } },
  }) as InitializeResult;
  await s.conn.sendNotification('initialized', {});
  return { s, init, dir };
}

function open(s: LspSession, dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  void s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'terraform', version: 1, text } });
  return uri;
}

function posOf(text: string, needle: string, delta = 0): { line: number; character: number } {
  const i = text.indexOf(needle) + delta;
  const before = text.slice(0, i);
  const line = before.split('\n').length - 1;
  return { line, character: i - (before.lastIndexOf('\n') + 1) };
}

const items = (r: unknown): CompletionItem[] => (Array.isArray(r) ? r : (r as CompletionList | null)?.items ?? []);

describe('tofu-registry lsp: the protocol over stdio', () => {
  it('initializes with every capability and completes versions newest first, the selected one preselected', async () => {
    const { s, init, dir } = await session();
    try {
      const c = init.capabilities;
      assert.equal(c.positionEncoding, 'utf-16', 'UTF-16 when the client offers nothing else');
      assert.equal(typeof c.textDocumentSync === 'object' && c.textDocumentSync.change, 2, 'incremental sync');
      assert.ok(c.completionProvider && c.hoverProvider && c.codeActionProvider && c.codeLensProvider);
      assert.ok(c.executeCommandProvider?.commands.includes('tofuRegistry.lockProviders'));
      assert.equal(init.serverInfo?.name, 'tofu-registry');
      const text = `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = ""\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      const got = await eventually('version items', async () => {
        const r = items(await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, 'version = "', 11) }));
        return r.length ? r : undefined;
      });
      const versions = got.filter((i) => /^\d/.test(i.label) && !i.label.includes('-')).map((i) => i.label);
      assert.deepEqual(versions, ['2.1.0', '2.0.0', '1.10.0', '1.2.3', '1.2.0', '1.1.0', '1.0.0'], 'releases newest first');
      assert.equal(got.find((i) => i.preselect)?.label, '2.1.0');
      const sorted = [...got].sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''));
      assert.equal(sorted[0].label, '2.1.0', 'the client\'s sort order puts the newest first');
      assert.ok(got.some((i) => i.label === '~> 2.1'), 'constraint forms offered');
      assert.ok(got.findIndex((i) => i.label === '3.0.0-rc.1') > got.findIndex((i) => i.label === '1.0.0'), 'prereleases last');
      const edit = got[0].textEdit as TextEdit;
      assert.deepEqual(edit.range, { start: posOf(text, 'version = "', 11), end: posOf(text, 'version = "', 11) });
      assert.match(s.stderr(), /./s, 'logs go to stderr');
    } finally {
      await s.close();
    }
  });

  it('hovers a source with the download location, publishes a diagnostic for an unknown module, and quick-fixes a constraint', async () => {
    const { s, dir } = await session();
    try {
      const text = `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = "~> 1.0"\n}\n\nmodule "nope" {\n  source = "${reg.host}/acme/nope/aws"\n  version = "1.0.0"\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      const d = await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'not-found'));
      const nf = d.diagnostics.find((x) => x.code === 'not-found')!;
      assert.equal(nf.source, 'tofu-registry');
      assert.match(String(nf.message), /acme\/nope\/aws/);
      assert.equal(nf.range.start.line, 6, 'on the source of the unknown module');
      const hover = await eventually('hover with the download location', async () => {
        const h = await s.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: posOf(text, 'acme/network/aws', 2) }) as Hover | null;
        const v = h && typeof h.contents === 'object' && 'value' in h.contents ? String(h.contents.value) : '';
        return v.includes('git.example.com') ? v : undefined;
      });
      assert.match(hover, /\*\*Download\*\* of 1\.10\.0/);
      assert.match(hover, /git::https:\/\/git\.example\.com\/acme\/terraform-aws-network\.git\?ref=v1\.10\.0/);
      const actions = await s.conn.sendRequest('textDocument/codeAction', {
        textDocument: { uri }, range: { start: posOf(text, '~> 1.0'), end: posOf(text, '~> 1.0') }, context: { diagnostics: [] },
      }) as CodeAction[];
      const fix = actions.find((a) => a.title.startsWith('Update constraint'));
      assert.ok(fix, `an update-constraint fix among ${JSON.stringify(actions.map((a) => a.title))}`);
      const edits = fix!.edit!.changes![uri];
      assert.deepEqual(edits, [{ range: { start: posOf(text, '~> 1.0'), end: posOf(text, '~> 1.0', 6) }, newText: '~> 2.1' }]);
      const lenses = await s.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } }) as Array<{ command?: { title: string } }>;
      assert.ok(lenses.some((l) => l.command?.title === 'newer version available: 2.1.0 → update constraint'));
    } finally {
      await s.close();
    }
  });

  it('applies a configuration change without a restart, incremental edits, and answers a cancelled request at once', async () => {
    const { s, dir } = await session();
    try {
      const text = `module "nope" {\n  source  = "${reg.host}/acme/nope/aws"\n  version = "1.0.0"\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'not-found'));
      await s.conn.sendNotification('workspace/didChangeConfiguration', { settings: { tofuRegistry: { caFile: reg.caCertPath, diagnostics: { enabled: false } } } });
      await s.waitDiagnostics(uri, (p) => p.diagnostics.length === 0);
      await s.conn.sendNotification('workspace/didChangeConfiguration', { settings: { tofuRegistry: { caFile: reg.caCertPath, diagnostics: { enabled: true } } } });
      await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'not-found'));
      // An incremental edit: "nope" → "network" in the source; the not-found diagnostic goes away.
      const at = posOf(text, 'nope/aws');
      void s.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: 2 }, contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 4 } }, text: 'network' }],
      });
      await s.waitDiagnostics(uri, (p) => p.version === 2 && !p.diagnostics.some((x) => x.code === 'not-found'));
      // A registry that never answers: the request is cancelled and answered at once.
      reg.setFault('/v1/modules/acme/storage', 'hang');
      const slow = `module "st" {\n  source  = "${reg.host}/acme/storage/azurerm"\n  version = ""\n}\n`;
      const uri2 = open(s, dir, 'slow.tf', slow);
      const { CancellationTokenSource } = await import('vscode-languageserver-protocol/node');
      const cts = new CancellationTokenSource();
      const t0 = Date.now();
      const req = s.conn.sendRequest('textDocument/hover', { textDocument: { uri: uri2 }, position: posOf(slow, 'version = "', 2) }, cts.token);
      setTimeout(() => cts.cancel(), 100);
      await req.catch(() => null);
      assert.ok(Date.now() - t0 < 900, `answered ${Date.now() - t0} ms after the request, cancelled after 100 ms (budget 1000 ms)`);
      // Not cancelled: the answer comes within the budget, empty and incomplete (the next keystroke asks again).
      const t1 = Date.now();
      const list = await s.conn.sendRequest('textDocument/completion', { textDocument: { uri: uri2 }, position: posOf(slow, 'version = "', 11) }) as CompletionList;
      assert.ok(Date.now() - t1 < 2500, `answered in ${Date.now() - t1} ms with the registry hanging (budget 1000 ms, request timeout 15 s)`);
      assert.deepEqual([list.isIncomplete, list.items.length], [true, 0]);
      reg.setFault('/v1/modules/acme/storage', null);
    } finally {
      await s.close();
    }
  });

  it('$/cancelRequest on a completion aborts its version-list request at the registry', async () => {
    // Diagnostics off: the completion is the only one waiting for the version list (a diagnostic
    // waiting on the same request would rightly keep it going).
    const { s, dir } = await session({ settings: { diagnostics: { enabled: false } } });
    const held: Array<{ closed: Promise<number> }> = [];
    reg.server.route('/v1/modules/acme/cancelled/', (_req, res) => {
      held.push({ closed: new Promise((resolve) => res.once('close', () => { if (!res.writableFinished) resolve(Date.now()); })) });
    });
    try {
      const text = `module "c" {\n  source  = "${reg.host}/acme/cancelled/aws"\n  version = ""\n}\n`;
      const uri = open(s, dir, 'cancel.tf', text);
      const { CancellationTokenSource } = await import('vscode-languageserver-protocol/node');
      const cts = new CancellationTokenSource();
      const req = s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, 'version = "', 11) }, cts.token);
      const sent = Date.now();
      while (!held.length && Date.now() - sent < 900) await new Promise((r) => setTimeout(r, 5));
      assert.equal(held.length, 1, 'the version-list request reached the registry within the request budget');
      const t0 = Date.now();
      cts.cancel();
      await req.catch(() => null);
      assert.ok(Date.now() - t0 < 800, `answered ${Date.now() - t0} ms after the cancel (budget 1000 ms)`);
      const closedAt = await Promise.race([held[0].closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 5000))]);
      assert.notEqual(closedAt, 'open', 'the registry must see the request closed (request timeout 15 s)');
      assert.ok((closedAt as number) - t0 < 2000, `closed ${(closedAt as number) - t0} ms after the cancel`);
      // The cancelled lookup is not remembered as a failure: the next completion asks again (and
      // answers empty and incomplete at the budget while the registry still hangs).
      const list = await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, 'version = "', 11) }) as CompletionList;
      assert.deepEqual([list.isIncomplete, list.items.length, held.length], [true, 0, 2]);
    } finally {
      await s.close();
    }
  });

  it('answers pulled diagnostics when the client pulls, and runs a command with $/progress', async () => {
    const { s, init, dir } = await session({ pull: true });
    try {
      assert.ok(init.capabilities.diagnosticProvider, 'a diagnostic provider for a client that pulls');
      const text = `module "nope" {\n  source  = "${reg.host}/acme/nope/aws"\n  version = "1.0.0"\n}\n\nmodule "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = "~> 1.0"\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      const report = await eventually('a pulled not-found diagnostic', async () => {
        const r = await s.conn.sendRequest('textDocument/diagnostic', { textDocument: { uri } }) as { kind: string; items: Array<{ code?: string }> };
        return r.items.some((d) => d.code === 'not-found') ? r : undefined;
      });
      assert.equal(report.kind, 'full');
      assert.equal(s.diagnostics.get(uri), undefined, 'nothing pushed to a client that pulls');
      const progress: Array<{ kind: string; title?: string }> = [];
      s.conn.onNotification('$/progress', (p: { token: string; value: { kind: string; title?: string } }) => { if (p.token === 'outdated-1') progress.push(p.value); });
      const result = await s.conn.sendRequest('workspace/executeCommand', {
        command: 'tofuRegistry.outdated', arguments: [{ dirs: [dir] }], workDoneToken: 'outdated-1',
      }) as { dependencies: Array<{ name: string; newest: string | null; status: string }> };
      const net = result.dependencies.find((d) => d.name === 'net');
      assert.equal(net?.newest, '2.1.0');
      assert.equal(net?.status, 'update-out-of-range');
      assert.deepEqual(progress.map((p) => p.kind), ['begin', 'end']);
      assert.equal(progress[0].title, 'Checking dependencies');
    } finally {
      await s.close();
    }
  });

  it('offline: no request at all, local checks still run; turning it off looks the registry up', async () => {
    const { s, dir } = await session({ settings: { offline: true } });
    try {
      reg.server.resetLog();
      const text = `module "nope" {\n  source  = "${reg.host}/acme/nope/aws"\n  version = "~> not a version"\n}\n\nmodule "gone" {\n  source  = "${reg.host}/acme/gone/aws"\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      const d = await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'malformed-constraint'));
      assert.ok(!d.diagnostics.some((x) => x.code === 'not-found'));
      const c = await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, '~> not', 1) });
      assert.equal(items(c).length, 0, 'no versions offline');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(reg.server.requests.map((r) => r.path), [], 'no request reached the registry');
      await s.conn.sendNotification('workspace/didChangeConfiguration', { settings: { tofuRegistry: { caFile: reg.caCertPath, offline: false } } });
      await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'not-found'));
      assert.ok(reg.server.requests.length > 0);
    } finally {
      await s.close();
    }
  });

  it('a CLI configuration file that does not parse: one window/showMessage warning (as tofu\'s "There are some problems"), one log line, the lookups go on', async () => {
    const cfg = path.join(tmp.path, `broken-${Math.random().toString(36).slice(2)}.tfrc`);
    writeFileSync(cfg, 'credentials "a.example" {\n  token = "t"\n');
    const { s, dir } = await session({ settings: { cliConfigFile: cfg } });
    const shown: Array<{ type: number; message: string }> = [];
    s.conn.onNotification('window/showMessage', (p: { type: number; message: string }) => { shown.push(p); });
    try {
      const text = `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = ""\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      await eventually('version items', async () => {
        const r = items(await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, 'version = "', 11) }));
        return r.some((i) => i.label === '2.1.0') || undefined;
      });
      await eventually('the notification', async () => shown.length > 0);
      assert.equal(shown.length, 1);
      assert.equal(shown[0].type, 2, 'a warning');
      assert.match(shown[0].message, new RegExp(`^There are some problems with the CLI configuration: Error parsing ${cfg.replace(/[.]/g, '\\.')}: line \\d+: `));
      assert.equal(s.logs.filter((l) => l === shown[0].message).length, 1, 'and one line in the log');
      // a settings change rebuilds the engine, which reads the file again: no second notification
      await s.conn.sendNotification('workspace/didChangeConfiguration', { settings: { tofuRegistry: { caFile: reg.caCertPath, cliConfigFile: cfg, requestTimeoutSeconds: 20 } } });
      await eventually('the rebuilt engine read the file', async () => s.logs.filter((l) => l === shown[0].message).length === 2 || undefined);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(shown.length, 1, 'shown once per session');
    } finally {
      await s.close();
    }
  });

  it('follows a lock file written on disk (didChangeWatchedFiles): lock diagnostics and the lock quick fix', async () => {
    const { s, dir } = await session({ settings: { offline: true, lock: { platforms: ['linux_amd64'] } } });
    try {
      const text = 'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = "~> 3.0"\n    }\n  }\n}\n';
      const uri = open(s, dir, 'main.tf', text);
      await s.waitDiagnostics(uri, (p) => p.diagnostics.length === 0);
      const lockPath = path.join(dir, '.terraform.lock.hcl');
      writeFileSync(lockPath, 'provider "registry.opentofu.org/hashicorp/null" {\n  version = "3.2.0"\n  hashes = [\n    "h1:AAAA",\n  ]\n}\n');
      const lockUri = pathToFileURL(lockPath).href;
      await s.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: lockUri, type: 1 }] });
      const d = await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'lock-missing-provider'));
      const missing = d.diagnostics.find((x) => x.code === 'lock-missing-provider')!;
      assert.match(String(missing.message), /hashicorp\/random/);
      const stale = await s.waitDiagnostics(lockUri, (p) => p.diagnostics.some((x) => x.code === 'lock-stale-provider'));
      assert.ok(stale.diagnostics.length > 0, 'diagnostics on the lock file itself');
      const actions = await s.conn.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: missing.range, context: { diagnostics: [missing] } }) as CodeAction[];
      const lock = actions.find((a) => a.command?.command === 'tofuRegistry.lockProviders');
      assert.ok(lock, JSON.stringify(actions));
      assert.equal(lock.title, 'Lock providers for all platforms');
      assert.deepEqual(lock.command!.arguments, [{ dirs: [dir] }]);
    } finally {
      await s.close();
    }
  });

  it('never puts a token in any message: diagnostics, hovers, logs, stderr', async () => {
    const secured = await startTestRegistry({ token: 'RIGHT-T0KEN-5150' });
    const rc = path.join(tmp.path, `rc-${Math.random().toString(36).slice(2)}.tfrc`);
    writeFileSync(rc, `credentials "${secured.host}" { token = "WRONG-SECRET-4711" }\n`);
    const { s, dir } = await session({ registry: secured, settings: { cliConfigFile: rc } });
    try {
      const text = `module "net" {\n  source  = "${secured.host}/acme/network/aws"\n  version = "~> 1.0"\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      const d = await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'auth'));
      assert.match(String(d.diagnostics.find((x) => x.code === 'auth')!.message), new RegExp(`credentials "${secured.host.replace(/\./g, '\\.')}" block`));
      const h = await s.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: posOf(text, 'acme/network', 1) }) as Hover | null;
      assert.ok(h);
      const everything = [s.stderr(), ...s.logs, ...s.received, JSON.stringify(h)].join('\n');
      assert.ok(everything.length > 200, 'there is output to look at');
      assert.ok(!everything.includes('WRONG-SECRET-4711'), 'the token from the CLI configuration appears nowhere');
      assert.ok(!everything.includes('RIGHT-T0KEN'), 'nor the registry\'s');
    } finally {
      await s.close();
      await secured.stop();
    }
  });

  it('oci:// module sources: tags completed inside ?tag= (newest first, the written one preselected) and a missing tag diagnosed', async () => {
    const oci = await startOciRegistry({ auth: 'basic' });
    const rc = path.join(tmp.path, `rc-${Math.random().toString(36).slice(2)}.tfrc`);
    writeFileSync(rc, `oci_credentials "${oci.host}" {\n  username = "tofu"\n  password = "${OCI_USERS.tofu}"\n}\n`);
    const mod = path.join(tmp.path, `mod-${Math.random().toString(36).slice(2)}`);
    mkdirSync(mod);
    writeFileSync(path.join(mod, 'main.tf'), 'variable "name" {}\n');
    const engine = new Engine({ cacheDir: path.join(tmp.path, 'cache'), caFiles: [oci.caCertPath], cliConfigFile: rc, env: {} });
    const { s, dir } = await session({ settings: { caFile: oci.caCertPath, cliConfigFile: rc } });
    try {
      await publishModule({ engine, dir: mod, target: `oci://${oci.host}/mods/net`, tags: ['1.0.0', '1.1.0', 'latest'] });
      const text = `module "net" {\n  source = "oci://${oci.host}/mods/net?tag=1.0.0"\n}\n\nmodule "gone" {\n  source = "oci://${oci.host}/mods/net?tag=9.9.9"\n}\n`;
      const uri = open(s, dir, 'main.tf', text);
      const got = await eventually('tag items', async () => {
        const r = items(await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: posOf(text, 'tag=1.0.0', 5) }));
        return r.length ? r : undefined;
      });
      assert.deepEqual(got.map((i) => i.label), ['1.1.0', '1.0.0', 'latest']);
      assert.equal(got.find((i) => i.preselect)?.label, '1.0.0');
      assert.deepEqual((got[0].textEdit as TextEdit).range, { start: posOf(text, 'tag=1.0.0', 4), end: posOf(text, 'tag=1.0.0', 9) });
      const d = await s.waitDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'not-found'));
      const nf = d.diagnostics.filter((x) => x.code === 'not-found');
      assert.equal(nf.length, 1);
      assert.equal(nf[0].range.start.line, 5, 'on the call whose tag is missing');
      assert.match(String(nf[0].message), /9\.9\.9/);
      // Publishing through workspace/executeCommand: the same package again uploads nothing.
      const pub = await s.conn.sendRequest('workspace/executeCommand', { command: 'tofuRegistry.publishModule', arguments: [{ dir: mod, target: `oci://${oci.host}/mods/net`, tags: ['1.0.0'] }] }) as { manifestDigest: string; uploaded: number; sources: { digest: string } };
      assert.equal(pub.uploaded, 0);
      assert.equal(pub.sources.digest, `oci://${oci.host}/mods/net?digest=${pub.manifestDigest}`);
    } finally {
      await s.close();
      await engine.dispose();
      await oci.stop();
    }
  });

  for (const encoding of ['utf-16', 'utf-8'] as const) {
    it(`counts columns in ${encoding} on a line with non-ASCII characters`, async () => {
      const { s, init, dir } = await session({ encodings: encoding === 'utf-8' ? ['utf-8', 'utf-16'] : ['utf-16'] });
      try {
        assert.equal(init.capabilities.positionEncoding, encoding);
        const line = '  /* größe 😀 */ version = "~> 1.0"';
        const text = `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n${line}\n}\n`;
        const uri = open(s, dir, 'main.tf', text);
        const col16 = line.indexOf('~> 1.0');
        const col = encoding === 'utf-16' ? col16 : Buffer.byteLength(line.slice(0, col16));
        assert.notEqual(Buffer.byteLength(line.slice(0, col16)), col16, 'the line has characters of more than one code unit');
        const got = await eventually('items', async () => {
          const r = items(await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: 2, character: col + 2 } }));
          return r.length ? r : undefined;
        });
        const edit = got[0].textEdit as TextEdit;
        assert.deepEqual(edit.range, { start: { line: 2, character: col }, end: { line: 2, character: col + 6 } }, `the string's content, in ${encoding} columns`);
        // Positions read in the same unit: on the closing quote still in the string, on the opening one not yet.
        const at = async (character: number) => items(await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: 2, character } }));
        assert.ok((await at(col + 6)).length > 0, 'the cursor on the closing quote completes');
        assert.equal((await at(col - 1)).length, 0, 'the cursor on the opening quote does not');
        const d = await s.waitDiagnostics(uri, () => true);
        assert.ok(d);
      } finally {
        await s.close();
      }
    });
  }
});
