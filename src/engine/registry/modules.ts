// Module registry protocol (modules.v1): list versions, find a version's download location.
import { ModuleAddress, parseModuleSource } from '../addresses/module-source';
import { RegistryError, rewordNotFound } from '../net/errors';
import { HttpClient, JsonResponse, MiB } from '../net/http';
import { shortText, shownUrl } from '../net/http-errors';
import { parseVersion, sortNewestFirst, ParsedVersion } from '../versions/version';
import { parseJsonBounded } from '../net/json-depth';

export interface VersionList {
  /** Display address ("ns/name/system" on the default host). */
  address: string;
  host: string;
  /** Valid versions as the registry wrote them, newest first. */
  versions: string[];
  /** Versions the registry sent that are not valid version numbers (ignored, as `tofu init` does). */
  invalid: string[];
  /** The versions endpoint that answered. */
  url: string;
  cached: boolean;
}

export interface DownloadLocation {
  address: string;
  version: string;
  /** The download endpoint (…/:version/download). */
  downloadUrl: string;
  /** Absolute module location (go-getter source), relative locations resolved. */
  location: string;
}

export const MODULE_VERSIONS_MAX_BYTES = 4 * MiB;
export const MODULE_DOWNLOAD_MAX_BYTES = 256 * 1024;

/** A module address from a parsed source or a string; throws 'invalid-address' for non-registry sources. */
export function toModuleAddress(address: ModuleAddress | string): ModuleAddress {
  if (typeof address !== 'string') return address;
  const src = parseModuleSource(address);
  if (src.kind === 'registry') return src;
  if (src.kind === 'local') throw new RegistryError('invalid-address', `${JSON.stringify(address)} is a local path, not a module registry address`);
  throw new RegistryError('invalid-address', src.error
    ? `${JSON.stringify(address)} is not a module registry address: ${src.error}`
    : `${JSON.stringify(address)} is not a module registry address (it is a ${src.description} source)`);
}

const enc = encodeURIComponent;
function modulePath(a: ModuleAddress): string {
  return `${enc(a.namespace)}/${enc(a.name)}/${enc(a.system)}`;
}

export async function fetchModuleVersions(http: HttpClient, base: string, a: ModuleAddress, signal?: AbortSignal): Promise<Omit<VersionList, 'cached'>> {
  const url = new URL(`${modulePath(a)}/versions`, base).href;
  const res = await rewordNotFound(getRegistryJson(http, url, signal),
    `module ${a.address} not found on ${a.host}`, a.host, url);
  const invalid = (why: string) => new RegistryError('protocol', `the registry at ${a.host} returned an invalid response for module ${a.address}: ${why} (${shownUrl(res.url)})`, { host: a.host, url: shownUrl(res.url), status: res.status });
  const modules = (res.json as { modules?: unknown })?.modules;
  if (!Array.isArray(modules) || modules.length < 1) throw invalid('no "modules" list');
  const list = (modules[0] as { versions?: unknown })?.versions;
  if (!Array.isArray(list)) throw invalid('no "versions" list');
  const parsed: ParsedVersion[] = [];
  const bad: string[] = [];
  for (const item of list) {
    const raw = (item as { version?: unknown })?.version;
    if (typeof raw !== 'string') { bad.push(String(raw)); continue; }
    const v = parseVersion(raw, 'module');
    if (typeof v === 'string') bad.push(raw);
    else parsed.push(v);
  }
  return { address: a.address, host: a.host, versions: sortNewestFirst(parsed).map((v) => v.raw), invalid: bad, url: res.url };
}

/**
 * The version string tofu puts in the download URL (go-version's String(): "v1.2" → "1.2.0",
 * build metadata kept); a module mirror names its directories and archives by it.
 */
export function canonicalModuleVersion(raw: string): { version: string; error?: undefined } | { version: ''; error: string } {
  const v = parseVersion(raw, 'module');
  if (typeof v === 'string') return { version: '', error: v };
  return { version: v.canonical + (v.build ? `+${v.build}` : '') };
}

/** `versions` of a module, read as tofu reads it whatever its Content-Type (parseRegistryJson: a module mirror on a static server). */
function getRegistryJson(http: HttpClient, url: string, signal?: AbortSignal): Promise<JsonResponse> {
  return http.getJson(url, { maxBytes: MODULE_VERSIONS_MAX_BYTES, auth: true, signal, anyContentType: true });
}

export async function fetchModuleLocation(http: HttpClient, base: string, a: ModuleAddress, version: string, signal?: AbortSignal): Promise<DownloadLocation> {
  const canonical = canonicalModuleVersion(version);
  if (canonical.error) throw new RegistryError('invalid-version', `invalid module version ${JSON.stringify(version)}: ${canonical.error}`, { host: a.host });
  const url = new URL(`${modulePath(a)}/${enc(canonical.version)}/download`, base).href;
  const res = await rewordNotFound(http.getBuffer(url, { maxBytes: MODULE_DOWNLOAD_MAX_BYTES, auth: true, accept: 'application/json', signal }),
    `version ${canonical.version} of module ${a.address} not found on ${a.host}`, a.host, url);
  const fail = (why: string) => new RegistryError('protocol', `the registry at ${a.host} returned an invalid download location for ${a.address} ${canonical.version}: ${why} (${shownUrl(res.url)})`, { host: a.host, url: shownUrl(res.url), status: res.status });
  let location: string | undefined;
  const text = res.body.toString('utf8').trim();
  if (text !== '') {
    // The body wins over X-Terraform-Get when it carries a location.
    try {
      const doc = parseJsonBounded(text) as { location?: unknown };
      if (typeof doc?.location === 'string' && doc.location !== '') location = doc.location;
    } catch (err) {
      if (!res.headers['x-terraform-get']) throw fail(`invalid JSON: ${(err as Error).message}`);
    }
  }
  location ??= res.headers['x-terraform-get'] || undefined;
  if (!location) throw fail('neither a JSON "location" nor an X-Terraform-Get header');
  // a location is an address: a newline or an escape sequence in it is an attempt at the terminal
  if (/[\u0000-\u001f\u007f]/.test(location)) throw fail(`"${shortText(shownUrl(location), 200)}" holds control characters`);
  if (location.startsWith('/') || location.startsWith('./') || location.startsWith('../')) {
    // Against the download endpoint's URL as requested, like tofu (Go's client follows redirects
    // without changing the URL its registry client resolves against).
    location = new URL(location, url).href;
  }
  const kind = parseModuleSource(location);
  if (kind.kind === 'registry') throw fail(`${JSON.stringify(location)} is another registry address, which is not allowed`);
  return { address: a.address, version: canonical.version, downloadUrl: res.url, location };
}
