// Module source classification, following OpenTofu's addrs.ParseModuleSource: local paths first,
// then the registry form [hostname/]namespace/name/system[//subdir], then everything go-getter
// would accept (git::, hg::, s3::, gcs::, http(s) URLs, github.com/bitbucket.org shorthands, oci,
// and absolute filesystem paths, which go-getter's file detector copies like a remote package).
import { DEFAULT_REGISTRY_HOST, tryNormalizeHostname } from './hostname';

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
  /** Human name of the source type ("Git repository", "GitHub shorthand", …). */
  description: string;
  subdir?: string;
  /** For 'unknown': why it is not a valid source. */
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

export function isLocalSource(raw: string): boolean {
  return raw.startsWith('./') || raw.startsWith('../') || raw.startsWith('.\\') || raw.startsWith('..\\');
}

/** Split "pkg//sub/dir" (not the "//" of "scheme://"). */
export function splitSubdir(raw: string): [string, string | undefined] {
  let start = 0;
  const forced = raw.indexOf('::');
  if (forced >= 0) start = forced + 2;
  const scheme = raw.indexOf('://', start);
  if (scheme >= 0) start = scheme + 3;
  const idx = raw.indexOf('//', start);
  if (idx < 0) return [raw, undefined];
  let sub = raw.slice(idx + 2);
  let pkg = raw.slice(0, idx);
  const q = sub.indexOf('?');
  if (q >= 0) { pkg += sub.slice(q); sub = sub.slice(0, q); }
  return [pkg, sub];
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
    const cleaned = cleanSubdir(subdirRaw);
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

/** Go's path.Clean, without the leading "/" case (subdirectories are relative). */
function cleanSubdir(sub: string): string {
  const out: string[] = [];
  for (const seg of sub.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(seg);
  }
  return out.join('/') || '.';
}

/** Classify a module `source` string exactly as OpenTofu would. */
export function parseModuleSource(raw: string): ModuleSource {
  if (isLocalSource(raw)) return { kind: 'local', path: raw };
  const reg = parseModuleRegistryAddress(raw);
  if (!('error' in reg)) return reg;
  const [pkg, subdir] = splitSubdir(raw);
  const remote = (kind: RemoteKind, error?: string): RemoteModuleSource => ({
    kind, source: raw, description: DESCRIPTIONS[kind], ...(subdir ? { subdir } : {}), ...(error ? { error } : {}),
  });
  const forced = /^([A-Za-z0-9]+)::/.exec(pkg);
  if (forced) {
    switch (forced[1].toLowerCase()) {
      case 'git': return remote('git');
      case 'hg': return remote('hg');
      case 's3': return remote('s3');
      case 'gcs': return remote('gcs');
      case 'http': case 'https': return remote('http');
      case 'oci': return remote('oci');
      default: return remote('unknown', `unsupported forced getter "${forced[1]}::"`);
    }
  }
  const lower = pkg.toLowerCase();
  if (lower.startsWith('oci://')) return remote('oci');
  if (lower.startsWith('http://') || lower.startsWith('https://')) return remote('http');
  if (lower.startsWith('s3://')) return remote('s3');
  if (lower.startsWith('gcs://') || lower.startsWith('gs://')) return remote('gcs');
  if (lower.startsWith('git@') || lower.startsWith('ssh://') || lower.startsWith('git://')) return remote('git');
  if (lower.startsWith('github.com/')) return remote('github');
  if (lower.startsWith('bitbucket.org/')) return remote('bitbucket');
  if (/^[a-z0-9.-]*s3[a-z0-9.-]*\.amazonaws\.com\//.test(lower)) return remote('s3');
  if (lower.startsWith('www.googleapis.com/storage/') || lower.startsWith('storage.googleapis.com/')) return remote('gcs');
  if (pkg.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pkg)) {
    // Not a local source (those begin with ./ or ../): go-getter's file detector turns it into a
    // file:// package that tofu init copies (OpenTofu's "/tmp/foo//example" test case).
    if (subdir === undefined) return remote('file');
    const cleaned = cleanSubdir(subdir);
    if (cleaned === '..' || cleaned.startsWith('../')) {
      return { kind: 'unknown', source: raw, description: DESCRIPTIONS.unknown, subdir, error: `subdirectory path ${JSON.stringify(cleaned)} leads outside of the module package` };
    }
    return { kind: 'file', source: raw, description: DESCRIPTIONS.file, ...(cleaned !== '.' ? { subdir: cleaned } : {}) };
  }
  const parts = pkg.split('/').length;
  const why = parts >= 3 && parts <= 4 && !pkg.includes('?') && !pkg.includes(':')
    ? `invalid module registry address: ${reg.error}`
    : `OpenTofu cannot detect a supported external module source type for ${pkg}`;
  return remote('unknown', why);
}
