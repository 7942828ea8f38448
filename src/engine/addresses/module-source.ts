// Module source classification, following OpenTofu's addrs.ParseModuleSource: local paths first,
// then the registry form [hostname/]namespace/name/system[//subdir], then what go-getter's
// detection makes of everything else (go-getter.ts): git::, hg::, s3::, gcs::, http(s) and oci
// URLs, github.com / bitbucket.org shorthands, scp-like git@host:repo, S3 and GCS hostnames, and
// absolute filesystem paths, which tofu init copies like a remote package.
import { DEFAULT_REGISTRY_HOST, tryNormalizeHostname } from './hostname';
import { cleanPath, detectPackage, forcedGetter, packageGetter, sourceDirSubdir } from './go-getter';

export interface RegistryModuleSource {
  kind: 'registry';
  /** Normalised hostname (Unicode, lower case, ":port" when not 443). */
  host: string;
  namespace: string;
  name: string;
  system: string;
  subdir?: string;
  /** Display form: "namespace/name/system" on the default host, else "host/namespace/name/system". */
  address: string;
  /** Always with the host: "host/namespace/name/system". */
  fullAddress: string;
}
export interface LocalModuleSource { kind: 'local'; path: string }
export type RemoteKind = 'git' | 'github' | 'bitbucket' | 'hg' | 's3' | 'gcs' | 'http' | 'oci' | 'file' | 'unknown';
export interface RemoteModuleSource {
  kind: RemoteKind;
  /** The source as written. */
  source: string;
  /** Human name of the source type ("Git repository", "GitHub repository", …). */
  description: string;
  subdir?: string;
  /**
   * The package address tofu init fetches, after go-getter's detection: "git::https://github.com/
   * org/repo.git?ref=v1" for "github.com/org/repo?ref=v1" (may hold secrets: show it with shownUrl).
   */
  package?: string;
  /** For 'unknown': why tofu init cannot use it. */
  error?: string;
}
export type ModuleSource = RegistryModuleSource | LocalModuleSource | RemoteModuleSource;
/** A parsed registry module address (what the registry client takes). */
export type ModuleAddress = RegistryModuleSource;

const NAME_RE = /^[0-9A-Za-z](?:[0-9A-Za-z_-]{0,62}[0-9A-Za-z])?$/;
const SYSTEM_RE = /^[0-9a-z]{1,64}$/;
const RESERVED_HOSTS = new Set(['github.com', 'bitbucket.org']);

const DESCRIPTIONS: Record<RemoteKind, string> = {
  git: 'Git repository', github: 'GitHub repository', bitbucket: 'Bitbucket repository',
  hg: 'Mercurial repository', s3: 'Amazon S3 bucket', gcs: 'Google Cloud Storage bucket',
  http: 'HTTP URL', oci: 'OCI registry artifact',
  file: 'absolute path, copied like a remote package by tofu init', unknown: 'unrecognised source',
};

/** The getters of OpenTofu's module installer (goGetterGetters and its oci getter) and the kind of source each means. */
const GETTER_KINDS: Record<string, RemoteKind> = { git: 'git', hg: 'hg', s3: 's3', gcs: 'gcs', http: 'http', https: 'http', file: 'file', oci: 'oci' };

export function isLocalSource(raw: string): boolean {
  return raw.startsWith('./') || raw.startsWith('../') || raw.startsWith('.\\') || raw.startsWith('..\\');
}

/** Split "pkg//sub/dir?q" into ["pkg?q", "sub/dir"] as go-getter does (not the "//" of "scheme://"). */
export function splitSubdir(raw: string): [string, string | undefined] {
  const [pkg, sub] = sourceDirSubdir(raw);
  return sub ? [pkg, sub] : [raw, undefined];
}

/** Registry address only; returns an error message when `raw` is not one. */
export function parseModuleRegistryAddress(raw: string): RegistryModuleSource | { error: string } {
  if (isLocalSource(raw)) return { error: 'a local path is not a registry address' };
  const [pkg, subdirRaw] = splitSubdir(raw);
  const parts = pkg.split('/');
  if (parts.length < 3 || parts.length > 4) {
    return { error: 'a module registry source address must have either three or four slash-separated components' };
  }
  let host = DEFAULT_REGISTRY_HOST;
  if (parts.length === 4) {
    const given = parts.shift()!;
    const h = tryNormalizeHostname(given);
    if (typeof h !== 'string') {
      // registry-address reports every unusable hostname this way
      return { error: `invalid module registry hostname ${JSON.stringify(given)}; internationalized domain names must be given as direct unicode characters, not in punycode` };
    }
    if (!h.includes('.')) return { error: 'invalid module registry hostname: must contain at least one dot' };
    if (RESERVED_HOSTS.has(h)) {
      return { error: `can't use ${JSON.stringify(h)} as a module registry host, because it's reserved for installing directly from version control repositories` };
    }
    host = h;
  }
  const [namespace, name, system] = parts;
  if (!NAME_RE.test(namespace)) return { error: `invalid namespace ${JSON.stringify(namespace)}: must be between one and 64 characters, including ASCII letters, digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix` };
  if (!NAME_RE.test(name)) return { error: `invalid module name ${JSON.stringify(name)}: must be between one and 64 characters, including ASCII letters, digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix` };
  if (!SYSTEM_RE.test(system)) {
    if (system.includes('?')) return { error: 'module registry addresses may not include a query string portion' };
    return { error: `invalid target system ${JSON.stringify(system)}: must be between one and 64 ASCII letters or digits` };
  }
  let subdir: string | undefined;
  if (subdirRaw !== undefined) {
    const cleaned = cleanPath(subdirRaw);
    if (cleaned === '..' || cleaned.startsWith('../')) return { error: `subdirectory path ${JSON.stringify(cleaned)} leads outside of the module package` };
    subdir = cleaned === '.' ? undefined : cleaned;
  }
  const tail = `${namespace}/${name}/${system}`;
  const fullAddress = `${host}/${tail}`;
  return {
    kind: 'registry', host, namespace, name, system, ...(subdir ? { subdir } : {}),
    address: host === DEFAULT_REGISTRY_HOST ? tail : fullAddress, fullAddress,
  };
}

/** Classify a module `source` string exactly as OpenTofu would. */
export function parseModuleSource(raw: string): ModuleSource {
  if (isLocalSource(raw)) return { kind: 'local', path: raw };
  const reg = parseModuleRegistryAddress(raw);
  if (!('error' in reg)) return reg;
  const subdir = splitSubdir(raw)[1];
  const unknown = (error: string, pkg?: string): RemoteModuleSource => ({
    kind: 'unknown', source: raw, description: DESCRIPTIONS.unknown, ...(subdir ? { subdir } : {}), ...(pkg ? { package: pkg } : {}), error,
  });
  const detected = detectPackage(raw);
  if ('error' in detected) {
    // OpenTofu reports go-getter's error; a source shaped like a registry address gets the
    // registry parser's reason, which says what is wrong with it.
    const pkg = splitSubdir(raw)[0];
    const parts = pkg.split('/').length;
    const registryShaped = parts >= 3 && parts <= 4 && !pkg.includes('?') && !pkg.includes(':') && /cannot detect/.test(detected.error);
    return unknown(registryShaped ? `invalid module registry address: ${reg.error}` : detected.error);
  }
  const getter = packageGetter(detected.package);
  let kind = GETTER_KINDS[getter];
  if (!kind) return unknown(`tofu init cannot download it: no getter for "${getter}" (it has ${Object.keys(GETTER_KINDS).join(', ')})`, detected.package);
  // A shorthand names the host it is for, unless a getter was forced ("git::github.com/…").
  if (!forcedGetter(raw)[0] && (detected.detector === 'github' || detected.detector === 'bitbucket')) kind = detected.detector;
  return {
    kind, source: raw, description: DESCRIPTIONS[kind], package: detected.package, ...(detected.subdir ? { subdir: detected.subdir } : {}),
  };
}
