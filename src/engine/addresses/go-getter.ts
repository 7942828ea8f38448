// How `tofu init` turns a remote module source into the package address it fetches: OpenTofu's
// addrs.parseModuleSourceRemote → getmodules.NormalizePackageAddress → go-getter's Detect with
// OpenTofu's detectors (internal/getmodules/getter.go), in this order: GitHub (query string set
// aside), Git (scp-like ssh), Bitbucket, GCS, S3, absolute filesystem paths. A source that already
// parses as a URL with a scheme is used as written; a forced getter ("git::", "s3::", …) is kept.
// The getter that fetches the package is the forced one, else the URL's scheme.
//
// One deliberate difference: go-getter asks Bitbucket's API whether bitbucket.org/OWNER/REPO is Git
// or Mercurial; Bitbucket hosts only Git since 2020, so we say Git without a network request.

export interface DetectedPackage {
  /** The package address tofu init fetches, e.g. "git::https://github.com/org/repo.git?ref=v1". */
  package: string;
  /** The subdirectory within the package (cleaned), when there is one. */
  subdir?: string;
  /** The go-getter detector that recognised a shorthand ("github", "git", "bitbucket", "gcs", "s3", "file"). */
  detector?: string;
}

const FORCED = /^([A-Za-z0-9]+)::(.+)$/s;

/** go-getter's getForcedGetter: ["git", "https://…"] for "git::https://…", ["", src] otherwise. */
export function forcedGetter(src: string): [string, string] {
  const m = FORCED.exec(src);
  return m ? [m[1], m[2]] : ['', src];
}

/**
 * go-getter's SourceDirSubdir: "pkg//sub?q" → ["pkg?q", "sub"] (not the "//" of "scheme://", and
 * nothing after the query string starts).
 */
export function sourceDirSubdir(src: string): [string, string] {
  const stop = src.includes('?') ? src.indexOf('?') : src.length;
  const scheme = src.slice(0, stop).indexOf('://');
  const offset = scheme >= 0 ? scheme + 3 : 0;
  const idx = src.slice(offset, stop).indexOf('//');
  if (idx < 0) return [src, ''];
  let subdir = src.slice(offset + idx + 2);
  let pkg = src.slice(0, offset + idx);
  const q = subdir.indexOf('?');
  if (q >= 0) { pkg += subdir.slice(q); subdir = subdir.slice(0, q); }
  return [pkg, subdir];
}

/** Go's path.Clean for the relative paths a subdirectory is ("" → "."). */
export function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg !== '..' || !rooted) out.push(seg);
  }
  return (rooted ? '/' : '') + out.join('/') || (rooted ? '/' : '.');
}

/**
 * Whether Go's url.Parse accepts `s` with a non-empty scheme (go-getter then uses it as written):
 * a scheme of letters, digits, "+-." starting with a letter, no control characters, valid
 * percent escapes in the path and fragment, a numeric port.
 */
function parsesAsUrlWithScheme(s: string): boolean {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  // eslint-disable-next-line no-control-regex
  if (!m || /[\x00-\x1f\x7f]/.test(s)) return false;
  const rest = s.slice(m[0].length);
  const hash = rest.indexOf('#');
  const beforeHash = hash >= 0 ? rest.slice(0, hash) : rest;
  const q = beforeHash.indexOf('?');
  const hierarchical = q >= 0 ? beforeHash.slice(0, q) : beforeHash;
  const badEscape = (t: string) => /%(?![0-9A-Fa-f]{2})/.test(t);
  if (badEscape(hierarchical) || (hash >= 0 && badEscape(rest.slice(hash + 1)))) return false;
  if (hierarchical.startsWith('//')) {
    const authority = hierarchical.slice(2).split('/')[0];
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const port = /^(?:\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort)?.[1];
    if (port !== undefined && !/^[0-9]*$/.test(port)) return false;
  }
  return true;
}

/** Go's url.Values.Encode(): keys sorted, QueryEscape'd. Throws on what url.ParseQuery rejects. */
function goQueryEncode(query: string): string {
  const values = new Map<string, string[]>();
  for (const part of query.split('&')) {
    if (!part) continue;
    if (part.includes(';')) throw new Error('invalid semicolon separator in query');
    const eq = part.indexOf('=');
    const dec = (t: string) => decodeURIComponent(t.replace(/\+/g, ' '));
    let k: string, v: string;
    try { [k, v] = eq < 0 ? [dec(part), ''] : [dec(part.slice(0, eq)), dec(part.slice(eq + 1))]; } catch { throw new Error(`invalid URL escape in ${JSON.stringify(part)}`); }
    values.set(k, [...(values.get(k) ?? []), v]);
  }
  const esc = (t: string) => encodeURIComponent(t).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
  return [...values.keys()].sort().flatMap((k) => values.get(k)!.map((v) => `${esc(k)}=${esc(v)}`)).join('&');
}

type Detection = { result: string } | { error: string } | undefined;

const DETECTORS: Array<[string, (src: string) => Detection]> = [
  ['github', (src) => {
    const q = src.indexOf('?');
    const [path, query] = q >= 0 ? [src.slice(0, q), src.slice(q)] : [src, ''];
    if (!path.startsWith('github.com/')) return undefined;
    const parts = path.split('/');
    if (parts.length < 3) return { error: 'GitHub URLs should be github.com/username/repo' };
    let repo = `https://${parts.slice(0, 3).join('/')}`;
    if (!repo.endsWith('.git')) repo += '.git';
    return { result: `git::${repo}${parts.length > 3 ? `//${parts.slice(3).join('/')}` : ''}${query}` };
  }],
  ['git', (src) => {
    const m = /^(?:([^@]+)@)?([^:]+):\/?(.+)$/s.exec(src);
    if (!m || m[1] !== 'git') return undefined;
    const q = m[3].indexOf('?');
    const path = q >= 0 ? m[3].slice(0, q) : m[3];
    let query = '';
    if (q >= 0) {
      try { query = goQueryEncode(m[3].slice(q + 1)); } catch (err) { return { error: `error parsing GitHub SSH URL: ${(err as Error).message}` }; }
    }
    return { result: `git::ssh://git@${m[2]}/${path.replace(/^\//, '')}${query ? `?${query}` : ''}` };
  }],
  ['bitbucket', (src) => {
    if (!src.startsWith('bitbucket.org/')) return undefined;
    const q = src.indexOf('?');
    const [path, query] = q >= 0 ? [src.slice(0, q), src.slice(q)] : [src, ''];
    return { result: `git::https://${path}${path.endsWith('.git') ? '' : '.git'}${query}` };
  }],
  ['gcs', (src) => {
    if (!src.includes('.googleapis.com/')) return undefined;
    const parts = src.split('/');
    if (parts.length < 5) return { error: 'URL is not a valid GCS URL' };
    return { result: `gcs::https://www.googleapis.com/storage/${parts[2]}/${parts[3]}/${parts.slice(4).join('/')}` };
  }],
  ['s3', (src) => {
    if (!src.includes('.amazonaws.com/')) return undefined;
    const parts = src.split('/');
    const host = parts[0].split('.');
    const rest = parts.slice(1).join('/');
    if (host.length === 3) return { result: `s3::https://${host[0]}.amazonaws.com/${rest}` };
    if (host.length === 4) return { result: `s3::https://${host[1]}.amazonaws.com/${host[0]}/${rest}` };
    if (host.length === 5 && host[1] === 's3') return { result: `s3::https://s3.${host[2]}.amazonaws.com/${host[0]}/${rest}` };
    return { error: 'URL is not a valid S3 URL' };
  }],
  ['file', (src) => {
    if (src.startsWith('/')) return { result: `file:///${src.slice(1)}` };
    if (/^[A-Za-z]:[\\/]/.test(src)) return { result: `file://${src.replace(/\\/g, '/')}` }; // as tofu on Windows
    return { error: `OpenTofu cannot detect a supported external module source type for ${src}` };
  }],
];

/**
 * The package address and subdirectory `tofu init` derives from a remote module source, or the
 * error it reports. Does not decide whether a getter exists for the result (see MODULE_GETTERS).
 */
export function detectPackage(raw: string): DetectedPackage | { error: string } {
  const [pkgRaw, given] = sourceDirSubdir(raw);
  let subdir = given ? cleanPath(given) : '';
  if (subdir === '..' || subdir.startsWith('../')) return { error: `subdirectory path ${JSON.stringify(subdir)} leads outside of the module package` };
  const [force, getSrc] = forcedGetter(pkgRaw);
  let pkg = pkgRaw;
  let detector: string | undefined;
  // Drive letters are filesystem paths, not URL schemes (go-getter's url helper on Windows).
  if (!parsesAsUrlWithScheme(getSrc) || /^[A-Za-z]:[\\/]/.test(getSrc)) {
    const found = DETECTORS.map(([name, d]) => [name, d(getSrc)] as const).find(([, r]) => r !== undefined);
    const r = found?.[1];
    if (!r) return { error: `invalid source string: ${pkgRaw}` };
    if ('error' in r) return r;
    detector = found![0];
    const [detectForce, detected] = forcedGetter(r.result);
    const [withoutSub, more] = sourceDirSubdir(detected);
    if (more) {
      subdir = subdir ? cleanPath(`${more}/${subdir}`) : cleanPath(more);
      if (subdir.startsWith('../')) return { error: `detected subdirectory path ${JSON.stringify(subdir)} of ${JSON.stringify(withoutSub)} leads outside of the module package` };
    }
    pkg = force ? `${force}::${withoutSub}` : detectForce ? `${detectForce}::${withoutSub}` : withoutSub;
  }
  return { package: pkg, ...(subdir && subdir !== '.' ? { subdir } : {}), ...(detector ? { detector } : {}) };
}

/** The getter that fetches a package: its forced getter as written (go-getter looks it up as is), else its URL scheme (lower case). */
export function packageGetter(pkg: string): string {
  const [force, rest] = forcedGetter(pkg);
  return force || (/^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest)?.[1] ?? '').toLowerCase();
}
