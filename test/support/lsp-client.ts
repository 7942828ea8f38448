// A real JSON-RPC client (vscode-languageserver-protocol) for `tofu-registry lsp` started as a child
// process on stdio: what every editor's LSP client does, without an editor.
import { spawn, ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import {
  createProtocolConnection, ProtocolConnection, PublishDiagnosticsParams, StreamMessageReader, StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

export const CLI = path.resolve(__dirname, '../../../dist/cli.js');

export interface LspSession {
  conn: ProtocolConnection;
  child: ChildProcess;
  /** The last diagnostics published for each URI. */
  diagnostics: Map<string, PublishDiagnosticsParams>;
  /** Everything the server wrote to stderr. */
  stderr(): string;
  /** Every window/logMessage text, and every message from the server as JSON (for leak checks). */
  logs: string[];
  received: string[];
  /** Resolves when `test(diagnostics of uri)` holds (checked on each publish), rejects after `ms`. */
  waitDiagnostics(uri: string, test: (d: PublishDiagnosticsParams) => boolean, ms?: number): Promise<PublishDiagnosticsParams>;
  close(): Promise<void>;
}

export function startLsp(args: string[], env: NodeJS.ProcessEnv): LspSession {
  const child = spawn(process.execPath, [CLI, 'lsp', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const diagnostics = new Map<string, PublishDiagnosticsParams>();
  const waiters = new Set<() => void>();
  conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    diagnostics.set(p.uri, p);
    received.push(JSON.stringify(p));
    for (const w of [...waiters]) w();
  });
  const logs: string[] = [];
  const received: string[] = [];
  conn.onNotification('window/logMessage', (p: { message: string }) => { logs.push(p.message); });
  conn.onUnhandledNotification((n: { method: string; params?: unknown }) => { received.push(JSON.stringify(n)); });
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/codeLens/refresh', () => null);
  conn.listen();
  return {
    conn, child, diagnostics, stderr: () => err, logs, received,
    waitDiagnostics(uri, test, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const d = diagnostics.get(uri);
          if (d && test(d)) { waiters.delete(check); clearTimeout(timer); resolve(d); }
        };
        const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`diagnostics of ${uri}: condition not met in ${ms} ms; last: ${JSON.stringify(diagnostics.get(uri))}`)); }, ms);
        waiters.add(check);
        check();
      });
    },
    async close() {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      if (child.exitCode === null) {
        await conn.sendRequest('shutdown').catch(() => undefined);
        await conn.sendNotification('exit').catch(() => undefined);
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      conn.dispose();
    },
  };
}

/** Polls `fn` until it returns a truthy value, or throws after `ms`. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
