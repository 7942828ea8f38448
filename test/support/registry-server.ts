// The test registry (also the embedded demo): real HTTPS on 127.0.0.1 with service discovery,
// modules.v1, providers.v1, a provider network mirror (/mirror/) and static files, fed from
// test/fixtures/registry/modules.json plus whatever a test adds — and fault switches.
// A second server on https://localhost:PORT2 serves the same data without requiring a token:
// the target for "redirect to another host" tests (it must never receive the token).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { sendJson, TestHttpsServer } from './https-server';
import { applyFault, Fault, FaultSpec } from './registry-faults';
import { testPki } from './tls';

export type { Fault, FaultSpec } from './registry-faults';

export interface ModuleDef {
  namespace: string; name: string; system: string; versions: string[];
  /** Withdrawn versions: the download endpoint still answers for them, the version list no longer names them. */
  withdrawn?: string[];
  location?: (version: string) => { kind: 'json' | 'header' | 'header200'; location: string };
}
export interface ProviderPlatformDef {
  os: string; arch: string; filename: string; download_url: string; shasum: string;
  shasums_url: string; shasums_signature_url: string;
  signing_keys: { gpg_public_keys: Array<{ key_id: string; ascii_armor: string; trust_signature?: string; source?: string; source_url?: string }> };
  /** OpenTofu ≥ 1.12: every platform's hashes and size in the download answer (see provider-packages.ts packagesOf). */
  packages?: Record<string, { hashes: string[]; package_size: number }>;
}
export interface ProviderDef {
  namespace: string; type: string;
  versions: Array<{ version: string; protocols?: string[]; platforms: ProviderPlatformDef[] }>;
}

export interface TestRegistry {
  server: TestHttpsServer;
  /** The other host for redirect tests: https://localhost:PORT2 (same data, no token needed). */
  second: TestHttpsServer;
  secondOrigin: string;
  secondHost: string;
  /** 127.0.0.1:PORT */
  host: string;
  caCertPath: string;
  /** https://127.0.0.1:PORT */
  origin: string;
  token?: string;
  addModule(def: ModuleDef): void;
  addProvider(def: ProviderDef): void;
  /** Serve a static file at an absolute path (e.g. '/archives/x.tar.gz'). */
  addFile(path: string, body: Buffer | string, contentType?: string): void;
  /** Replace the discovery document (values may be relative). */
  setDiscovery(doc: Record<string, unknown> | null): void;
  /** Requests whose path starts with pathPrefix fail as described; null clears. */
  setFault(pathPrefix: string, fault: Fault | FaultSpec | null): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

export const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'registry');

interface FixtureFile {
  modules: Array<{ namespace: string; name: string; system: string; versions: string[]; download: 'json' | 'header' | 'header200'; location: string }>;
  providers: Array<{ namespace: string; type: string; versions: Array<{ version: string; protocols: string[]; platforms: string[] }> }>;
}

export const PLACEHOLDER_KEY = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n(test placeholder: not a real key)\n-----END PGP PUBLIC KEY BLOCK-----\n';

export async function startTestRegistry(opts: { token?: string; fixtures?: boolean } = {}): Promise<TestRegistry> {
  const server = await new TestHttpsServer().start();
  const second = await new TestHttpsServer().start();
  const origin = server.origin;
  const secondOrigin = `https://localhost:${second.port}`;
  const modules = new Map<string, ModuleDef>();
  const providers = new Map<string, ProviderDef>();
  const files = new Map<string, { body: Buffer; type: string }>();
  const faults = new Map<string, FaultSpec>();
  let discovery: Record<string, unknown> | null = { 'modules.v1': '/v1/modules', 'providers.v1': '/v1/providers/' };

  const reg: TestRegistry = {
    server, second, secondOrigin, secondHost: `localhost:${second.port}`, host: server.host,
    caCertPath: testPki().caCertPath, origin, token: opts.token,
    addModule(def) { modules.set(`${def.namespace}/${def.name}/${def.system}`, def); },
    addProvider(def) { providers.set(`${def.namespace}/${def.type}`, def); },
    addFile(path, body, contentType = 'application/octet-stream') { files.set(path, { body: Buffer.from(body), type: contentType }); },
    setDiscovery(doc) { discovery = doc; },
    setFault(prefix, fault) {
      if (fault === null) { faults.delete(prefix); return; }
      faults.set(prefix, typeof fault === 'string' ? { kind: fault } : { ...fault });
      // re-register on top so the fault wins over routes added earlier
      server.route(prefix, (req, res, url) => {
        const f = faults.get(prefix);
        if (!f) return false;
        if (f.times !== undefined && --f.times <= 0) faults.delete(prefix);
        return applyFault(f, req, res, url, secondOrigin);
      });
    },
    clearFaults() { faults.clear(); },
    async stop() { await Promise.all([server.stop(), second.stop()]); },
  };

  if (opts.fixtures !== false) loadFixtures(reg, origin);

  const authorized = (req: IncomingMessage, res: ServerResponse, needToken: boolean): boolean => {
    if (!needToken || !opts.token) return true;
    const got = req.headers.authorization;
    if (!got) { sendJson(res, 401, { errors: ['missing credentials'] }); return false; }
    if (got !== `Bearer ${opts.token}`) { sendJson(res, 403, { errors: ['invalid token'] }); return false; }
    return true;
  };

  const install = (srv: TestHttpsServer, needToken: boolean) => {
    srv.route('/.well-known/terraform.json', (req, res) => {
      if (!authorized(req, res, needToken)) return;
      if (!discovery) sendJson(res, 404, { errors: ['not found'] });
      else sendJson(res, 200, discovery);
    });
    srv.route('/v1/modules/', (req, res, url) => {
      if (!authorized(req, res, needToken)) return;
      const parts = url.pathname.slice('/v1/modules/'.length).split('/').map(decodeURIComponent);
      const def = modules.get(parts.slice(0, 3).join('/'));
      if (!def) return void sendJson(res, 404, { errors: ['module not found'] });
      if (parts.length === 4 && parts[3] === 'versions') {
        return void sendJson(res, 200, { modules: [{ source: parts.slice(0, 3).join('/'), versions: def.versions.map((version) => ({ version })) }] });
      }
      if (parts.length === 5 && parts[4] === 'download') {
        const want = parts[3];
        const known = [...def.versions, ...def.withdrawn ?? []].find((v) => v === want || v.replace(/^v/, '') === want || v.replace(/^v/, '').split('+')[0] === want);
        if (!known) return void sendJson(res, 404, { errors: ['version not found'] });
        const loc = (def.location ?? ((v: string) => ({ kind: 'json' as const, location: `${origin}/archives/${def.namespace}/${def.name}/${def.system}/${v}.tar.gz` })))(known.replace(/^v/, ''));
        if (loc.kind === 'json') return void sendJson(res, 200, { location: loc.location });
        res.writeHead(loc.kind === 'header' ? 204 : 200, { 'X-Terraform-Get': loc.location, 'Content-Length': '0' });
        return void res.end();
      }
      sendJson(res, 404, { errors: ['not found'] });
    });
    srv.route('/v1/providers/', (req, res, url) => {
      if (!authorized(req, res, needToken)) return;
      const parts = url.pathname.slice('/v1/providers/'.length).split('/').map(decodeURIComponent);
      const def = providers.get(parts.slice(0, 2).join('/'));
      if (!def) return void sendJson(res, 404, { errors: ['provider not found'] });
      if (parts.length === 3 && parts[2] === 'versions') {
        return void sendJson(res, 200, {
          id: parts.slice(0, 2).join('/'),
          versions: def.versions.map((v) => ({ version: v.version, protocols: v.protocols ?? ['5.0'], platforms: v.platforms.map((p) => ({ os: p.os, arch: p.arch })) })),
          warnings: null,
        });
      }
      if (parts.length === 6 && parts[3] === 'download') {
        const v = def.versions.find((x) => x.version === parts[2]);
        const p = v?.platforms.find((x) => x.os === parts[4] && x.arch === parts[5]);
        if (!v || !p) return void sendJson(res, 404, { errors: ['platform not found'] });
        return void sendJson(res, 200, { protocols: v.protocols ?? ['5.0'], ...p });
      }
      sendJson(res, 404, { errors: ['not found'] });
    });
    // Provider network mirror: /mirror/:hostname/:namespace/:type/index.json and /:version.json
    srv.route('/mirror/', (_req, res, url) => {
      const parts = url.pathname.slice('/mirror/'.length).split('/').map(decodeURIComponent);
      if (parts.length !== 4) return void sendJson(res, 404, { errors: ['not found'] });
      const def = providers.get(`${parts[1]}/${parts[2]}`);
      if (!def || parts[0] !== server.host) return void sendJson(res, 404, { errors: ['provider not found'] });
      if (parts[3] === 'index.json') {
        return void sendJson(res, 200, { versions: Object.fromEntries(def.versions.map((v) => [v.version, {}])) });
      }
      const v = def.versions.find((x) => `${x.version}.json` === parts[3]);
      if (!v) return void sendJson(res, 404, { errors: ['version not found'] });
      return void sendJson(res, 200, {
        archives: Object.fromEntries(v.platforms.map((p) => [`${p.os}_${p.arch}`, { url: new URL(p.download_url, origin).href, hashes: [`zh:${p.shasum}`] }])),
      });
    });
    srv.route('/', (_req, res, url) => {
      const f = files.get(url.pathname);
      if (!f) return false;
      res.writeHead(200, { 'Content-Type': f.type, 'Content-Length': f.body.length });
      res.end(f.body);
    });
  };
  install(server, true);
  install(second, false);
  return reg;
}

/** The fixture modules/providers (test/fixtures/registry/modules.json) on this registry. */
export function loadFixtures(reg: Pick<TestRegistry, 'addModule' | 'addProvider'>, origin: string): void {
  const data = JSON.parse(readFileSync(join(FIXTURES, 'modules.json'), 'utf8')) as FixtureFile;
  for (const m of data.modules) {
    reg.addModule({
      namespace: m.namespace, name: m.name, system: m.system, versions: m.versions,
      location: (v) => ({ kind: m.download, location: m.location.replace(/\{version\}/g, v).replace(/\{origin\}/g, origin) }),
    });
  }
  for (const p of data.providers) {
    reg.addProvider({
      namespace: p.namespace, type: p.type,
      versions: p.versions.map((v) => ({
        version: v.version, protocols: v.protocols,
        platforms: v.platforms.map((plat) => {
          const [os, arch] = plat.split('_');
          const filename = `terraform-provider-${p.type}_${v.version}_${os}_${arch}.zip`;
          const dir = `/files/${p.namespace}/${p.type}/${v.version}`;
          return {
            os, arch, filename, download_url: `${dir}/${filename}`,
            shasum: createHash('sha256').update(filename).digest('hex'),
            shasums_url: `${dir}/terraform-provider-${p.type}_${v.version}_SHA256SUMS`,
            shasums_signature_url: `${dir}/terraform-provider-${p.type}_${v.version}_SHA256SUMS.sig`,
            signing_keys: { gpg_public_keys: [{ key_id: '0123456789ABCDEF', ascii_armor: PLACEHOLDER_KEY }] },
          };
        }),
      })),
    });
  }
}
