// A provider release as the release tooling writes it, built at test time (zips with the executable
// named as tofu expects, SHA256SUMS, a detached signature by a throwaway OpenPGP key, the manifest),
// and a plain static HTTPS server for the published site: files only, and a Content-Type for
// `.json` files at most (like a web server or bucket with no registry knowledge).
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, promises as fs, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import * as openpgp from 'openpgp';
import { TestHttpsServer } from '../../support/https-server';
import { makeSigningKey, signDetached, SigningIdentity } from '../../support/provider-packages';
import { writeZip } from '../../support/zip-writer';

export const PLATFORMS = ['darwin_arm64', 'linux_amd64', 'windows_amd64'];

export interface BuiltZip { platform: string; filename: string; path: string; sha256: string }

export interface ReleaseOptions {
  type?: string;
  version: string;
  platforms?: string[];
  /** Signs SHA256SUMS into _SHA256SUMS.sig (default true). */
  sign?: boolean;
  /** The executable's name in a platform's zip (default terraform-provider-TYPE_vVERSION[.exe]). */
  executable?: (platform: string) => string;
  /** Zips left out of SHA256SUMS. */
  unlisted?: string[];
  /** Extra bytes in every binary (a "rebuilt" release with other content). */
  salt?: string;
  protocols?: string[];
}

/** Writes the release into `dist` (which may hold other versions' files); returns its zips. */
export async function buildRelease(dist: string, key: SigningIdentity, o: ReleaseOptions): Promise<BuiltZip[]> {
  const type = o.type ?? 'widget';
  mkdirSync(dist, { recursive: true });
  const zips: BuiltZip[] = [];
  for (const platform of o.platforms ?? PLATFORMS) {
    const filename = `terraform-provider-${type}_${o.version}_${platform}.zip`;
    const path = join(dist, filename);
    const exe = o.executable?.(platform) ?? `terraform-provider-${type}_v${o.version}${platform.startsWith('windows') ? '.exe' : ''}`;
    const res = await writeZip(path, [
      { name: exe, data: Buffer.from(`#!/bin/sh\n# ${type} ${o.version} ${platform} ${o.salt ?? ''}\n`) },
      { name: 'LICENSE', data: Buffer.from('MPL-2.0\n') },
    ]);
    zips.push({ platform, filename, path, sha256: res.sha256 });
  }
  const stem = `terraform-provider-${type}_${o.version}`;
  const sums = Buffer.from(zips.filter((z) => !o.unlisted?.includes(z.platform)).map((z) => `${z.sha256}  ${z.filename}\n`).join(''));
  writeFileSync(join(dist, `${stem}_SHA256SUMS`), sums);
  if (o.sign ?? true) writeFileSync(join(dist, `${stem}_SHA256SUMS.sig`), await signDetached(sums, key));
  writeFileSync(join(dist, `${stem}_manifest.json`), JSON.stringify({ version: 1, metadata: { protocol_versions: o.protocols ?? ['6.0'] } }));
  return zips;
}

/** A throwaway key, with its armored public and private keys written to files in `dir`. */
export async function keyFiles(dir: string, name?: string): Promise<SigningIdentity & { publicFile: string; privateFile: string; privateArmored: string }> {
  const key = await makeSigningKey(name);
  const privateArmored = key.privateKey.armor();
  mkdirSync(dir, { recursive: true });
  const publicFile = join(dir, `${key.keyId}.pub.asc`);
  const privateFile = join(dir, `${key.keyId}.key.asc`);
  writeFileSync(publicFile, key.publicArmored);
  writeFileSync(privateFile, privateArmored);
  return { ...key, publicFile, privateFile, privateArmored };
}

/** The same key's private part protected by a passphrase (armored). */
export async function encryptedCopy(key: SigningIdentity, passphrase: string): Promise<string> {
  const copy = await openpgp.readPrivateKey({ armoredKey: key.privateKey.armor() });
  return (await openpgp.encryptKey({ privateKey: copy, passphrase })).armor();
}

/**
 * Serves `root` as a plain static server: 404 for anything but a file, and a Content-Type only for
 * `.json` files when `jsonType` (what every web server and bucket sends by extension) — none at all
 * for `versions`, `download/OS/ARCH`, zips, sums and signatures.
 */
export async function startBareServer(root: string, jsonType = true): Promise<TestHttpsServer> {
  const server = await new TestHttpsServer().start();
  const base = resolve(root);
  server.route('/', async (_req, res, url) => {
    const file = resolve(base, decodeURIComponent(url.pathname.slice(1)));
    if (file !== base && !file.startsWith(base + sep)) return false;
    const st = await fs.stat(file).catch(() => undefined);
    if (!st?.isFile()) return false;
    const headers: Record<string, string | number> = { 'Content-Length': st.size };
    if (jsonType && file.endsWith('.json')) headers['Content-Type'] = 'application/json';
    res.writeHead(200, headers);
    // Node adds no Content-Type of its own: the response carries none unless set above
    await new Promise<void>((done, fail) => createReadStream(file).on('error', fail).pipe(res).on('finish', done));
  });
  return server;
}

/** Every file below `dir` (relative, forward slashes) → sha256 and mtime: what a run changed. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    let entries;
    try { entries = readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p).split(sep).join('/'), `${createHash('sha256').update(readFileSync(p)).digest('hex')} ${statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

/** A configuration requiring the provider at `address` (and nothing else). */
export function configFor(dir: string, address: string, constraint?: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    widget = {\n      source = "${address}"\n${constraint ? `      version = "${constraint}"\n` : ''}    }\n  }\n}\n`);
  return dir;
}
