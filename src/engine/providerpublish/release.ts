// A provider release as the standard release tooling writes it (the terraform-provider scaffolding's
// goreleaser configuration) in one directory, DIST:
//   terraform-provider-TYPE_VERSION_OS_ARCH.zip     one per platform
//   terraform-provider-TYPE_VERSION_SHA256SUMS      "hex  filename" lines
//   terraform-provider-TYPE_VERSION_SHA256SUMS.sig  detached binary OpenPGP signature (optional here: signing.ts)
//   terraform-provider-TYPE_VERSION_manifest.json   {"version":1,"metadata":{"protocol_versions":["6.0"]}} (optional: 5.0)
// Read and checked before anything is written: every zip listed in SHA256SUMS with its hash, each
// zip holding the provider executable tofu looks for, version and platforms that parse.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { ProviderAddress } from '../addresses/provider-source';
import { safeVersion } from '../fstree/safe-paths';
import { parseJsonBounded } from '../net/json-depth';
import { h1OfUnpackedZip, h1OfZip, sha256File, unpackedZipFiles } from '../providerpkg/hash';
import { isPlatform } from '../providerpkg/platform';
import { checkSha256Sums } from '../providerpkg/signature';
import { parseVersion } from '../versions/version';

/** A check of the release (or of the site or registry it goes to) failed; nothing was written. */
export class ProviderPublishError extends Error {
  override readonly name = 'ProviderPublishError';
}

export interface ReleasePackage {
  platform: string;
  os: string;
  arch: string;
  filename: string;
  /** The zip in DIST. */
  path: string;
  sha256: string;
  size: number;
  /** h1: as a lock file records it (the package unpacked), and zh:. */
  h1: string;
  zh: string;
}

export interface Release {
  address: ProviderAddress;
  version: string;
  /** Plugin protocol versions (manifest.json; ["5.0"] without one, as the registry assumes). */
  protocols: string[];
  /** By platform name. */
  packages: ReleasePackage[];
  sums: { filename: string; bytes: Buffer };
  /** The release's own signature, when DIST has one. */
  signature?: { filename: string; bytes: Buffer };
}

const SUMS_MAX = 1024 * 1024;
const SIG_MAX = 64 * 1024;
const MANIFEST_MAX = 64 * 1024;

/** Reads and checks the release of `address` in `dist` (the one version there, or `version`). Throws ProviderPublishError. */
export async function readRelease(dist: string, address: ProviderAddress, version?: string, signal?: AbortSignal): Promise<Release> {
  const prefix = `terraform-provider-${address.type}_`;
  let names: string[];
  try {
    names = (await fs.readdir(dist, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch (err) {
    throw new ProviderPublishError(`cannot read the release directory ${dist}: ${(err as Error).message}`);
  }
  const zipRe = new RegExp(`^${escapeRe(prefix)}([^_]+)_([a-z0-9]+)_([a-z0-9]+)\\.zip$`);
  const zips = names.map((n) => ({ n, m: zipRe.exec(n) })).filter((z) => z.m);
  const versions = [...new Set(zips.map((z) => z.m![1]))].sort();
  const shown = versions.map((v) => (/^[0-9A-Za-z.+-]+$/.test(v) ? v : JSON.stringify(v))); // file names may hold anything
  if (version === undefined) {
    if (!versions.length) throw new ProviderPublishError(`${dist} holds no ${prefix}VERSION_OS_ARCH.zip (the type comes from --address ${address.address})`);
    if (versions.length > 1) throw new ProviderPublishError(`${dist} holds packages of several versions (${shown.join(', ')}); choose one with --version`);
    version = versions[0];
  }
  const parsed = parseVersion(version, 'provider');
  if (typeof parsed === 'string') throw new ProviderPublishError(`invalid provider version ${JSON.stringify(version)}: ${parsed}`);
  try { safeVersion(version); } catch { throw new ProviderPublishError(`version ${JSON.stringify(version)} must be written as MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] (as in the file names)`); }
  const mine = zips.filter((z) => z.m![1] === version).sort((a, b) => (a.n < b.n ? -1 : 1));
  if (!mine.length) throw new ProviderPublishError(`${dist} holds no ${prefix}${version}_OS_ARCH.zip${versions.length ? ` (versions there: ${shown.join(', ')})` : ''}`);

  const stem = `${prefix}${version}`;
  const sumsName = `${stem}_SHA256SUMS`;
  const sumsBytes = await readCapped(join(dist, sumsName), SUMS_MAX, dist);
  if (!sumsBytes) throw new ProviderPublishError(`${dist} has no ${sumsName}: the registry protocol publishes every package's SHA-256 in it`);
  const sigBytes = await readCapped(join(dist, `${sumsName}.sig`), SIG_MAX, dist);
  const protocols = await readProtocols(join(dist, `${stem}_manifest.json`));
  const sumsText = sumsBytes.toString('utf8');

  const packages: ReleasePackage[] = [];
  const problems: string[] = [];
  for (const { n, m } of mine) {
    signal?.throwIfAborted();
    const [, , os, arch] = m!;
    const platform = `${os}_${arch}`;
    if (!isPlatform(platform)) { problems.push(`${n}: ${platform} is not an os_arch platform`); continue; }
    const path = join(dist, n);
    const { sha256, size } = await sha256File(path, signal);
    const listed = checkSha256Sums(sumsText, n, sha256);
    if (listed) { problems.push(`${n}: ${listed}`); continue; }
    let files: string[];
    let zipH1: string;
    try {
      files = await unpackedZipFiles(path, signal);
      zipH1 = await h1OfZip(path, signal);
    } catch (err) {
      problems.push(`${n} is not a readable zip: ${(err as Error).message}`);
      continue;
    }
    const missing = executableProblem(files, address.type, version, os);
    if (missing) { problems.push(`${n} ${missing}`); continue; }
    packages.push({ platform, os, arch, filename: n, path, sha256, size, h1: await h1OfUnpackedZip(path, signal, zipH1), zh: `zh:${sha256}` });
  }
  if (problems.length) throw new ProviderPublishError(`the release in ${dist} is not published (nothing was written):\n  ${problems.join('\n  ')}`);
  return {
    address, version, protocols, packages,
    sums: { filename: sumsName, bytes: sumsBytes },
    ...(sigBytes ? { signature: { filename: `${sumsName}.sig`, bytes: sigBytes } } : {}),
  };
}

/**
 * Why tofu would not find the provider executable in a package with these files, or undefined.
 * OpenTofu (providercache CachedProvider.ExecutableFile) takes the first file at the top of the
 * unpacked package, in name order, named terraform-provider-TYPE followed by nothing, "_" or ".";
 * on Windows that file must be the .exe it will run.
 */
export function executableProblem(files: string[], type: string, version: string, os: string): string | undefined {
  const want = `terraform-provider-${type}`;
  const top = files.filter((f) => !f.includes('/')).sort();
  const found = top.find((n) => n.startsWith(want) && (n.length === want.length || n[want.length] === '_' || n[want.length] === '.'));
  const example = `${want}_v${version}${os === 'windows' ? '.exe' : ''}`;
  const has = top.length ? `it has ${top.slice(0, 8).join(', ')}${top.length > 8 ? ', …' : ''}` : 'it has no files at its top';
  if (!found) return `holds no provider executable: tofu looks for a file named ${want}, ${want}_… or ${want}.… (e.g. ${example}) at the top of the package; ${has}`;
  if (os === 'windows' && !found.endsWith('.exe')) return `holds ${found} as the provider executable, which Windows cannot run: name it ${example}`;
  return undefined;
}

/** protocol_versions of the manifest, or ["5.0"] without one (the registry's default). */
async function readProtocols(file: string): Promise<string[]> {
  const text = await readCapped(file, MANIFEST_MAX, file);
  if (!text) return ['5.0'];
  let doc: unknown;
  try { doc = parseJsonBounded(text.toString('utf8')); } catch (err) { throw new ProviderPublishError(`${file} is not JSON: ${(err as Error).message}`); }
  const list = (doc as { metadata?: { protocol_versions?: unknown } })?.metadata?.protocol_versions;
  if (list === undefined) return ['5.0'];
  if (!Array.isArray(list) || !list.length || !list.every((p) => typeof p === 'string' && /^[0-9]+\.[0-9]+$/.test(p))) {
    throw new ProviderPublishError(`${file}: metadata.protocol_versions must list plugin protocol versions such as "5.0" or "6.0"`);
  }
  return [...new Set(list as string[])];
}

async function readCapped(file: string, max: number, where: string): Promise<Buffer | undefined> {
  const st = await fs.stat(file).catch(() => undefined);
  if (!st) return undefined;
  if (!st.isFile() || st.size > max) throw new ProviderPublishError(`${file} is not a file of at most ${max} bytes (in ${where})`);
  return fs.readFile(file);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
