// The V8 code cache of the CLI's bundles. Compiling a command's bundle and the vendor files it
// loads (dist/cli-lock.js and dist/vendor/undici.js are ≈ 0.6 MB of minified JavaScript) costs
// every run (an unchanged mirror re-run 83 → 69 ms with the cache; far more on a busy machine, where
// V8's compile jobs wait for a core too). scripts/build.mjs runs each
// command once while building and keeps what V8 compiled in dist/code-cache/<V8 version>-<arch>/;
// a later process on the same Node version hands that to V8 instead of parsing and compiling again.
//
// Why it is safe: the cache is made only by the build, beside the bundles and with their trust
// (nothing is written at run time, so a restored CI cache or a hostile workspace cannot plant
// one); each entry names the CRC-32 and length of the exact source it was made from and is
// ignored when they differ (a hand-edited bundle); V8 itself rejects data from another V8 version
// or other flags, and then the file is compiled as usual. Another Node version simply finds none.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module = require('node:module');
import * as path from 'node:path';
import { Script } from 'node:vm';

/** Set by scripts/build.mjs only, for the run that records the cache. */
export const RECORD_ENV = 'TOFU_REGISTRY_RECORD_CODE_CACHE';

const MAGIC = 0x31435254; // "TRC1"
// magic, the CRC-32 of the source and its length in UTF-16 units, the CRC-32 of the V8 data (V8
// checks its own data only in debug builds: a damaged file must not reach its deserializer).
const HEADER = 16;

/** zlib.crc32 (Node ≥ 20.15), over a string's UTF-8 or a buffer's bytes. */
type Crc32 = (data: string | Buffer) => number;

interface InternalModule {
  exports: unknown;
  filename: string;
  require(id: string): unknown;
}
type ModuleStatics = typeof Module & {
  prototype: { _compile(content: string, filename: string): unknown };
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: unknown): string[] | null;
  _extensions: unknown;
  _cache: unknown;
};

/** dist/code-cache/<V8 version>-<arch>: data from another V8 is never even read. */
export function codeCacheDir(distDir: string): string {
  return path.join(distDir, 'code-cache', `${process.versions.v8}-${process.arch}`);
}

/** The cache entry of one bundle: dist/cli-lock.js → cli-lock.js.bin, dist/vendor/undici.js → vendor_undici.js.bin. */
function entryPath(cacheDir: string, distDir: string, filename: string): string {
  return path.join(cacheDir, `${path.relative(distDir, filename).split(path.sep).join('_')}.bin`);
}

export interface CodeCacheUse {
  /** Bundles compiled from the cache, and bundles compiled as usual (no entry, stale, or rejected by V8). */
  readonly hits: string[];
  readonly misses: string[];
}

/**
 * From now on, every bundle this process requires from `distDir` (dist/cli-*.js, dist/vendor/*.js)
 * is compiled with its cache entry when one matches. With `record`, the data V8 holds for each of
 * them when the process exits (the functions the run compiled, not only the top level) is written
 * as their entries. Returns what was used (for tests and the bench).
 */
export function useCodeCache(distDir: string, record = false): CodeCacheUse {
  const use = { hits: [] as string[], misses: [] as string[] };
  const cacheDir = codeCacheDir(distDir);
  const M = Module as ModuleStatics;
  const compile = M.prototype._compile;
  const recorded: { script: Script; file: string; crc: number; length: number }[] = [];
  let crc32: Crc32 | null | undefined;
  M.prototype._compile = function (this: InternalModule, content: string, filename: string): unknown {
    const dir = path.dirname(filename);
    if ((dir !== distDir && dir !== path.join(distDir, 'vendor')) || content.startsWith('#!')) return compile.call(this, content, filename);
    // zlib loads only when a bundle is; a Node before 20.15 (Electron's, running `cli.js lsp`) has
    // no zlib.crc32: no cache then.
    crc32 ??= (require('node:zlib') as { crc32?: Crc32 }).crc32 ?? null;
    if (!crc32) {
      use.misses.push(filename);
      return compile.call(this, content, filename);
    }
    const file = entryPath(cacheDir, distDir, filename);
    const sum = crc32(content) >>> 0;
    const cached = record ? undefined : readEntry(file, sum, content.length, crc32);
    const script = new Script(Module.wrap(content), { filename, cachedData: cached });
    if (cached && !script.cachedDataRejected) use.hits.push(filename);
    else use.misses.push(filename);
    if (record) recorded.push({ script, file, crc: sum, length: content.length });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireFor(this, M), this, filename, path.dirname(filename));
  };
  if (record) {
    process.once('exit', () => {
      mkdirSync(cacheDir, { recursive: true });
      for (const r of recorded) {
        const data = r.script.createCachedData();
        const head = Buffer.alloc(HEADER);
        head.writeUInt32LE(MAGIC, 0);
        head.writeUInt32LE(r.crc, 4);
        head.writeUInt32LE(r.length, 8);
        head.writeUInt32LE(crc32!(data) >>> 0, 12);
        // A file a concurrent reader sees is whole: written aside, then renamed.
        writeFileSync(`${r.file}.tmp`, Buffer.concat([head, data]));
        renameSync(`${r.file}.tmp`, r.file);
      }
    });
  }
  return use;
}

/** "code cache: from the cache cli-lock.js, vendor/undici.js; compiled vendor/yauzl.js" (a line, for TOFU_REGISTRY_DEBUG_CODE_CACHE). */
export function codeCacheReport(use: CodeCacheUse, distDir: string): string {
  const names = (l: string[]) => (l.length ? l.map((f) => path.relative(distDir, f).split(path.sep).join('/')).join(', ') : 'none');
  return `tofu-registry: code cache (${codeCacheDir(distDir)}): from the cache ${names(use.hits)}; compiled ${names(use.misses)}\n`;
}

/** The entry's V8 data when it was made from this very source; undefined otherwise. */
function readEntry(file: string, crc: number, length: number, crc32: Crc32): Buffer | undefined {
  let entry: Buffer;
  try {
    entry = readFileSync(file);
  } catch {
    return undefined; // none for this Node version (or no cache at all): compiled as usual
  }
  if (entry.length <= HEADER || entry.readUInt32LE(0) !== MAGIC || entry.readUInt32LE(4) !== crc || entry.readUInt32LE(8) !== length) return undefined;
  const data = entry.subarray(HEADER);
  return (crc32(data) >>> 0) === entry.readUInt32LE(12) ? data : undefined;
}

/** The `require` Node gives a module's code (its own makeRequireFunction is not public). */
function requireFor(mod: InternalModule, M: ModuleStatics): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  req.resolve = ((request: string, options?: { paths?: string[] }) => M._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  req.resolve.paths = (request: string) => M._resolveLookupPaths(request, mod);
  req.main = require.main;
  req.extensions = M._extensions as NodeJS.RequireExtensions;
  req.cache = M._cache as NodeJS.Dict<NodeModule>;
  return req;
}
