// A real OCI registry for tests: CNCF Distribution (Debian's `docker-registry`, installed by
// scripts/test-packages.sh) on 127.0.0.1 with TLS from the test CA, its storage in a temp
// directory removed by stop(). Three modes:
//   'none'  — anonymous pull and push;
//   'basic' — htpasswd (bcrypt, made here with bcryptjs) users;
//   'token' — `auth: token` against a token server this file runs: it checks Basic credentials or
//             a refresh token (the OAuth2 POST) and signs ES256 JWTs with a certificate the
//             registry trusts (rootcertbundle), granting the scopes asked for to known users.
// In front of the registry sits a small HTTPS proxy (the `host` tests use): it logs every request
// (method, path, status, whether it carried credentials) so tests count uploads, can add a delay to
// every response (the bench's 50 ms), and in `redirectBlobs` mode answers blob GETs with a 307 to a
// separate storage server (as S3-backed registries do), whose request log proves what it received.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createPrivateKey, randomBytes, sign, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, Socket } from 'node:net';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { TestHttpsServer } from './https-server';
import { removeTempDir, tempDir } from './temp';
import { testPki } from './tls';
import { EMPTY_CONFIG, MEDIA_TYPE, OciClient, OciRepository, sha256Digest } from '../../src/engine/oci';

export type OciAuthMode = 'none' | 'basic' | 'token';

export interface OciRegistryOptions {
  auth?: OciAuthMode;
  /** user → password (default { tofu: 'tofu-secret-pw' }) for 'basic' and 'token'. */
  users?: Record<string, string>;
  /** 'token' mode: refresh (identity) tokens the token server accepts, token → user. */
  refreshTokens?: Record<string, string>;
  /** Added before every response of the front proxy, ms. */
  delayMs?: number;
  /** Blob GETs answered with a 307 to the storage server. */
  redirectBlobs?: boolean;
  /**
   * Tag lists cut into pages of at most this many (n/last, Link rel="next"), as the distribution spec
   * describes and GHCR or Harbor do: Distribution 2.8 itself ignores `n` for tags.
   */
  tagPageSize?: number;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  status: number;
  /** The Authorization header's scheme ("Basic", "Bearer") when one was sent. */
  auth?: string;
  /** When the request arrived and when its answer was sent (Date.now()). */
  at: number;
  answeredAt?: number;
}

export const DEFAULT_USERS = { tofu: 'tofu-secret-pw' };
export const TOKEN_SERVICE = 'tofu-registry-test';
const TOKEN_ISSUER = 'tofu-registry-test-issuer';

export class TestOciRegistry {
  /** 127.0.0.1:PORT of the front proxy: what tests use as the registry host. */
  host = '';
  /** The registry process's own address (behind the proxy). */
  backendHost = '';
  readonly requests: ProxiedRequest[] = [];
  /** The storage server blob GETs are redirected to (redirectBlobs mode). */
  storage?: TestHttpsServer;
  /** The token server ('token' mode). */
  tokenServer?: TestHttpsServer;
  delayMs: number;
  readonly caCertPath = testPki().caCertPath;
  readonly dir = tempDir('tofu-oci-registry-');
  private child?: ChildProcess;
  private proxy?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly stored = new Map<string, Buffer>();
  private stderr = '';

  constructor(readonly opts: OciRegistryOptions = {}) {
    this.delayMs = opts.delayMs ?? 0;
  }

  get auth(): OciAuthMode {
    return this.opts.auth ?? 'none';
  }

  get users(): Record<string, string> {
    return this.opts.users ?? DEFAULT_USERS;
  }

  /** Blob uploads the registry completed (a closing PUT answered 201) and mounts it made. */
  uploads(): number {
    return this.requests.filter((r) => r.status === 201 && ((r.method === 'PUT' && r.path.includes('/blobs/uploads/')) || (r.method === 'POST' && r.path.includes('mount=')))).length;
  }

  /** Requests whose method (and path containing `part`) match. */
  count(method: string, part = ''): number {
    return this.requests.filter((r) => r.method === method && r.path.includes(part)).length;
  }

  resetLog(): void {
    this.requests.length = 0;
    this.storage?.resetLog();
    this.tokenServer?.resetLog();
  }

  async start(): Promise<this> {
    const pki = testPki();
    const backendPort = await freePort();
    this.backendHost = `127.0.0.1:${backendPort}`;
    let auth = '';
    if (this.auth === 'basic') {
      const lines = Object.entries(this.users).map(([u, p]) => `${u}:${bcrypt.hashSync(p, 4)}`);
      writeFileSync(join(this.dir, 'htpasswd'), lines.join('\n') + '\n');
      auth = `auth:\n  htpasswd:\n    realm: tofu-registry-test\n    path: ${join(this.dir, 'htpasswd')}\n`;
    } else if (this.auth === 'token') {
      const signer = tokenSigner(this.dir);
      this.tokenServer = await new TestHttpsServer().start();
      this.tokenServer.route('/token', (req, res, url) => this.issueToken(req, res, url, signer));
      auth = `auth:\n  token:\n    realm: ${this.tokenServer.origin}/token\n    service: ${TOKEN_SERVICE}\n    issuer: ${TOKEN_ISSUER}\n    rootcertbundle: ${signer.certPath}\n`;
    }
    const config = `version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: ${join(this.dir, 'data')}
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:${backendPort}
  secret: ${randomBytes(16).toString('hex')}
  relativeurls: true
  tls:
    certificate: ${join(pki.dir, 'server.pem')}
    key: ${join(pki.dir, 'server.key')}
${auth}`;
    writeFileSync(join(this.dir, 'config.yml'), config);
    this.child = spawn('docker-registry', ['serve', join(this.dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr!.on('data', (d: Buffer) => { this.stderr = (this.stderr + d.toString()).slice(-8192); });
    this.child.on('error', (err) => { this.stderr += `\ncannot start docker-registry: ${err.message}`; });
    await this.waitReady();
    if (this.opts.redirectBlobs) {
      this.storage = await new TestHttpsServer().start();
      this.storage.route('/blobs/', (_req, res, url) => {
        const body = this.stored.get(url.pathname.slice('/blobs/'.length));
        if (!body) { res.writeHead(404).end(); return; }
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) }).end(body);
      });
    }
    this.proxy = createHttpsServer({ cert: pki.cert, key: pki.key }, (req, res) => void this.forward(req, res));
    this.proxy.on('connection', (s: Socket) => { this.sockets.add(s); s.on('close', () => this.sockets.delete(s)); });
    this.proxy.listen(0, '127.0.0.1');
    await once(this.proxy, 'listening');
    const addr = this.proxy.address();
    this.host = `127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.proxy) await new Promise<void>((r) => this.proxy!.close(() => r()));
    this.proxy = undefined;
    await this.storage?.stop();
    await this.tokenServer?.stop();
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    removeTempDir(this.dir);
  }

  private async waitReady(): Promise<void> {
    const started = Date.now();
    for (;;) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) throw new Error(`docker-registry exited (${this.child.exitCode}): ${this.stderr}`);
      const status = await new Promise<number>((resolve) => {
        const r = httpsRequest({ host: '127.0.0.1', port: Number(this.backendHost.split(':')[1]), path: '/v2/', ca: testPki().caCert, timeout: 1000 }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
        r.on('error', () => resolve(0));
        r.on('timeout', () => { r.destroy(); resolve(0); });
        r.end();
      });
      if (status) return;
      if (Date.now() - started > 15_000) throw new Error(`docker-registry did not start within 15 s: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', status: 0, at: Date.now(), ...(req.headers.authorization ? { auth: req.headers.authorization.split(' ')[0] } : {}) };
    this.requests.push(entry);
    res.on('finish', () => { entry.answeredAt = Date.now(); });
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const tagList = this.opts.tagPageSize && req.method === 'GET' ? /^\/v2\/(.+)\/tags\/list(?:\?(.*))?$/.exec(req.url ?? '') : null;
    const blobGet = this.opts.redirectBlobs && req.method === 'GET' && /^\/v2\/.+\/blobs\/sha256:[a-f0-9]{64}$/.test(req.url ?? '');
    const up = httpsRequest({
      host: '127.0.0.1', port: Number(this.backendHost.split(':')[1]), method: req.method, path: req.url, headers: req.headers, ca: testPki().caCert,
      ...(tagList ? { path: `/v2/${tagList[1]}/tags/list` } : {}),
    }, (upRes) => {
      entry.status = upRes.statusCode ?? 0;
      if (tagList && upRes.statusCode === 200) {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const query = new URLSearchParams(tagList[2] ?? '');
          const n = Math.min(Number(query.get('n') ?? this.opts.tagPageSize), this.opts.tagPageSize!);
          const last = query.get('last');
          const all = ((JSON.parse(Buffer.concat(chunks).toString()) as { tags?: string[] }).tags ?? []).sort().filter((t) => last === null || t > last);
          const page = all.slice(0, n);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (all.length > n) headers.link = `</v2/${tagList[1]}/tags/list?n=${n}&last=${encodeURIComponent(page[page.length - 1])}>; rel="next"`;
          res.writeHead(200, headers).end(JSON.stringify({ name: tagList[1], tags: page }));
        });
        return;
      }
      if (blobGet && upRes.statusCode === 200) {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const key = randomBytes(8).toString('hex');
          this.stored.set(key, Buffer.concat(chunks));
          entry.status = 307;
          // a pre-signed storage URL, as S3 answers: the signature is in the query, no header needed
          res.writeHead(307, { location: `${this.storage!.origin}/blobs/${key}?X-Amz-Signature=${randomBytes(8).toString('hex')}` }).end();
        });
        return;
      }
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', (err) => { entry.status = 502; if (!res.headersSent) res.writeHead(502); res.end(String(err)); });
    req.pipe(up);
  }

  private async issueToken(req: IncomingMessage, res: ServerResponse, url: URL, signer: Signer): Promise<void> {
    let params = url.searchParams;
    let user: string | undefined;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (params.get('grant_type') === 'refresh_token') user = this.opts.refreshTokens?.[params.get('refresh_token') ?? ''];
      if (!user) { res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}'); return; }
    } else if (req.headers.authorization) {
      const m = /^Basic (.+)$/.exec(req.headers.authorization);
      const [u, ...rest] = Buffer.from(m?.[1] ?? '', 'base64').toString('utf8').split(':');
      if (!m || this.users[u] === undefined || this.users[u] !== rest.join(':')) { res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"invalid credentials"}'); return; }
      user = u;
    }
    // anonymous: a token with no access (the registry then refuses)
    const scopes = params.get('scope') !== null ? (req.method === 'POST' ? (params.get('scope') ?? '').split(' ') : params.getAll('scope')) : [];
    const access = user ? scopes.filter(Boolean).map((s) => {
      const [type, ...rest] = s.split(':');
      const actions = rest.pop() ?? '';
      return { type, name: rest.join(':'), actions: actions.split(',') };
    }) : [];
    const now = Math.floor(Date.now() / 1000);
    const token = signer.sign({ iss: TOKEN_ISSUER, sub: user ?? '', aud: params.get('service') ?? TOKEN_SERVICE, exp: now + 300, nbf: now - 10, iat: now, jti: randomBytes(8).toString('hex'), access });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token, access_token: token, expires_in: 300, issued_at: new Date().toISOString() }));
  }
}

interface Signer { certPath: string; sign(claims: object): string }

/** An ES256 key and self-signed certificate the registry trusts for tokens (rootcertbundle); the certificate rides in x5c. */
function tokenSigner(dir: string): Signer {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=tofu-registry test token signer', '-keyout', 'signer.key', '-out', 'signer.pem'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const certPath = join(dir, 'signer.pem');
  const der = new X509Certificate(readFileSync(certPath)).raw.toString('base64');
  const key = createPrivateKey(readFileSync(join(dir, 'signer.key')));
  const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
  return {
    certPath,
    sign(claims: object): string {
      const input = `${b64url(JSON.stringify({ typ: 'JWT', alg: 'ES256', x5c: [der] }))}.${b64url(JSON.stringify(claims))}`;
      return `${input}.${b64url(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`;
    },
  };
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const addr = s.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Starts a registry (and whatever its mode needs); stop() removes everything. */
export function startOciRegistry(opts: OciRegistryOptions = {}): Promise<TestOciRegistry> {
  return new TestOciRegistry(opts).start();
}

/**
 * Pushes `repo:tag` as an artifact that is NOT an OpenTofu module package (another artifactType,
 * one archive/zip layer): what "not a module package" is tested against.
 */
export async function pushForeignArtifact(c: OciClient, repo: OciRepository, tag: string): Promise<void> {
  const bytes = Buffer.from('not a module');
  await c.pushBlob(repo, { digest: sha256Digest(bytes), size: bytes.length }, bytes);
  await c.pushBlob(repo, EMPTY_CONFIG, Buffer.from('{}'));
  await c.putManifest(repo, tag, { mediaType: MEDIA_TYPE.imageManifest, bytes: Buffer.from(JSON.stringify({
    schemaVersion: 2, mediaType: MEDIA_TYPE.imageManifest, artifactType: 'application/vnd.example.other',
    config: { mediaType: EMPTY_CONFIG.mediaType, digest: EMPTY_CONFIG.digest, size: EMPTY_CONFIG.size },
    layers: [{ mediaType: 'archive/zip', digest: sha256Digest(bytes), size: bytes.length }],
  })) });
}
