// Provider versions the way `tofu init` finds them when the CLI configuration has a
// provider_installation block (internal/getproviders/multi_source.go AvailableVersions): every
// method whose include/exclude patterns accept the provider is asked, in order, and the versions
// are the union; "provider not found" from one method is not an error. Where a version is offered
// by several methods, the first method's metadata wins.
//
// One deliberate difference for an editor: tofu init stops at the first other failure (network,
// TLS, …); here the answer of the methods that did answer is used and the failure is logged, so an
// unreachable origin registry does not hide what the mirror offers. Only when no method answered
// is the first failure thrown.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProviderAddress } from '../addresses/provider-source';
import { tryNormalizeHostname } from '../addresses/hostname';
import { canHandle } from '../cliconfig/patterns';
import type { InstallationMethod } from '../cliconfig/settings';
import { RegistryError } from '../net/errors';
import { parseVersion, ParsedVersion, sortNewestFirst } from '../versions/version';
import { MirrorHttp, NetworkMirrorClient } from './network-mirror';
import type { ProviderVersion, ProviderVersionList } from './providers';
import { shownUrl } from '../net/http-errors';
import type { OciClient } from '../oci/client';
import { repositoryName } from '../addresses/oci-reference';
import { parseRepositoryTemplate, tagVersion } from '../addresses/oci-template';

/** The repository an oci_mirror's template gives for a provider (the template itself if it gives none). */
function ociLocation(template: string, p: ProviderAddress): string {
  try { return repositoryName(parseRepositoryTemplate(template).render(p)); } catch { return template; }
}

/** Which installation method answered (ProviderVersionList.sources). */
export interface VersionSource {
  method: InstallationMethod['kind'];
  /** network_mirror: base URL; filesystem_mirror: directory; oci_mirror: the repository; direct: the provider's host. */
  location: string;
}

export function describeSource(s: VersionSource): string {
  if (s.method === 'network_mirror') return `network mirror ${shownUrl(s.location)}`;
  if (s.method === 'filesystem_mirror') return `filesystem mirror ${s.location}`;
  if (s.method === 'oci_mirror') return `OCI mirror ${s.location}`;
  return `origin registry ${s.location}`;
}

const PLATFORM_RE = /^([a-z0-9]+)_([a-z0-9]+)$/;

/**
 * Entries looked at in one directory of a filesystem mirror: far more than a mirror holds (a
 * provider has hundreds of versions), a bound on the checks per entry against a broken or hostile
 * tree. Past it the listing says so (FsMirrorRead.warnings): never a silently shorter list.
 */
export const MAX_FS_MIRROR_ENTRIES = 100_000;

/** How a filesystem mirror is read: the bound, and where a cut listing is said. */
export interface FsMirrorRead {
  maxEntries?: number;
  /** Receives one message per directory that held more entries than were read. */
  warnings?: string[];
}

async function entries(dir: string, read: FsMirrorRead): Promise<string[]> {
  let names: string[];
  try { names = await readdir(dir); } catch { return []; }
  const max = read.maxEntries ?? MAX_FS_MIRROR_ENTRIES;
  if (names.length <= max) return names;
  read.warnings?.push(`the filesystem mirror directory ${dir} holds ${names.length.toLocaleString('en-US')} entries: only the first ${max.toLocaleString('en-US')} by name were read, so what is listed from it may be incomplete`);
  return names.sort().slice(0, max);
}

async function isDir(path: string): Promise<boolean> {
  try { return (await stat(path)).isDirectory(); } catch { return false; }
}

/** A filesystem mirror's HOST/NAMESPACE/TYPE directories of a provider (names compared as OpenTofu normalises them). */
export async function filesystemMirrorTypeDirs(base: string, p: ProviderAddress, read: FsMirrorRead = {}): Promise<string[]> {
  const typeDirs: string[] = [];
  for (const h of await entries(base, read)) {
    if (tryNormalizeHostname(h) !== p.host) continue;
    for (const ns of await entries(join(base, h), read)) {
      if (ns.toLowerCase() !== p.namespace) continue;
      for (const ty of await entries(join(base, h, ns), read)) {
        if (ty.toLowerCase() === p.type) typeDirs.push(join(base, h, ns, ty));
      }
    }
  }
  return typeDirs;
}

/**
 * Versions of one provider in a filesystem mirror (internal/getproviders/filesystem_search.go):
 * unpacked HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ directories and packed
 * HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip files. Directory names are
 * compared the way OpenTofu normalises them (hostname rules, lower-case namespace/type).
 * Version 0.0.0 is skipped, as tofu init does. Reads only this provider's directories.
 */
export async function filesystemMirrorVersions(base: string, p: ProviderAddress, opts: Pick<FsMirrorRead, 'maxEntries'> = {}): Promise<Omit<ProviderVersionList, 'cached'>> {
  const read: FsMirrorRead = { maxEntries: opts.maxEntries, warnings: [] };
  if (!(await isDir(base))) {
    throw new RegistryError('not-found', `the filesystem mirror directory ${base} does not exist or is not a directory`, { url: pathToFileURL(base).href });
  }
  const platforms = new Map<string, Map<string, { os: string; arch: string }>>();
  const add = (rawVersion: string, os: string, arch: string) => {
    const m = platforms.get(rawVersion) ?? new Map();
    m.set(`${os}_${arch}`, { os, arch });
    platforms.set(rawVersion, m);
  };
  const typeDirs = await filesystemMirrorTypeDirs(base, p, read);
  const prefix = `terraform-provider-${p.type}_`;
  for (const dir of typeDirs) {
    for (const name of await entries(dir, read)) {
      const full = join(dir, name);
      const lower = name.toLowerCase();
      if (lower.startsWith(prefix) && lower.endsWith('.zip')) {
        const info = lower.slice(prefix.length, -4).split('_');
        if (info.length >= 3 && PLATFORM_RE.test(`${info[1]}_${info[2]}`)) {
          try { if ((await stat(full)).isFile()) add(info[0], info[1], info[2]); } catch { /* vanished */ }
        }
        continue;
      }
      if (typeof parseVersion(name, 'provider') === 'string' || !(await isDir(full))) continue;
      for (const plat of await entries(full, read)) {
        const m = PLATFORM_RE.exec(plat);
        if (m && await isDir(join(full, plat))) add(name, m[1], m[2]);
      }
    }
  }
  const byParsed = new Map<ParsedVersion, ProviderVersion>();
  const seen = new Set<string>();
  for (const [raw, plats] of platforms) {
    const v = parseVersion(raw, 'provider');
    if (typeof v === 'string' || v.canonical === '0.0.0' || seen.has(v.canonical)) continue;
    seen.add(v.canonical);
    byParsed.set(v, { version: raw, protocols: [], platforms: [...plats.values()] });
  }
  const versions = sortNewestFirst([...byParsed.keys()]).map((v) => byParsed.get(v)!);
  if (!versions.length) {
    const cut = read.warnings!.length ? ` (${read.warnings!.join('; ')})` : '';
    throw new RegistryError('not-found', `the filesystem mirror ${base} has no provider ${p.address}${cut}`, { url: pathToFileURL(base).href });
  }
  return {
    address: p.address, host: p.host, versions, invalid: [], url: pathToFileURL(typeDirs[0] ?? base).href,
    ...(read.warnings!.length ? { warnings: read.warnings } : {}),
  };
}

/** Versions from a network mirror's index.json (404 → not-found). */
export async function networkMirrorVersions(baseUrl: string, http: MirrorHttp, p: ProviderAddress, timeoutMs?: number, signal?: AbortSignal): Promise<Omit<ProviderVersionList, 'cached'>> {
  const client = new NetworkMirrorClient(baseUrl, http, { timeoutMs });
  const raw = await client.listVersions(p, signal);
  const byParsed = new Map<ParsedVersion, ProviderVersion>();
  const invalid: string[] = [];
  for (const r of raw) {
    const v = parseVersion(r, 'provider');
    if (typeof v === 'string') invalid.push(r);
    else byParsed.set(v, { version: r, protocols: [], platforms: [] });
  }
  const versions = sortNewestFirst([...byParsed.keys()]).map((v) => byParsed.get(v)!);
  return { address: p.address, host: p.host, versions, invalid, url: client.providerUrl(p, 'index.json') };
}

/**
 * Versions from an oci_mirror: the repository's tags that read as versions ("_" as "+"; others
 * ignored, as OpenTofu). No tags (or no repository) → not-found. Platforms are not listed (each
 * version's index says them; reading it costs a request per version).
 */
export async function ociMirrorVersions(template: string, oci: Pick<OciClient, 'listTags'>, p: ProviderAddress, signal?: AbortSignal): Promise<Omit<ProviderVersionList, 'cached'>> {
  const repo = parseRepositoryTemplate(template).render(p);
  const byParsed = new Map<ParsedVersion, ProviderVersion>();
  const seen = new Set<string>();
  for (const tag of await oci.listTags(repo, { signal })) {
    const raw = tagVersion(tag);
    const v = parseVersion(raw, 'provider');
    if (typeof v === 'string' || seen.has(v.canonical)) continue;
    seen.add(v.canonical);
    byParsed.set(v, { version: raw, protocols: [], platforms: [] });
  }
  const versions = sortNewestFirst([...byParsed.keys()]).map((v) => byParsed.get(v)!);
  const url = `https://${repo.registry}/v2/${repo.repository}/tags/list`;
  if (!versions.length) throw new RegistryError('not-found', `the OCI mirror ${repositoryName(repo)} has no version tags of ${p.address}`, { host: repo.registry, url });
  return { address: p.address, host: p.host, versions, invalid: [], url };
}

export interface InstallationDeps {
  http: MirrorHttp;
  /** The OCI client (oci_mirror methods). */
  oci?: Pick<OciClient, 'listTags'>;
  timeoutMs?: number;
  /** The origin registry (the `direct` method). */
  direct: (p: ProviderAddress, signal?: AbortSignal) => Promise<Omit<ProviderVersionList, 'cached'>>;
  /** Cancels the lookups (the methods stop being asked). */
  signal?: AbortSignal;
  /** Entries read per filesystem mirror directory (default MAX_FS_MIRROR_ENTRIES). */
  maxFsMirrorEntries?: number;
  log?: (entry: { level: 'warn' | 'debug'; message: string }) => void;
}

export type InstalledVersionList = Omit<ProviderVersionList, 'cached'> & { sources: VersionSource[] };

/** The union of what the matching methods offer (see the file comment for the failure rules). */
export async function listViaInstallationMethods(methods: InstallationMethod[], file: string, p: ProviderAddress, deps: InstallationDeps): Promise<InstalledVersionList> {
  const matching = methods.filter((m) => canHandle(m, p));
  if (!matching.length) {
    throw new RegistryError('not-found', `provider ${p.address} is not available from any installation method: no method of the provider_installation block in ${file} includes it`, { host: p.host });
  }
  const answers: Array<{ source: VersionSource; list: Omit<ProviderVersionList, 'cached'> }> = [];
  const failures: RegistryError[] = [];
  const notFound: string[] = [];
  for (const m of matching) {
    const source: VersionSource = { method: m.kind, location: m.kind === 'direct' ? p.host : m.kind === 'oci_mirror' ? ociLocation(m.location, p) : m.location };
    deps.signal?.throwIfAborted();
    try {
      const list = m.kind === 'direct' ? await deps.direct(p, deps.signal)
        : m.kind === 'network_mirror' ? await networkMirrorVersions(m.location, deps.http, p, deps.timeoutMs, deps.signal)
          : m.kind === 'oci_mirror' ? await ociMirrorVersions(m.location, deps.oci!, p, deps.signal)
          : await filesystemMirrorVersions(m.location, p, { maxEntries: deps.maxFsMirrorEntries });
      if (list.versions.length) answers.push({ source, list });
      else notFound.push(`${describeSource(source)}: no versions`);
    } catch (err) {
      if (err instanceof RegistryError && err.code === 'not-found') { notFound.push(err.message); continue; }
      if (!(err instanceof RegistryError)) throw err;
      failures.push(err);
      deps.log?.({ level: 'warn', message: `${describeSource(source)} failed for ${p.address}: ${err.message}` });
    }
  }
  if (!answers.length) {
    if (failures.length) throw failures[0];
    throw new RegistryError('not-found', `provider ${p.address} not found by any installation method in ${file}: ${notFound.join('; ')}`, { host: p.host });
  }
  const byParsed = new Map<ParsedVersion, ProviderVersion>();
  const seen = new Set<string>();
  const invalid: string[] = [];
  const warnings: string[] = [];
  for (const a of answers) {
    invalid.push(...a.list.invalid);
    warnings.push(...a.list.warnings ?? []);
    for (const v of a.list.versions) {
      const pv = parseVersion(v.version, 'provider');
      if (typeof pv === 'string' || seen.has(pv.canonical)) continue; // the first method's entry wins
      seen.add(pv.canonical);
      byParsed.set(pv, v);
    }
  }
  const versions = sortNewestFirst([...byParsed.keys()]).map((pv) => byParsed.get(pv)!);
  return { address: p.address, host: p.host, versions, invalid, url: answers[0].list.url, sources: answers.map((a) => a.source), ...(warnings.length ? { warnings } : {}) };
}
