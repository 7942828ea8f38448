// Provider registry protocol (providers.v1): list versions with protocols and platforms, and the
// package metadata of one version for one platform.
import { parseProviderSource, ProviderAddress } from '../addresses/provider-source';
import { RegistryError, rewordNotFound } from '../net/errors';
import { HttpClient, MiB } from '../net/http';
import { isSupportedHash } from '../providerpkg/hash';
import { parseVersion, sortNewestFirst, ParsedVersion } from '../versions/version';
import { shownUrl } from '../net/http-errors';

export interface ProviderVersion {
  version: string;
  protocols: string[];
  platforms: Array<{ os: string; arch: string }>;
}
export interface ProviderVersionList {
  address: string;
  host: string;
  /** Newest first; invalid version numbers dropped. */
  versions: ProviderVersion[];
  invalid: string[];
  url: string;
  cached: boolean;
  /** What the caller must say: a listing that may be incomplete (a filesystem mirror directory past its bound). */
  warnings?: string[];
}
export interface ProviderPackageMeta {
  address: string;
  version: string;
  os: string;
  arch: string;
  protocols: string[];
  filename: string;
  downloadUrl: string;
  /** Lower-case hex SHA-256 of the zip. */
  shasum: string;
  shasumsUrl: string;
  shasumsSignatureUrl: string;
  signingKeys: Array<{ keyId?: string; asciiArmor: string; trustSignature?: string; source?: string }>;
  /**
   * OpenTofu ≥ 1.12 (`packages`): every platform's hashes and archive size, when the registry
   * sends them. Validated here (platform keys, hash syntax, size > 0); only h1:/zh: hashes are kept.
   * Not yet trusted: see lock/packages.ts for the check against the signed SHA256SUMS.
   */
  packages?: Record<string, RegistryPackage>;
  /** The endpoint that answered. */
  url: string;
}

/** One platform of a download answer's `packages`. */
export interface RegistryPackage {
  /** h1: and zh: hashes, as the registry listed them (other schemes are dropped). */
  hashes: string[];
  /** package_size: the archive's size in bytes (> 0). */
  size: number;
}

export const PROVIDER_VERSIONS_MAX_BYTES = 8 * MiB;
export const PROVIDER_PACKAGE_MAX_BYTES = MiB;

export function toProviderAddress(address: ProviderAddress | string): ProviderAddress {
  return typeof address === 'string' ? parseProviderSource(address) : address;
}

function apiUrl(base: string, ...parts: string[]): string {
  const u = new URL(base);
  u.pathname = u.pathname.replace(/\/*$/, '/') + parts.map(encodeURIComponent).join('/');
  return u.href;
}

const PLATFORM_PART = /^[a-z0-9]+$/;

export async function fetchProviderVersions(http: HttpClient, base: string, p: ProviderAddress, signal?: AbortSignal): Promise<Omit<ProviderVersionList, 'cached'>> {
  const url = apiUrl(base, p.namespace, p.type, 'versions');
  const res = await rewordNotFound(http.getJson(url, { maxBytes: PROVIDER_VERSIONS_MAX_BYTES, auth: true, signal, anyContentType: true }),
    `provider ${p.address} not found on ${p.host}`, p.host, url);
  const list = (res.json as { versions?: unknown })?.versions;
  if (!Array.isArray(list)) {
    throw new RegistryError('protocol', `the registry at ${p.host} returned an invalid response for provider ${p.address}: no "versions" list (${shownUrl(res.url)})`, { host: p.host, url: shownUrl(res.url), status: res.status });
  }
  const byParsed = new Map<ParsedVersion, ProviderVersion>();
  const invalid: string[] = [];
  for (const item of list as Array<Record<string, unknown>>) {
    const raw = item?.version;
    const v = typeof raw === 'string' ? parseVersion(raw, 'provider') : 'not a string';
    if (typeof v === 'string') { invalid.push(String(raw)); continue; }
    const protocols = Array.isArray(item.protocols) ? item.protocols.filter((x): x is string => typeof x === 'string') : [];
    const platforms = Array.isArray(item.platforms)
      ? (item.platforms as Array<Record<string, unknown>>).filter((x) => typeof x?.os === 'string' && typeof x?.arch === 'string')
        .map((x) => ({ os: x.os as string, arch: x.arch as string }))
      : [];
    byParsed.set(v, { version: raw as string, protocols, platforms });
  }
  const versions = sortNewestFirst([...byParsed.keys()]).map((v) => byParsed.get(v)!);
  return { address: p.address, host: p.host, versions, invalid, url: res.url };
}

export async function fetchProviderPackage(http: HttpClient, base: string, p: ProviderAddress, version: string, os: string, arch: string, signal?: AbortSignal): Promise<ProviderPackageMeta> {
  const v = parseVersion(version, 'provider');
  if (typeof v === 'string') throw new RegistryError('invalid-version', `invalid provider version ${JSON.stringify(version)}: ${v}`, { host: p.host });
  if (!PLATFORM_PART.test(os) || !PLATFORM_PART.test(arch)) throw new RegistryError('invalid-address', `invalid platform ${os}_${arch}`, { host: p.host });
  const url = apiUrl(base, p.namespace, p.type, version, 'download', os, arch);
  const res = await rewordNotFound(http.getJson(url, { maxBytes: PROVIDER_PACKAGE_MAX_BYTES, auth: true, anyContentType: true, signal }),
    `provider ${p.address} ${version} is not available for ${os}_${arch} on ${p.host}`, p.host, url);
  const fail = (why: string) => new RegistryError('protocol', `the registry at ${p.host} returned invalid package metadata for ${p.address} ${version} ${os}_${arch}: ${why} (${shownUrl(res.url)})`, { host: p.host, url: shownUrl(res.url), status: res.status });
  const doc = res.json as Record<string, unknown>;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw fail('not a JSON object');
  const str = (k: string): string => {
    const val = doc[k];
    if (typeof val !== 'string' || val === '') throw fail(`missing "${k}"`);
    return val;
  };
  const abs = (k: string): string => {
    try {
      const u = new URL(str(k), res.url);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
      return u.href;
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      throw fail(`"${k}" is not a valid URL`);
    }
  };
  const filename = str('filename');
  if (/[/\\\0]/.test(filename) || filename === '.' || filename === '..' || filename.length > 255) throw fail(`unsafe filename ${JSON.stringify(filename)}`);
  const shasum = str('shasum');
  if (!/^[0-9a-fA-F]{64}$/.test(shasum)) throw fail(`"shasum" must be 64 hexadecimal characters, got ${JSON.stringify(shasum.slice(0, 80))}`);
  const keysRaw = (doc.signing_keys as { gpg_public_keys?: unknown })?.gpg_public_keys;
  const signingKeys = Array.isArray(keysRaw)
    ? (keysRaw as Array<Record<string, unknown>>).filter((k) => typeof k?.ascii_armor === 'string').map((k) => ({
      ...(typeof k.key_id === 'string' ? { keyId: k.key_id } : {}),
      asciiArmor: k.ascii_armor as string,
      ...(typeof k.trust_signature === 'string' && k.trust_signature ? { trustSignature: k.trust_signature } : {}),
      ...(typeof k.source === 'string' ? { source: k.source } : {}),
    }))
    : [];
  const protocols = Array.isArray(doc.protocols) ? doc.protocols.filter((x): x is string => typeof x === 'string') : [];
  const packages = doc.packages === undefined || doc.packages === null ? undefined : parsePackages(doc.packages, fail);
  return {
    address: p.address, version, os, arch, protocols, filename,
    downloadUrl: abs('download_url'), shasum: shasum.toLowerCase(),
    shasumsUrl: abs('shasums_url'), shasumsSignatureUrl: abs('shasums_signature_url'),
    signingKeys, ...(packages ? { packages } : {}), url: res.url,
  };
}

/**
 * `packages` (rfc/20251027-provider-registry-hashes.md): {"os_arch": {"hashes": [...],
 * "package_size": N}}. Anything malformed fails the whole answer, as it does in OpenTofu 1.12
 * (registry_client.go): a registry that sends broken hashes is not trusted for any of them.
 */
function parsePackages(raw: unknown, fail: (why: string) => RegistryError): Record<string, RegistryPackage> {
  if (typeof raw !== 'object' || Array.isArray(raw)) throw fail('"packages" must be an object keyed by platform');
  const out: Record<string, RegistryPackage> = {};
  for (const [platform, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^[a-z0-9]+_[a-z0-9]+$/.test(platform)) throw fail(`"packages" has an invalid platform ${JSON.stringify(platform.slice(0, 80))} (expected os_arch)`);
    const v = value as { hashes?: unknown; package_size?: unknown } | null;
    if (!v || typeof v !== 'object' || !Array.isArray(v.hashes)) throw fail(`"packages" entry ${platform} has no "hashes" list`);
    const size = v.package_size;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0) throw fail(`"packages" entry ${platform} has an invalid package_size ${JSON.stringify(size)}`);
    const hashes: string[] = [];
    for (const h of v.hashes) {
      const colon = typeof h === 'string' ? h.indexOf(':') : -1;
      if (typeof h !== 'string' || colon < 1) throw fail(`"packages" entry ${platform} has an invalid hash ${JSON.stringify(h).slice(0, 100)}`);
      const scheme = h.slice(0, colon);
      if (scheme !== 'h1' && scheme !== 'zh') continue; // a future scheme: not ours to check or record
      if (!isSupportedHash(h)) throw fail(`"packages" entry ${platform} has a malformed ${scheme}: hash ${JSON.stringify(h.slice(0, 100))}`);
      hashes.push(h);
    }
    out[platform] = { hashes: [...new Set(hashes)], size };
  }
  return out;
}
