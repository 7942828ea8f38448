// `oci://` module sources read as `tofu init` (OpenTofu ≥ 1.10) reads them: go-getter splits off
// `//subdir` (go-getter.ts), handles its own query arguments (`archive`, `checksum`), then
// OpenTofu's OCI getter (internal/getmodules/oci_getter.go) takes the URL host as the registry, the
// path as the repository (validated by ORAS-Go's registry.Reference), and `tag` or `digest` from the
// query — tag `latest` when neither is given. Its refusals are data here (`error.code`), so
// diagnostics can point at the argument (`args` keeps each one's offsets in the source as written).
// Pure: no network.
import { tagProblem } from './oci-reference';
import { detectPackage, forcedGetter } from './go-getter';

export type OciSourceErrorCode =
  | 'not-oci-scheme' // oci::https://… — the OCI getter takes the oci scheme only
  | 'invalid-registry' // no host after oci://
  | 'invalid-repository' // no repository, or not the distribution spec's lower-case form
  | 'empty-argument' // ?tag= or ?digest= without a value
  | 'repeated-argument' // ?tag=a&tag=b
  | 'invalid-tag'
  | 'invalid-digest'
  | 'tag-and-digest'
  | 'unknown-argument'
  | 'archive-argument' // ?archive=zip, or a repository ending in an archive extension: go-getter asks for a file
  | 'checksum-argument'
  | 'invalid-subdir';

export interface OciSourceArgument {
  /** The argument's name and value, decoded as Go's url.Query does. */
  name: string;
  value: string;
  /** Offsets of "name=value" in the source as written (end exclusive). */
  start: number;
  end: number;
  /** Offsets of the value alone (empty at `end` when there is none). */
  valueStart: number;
}

export interface OciModuleSource {
  /** The source as written. */
  source: string;
  /** The registry host as written, with ":port" when given ("registry.example.com:5000"). */
  registry: string;
  /** The repository path ("modules/vpc"), decoded. */
  repository: string;
  /** The tag tofu init resolves: the `tag` argument, or "latest" when neither tag nor digest is given. */
  tag?: string;
  /** The manifest digest the `digest` argument pins ("sha256:…"). */
  digest?: string;
  /** True when neither `tag` nor `digest` is written, so tofu init uses the tag "latest". */
  defaultTag: boolean;
  /** The package subdirectory (`//sub/dir`), cleaned. */
  subdir?: string;
  /** The query arguments as written, in order. */
  args: OciSourceArgument[];
  /** "registry/repository:tag" or "registry/repository@digest": the artifact tofu init fetches. */
  reference: string;
  /** Why tofu init refuses the source; the other fields hold what could be read. */
  error?: { code: OciSourceErrorCode; message: string; argument?: string };
}

/** ORAS-Go's repositoryRegexp (the distribution reference grammar's path components). */
const REPOSITORY_RE = /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*$/;
/** go-digest's DigestRegexpAnchored and the hex lengths of the algorithms it has. */
const DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
/** The decompressors OpenTofu gives go-getter: a path ending in one of these makes it fetch a file. */
const ARCHIVE_SUFFIXES = ['tar.bz2', 'tar.tbz2', 'tar.gz', 'tar.xz', 'bz2', 'gz', 'xz', 'zip', 'tgz', 'txz'];
/** Values of strconv.ParseBool that are false (`archive=false` turns archive detection off). */
const GO_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/**
 * go-digest's Digest.Validate: the reason a digest string is refused ("invalid checksum digest
 * format" …), or undefined when it is one.
 */
export function digestProblem(d: string): string | undefined {
  const i = d.indexOf(':');
  if (i <= 0 || i + 1 === d.length) return 'invalid checksum digest format';
  const algorithm = d.slice(0, i);
  const encoded = d.slice(i + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) return DIGEST_RE.test(d) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  if (encoded.length !== length) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

/** Whether `tag` is a tag the distribution spec allows. */
export function isValidOciTag(tag: string): boolean {
  return tagProblem(tag) === undefined; // the distribution spec's grammar, as ORAS-Go's tagRegexp
}

/** Whether `repository` is a repository name ORAS-Go (and so tofu init) accepts. */
export function isValidOciRepository(repository: string): boolean {
  return REPOSITORY_RE.test(repository);
}

/** Go's url.QueryUnescape ("+" is a space); undefined for a bad escape (Go then skips the pair). */
function queryUnescape(s: string): string | undefined {
  try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return undefined; }
}

/** Go's url.PathUnescape of the path (undefined for a bad escape: url.Parse fails). */
function pathUnescape(s: string): string | undefined {
  try { return decodeURIComponent(s); } catch { return undefined; }
}

/** The query arguments of `raw` with their offsets, as Go's url.ParseQuery reads them (pairs it refuses skipped). */
function queryArguments(raw: string): OciSourceArgument[] {
  const q = raw.indexOf('?');
  if (q < 0) return [];
  const hash = raw.indexOf('#', q);
  const end = hash >= 0 ? hash : raw.length;
  const out: OciSourceArgument[] = [];
  let at = q + 1;
  for (const part of raw.slice(q + 1, end).split('&')) {
    const start = at;
    at += part.length + 1;
    if (!part || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const name = queryUnescape(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : queryUnescape(part.slice(eq + 1));
    if (name === undefined || value === undefined) continue;
    out.push({ name, value, start, end: start + part.length, valueStart: eq < 0 ? start + part.length : start + eq + 1 });
  }
  return out;
}

/**
 * Reads an `oci://` module source (or `oci::oci://…`). Returns undefined for a source that is not
 * one (parseModuleSource's kind is then something else); otherwise the registry, repository, tag
 * or digest and subdirectory, with `error` set when `tofu init` would refuse it.
 */
export function parseOciModuleSource(raw: string): OciModuleSource | undefined {
  const detected = detectPackage(raw);
  if ('error' in detected) return undefined;
  const [force, url] = forcedGetter(detected.package);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if ((force || scheme) !== 'oci') return undefined;
  const args = queryArguments(raw);
  const out: OciModuleSource = { source: raw, registry: '', repository: '', defaultTag: false, args, reference: '' };
  if (detected.subdir) out.subdir = detected.subdir;
  const fail = (code: OciSourceErrorCode, message: string, argument?: string): OciModuleSource => {
    out.error = { code, message, ...(argument !== undefined ? { argument } : {}) };
    return finish(out);
  };
  if (scheme !== 'oci') return fail('not-oci-scheme', 'oci source type only supports oci URL scheme');

  // url.Parse: "oci://" authority (user information dropped), then the path up to "?" or "#".
  const rest = url.slice(url.indexOf(':') + 1).replace(/[?#].*$/s, '');
  let pathPart = rest;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash >= 0 ? rest.slice(2, slash) : rest.slice(2);
    out.registry = authority.slice(authority.lastIndexOf('@') + 1);
    pathPart = slash >= 0 ? rest.slice(slash) : '';
  } else {
    pathPart = ''; // "oci:host/repo" is an opaque URL: no host, no path
  }
  const decodedPath = pathUnescape(pathPart) ?? pathPart;
  out.repository = decodedPath.replace(/^\//, '');

  // go-getter's Client.Get, before the getter runs: `archive` (or an archive file extension) asks
  // for a file download, which the OCI getter refuses; a `checksum` cannot apply to a directory.
  const first = (name: string) => args.find((a) => a.name === name)?.value ?? '';
  const archive = first('archive');
  const archiveMessage = 'the "archive" argument is not allowed for OCI sources, because the archive format is detected automatically from the image manifest';
  if (archive !== '' && !GO_FALSE.has(archive) && ARCHIVE_SUFFIXES.includes(archive)) return fail('archive-argument', archiveMessage, 'archive');
  if (archive === '' && ARCHIVE_SUFFIXES.some((s) => decodedPath.endsWith(`.${s}`))) return fail('archive-argument', archiveMessage);
  if (first('checksum') !== '') return fail('checksum-argument', 'checksum cannot be specified for directory download', 'checksum');
  // Arguments go-getter consumed never reach the OCI getter (an empty `archive` does).
  const seen = args.filter((a) => a.name !== 'checksum' && !(a.name === 'archive' && archive !== ''));

  // ORAS-Go's Reference.Validate: the registry, then the repository.
  if (!out.registry) return fail('invalid-registry', `invalid reference: invalid registry ${goQuote(out.registry)}`);
  if (!isValidOciRepository(out.repository)) {
    return fail('invalid-repository', `invalid reference: invalid repository ${goQuote(out.repository)}`);
  }

  // resolveManifestDescriptor: every argument once, tag or digest validated, others unsupported.
  // (Go visits the arguments in map order; we report the first problem in name order.)
  const names = [...new Set(seen.map((a) => a.name))].sort();
  const unsupported: string[] = [];
  for (const name of names) {
    const values = seen.filter((a) => a.name === name);
    if (values.length > 1) return fail('repeated-argument', `too many ${goQuote(name)} arguments`, name);
    const value = values[0].value;
    if (name === 'tag') {
      if (value === '') return fail('empty-argument', 'tag argument must not be empty', name);
      if (!isValidOciTag(value)) return fail('invalid-tag', `invalid reference: invalid tag ${goQuote(value)}`, name);
      out.tag = value;
    } else if (name === 'digest') {
      if (value === '') return fail('empty-argument', 'digest argument must not be empty', name);
      const problem = digestProblem(value);
      if (problem) return fail('invalid-digest', `invalid digest: ${problem}`, name);
      out.digest = value;
    } else {
      unsupported.push(name);
    }
  }
  if (unsupported.length === 1) return fail('unknown-argument', `unsupported argument ${goQuote(unsupported[0])}`, unsupported[0]);
  if (unsupported.length > 1) return fail('unknown-argument', `unsupported arguments: ${unsupported.join(', ')}`, unsupported[0]);
  if (out.tag !== undefined && out.digest !== undefined) return fail('tag-and-digest', 'cannot set both "tag" and "digest" arguments', 'digest');
  if (out.tag === undefined && out.digest === undefined) {
    out.tag = 'latest';
    out.defaultTag = true;
  }
  return finish(out);
}

function finish(out: OciModuleSource): OciModuleSource {
  const base = `${out.registry}/${out.repository}`;
  out.reference = out.digest ? `${base}@${out.digest}` : `${base}:${out.tag ?? 'latest'}`;
  return out;
}

/** Go's %q for the plain strings these messages hold. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * The source with its artifact selector replaced: `{tag}` or `{digest}` (the other removed, other
 * arguments and the subdirectory kept) — what "Pin to digest" and "Update tag" write.
 */
export function withOciSelector(src: OciModuleSource, selector: { tag: string } | { digest: string }): string {
  const [name, value] = 'tag' in selector ? ['tag', selector.tag] : ['digest', selector.digest];
  const kept = src.args.filter((a) => a.name !== 'tag' && a.name !== 'digest');
  const q = src.source.indexOf('?');
  const hash = src.source.indexOf('#', q >= 0 ? q : 0);
  const base = q >= 0 ? src.source.slice(0, q) : hash >= 0 ? src.source.slice(0, hash) : src.source;
  const parts = [...kept.map((a) => src.source.slice(a.start, a.end)), `${name}=${encodeURIComponent(value).replace(/%3A/gi, ':')}`];
  return `${base}?${parts.join('&')}`;
}
