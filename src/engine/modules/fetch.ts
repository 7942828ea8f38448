// Fetching a module package (a go-getter style location) into a cache directory: tar.gz / zip
// archives over HTTP(S) (size-capped, timed out, every archive path validated before anything is
// written) and git repositories (`git::`, ssh, the GitHub/Bitbucket shorthands) through the
// user's git (git.ts). fetchPackage returns the whole package plus the location's `//subdir` (what
// the module mirror repacks); fetchModule the module directory inside it (what `types check` reads).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import * as yauzl from 'yauzl';
import type { HttpClient } from '../net/http';
import { shownUrl } from '../net/http-errors';
import { extraCaCertificates } from '../net/dispatcher';
import { parseModuleSource, splitSubdir } from '../addresses/module-source';
import { ModuleFetchError } from './fetch-error';
import { gitClone, treeSize } from './git';

export { ModuleFetchError } from './fetch-error';

export interface FetchOptions {
  http: HttpClient;
  /** Packages are cached under `<cacheDir>/modules/<hash of key>/`. */
  cacheDir: string;
  /** Download cap (default 64 MiB). */
  maxBytes?: number;
  /** Cap on the extracted size (default 256 MiB) and entry count (default 20000). */
  maxExtractedBytes?: number;
  maxEntries?: number;
  /** Request timeout for archive downloads (connect, headers, each pause in the body). */
  timeoutMs?: number;
  /** How long a `git::` clone may take as a whole (default 10 min): a clone is not one request. */
  gitTimeoutMs?: number;
  /** Value of GIT_ALLOW_PROTOCOL for clones (default "https:http:ssh:git"; tests add "file"). */
  gitProtocols?: string;
  /** PEM certificates git trusts on top of the system roots (what --ca-file adds for HTTPS requests). */
  caCertificates?: string[];
  signal?: AbortSignal;
}

/** A fetched package: its root directory and the `//subdir` its location names ('' when none). */
export interface FetchedPackage {
  root: string;
  /** As written in the location (validated; it may be a glob such as `*`, see moduleDirectory). */
  subdir: string;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_EXTRACTED = 256 * 1024 * 1024;
const DEFAULT_MAX_ENTRIES = 20000;
const DEFAULT_GIT_TIMEOUT = 10 * 60 * 1000;

type EngineTrust = { options?: { env?: NodeJS.ProcessEnv; caFiles?: string[] } };
const caCertificatesByEngine = new WeakMap<EngineTrust, string[]>();

/**
 * The CA certificates an engine adds to the system roots (its caFiles, NODE_EXTRA_CA_CERTS): git
 * must trust them too. Read once per engine (every module fetch of a run asks).
 */
export function engineCaCertificates(engine: EngineTrust): string[] {
  let pems = caCertificatesByEngine.get(engine);
  if (!pems) {
    pems = extraCaCertificates(engine.options?.env ?? process.env, engine.options?.caFiles ?? []);
    caCertificatesByEngine.set(engine, pems);
  }
  return pems;
}

/** A module location as it may appear in messages (shownUrl: forced getters, user information, secret parameters). */
export function shownLocation(location: string): string {
  return shownUrl(location);
}

/** A relative path inside an archive or a `//subdir`: no absolute paths, drive letters or `..`. */
export function safeRelativePath(p: string): string | undefined {
  if (p.includes('\0')) return undefined;
  const norm = p.replace(/\\/g, '/');
  if (norm.startsWith('/') || /^[A-Za-z]:/.test(norm)) return undefined;
  const parts = norm.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..')) return undefined;
  return parts.join('/');
}

function within(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Fetch `location` (a go-getter style source: `https://…/x.tar.gz//sub`, `…?archive=zip`,
 * `git::https://…?ref=v1`) once into the cache; `cacheKey` names it (e.g. "address@version").
 * Returns the module directory (the location's `//subdir` applied).
 */
export async function fetchModule(location: string, cacheKey: string, opts: FetchOptions): Promise<string> {
  const pkg = await fetchPackage(location, cacheKey, opts);
  return moduleDirectory(pkg.root, pkg.subdir, location);
}

/** Fetch the whole package `location` points at (once per cacheKey) without applying its `//subdir`. */
export async function fetchPackage(location: string, cacheKey: string, opts: FetchOptions): Promise<FetchedPackage> {
  const [pkg, subdirRaw] = splitSubdir(location);
  const subdir = subdirRaw === undefined ? '' : safeRelativePath(subdirRaw);
  if (subdir === undefined) throw new ModuleFetchError(`invalid subdirectory ${JSON.stringify(subdirRaw)} in module location ${shownLocation(location)}`);
  const source = packageSource(pkg);
  const dir = path.join(opts.cacheDir, 'modules', createHash('sha256').update(cacheKey).digest('hex').slice(0, 32));
  // Single flight: callers asking for the same package at once (the lock engine reads the module
  // trees of many root modules in parallel) share one fetch instead of racing on the directory.
  const running = inFlight.get(dir);
  if (running) {
    try {
      await running.promise;
    } catch (err) {
      // the caller that started it was cancelled, this one was not: fetch again
      if (!running.signal?.aborted || opts.signal?.aborted) throw err;
      return fetchPackage(location, cacheKey, opts);
    }
  } else {
    const promise = fetchInto(dir, source, location, opts).finally(() => inFlight.delete(dir));
    inFlight.set(dir, { promise, signal: opts.signal });
    await promise;
  }
  return { root: path.join(dir, 'content'), subdir };
}

const inFlight = new Map<string, { promise: Promise<void>; signal?: AbortSignal }>();

async function fetchInto(dir: string, source: PackageSource, location: string, opts: FetchOptions): Promise<void> {
  const done = path.join(dir, '.tofu-registry-complete');
  if (await exists(done)) return;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
  await fs.mkdir(tmp, { recursive: true });
  try {
    const content = path.join(tmp, 'content');
    await fs.mkdir(content);
    if (source.kind === 'git') await fetchGit(source.src, tmp, content, opts);
    else await fetchArchive(source.url, tmp, content, opts);
    await fs.writeFile(path.join(tmp, '.tofu-registry-complete'), shownLocation(location));
    // Another process may have completed the same package meanwhile: keep its copy (it may be in use).
    if (await exists(done)) return;
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(tmp, dir);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The directory `subdir` names inside a package. Like go-getter's SubdirGlob (which tofu applies
 * to registry locations such as `…/archive.tar.gz//*`), glob patterns must match exactly one path.
 */
export async function moduleDirectory(root: string, subdir: string, location: string): Promise<string> {
  const safe = safeRelativePath(subdir);
  if (safe === undefined) throw new ModuleFetchError(`subdirectory ${subdir} escapes the module package`);
  let candidates = [root];
  for (const segment of safe ? safe.split('/') : []) {
    if (!/[*?[]/.test(segment)) { candidates = candidates.map((c) => path.join(c, segment)); continue; }
    const re = globRegExp(segment);
    const next: string[] = [];
    for (const c of candidates) {
      const names = await fs.readdir(c).catch(() => [] as string[]);
      for (const n of names.sort()) if (re.test(n)) next.push(path.join(c, n));
    }
    candidates = next;
  }
  const found = [];
  for (const c of candidates) if (within(root, c) && (await fs.stat(c).catch(() => undefined))?.isDirectory()) found.push(c);
  if (found.length > 1) throw new ModuleFetchError(`subdirectory "${safe}" matches ${found.length} directories in the module package from ${shownLocation(location)}`);
  if (!found.length) throw new ModuleFetchError(`subdirectory "${safe}" does not exist in the module package from ${shownLocation(location)}`);
  return found[0];
}

/** A glob segment (`*`, `?`, `[abc]`) as a regular expression, like Go's filepath.Match. */
export function globRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i];
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) { re += '\\['; continue; }
      re += '[' + segment.slice(i + 1, end).replace(/\\/g, '\\\\') + ']';
      i = end;
    } else re += ch.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

type PackageSource = { kind: 'git'; src: string } | { kind: 'archive'; url: string };

/**
 * How a package location is fetched, by its source kind (parseModuleSource): git repositories
 * (with go-getter's GitHub/Bitbucket shorthand expansions) or http(s) archives. Other getters
 * (s3, gcs, hg, oci, file) are refused with a message that names them.
 */
export function packageSource(pkg: string): PackageSource {
  const src = parseModuleSource(pkg);
  const shown = shownLocation(pkg);
  switch (src.kind) {
    case 'git': return { kind: 'git', src: pkg.replace(/^git::/i, '') };
    case 'github': case 'bitbucket': return { kind: 'git', src: shorthandGitUrl(pkg) };
    case 'http': return { kind: 'archive', url: pkg.replace(/^https?::/i, '') };
    case 'registry': throw new ModuleFetchError(`${shown} is a registry address, not a module package location`);
    case 'local': throw new ModuleFetchError(`${shown} is a relative path, not a module package location`);
    case 'unknown': throw new ModuleFetchError(`invalid module location ${shown}: ${src.error ?? 'unrecognised'}`);
    default:
      throw new ModuleFetchError(`cannot fetch ${shown}: the ${src.kind} getter (${src.description}) is not supported; tofu-registry fetches module packages from http(s) archives and git repositories only`, undefined, true);
  }
}

/** go-getter's GitHub/Bitbucket detectors: `github.com/org/repo?ref=x` → `https://github.com/org/repo.git?ref=x`. */
function shorthandGitUrl(pkg: string): string {
  const q = pkg.indexOf('?');
  const [host, org, repo, ...rest] = (q < 0 ? pkg : pkg.slice(0, q)).split('/');
  const name = repo && !repo.endsWith('.git') ? `${repo}.git` : repo ?? '';
  return `https://${[host, org, name, ...rest].join('/')}${q < 0 ? '' : pkg.slice(q)}`;
}

async function fetchGit(src: string, tmp: string, content: string, opts: FetchOptions): Promise<void> {
  const limits = extractLimits(opts);
  await gitClone(src, content, {
    timeoutMs: opts.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT, diskCap: (opts.maxBytes ?? DEFAULT_MAX_BYTES) + limits.maxBytes,
    protocols: opts.gitProtocols ?? 'https:http:ssh:git', caCertificates: opts.caCertificates, scratchDir: tmp, signal: opts.signal,
  });
  // afterwards the checkout itself must stay within the caps like an extracted archive
  const size = await treeSize(content, limits.maxBytes, limits.maxEntries);
  const problems: string[] = [];
  if (size.entries > limits.maxEntries) problems.push(`more than ${limits.maxEntries} entries`);
  if (size.bytes > limits.maxBytes) problems.push(`more than ${limits.maxBytes} bytes when checked out`);
  const shown = shownUrl(src.split('?')[0]);
  if (problems.length) throw new ModuleFetchError(`refusing the module package from ${shown}: ${problems.join('; ')}`, shown);
}

async function exists(p: string): Promise<boolean> {
  try { await fs.access(p); return true; } catch { return false; }
}

type ArchiveKind = 'tar.gz' | 'zip' | 'tar';
const UNSUPPORTED_ARCHIVES = /\.(tar\.bz2|tbz2|tar\.tbz2|tar\.xz|txz|bz2|xz)$|(?<!\.tar)\.gz$/i;

async function fetchArchive(rawUrl: string, tmp: string, content: string, opts: FetchOptions): Promise<void> {
  let url: URL;
  try { url = new URL(rawUrl); } catch { throw new ModuleFetchError(`unsupported module location ${JSON.stringify(shownUrl(rawUrl))}`); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ModuleFetchError(`unsupported module location ${shownUrl(rawUrl)}: only https, http and git:: sources can be fetched`);
  let kind: ArchiveKind | undefined;
  const hint = url.searchParams.get('archive');
  if (hint !== null) {
    url.searchParams.delete('archive');
    kind = hint === 'zip' ? 'zip' : hint === 'tar.gz' || hint === 'tgz' ? 'tar.gz' : hint === 'tar' ? 'tar' : undefined;
    if (!kind) throw new ModuleFetchError(`unsupported archive type ${JSON.stringify(hint)} in ${shownUrl(rawUrl)}`, undefined, UNSUPPORTED_ARCHIVES.test(`.${hint}`));
  } else if (UNSUPPORTED_ARCHIVES.test(url.pathname)) {
    // tofu also unpacks these (go-getter's bzip2/xz decompressors); Node has no bzip2 or xz.
    throw new ModuleFetchError(`cannot fetch ${shownUrl(rawUrl)}: bzip2, xz and single-file gzip archives are not supported; tofu-registry unpacks .tar.gz, .tgz and .zip`, undefined, true);
  } else if (/\.zip$/i.test(url.pathname)) kind = 'zip';
  else if (/\.(tar\.gz|tgz)$/i.test(url.pathname)) kind = 'tar.gz';
  else if (/\.tar$/i.test(url.pathname)) kind = 'tar';
  const file = path.join(tmp, 'archive');
  const res = await opts.http.download(url.href, { maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES, timeoutMs: opts.timeoutMs, signal: opts.signal });
  await pipeline(res.body, createWriteStream(file));
  if (!kind) kind = await sniff(file);
  const shown = shownUrl(res.url);
  if (!kind) throw new ModuleFetchError(`the module package at ${shown} is neither a tar.gz nor a zip archive`, shown);
  const limits = extractLimits(opts);
  if (kind === 'zip') await extractZip(file, content, shown, limits);
  else await extractTar(file, content, shown, limits);
  await fs.rm(file, { force: true });
}

/** Unpacks a local .tar.gz or .zip (e.g. a module mirror's own archive) with the checks a download gets. */
export async function unpackArchive(file: string, dest: string, opts: Pick<FetchOptions, 'maxExtractedBytes' | 'maxEntries'> = {}): Promise<void> {
  const kind = await sniff(file);
  if (!kind) throw new ModuleFetchError(`${file} is neither a tar.gz nor a zip archive`);
  if (kind === 'zip') await extractZip(file, dest, file, extractLimits(opts));
  else await extractTar(file, dest, file, extractLimits(opts));
}

async function sniff(file: string): Promise<ArchiveKind | undefined> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    if (buf[0] === 0x1f && buf[1] === 0x8b) return 'tar.gz';
    if (buf.toString('latin1') === 'PK\x03\x04') return 'zip';
    return undefined;
  } finally {
    await fh.close();
  }
}

interface Limits { maxBytes: number; maxEntries: number }

function extractLimits(opts: Pick<FetchOptions, 'maxExtractedBytes' | 'maxEntries'>): Limits {
  return { maxBytes: opts.maxExtractedBytes ?? DEFAULT_MAX_EXTRACTED, maxEntries: opts.maxEntries ?? DEFAULT_MAX_ENTRIES };
}

/** Validate every tar entry first (paths, links, types, sizes); extract only when all are fine. */
async function extractTar(file: string, dest: string, url: string, limits: Limits): Promise<void> {
  const problems: string[] = [];
  const links = new Set<string>();
  let total = 0, count = 0;
  await tar.t({
    file,
    onReadEntry: (entry) => {
      count++;
      total += entry.size ?? 0;
      const rel = safeRelativePath(entry.path);
      if (rel === undefined) problems.push(`unsafe path ${JSON.stringify(entry.path)}`);
      else {
        const parts = rel.split('/');
        for (let i = 1; i < parts.length; i++) {
          if (links.has(parts.slice(0, i).join('/'))) problems.push(`path ${JSON.stringify(entry.path)} goes through a symbolic link`);
        }
        if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
          const linkpath = entry.linkpath ?? '';
          const base = entry.type === 'SymbolicLink' ? path.posix.dirname(rel) : '';
          const resolved = path.posix.normalize(path.posix.join(base, linkpath.replace(/\\/g, '/')));
          if (path.posix.isAbsolute(linkpath) || resolved === '..' || resolved.startsWith('../')) {
            problems.push(`link ${JSON.stringify(entry.path)} points outside the package (${linkpath})`);
          }
          links.add(rel);
        } else if (!['File', 'OldFile', 'ContiguousFile', 'Directory', 'ExtendedHeader', 'GlobalExtendedHeader', 'NextFileHasLongPath', 'NextFileHasLongLinkpath'].includes(entry.type)) {
          problems.push(`entry ${JSON.stringify(entry.path)} has unsupported type ${entry.type}`);
        }
      }
      entry.resume();
    },
  });
  if (count > limits.maxEntries) problems.push(`more than ${limits.maxEntries} entries`);
  if (total > limits.maxBytes) problems.push(`more than ${limits.maxBytes} bytes when extracted`);
  if (problems.length) throw new ModuleFetchError(`refusing to extract the module package from ${url}: ${problems.slice(0, 3).join('; ')}`, url);
  // mtimes are not kept (nobody reads them; setting them costs a call per file)
  await tar.x({ file, cwd: dest, strict: true, preservePaths: false, noChmod: true, noMtime: true });
}

/** Validate every zip entry first; symbolic links are not created. */
async function extractZip(file: string, dest: string, url: string, limits: Limits): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z!))));
  try {
    const entries: yauzl.Entry[] = [];
    const problems: string[] = [];
    let total = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => { entries.push(e); zip.readEntry(); });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    for (const e of entries) {
      total += e.uncompressedSize;
      if (safeRelativePath(e.fileName) === undefined) problems.push(`unsafe path ${JSON.stringify(e.fileName)}`);
    }
    if (entries.length > limits.maxEntries) problems.push(`more than ${limits.maxEntries} entries`);
    if (total > limits.maxBytes) problems.push(`more than ${limits.maxBytes} bytes when extracted`);
    if (problems.length) throw new ModuleFetchError(`refusing to extract the module package from ${url}: ${problems.slice(0, 3).join('; ')}`, url);
    for (const e of entries) {
      const rel = safeRelativePath(e.fileName)!;
      const target = path.join(dest, rel);
      if (!within(dest, target)) throw new ModuleFetchError(`refusing to extract ${e.fileName} from ${url}`, url);
      const mode = (e.externalFileAttributes >>> 16) & 0o170000;
      if (e.fileName.endsWith('/') || mode === 0o040000) { await fs.mkdir(target, { recursive: true }); continue; }
      if (mode === 0o120000) continue; // symbolic link: skipped
      await fs.mkdir(path.dirname(target), { recursive: true });
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(e, (err, s) => (err ? reject(err) : resolve(s!))));
      await pipeline(stream, createWriteStream(target, { flags: 'wx' }));
    }
  } finally {
    zip.close();
  }
}
