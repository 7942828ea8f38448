// Shared setup for the mirror tests: the HTTPS test registry with real, signed provider packages,
// configuration directories on disk, and an independent validator of a mirror directory.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { Engine, EngineOptions } from '../../../src/engine/engine';
import { h1OfZip } from '../../../src/engine/providerpkg/hash';
import { TestHttpsServer } from '../../support/https-server';
import {
  BuiltPackage, BuiltRelease, buildRelease, makeSigningKey, PackageFiles, PlatformOverride, providerDefinition, SigningIdentity,
} from '../../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';

export interface Fixture {
  reg: TestRegistry;
  files: PackageFiles;
  key: SigningIdentity;
  other: SigningIdentity;
  root: string;
  releases: Map<string, BuiltRelease[]>;
  engine(extra?: Partial<EngineOptions>): Engine;
  addProvider(namespace: string, type: string, versions: string[], platforms: string[],
    overrides?: (p: BuiltPackage) => PlatformOverride | undefined): Promise<BuiltRelease[]>;
  pkg(namespace: string, type: string, version: string, platform: string): BuiltPackage;
  stop(): Promise<void>;
}

export async function startFixture(opts: { token?: string } = {}): Promise<Fixture> {
  const reg = await startTestRegistry({ fixtures: false, token: opts.token });
  const files = new PackageFiles(reg.server);
  const [key, other] = await Promise.all([makeSigningKey('release signer'), makeSigningKey('somebody else')]);
  const root = tempDir('mirror-fx-');
  const releases = new Map<string, BuiltRelease[]>();
  const engines: Engine[] = [];
  const fx: Fixture = {
    reg, files, key, other, root, releases,
    engine(extra = {}) {
      const e = new Engine({ env: { HOME: root }, caFiles: [reg.caCertPath], timeoutMs: 10_000, maxAttempts: 1, ...extra });
      engines.push(e);
      return e;
    },
    async addProvider(namespace, type, versions, platforms, overrides) {
      const built: BuiltRelease[] = [];
      for (const version of versions) built.push(await buildRelease(join(root, 'packages'), { namespace, type, version, platforms }, key));
      for (const r of built) files.add(r);
      releases.set(`${namespace}/${type}`, built);
      reg.addProvider(providerDefinition(files, built, [key], overrides));
      return built;
    },
    pkg(namespace, type, version, platform) {
      const p = releases.get(`${namespace}/${type}`)?.find((r) => r.version === version)?.packages.find((x) => x.platform === platform);
      if (!p) throw new Error(`no package ${namespace}/${type} ${version} ${platform}`);
      return p;
    },
    async stop() {
      await Promise.all(engines.map((e) => e.dispose()));
      await reg.stop();
    },
  };
  return fx;
}

let dirCounter = 0;

/** A configuration directory with required_providers (and optionally a lock file). */
export function writeConfig(root: string, providers: Record<string, { source: string; version?: string } | string>, lock?: string): string {
  const dir = join(root, `config-${++dirCounter}`);
  mkdirSync(dir, { recursive: true });
  const lines = Object.entries(providers).map(([name, p]) => typeof p === 'string'
    ? `    ${name} = ${JSON.stringify(p)}`
    : `    ${name} = {\n      source = ${JSON.stringify(p.source)}\n${p.version ? `      version = ${JSON.stringify(p.version)}\n` : ''}    }`);
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n${lines.join('\n')}\n  }\n}\n`);
  if (lock) writeFileSync(join(dir, '.terraform.lock.hcl'), lock);
  return dir;
}

export function lockBlock(address: string, version: string, hashes: string[]): string {
  return `provider "${address}" {\n  version = "${version}"\n  hashes = [\n${hashes.map((h) => `    "${h}",`).join('\n')}\n  ]\n}\n`;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Checks a mirror directory the way a consumer would: every JSON parses, index.json lists exactly
 * the version files, every listed archive exists and matches its zh: (sha256, computed here) and
 * h1: hashes, and no temp files are left. Returns the number of archives.
 */
export async function validateMirror(out: string, opts: { allowTemp?: boolean } = {}): Promise<number> {
  let archives = 0;
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
  const all = walk(out);
  for (const f of all) {
    // A killed process may leave dot-prefixed temp files (never listed, removed by the next run).
    if (!opts.allowTemp) assert.ok(!/\.(part|tmp)$/.test(f), `temp file left behind: ${relative(out, f)}`);
  }
  for (const index of all.filter((f) => f.endsWith('/index.json'))) {
    const dir = join(index, '..');
    const versions = Object.keys(JSON.parse(readFileSync(index, 'utf8')).versions);
    for (const v of versions) {
      const vfile = join(dir, `${v}.json`);
      assert.ok(existsSync(vfile), `${relative(out, vfile)} listed in index.json but missing`);
      const doc = JSON.parse(readFileSync(vfile, 'utf8'));
      for (const [platform, a] of Object.entries(doc.archives as Record<string, { url: string; hashes: string[] }>)) {
        const zip = join(dir, a.url);
        assert.ok(existsSync(zip), `${relative(out, zip)} (${platform}) listed but missing`);
        assert.ok(a.hashes.includes('zh:' + sha256(readFileSync(zip))), `${a.url}: zh: does not match`);
        assert.ok(a.hashes.includes(await h1OfZip(zip)), `${a.url}: h1: does not match`);
        archives++;
      }
    }
  }
  for (const f of all.filter((x) => extname(x) === '.json')) JSON.parse(readFileSync(f, 'utf8'));
  return archives;
}

/** Serves a directory over HTTPS like a static website (application/json for .json). */
export async function serveStatic(dir: string, prefix = '/providers/'): Promise<{ server: TestHttpsServer; url: string }> {
  const server = await new TestHttpsServer().start();
  server.route(prefix, (_req, res, url) => {
    const rel = decodeURIComponent(url.pathname.slice(prefix.length));
    const file = join(dir, rel);
    if (rel.split('/').includes('..') || !existsSync(file) || !statSync(file).isFile()) return false;
    const body = readFileSync(file);
    res.writeHead(200, { 'Content-Type': file.endsWith('.json') ? 'application/json' : 'application/zip', 'Content-Length': body.length });
    res.end(body);
  });
  return { server, url: `${server.origin}${prefix}` };
}
