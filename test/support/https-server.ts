// The core of every test server: real HTTPS on 127.0.0.1 (ephemeral port, certificate from the
// test CA), a route table, and a request log so tests can count what reached the server.
// Protocol routes (discovery, modules.v1, providers.v1, mirror, archives, faults) are added by
// the files beside this one; this file knows nothing about registries.
import { createServer, Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { testPki } from './tls';

export interface LoggedRequest {
  method: string;
  path: string;
  /** host:port the client asked for (Host header). */
  host: string;
  authorization?: string;
  headers: IncomingMessage['headers'];
}

/** Return false to pass the request on; anything else means the route handled it. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL, server: TestHttpsServer) =>
  boolean | void | Promise<boolean | void>;

export class TestHttpsServer {
  readonly requests: LoggedRequest[] = [];
  private readonly routes: Array<{ prefix: string; handler: RouteHandler }> = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  /** `https://127.0.0.1:PORT` */
  get origin(): string {
    return `https://127.0.0.1:${this.port}`;
  }
  /** `127.0.0.1:PORT`: the registry hostname clients use. */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Routes match by path prefix, most recently added first, so a test can override a route. */
  route(prefix: string, handler: RouteHandler): this {
    this.routes.unshift({ prefix, handler });
    return this;
  }

  /** Requests whose path starts with `prefix` (all when omitted). */
  count(prefix = '/'): number {
    return this.requests.filter((r) => r.path.startsWith(prefix)).length;
  }

  resetLog(): void {
    this.requests.length = 0;
  }

  async start(port = 0): Promise<this> {
    const pki = testPki();
    this.server = createServer({ cert: pki.cert, key: pki.key }, (req, res) => void this.handle(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    for (const s of this.sockets) s.destroy(); // hung responses must not keep the test alive
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `https://${req.headers.host ?? this.host}`);
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      host: req.headers.host ?? '',
      authorization: req.headers.authorization,
      headers: req.headers,
    });
    try {
      for (const r of this.routes) {
        // A handler returns false to pass the request on to the next matching route.
        if (url.pathname.startsWith(r.prefix) && (await r.handler(req, res, url, this)) !== false) return;
      }
      sendJson(res, 404, { errors: ['not found'] });
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { errors: [String(err)] });
      else res.destroy();
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
