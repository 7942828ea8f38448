// Fetching a module package (a go-getter style location) into a cache directory: tar.gz / zip
// archives over HTTP(S) (size-capped, timed out, unpacked by unpack.ts: inflated as capped streams,
// every path validated before anything is written, no link created) and git repositories (`git::`, ssh, the GitHub/Bitbucket shorthands) through the
// user's git (git.ts). fetchPackage returns the whole package plus the location's `//subdir` (what
// the module mirror repacks); fetchModule the module directory inside it (what `types check` reads).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { HttpClient } from '../net/http';
import { shownUrl } from '../net/http-errors';
import { extraCaCertificates } from '../net/dispatcher';
import { parseModuleSource, splitSubdir } from '../addresses/module-source';
import { ModuleFetchError } from './fetch-error';
import { gitClone, treeSize } from '../git/clone';
import { ArchiveKind, extractTar, ExtractLimits, extractZip, safeRelativePath, sniff, within } from './unpack';

export { ModuleFetchError } from './fetch-error';
export { safeRelativePath } from './unpack';

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
  /** The location is the user's own module source: git clones it with the user's credential helpers (git.ts userCredentials). */
  gitUserCredentials?: { env: NodeJS.ProcessEnv };
  /** The engine's environment (default process.env): git runs with it and reads its default roots from it. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** A fetched package: its root directory and the `//subdir` its location names ('' when none). */
export interface FetchedPackage {
  root: string;
  /** As written in the location (validated; it may be a glob such as `*`, see moduleDirectory). */
  subdir: string;
  /** What was fetched, recorded when it was (the SBOM's hashes); {} for a package cached before it was kept. */
  facts: PackageFacts;
}

/**
 * What the bytes fetched were, kept beside the cached package: an archive's SHA-256 (as
 * downloaded, before unpacking) and size, or the commit a git clone checked out.
 */
export interface PackageFacts {
  sha256?: string;
  size?: number;
  commit?: string;
}

/** Beside the package content in the cache: its PackageFacts as JSON. */
const FACTS_FILE = 'package-facts.json';

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

/**
 * Fetch `location` (a go-getter style source: `https://…/x.tar.gz//sub`, `…?archive=zip`,
 * `git::https://…?ref=v1`) once into the cache; `cacheKey` names it (e.g. "address@version").
 * Returns the module directory (the location's `//subdir` applied).
 */
export async function fetchModule(location: string, cacheKey: string, opts: FetchOptions): Promise<string> {
  return (await fetchModuleWithFacts(location, cacheKey, opts)).dir;
}

/** fetchModule, with what the package's bytes were (PackageFacts). */
export async function fetchModuleWithFacts(location: string, cacheKey: string, opts: FetchOptions): Promise<{ dir: string; facts: PackageFacts }> {
  const pkg = await fetchPackage(location, cacheKey, opts);
  return { dir: await moduleDirectory(pkg.root, pkg.subdir, location), facts: pkg.facts };
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
  return { root: path.join(dir, 'content'), subdir, facts: await readFacts(dir) };
}

async function readFacts(dir: string): Promise<PackageFacts> {
  const text = await fs.readFile(path.join(dir, FACTS_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  try {
    const j = JSON.parse(text) as PackageFacts;
    const facts: PackageFacts = {};
    if (typeof j.sha256 === 'string' && /^[0-9a-f]{64}$/.test(j.sha256)) facts.sha256 = j.sha256;
    if (typeof j.size === 'number' && Number.isSafeInteger(j.size)) facts.size = j.size;
    if (typeof j.commit === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(j.commit)) facts.commit = j.commit;
    return facts;
  } catch {
    return {};
  }
}

const inFlight = new Map<string, { promise: Promise<void>; signal?: AbortSignal }>();

/**
 * Marks a complete package in the cache. "-v2": unpacked with links as plain files; a package an
 * older version cached may hold symbolic links, so it is fetched again rather than read.
 */
const COMPLETE_MARKER = '.tofu-registry-complete-v2';

async function fetchInto(dir: string, source: PackageSource, location: string, opts: FetchOptions): Promise<void> {
  const done = path.join(dir, COMPLETE_MARKER);
  if (await exists(done)) return;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
  await fs.mkdir(tmp, { recursive: true });
  try {
    const content = path.join(tmp, 'content');
    await fs.mkdir(content);
    const facts = source.kind === 'git' ? await fetchGit(source.src, tmp, content, opts) : await fetchArchive(source.url, tmp, content, opts);
    await fs.writeFile(path.join(tmp, FACTS_FILE), JSON.stringify(facts));
    await fs.writeFile(path.join(tmp, COMPLETE_MARKER), shownLocation(location));
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
 * The match is checked by its real path (the kernel's resolution, not the text): a directory
 * that resolves outside the package is refused.
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
  const realRoot = await fs.realpath(root);
  for (const c of candidates) {
    if (!within(root, c) || !(await fs.stat(c).catch(() => undefined))?.isDirectory()) continue;
    const real = await fs.realpath(c);
    if (!within(realRoot, real)) throw new ModuleFetchError(`subdirectory "${safe}" resolves outside the module package from ${shownLocation(location)}`);
    found.push(c);
  }
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

async function fetchGit(src: string, tmp: string, content: string, opts: FetchOptions): Promise<PackageFacts> {
  const limits = extractLimits(opts);
  const commit = await gitClone(src, content, {
    timeoutMs: opts.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT, diskCap: (opts.maxBytes ?? DEFAULT_MAX_BYTES) + limits.maxBytes,
    protocols: opts.gitProtocols ?? 'https:http:ssh:git', caCertificates: opts.caCertificates, scratchDir: tmp, signal: opts.signal,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.gitUserCredentials ? { userCredentials: opts.gitUserCredentials } : {}),
  });
  // afterwards the checkout itself must stay within the caps like an extracted archive
  const size = await treeSize(content, limits.maxBytes, limits.maxEntries);
  const problems: string[] = [];
  if (size.entries > limits.maxEntries) problems.push(`more than ${limits.maxEntries} entries`);
  if (size.bytes > limits.maxBytes) problems.push(`more than ${limits.maxBytes} bytes when checked out`);
  // core.symlinks=false checks links out as plain files; should git ever make one, it is not read
  if (size.links) problems.push(`${size.links} symbolic links in the checkout`);
  const shown = shownUrl(src.split('?')[0]);
  if (problems.length) throw new ModuleFetchError(`refusing the module package from ${shown}: ${problems.join('; ')}`, shown);
  return commit ? { commit } : {};
}

async function exists(p: string): Promise<boolean> {
  try { await fs.access(p); return true; } catch { return false; }
}

const UNSUPPORTED_ARCHIVES = /\.(tar\.bz2|tbz2|tar\.tbz2|tar\.xz|txz|bz2|xz)$|(?<!\.tar)\.gz$/i;

async function fetchArchive(rawUrl: string, tmp: string, content: string, opts: FetchOptions): Promise<PackageFacts> {
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
  // The archive's SHA-256 as downloaded, hashed while it is written (an SBOM records it).
  const hash = createHash('sha256');
  let size = 0;
  const measure = new Transform({ transform(chunk: Buffer, _enc, done) { hash.update(chunk); size += chunk.length; done(null, chunk); } });
  await pipeline(res.body, measure, createWriteStream(file));
  const sniffed = await sniff(file);
  // a ".tar" that is gzipped after all is unpacked as what it is (never by tar's own inflater)
  if (!kind || (kind === 'tar' && sniffed === 'tar.gz')) kind = sniffed;
  const shown = shownUrl(res.url);
  if (!kind) throw new ModuleFetchError(`the module package at ${shown} is neither a tar.gz nor a zip archive`, shown);
  const limits = extractLimits(opts);
  if (kind === 'zip') await extractZip(file, content, shown, limits);
  else await extractTar(file, content, shown, limits, kind === 'tar.gz');
  await fs.rm(file, { force: true });
  return { sha256: hash.digest('hex'), size };
}

/** Unpacks a local .tar.gz or .zip (e.g. a module mirror's own archive) with the checks a download gets. */
export async function unpackArchive(file: string, dest: string, opts: Pick<FetchOptions, 'maxExtractedBytes' | 'maxEntries'> = {}): Promise<void> {
  const kind = await sniff(file);
  if (!kind) throw new ModuleFetchError(`${file} is neither a tar.gz nor a zip archive`);
  if (kind === 'zip') await extractZip(file, dest, file, extractLimits(opts));
  else await extractTar(file, dest, file, extractLimits(opts), true);
}

function extractLimits(opts: Pick<FetchOptions, 'maxExtractedBytes' | 'maxEntries'>): ExtractLimits {
  return { maxBytes: opts.maxExtractedBytes ?? DEFAULT_MAX_EXTRACTED, maxEntries: opts.maxEntries ?? DEFAULT_MAX_ENTRIES };
}
