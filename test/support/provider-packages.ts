// Real provider packages for tests: zips on disk, a SHA256SUMS document, a detached OpenPGP
// signature made with a throwaway key generated at test time, and the providers.v1 metadata
// that points at them. Archives are served from `/files/…` on a TestHttpsServer with optional
// per-file faults (wrong body, truncated body, missing, latency).
import { mkdirSync, promises as fs, createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import * as openpgp from 'openpgp';
import type { TestHttpsServer } from './https-server';
import { writeZip, ZipEntrySpec } from './zip-writer';

export interface SigningIdentity {
  publicArmored: string;
  privateKey: openpgp.PrivateKey;
  /** 16 hex digits, upper case. */
  keyId: string;
}

export async function makeSigningKey(name = 'tofu-registry test signer'): Promise<SigningIdentity> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name, email: 'signer@example.invalid' }], format: 'armored',
  });
  const key = await openpgp.readPrivateKey({ armoredKey: privateKey });
  return { publicArmored: publicKey, privateKey: key, keyId: key.getKeyID().toHex().toUpperCase() };
}

export async function signDetached(data: Uint8Array, key: SigningIdentity): Promise<Buffer> {
  const message = await openpgp.createMessage({ binary: data });
  const sig = await openpgp.sign({ message, signingKeys: key.privateKey, detached: true, format: 'binary' });
  return Buffer.from(sig as Uint8Array);
}

export interface BuiltPackage {
  namespace: string;
  type: string;
  version: string;
  os: string;
  arch: string;
  platform: string;
  filename: string;
  path: string;
  sha256: string;
  size: number;
}

export interface BuiltRelease {
  namespace: string;
  type: string;
  version: string;
  packages: BuiltPackage[];
  shasumsName: string;
  shasums: Buffer;
  signature: Buffer;
}

export interface ReleaseSpec {
  namespace: string;
  type: string;
  version: string;
  platforms: string[];
  /** Size of the provider binary inside each zip (default 4 KiB). Large ones are stored and generated. */
  binarySize?: number;
  /** Extra entries in every zip. */
  extraEntries?: ZipEntrySpec[];
}

/** Builds the zips of one provider version for each platform, SHA256SUMS and its signature. */
export async function buildRelease(dir: string, spec: ReleaseSpec, key: SigningIdentity): Promise<BuiltRelease> {
  const { namespace, type, version } = spec;
  const relDir = join(dir, namespace, type, version);
  mkdirSync(relDir, { recursive: true });
  const packages: BuiltPackage[] = [];
  for (const platform of spec.platforms) {
    const [os, arch] = platform.split('_');
    const filename = `terraform-provider-${type}_${version}_${os}_${arch}.zip`;
    const path = join(relDir, filename);
    const size = spec.binarySize ?? 4096;
    const seed = Buffer.from(`${namespace}/${type} ${version} ${platform} `);
    const chunk = Buffer.alloc(Math.min(size || 1, 1 << 20));
    for (let i = 0; i < chunk.length; i++) chunk[i] = seed[i % seed.length] ^ (i >> 8 & 0xff);
    const binary: ZipEntrySpec = size > 1 << 20
      ? { name: `terraform-provider-${type}_v${version}`, generated: { size, chunk } }
      : { name: `terraform-provider-${type}_v${version}`, data: chunk.subarray(0, size) };
    const res = await writeZip(path, [binary, { name: 'LICENSE', data: Buffer.from('MPL-2.0\n') }, ...(spec.extraEntries ?? [])]);
    packages.push({ namespace, type, version, os, arch, platform, filename, path, sha256: res.sha256, size: res.size });
  }
  const shasumsName = `terraform-provider-${type}_${version}_SHA256SUMS`;
  const shasums = Buffer.from(packages.map((p) => `${p.sha256}  ${p.filename}\n`).join(''));
  const signature = await signDetached(shasums, key);
  await fs.writeFile(join(relDir, shasumsName), shasums);
  await fs.writeFile(join(relDir, shasumsName + '.sig'), signature);
  return { namespace, type, version, packages, shasumsName, shasums, signature };
}

export type FileFault =
  | { kind: 'status'; status: number }
  | { kind: 'body'; body: Buffer }            // serve different bytes
  | { kind: 'truncate'; bytes: number }        // announce the full length, send fewer bytes, close
  | { kind: 'delay'; ms: number }
  | { kind: 'hang' };                          // headers, then nothing

/** Serves built releases under `/files/NS/TYPE/V/NAME`, with faults and optional latency. */
export class PackageFiles {
  readonly files = new Map<string, { path?: string; body?: Buffer }>();
  readonly faults = new Map<string, FileFault>();
  latencyMs = 0;

  constructor(readonly server: TestHttpsServer, readonly prefix = '/files/') {
    server.route(prefix, (_req, res, url) => this.handle(res, url.pathname));
  }

  urlFor(rel: BuiltRelease, name: string): string {
    return `${this.server.origin}${this.prefix}${rel.namespace}/${rel.type}/${rel.version}/${name}`;
  }

  add(rel: BuiltRelease): void {
    const base = `${this.prefix}${rel.namespace}/${rel.type}/${rel.version}/`;
    for (const p of rel.packages) this.files.set(base + p.filename, { path: p.path });
    this.files.set(base + rel.shasumsName, { body: rel.shasums });
    this.files.set(base + rel.shasumsName + '.sig', { body: rel.signature });
  }

  /** Serves extra bytes at `/files/REL` (e.g. an alternative SHA256SUMS); returns the URL. */
  addBody(rel: string, body: Buffer): string {
    this.files.set(this.prefix + rel, { body });
    return `${this.server.origin}${this.prefix}${rel}`;
  }

  /** Sets a fault on the file whose path ends with `suffix` (e.g. a filename). */
  fault(suffix: string, fault: FileFault | undefined): void {
    const key = [...this.files.keys()].find((k) => k.endsWith('/' + suffix) || k === suffix);
    if (!key) throw new Error(`no served file ends with ${suffix}`);
    if (fault) this.faults.set(key, fault);
    else this.faults.delete(key);
  }

  private async handle(res: ServerResponse, path: string): Promise<boolean> {
    const f = this.files.get(path);
    if (!f) return false;
    if (this.latencyMs) await sleep(this.latencyMs);
    const fault = this.faults.get(path);
    if (fault?.kind === 'delay') await sleep(fault.ms);
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'Content-Type': 'text/plain' });
      res.end('fault');
      return true;
    }
    if (fault?.kind === 'hang') {
      res.writeHead(200, { 'Content-Type': 'application/zip', 'Content-Length': '1000' });
      res.write('PK');
      return true;
    }
    const body = fault?.kind === 'body' ? fault.body : f.body;
    const size = body ? body.length : statSync(f.path!).size;
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });
    if (fault?.kind === 'truncate') {
      const part = body ? body.subarray(0, fault.bytes) : await readPart(f.path!, fault.bytes);
      res.write(part, () => res.destroy());
      return true;
    }
    if (body) res.end(body);
    else createReadStream(f.path!).pipe(res);
    return true;
  }
}

async function readPart(path: string, bytes: number): Promise<Buffer> {
  const fh = await fs.open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Per-platform overrides of the providers.v1 metadata (to test verification failures). */
export type PlatformOverride = Partial<{
  filename: string;
  download_url: string;
  shasum: string;
  shasums_url: string;
  shasums_signature_url: string;
  signing_keys: { gpg_public_keys: Array<{ key_id: string; ascii_armor: string }> };
  packages: PackagesAnswer;
}>;

/** A download answer's `packages` (OpenTofu ≥ 1.12): platform → hashes and package_size. */
export type PackagesAnswer = Record<string, { hashes: string[]; package_size: number }>;

/**
 * The `packages` a registry would send for a release: each platform's h1: (given by `h1Of`, e.g.
 * the engine's h1OfZip, or known answers) and zh: (the sha256 the release was built with), and size.
 */
export async function packagesOf(rel: BuiltRelease, h1Of: (p: BuiltPackage) => Promise<string | string[]>): Promise<PackagesAnswer> {
  const out: PackagesAnswer = {};
  for (const p of rel.packages) out[p.platform] = { hashes: [...[await h1Of(p)].flat(), `zh:${p.sha256}`], package_size: p.size };
  return out;
}

/** The `addProvider` definition (providers.v1 shape) for built releases served by `files`. */
export function providerDefinition(files: PackageFiles, releases: BuiltRelease[], keys: SigningIdentity[],
  overrides: (p: BuiltPackage) => PlatformOverride | undefined = () => undefined) {
  const first = releases[0];
  return {
    namespace: first.namespace,
    type: first.type,
    versions: releases.map((rel) => ({
      version: rel.version,
      protocols: ['5.0'],
      platforms: rel.packages.map((p) => ({
        os: p.os,
        arch: p.arch,
        filename: p.filename,
        download_url: files.urlFor(rel, p.filename),
        shasum: p.sha256,
        shasums_url: files.urlFor(rel, rel.shasumsName),
        shasums_signature_url: files.urlFor(rel, rel.shasumsName + '.sig'),
        signing_keys: { gpg_public_keys: keys.map((k) => ({ key_id: k.keyId, ascii_armor: k.publicArmored })) },
        ...overrides(p),
      })),
    })),
  };
}
