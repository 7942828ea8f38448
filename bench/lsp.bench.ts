// The language server: completion latency through the protocol (a real JSON-RPC client, the server
// a child process on stdio, `tofu-registry lsp`) on a 5,000-line file, against the in-process
// answer of the same features-layer call on the same file and positions (the baseline of this
// run), and the server's memory after 1,000 completions against its memory after the warm-up.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchReporter } from './index';
import { readyTimed } from './machine';
import { parseConfig } from '../src/engine/config';
import { Engine } from '../src/engine/engine';
import { backendOf } from '../src/features/engine';
import { registryCompletions } from '../src/features/completion';
import type { FeatureContext } from '../src/features/context';
import { RegistryLookup } from '../src/features/lookup';
import { collectRefs } from '../src/features/refs';
import { settingsFrom } from '../src/features/settings';
import { startTestRegistry } from '../test/support/registry-server';
import { removeTempDir, tempDir } from '../test/support/temp';
import { startLsp } from '../test/support/lsp-client';
import type { CompletionList } from 'vscode-languageserver-protocol/node';

export const title = 'language server: completion through the protocol vs in process, memory';

const MODULES = ['acme/network/aws', 'infra/vpc/google', 'platform/cluster/kubernetes', 'acme/storage/azurerm'];

function bigFile(host: string, lines: number): string {
  const out: string[] = [];
  let i = 0;
  while (out.length < lines) {
    out.push(`module "m${i}" {`, `  source  = "${host}/${MODULES[i % MODULES.length]}"`, `  version = "~> ${i % 3}.${i % 4}"`,
      `  name    = "m${i}"`, '  tags = {', `    team = "t${i % 7}"`, '  }', '}', '');
    i++;
  }
  return out.join('\n');
}

const pct = (s: number[], p: number) => { const a = [...s].sort((x, y) => x - y); return a[Math.min(a.length - 1, Math.floor(a.length * p))]; };

/** The server's main thread's wait for a core so far, in ms (its run_delay, as machine.ts reads this process's). */
function serverWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

export async function run(report: BenchReporter): Promise<void> {
  const reg = await startTestRegistry();
  const work = tempDir('tofu-registry-bench-lsp-');
  let engine: Engine | undefined;
  const s = startLsp(['--stdio', '--cache-dir', path.join(work, 'cache')], { PATH: process.env.PATH, HOME: work });
  try {
    const text = bigFile(reg.host, 5000);
    const file = path.join(work, 'main.tf');
    writeFileSync(file, text);
    const uri = pathToFileURL(file).href;
    await s.conn.sendRequest('initialize', {
      processId: process.pid, rootUri: pathToFileURL(work).href, capabilities: {},
      initializationOptions: { tofuRegistry: { caFile: reg.caCertPath } },
    });
    await s.conn.sendNotification('initialized', {});
    await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'terraform', version: 1, text } });
    // Warm: the open document's diagnostics asked the registry for every module's versions.
    await s.waitDiagnostics(uri, () => true, 60_000);
    const lines = text.split('\n');
    const positions = lines.flatMap((l, line) => (l.startsWith('  version = "') ? [{ line, character: 14 }] : []));
    const complete = async (i: number) => (await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: positions[(i * 7919) % positions.length] })) as CompletionList;
    for (let tries = 0; (await complete(0)).items.length === 0; tries++) {
      if (tries > 200) throw new Error('no completion items from the server');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < 100; i++) await complete(i);
    const rssWarm = rssKb(s.child.pid!);

    // The same call in process, on the same text and positions, with the answers already looked up.
    engine = new Engine({ caFiles: [reg.caCertPath], env: {}, cacheDir: path.join(work, 'cache-local') });
    const ctx: FeatureContext = {
      engine, cacheDir: work, networkAllowed: () => true, settings: () => settingsFrom(() => undefined),
      log: { debug() {}, info() {}, warn() {}, error() {} }, lookup: new RegistryLookup(backendOf(engine)),
    };
    const refs = collectRefs(parseConfig(text, 'main.tf'), text);
    const lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
    const local = async (i: number) => {
      const p = positions[(i * 7919) % positions.length];
      return registryCompletions(ctx, { text, refs }, lineStarts[p.line] + p.character, p.line, async () => new Set());
    };
    for (let i = 0; i < 200; i++) await local(i);

    const N = 1000;
    const proto: number[] = [];
    const inproc: number[] = [];
    let items = 0;
    for (let i = 0; i < N; i++) {
      // Both ends' waits for a core come off (the client's thread, machine.ts, and the server's main thread).
      const w0 = serverWaitMs(s.child.pid!);
      const t = await readyTimed(async () => { items += (await complete(i)).items.length; });
      proto.push(Math.max(0, t.readyMs - Math.max(0, serverWaitMs(s.child.pid!) - w0)));
      inproc.push((await readyTimed(async () => { await local(i); })).readyMs);
    }
    const rssAfter = rssKb(s.child.pid!);
    if (items === 0) throw new Error('no completion items');
    const [p50, p99, b50, b99] = [pct(proto, 0.5), pct(proto, 0.99), pct(inproc, 0.5), pct(inproc, 0.99)];
    report.note(`ready times: the waits for a core of the client's and the server's main threads taken off (machine.ts)`);
    report.note(`${lines.length} lines, ${positions.length} module calls; ${N} completions each way, ${(items / N).toFixed(0)} items per answer`);
    report.result('completion through the protocol p50', `${p50.toFixed(2)} ms`, `≤ in-process p50 + 2 ms (${b50.toFixed(3)} ms)`, p50 <= b50 + 2);
    report.result('completion through the protocol p99', `${p99.toFixed(2)} ms`, `≤ in-process p99 + 2 ms (${b99.toFixed(3)} ms)`, p99 <= b99 + 2);
    report.result('server RSS after 1,000 completions vs after warm-up', `${(rssAfter / rssWarm).toFixed(2)}× (${(rssAfter / 1024).toFixed(0)} MB)`,
      `≤ 1.25× the warm RSS (${(rssWarm / 1024).toFixed(0)} MB)`, rssAfter <= rssWarm * 1.25);
  } finally {
    await s.close();
    await engine?.dispose();
    await reg.stop();
    removeTempDir(work);
  }
}
