// Fetching a remote module's source into a cache directory: tar.gz / zip archives over HTTP(S)
// (size-capped, timed out, every archive path validated before anything is written) and `git::`
// sources through the user's git. Returns the module directory (with `//subdir` applied).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { spawn } from 'node:child_process';
import * as tar from 'tar';
import * as yauzl from 'yauzl';
import type { HttpClient } from '../net/http';
import { redactUrls, shownUrl } from '../net/http-errors';
import { splitSubdir } from '../addresses/module-source';

export interface FetchOptions {
  http: HttpClient;
  /** Modules are cached under `<cacheDir>/modules/<hash of key>/`. */
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
  signal?: AbortSignal;
}

export class ModuleFetchError extends Error {
  constructor(message: string, readonly url?: string) { super(message); }
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_EXTRACTED = 256 * 1024 * 1024;
const DEFAULT_MAX_ENTRIES = 20000;
const DEFAULT_GIT_TIMEOUT = 10 * 60 * 1000;

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
 */
export async function fetchModule(location: string, cacheKey: string, opts: FetchOptions): Promise<string> {
  const [pkg, subdirRaw] = splitSubdir(location);
  const subdir = subdirRaw === undefined ? '' : safeRelativePath(subdirRaw);
  if (subdir === undefined) throw new ModuleFetchError(`invalid subdirectory ${JSON.stringify(subdirRaw)} in module location ${shownLocation(location)}`);
  const dir = path.join(opts.cacheDir, 'modules', createHash('sha256').update(cacheKey).digest('hex').slice(0, 32));
  const done = path.join(dir, '.tofu-registry-complete');
  if (!(await exists(done))) {
    await fs.mkdir(path.dirname(dir), { recursive: true });
    const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
    await fs.mkdir(tmp, { recursive: true });
    try {
      const content = path.join(tmp, 'content');
      await fs.mkdir(content);
      if (/^git::/i.test(pkg)) await gitClone(pkg.slice(5), content, opts);
      else await fetchArchive(pkg.replace(/^https?::/i, ''), tmp, content, opts);
      await fs.writeFile(path.join(tmp, '.tofu-registry-complete'), shownLocation(location));
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rename(tmp, dir);
    } catch (err) {
      await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
  }
  const root = path.join(dir, 'content');
  const target = path.join(root, subdir);
  if (!within(root, target)) throw new ModuleFetchError(`subdirectory ${subdirRaw} escapes the module package`);
  if (!(await exists(target))) throw new ModuleFetchError(`subdirectory "${subdir}" does not exist in the module package from ${shownLocation(location)}`);
  return target;
}

async function exists(p: string): Promise<boolean> {
  try { await fs.access(p); return true; } catch { return false; }
}

type ArchiveKind = 'tar.gz' | 'zip' | 'tar';

async function fetchArchive(rawUrl: string, tmp: string, content: string, opts: FetchOptions): Promise<void> {
  let url: URL;
  try { url = new URL(rawUrl); } catch { throw new ModuleFetchError(`unsupported module location ${JSON.stringify(shownUrl(rawUrl))}`); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ModuleFetchError(`unsupported module location ${shownUrl(rawUrl)}: only https, http and git:: sources can be fetched`);
  let kind: ArchiveKind | undefined;
  const hint = url.searchParams.get('archive');
  if (hint !== null) {
    url.searchParams.delete('archive');
    kind = hint === 'zip' ? 'zip' : hint === 'tar.gz' || hint === 'tgz' ? 'tar.gz' : hint === 'tar' ? 'tar' : undefined;
    if (!kind) throw new ModuleFetchError(`unsupported archive type ${JSON.stringify(hint)} in ${shownUrl(rawUrl)}`);
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

function extractLimits(opts: FetchOptions): Limits {
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
  await tar.x({ file, cwd: dest, strict: true, preservePaths: false, noChmod: true });
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

/**
 * `git clone --depth 1 [--branch ref]` with the user's git; `?ref=` selects the ref. The clone has
 * its own deadline (gitTimeoutMs) and a size cap: while git runs, the clone directory (.git
 * included) may not grow past maxBytes + maxExtractedBytes; afterwards the checkout itself must
 * stay within maxExtractedBytes / maxEntries like an extracted archive. Symbolic links are checked
 * out as plain files (core.symlinks=false), so nothing in the package points outside it.
 */
async function gitClone(src: string, dest: string, opts: FetchOptions): Promise<void> {
  let url = src;
  let ref: string | undefined;
  const q = src.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(src.slice(q + 1));
    ref = params.get('ref') ?? undefined;
    url = src.slice(0, q);
  }
  const shown = shownUrl(url);
  if (url.startsWith('-') || (ref !== undefined && (ref.startsWith('-') || !/^[\w./-]+$/.test(ref)))) {
    throw new ModuleFetchError(`invalid git source ${shownUrl(src)}`);
  }
  const limits = extractLimits(opts);
  const diskCap = (opts.maxBytes ?? DEFAULT_MAX_BYTES) + limits.maxBytes;
  const timeoutMs = opts.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT;
  const args = ['-c', 'core.symlinks=false', 'clone', '--depth', '1', '--quiet', ...(ref ? ['--branch', ref] : []), '--', url, dest];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: opts.gitProtocols ?? 'https:http:ssh:git' },
    });
    let stderr = '';
    let killed: string | undefined;
    const kill = (why: string) => { killed ??= why; child.kill('SIGKILL'); };
    child.stderr!.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString(); });
    const timer = setTimeout(() => kill(`it did not finish within ${timeoutMs / 1000} s`), timeoutMs);
    let measuring = false;
    const watch = setInterval(() => {
      if (measuring) return;
      measuring = true;
      treeSize(dest, diskCap, Infinity).then((t) => {
        if (t.bytes > diskCap) kill(`the clone grew past ${diskCap} bytes`);
      }, () => undefined).finally(() => { measuring = false; });
    }, 250);
    const onAbort = () => kill('it was cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => { clearTimeout(timer); clearInterval(watch); opts.signal?.removeEventListener('abort', onAbort); };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(new ModuleFetchError(err.code === 'ENOENT' ? `cannot fetch ${shownUrl(src)}: git is not installed` : `cannot run git: ${err.message}`));
    });
    child.on('close', (code) => {
      done();
      if (code === 0 && !killed) return resolve();
      const why = killed ?? redact(stderr.trim().split('\n').pop() || `exit code ${code}`, url);
      reject(new ModuleFetchError(`git clone of ${shown} failed: ${why}`, shown));
    });
  });
  await fs.rm(path.join(dest, '.git'), { recursive: true, force: true });
  const size = await treeSize(dest, limits.maxBytes, limits.maxEntries);
  const problems: string[] = [];
  if (size.entries > limits.maxEntries) problems.push(`more than ${limits.maxEntries} entries`);
  if (size.bytes > limits.maxBytes) problems.push(`more than ${limits.maxBytes} bytes when checked out`);
  if (problems.length) throw new ModuleFetchError(`refusing the module package from ${shown}: ${problems.join('; ')}`, shown);
}

/** Total file size and entry count below `dir` (symbolic links not followed); stops early past the caps. */
async function treeSize(dir: string, maxBytes: number, maxEntries: number): Promise<{ bytes: number; entries: number }> {
  let bytes = 0, entries = 0;
  const stack = [dir];
  while (stack.length && bytes <= maxBytes && entries <= maxEntries) {
    const d = stack.pop()!;
    let list;
    try { list = await fs.readdir(d, { withFileTypes: true }); } catch { continue; }
    for (const e of list) {
      entries++;
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) bytes += (await fs.lstat(p).catch(() => undefined))?.size ?? 0;
    }
  }
  return { bytes, entries };
}

/** git's last stderr line without the URL's secrets (git may echo the URL as given, or decoded). */
function redact(line: string, url: string): string {
  let out = redactUrls(line.split(url).join(shownUrl(url)));
  try {
    const u = new URL(url);
    for (const secret of [u.password, decodeURIComponent(u.password)]) if (secret) out = out.split(secret).join('***');
  } catch { /* not a URL (scp-like ssh address): nothing to hide */ }
  return out;
}
