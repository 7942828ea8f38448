// A hostile OCI registry (the distribution API, just enough of it) on 127.0.0.1 over HTTPS from the
// test CA, for test/unit/hostile/oci-registry.test.ts. Each repository behaves one way:
//   evil/tags      — a tag list with names the spec's grammar refuses: a newline followed by a line
//                    of the registry's own, ESC sequences, `../../x`, `%2e%2e%2f`, `1.0.0/../../../etc`;
//   slow/drip      — answers 200 at once, then sends its body one byte a second, for ever;
//   echo/basic     — asks for Basic credentials, finds every manifest on HEAD, then answers every
//                    GET with a 400 whose error repeats the Authorization header, the decoded
//                    user:password and the password;
//   echo/bearer    — a Bearer challenge whose realm is the token server (another host, HTTPS); the
//                    token it hands out is echoed back in a 400 (to every GET), as some proxies do;
//   realm/other    — Bearer realm on the token server: a token for the credentials, then the tags;
//   realm/http     — Bearer realm on plain HTTP (a server that logs what reaches it);
//   realm/redirect — Bearer realm on the token server that redirects (307) to a third server.
// Every request each server received is logged (with its Authorization header) for the tests.
import { createServer as createHttpServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { sendJson, TestHttpsServer } from './https-server';
import { testPki } from './tls';

export const ECHO_USER = 'hostile-user';
export const ECHO_PASSWORD = 'pw-Echoed-5ecret!';
export const ISSUED_TOKEN = 'tok-issued-by-the-realm-7f3a9c';
/** The names evil/tags lists: two valid tags among names no registry may list. */
export const EVIL_TAGS = ['1.0.0', 'v2.0.0', '1.1.0\nINJECTED line the registry wrote', '../../x', '%2e%2e%2f', '1.0.0/../../../etc', '\u001b[31mred\u001b[0m', 'a'.repeat(129), '.hidden', '9.9.9\r\nINJECTED'];

export interface PlainRequest { method: string; path: string; authorization?: string }

export class HostileOciRegistry {
  readonly registry = new TestHttpsServer();
  /** The Bearer realm: another host (another port of 127.0.0.1) over HTTPS. */
  readonly tokenServer = new TestHttpsServer();
  /** Where the realm's redirect points. */
  readonly redirectTarget = new TestHttpsServer();
  /** A plain-HTTP realm: it logs what reaches it. */
  readonly plainRequests: PlainRequest[] = [];
  private plain?: Server;
  private plainPort = 0;
  private readonly plainSockets = new Set<Socket>();
  /** Open drip responses (ended by stop()). */
  private readonly drips = new Set<NodeJS.Timeout>();

  get host(): string { return this.registry.host; }
  get caCertPath(): string { return testPki().caCertPath; }

  async start(): Promise<this> {
    await Promise.all([this.registry.start(), this.tokenServer.start(), this.redirectTarget.start()]);
    this.plain = createHttpServer((req, res) => {
      this.plainRequests.push({ method: req.method ?? 'GET', path: req.url ?? '/', authorization: req.headers.authorization });
      sendJson(res, 200, { token: 'plain-http-token' });
    });
    this.plain.on('connection', (s: Socket) => { this.plainSockets.add(s); s.on('close', () => this.plainSockets.delete(s)); });
    await new Promise<void>((resolve) => this.plain!.listen(0, '127.0.0.1', () => resolve()));
    const addr = this.plain.address();
    this.plainPort = typeof addr === 'object' && addr ? addr.port : 0;

    this.tokenServer.route('/token', (req, res) => sendJson(res, 200, { token: ISSUED_TOKEN, expires_in: 300 }));
    this.tokenServer.route('/redirect', (_req, res) => { res.writeHead(307, { location: `${this.redirectTarget.origin}/token` }).end(); });
    this.redirectTarget.route('/token', (_req, res) => sendJson(res, 200, { token: 'redirected-token' }));

    this.registry.route('/v2/', (req, res, url) => this.answer(req, res, url));
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.drips) clearInterval(t);
    for (const s of this.plainSockets) s.destroy();
    if (this.plain) await new Promise<void>((r) => this.plain!.close(() => r()));
    await Promise.all([this.registry.stop(), this.tokenServer.stop(), this.redirectTarget.stop()]);
  }

  /** Requests the registry received for a repository ("echo/basic"). */
  requestsFor(repository: string): Array<{ method: string; path: string; authorization?: string }> {
    return this.registry.requests.filter((r) => r.path.startsWith(`/v2/${repository}/`));
  }

  private challenge(res: ServerResponse, header: string): void {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': header }).end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
  }

  private answer(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const path = url.pathname;
    const auth = req.headers.authorization;
    if (path === '/v2/') return void sendJson(res, 200, {});
    const repo = /^\/v2\/([a-z]+\/[a-z]+)\//.exec(path)?.[1];
    switch (repo) {
      case 'evil/tags':
        return void sendJson(res, 200, { name: repo, tags: EVIL_TAGS });
      case 'slow/drip': {
        res.writeHead(200, { 'content-type': 'application/json', 'docker-content-digest': 'sha256:' + '0'.repeat(64) });
        if (req.method === 'HEAD') return void res.end();
        const body = `{"name":"slow/drip","tags":["1.0.0"${',"1.0.1"'.repeat(1000)}]}`;
        let at = 0;
        const t = setInterval(() => {
          if (res.destroyed || at >= body.length) { clearInterval(t); this.drips.delete(t); if (!res.destroyed) res.end(); return; }
          res.write(body[at++]);
        }, 1000);
        this.drips.add(t);
        res.write(body[at++]);
        return;
      }
      case 'echo/basic': {
        if (!auth) return this.challenge(res, 'Basic realm="hostile"');
        if (req.method === 'HEAD') return found(res);
        const decoded = Buffer.from(auth.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
        const password = decoded.slice(decoded.indexOf(':') + 1);
        return void sendJson(res, 400, { errors: [{ code: 'DENIED', message: `${auth} (${decoded}) password=${password}` }] });
      }
      case 'echo/bearer':
        if (!auth) return this.challenge(res, `Bearer realm="${this.tokenServer.origin}/token",service="hostile",scope="repository:echo/bearer:pull"`);
        if (req.method === 'HEAD') return found(res);
        return void sendJson(res, 400, { errors: [{ code: 'DENIED', message: `${auth} is not welcome here` }] });
      case 'realm/other':
        if (auth !== `Bearer ${ISSUED_TOKEN}`) return this.challenge(res, `Bearer realm="${this.tokenServer.origin}/token",service="hostile"`);
        return void sendJson(res, 200, { name: repo, tags: ['1.0.0'] });
      case 'realm/http':
        if (!auth) return this.challenge(res, `Bearer realm="http://127.0.0.1:${this.plainPort}/token",service="hostile"`);
        return void sendJson(res, 200, { name: repo, tags: ['1.0.0'] });
      case 'realm/redirect':
        if (!auth) return this.challenge(res, `Bearer realm="${this.tokenServer.origin}/redirect",service="hostile"`);
        return void sendJson(res, 200, { name: repo, tags: ['1.0.0'] });
      default:
        return void sendJson(res, 404, { errors: [{ code: 'NAME_UNKNOWN', message: 'repository name not known to registry' }] });
    }
  }
}

/** A HEAD of a manifest finds it, so that `resolve` and the editor go on to GET it (and read the echo). */
function found(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json', 'docker-content-digest': `sha256:${'1'.repeat(64)}`, 'content-length': '2' }).end();
}

export function startHostileOci(): Promise<HostileOciRegistry> {
  return new HostileOciRegistry().start();
}
