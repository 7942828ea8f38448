// Which platforms a lock entry's hashes cover. A hash does not say which platform it belongs to:
// a zh: is attributed through the archive names of the signed SHA256SUMS, an h1: through what the
// cache learned (this run's packages, earlier runs, the registry's `packages`).
import { tmpdir } from 'node:os';
import { isBuiltInProvider, parseProviderSource, ProviderAddress } from '../addresses';
import type { Engine } from '../engine';
import { untilAborted } from '../modulepkg/budget';
import { parseSha256Sums } from '../providerpkg/signature';
import { lockHashCacheFor, PlatformHashes } from './cache';
import { HashGatherer } from './gather';
import { coverageKey, PlatformCoverage } from './status';

/** The platforms of a SHA256SUMS document's archives (`…_OS_ARCH.zip`), sorted. */
export function sumsPlatforms(document: string): string[] {
  const out = new Set<string>();
  for (const name of parseSha256Sums(document).keys()) {
    const m = /_([a-z0-9]+_[a-z0-9]+)\.zip$/.exec(name);
    if (m) out.add(m[1]);
  }
  return [...out].sort();
}

/** The platforms whose zh: (per SHA256SUMS archive names) is among `hashes`. */
export function zhPlatforms(document: string, hashes: readonly string[]): string[] {
  const have = new Set(hashes);
  const out = new Set<string>();
  for (const [name, sha] of parseSha256Sums(document)) {
    const m = /_([a-z0-9]+_[a-z0-9]+)\.zip$/.exec(name);
    if (m && have.has(`zh:${sha}`)) out.add(m[1]);
  }
  return [...out].sort();
}

interface KnownHashes {
  sums(addr: ProviderAddress, version: string): Promise<{ document: string } | undefined>;
  known(addr: ProviderAddress, version: string, platforms: Iterable<string>): Promise<Map<string, PlatformHashes>>;
}

/**
 * For each hash set, the platforms whose h1: it contains, among those this run computed (`known`)
 * and those the cache knows for the version (every platform of its SHA256SUMS).
 */
export async function coveredPlatforms(source: KnownHashes, addr: ProviderAddress, version: string,
  known: ReadonlyMap<string, PlatformHashes>, hashSets: ReadonlyArray<readonly string[]>): Promise<string[][]> {
  const sums = await source.sums(addr, version);
  const candidates = sums ? sumsPlatforms(sums.document).filter((p) => !known.has(p)) : [];
  const all = new Map([...known, ...await source.known(addr, version, candidates)]);
  return hashSets.map((hashes) => {
    const have = new Set(hashes);
    return [...all].filter(([, h]) => h.h1.some((x) => have.has(x))).map(([p]) => p).sort();
  });
}

const ASK_AGAIN_MS = 30 * 60 * 1000;
const askedByEngine = new WeakMap<object, Map<string, { at: number; done: Promise<void> }>>();
function askedAt(engine: object): Map<string, { at: number; done: Promise<void> }> {
  let m = askedByEngine.get(engine);
  if (!m) askedByEngine.set(engine, (m = new Map()));
  return m;
}

export interface ProviderCoverage extends PlatformCoverage {
  /** Every platform whose h1: the hashes carry (as far as anyone can tell). */
  h1Platforms: string[];
  /** Platforms whose zh: the hashes carry (SHA256SUMS archive names). */
  zhPlatforms: string[];
  /** All platforms the version is published for (from SHA256SUMS), when known. */
  published: string[];
}

/**
 * What the hashes of locked providers cover, for the team's platforms: from the cache, and — when
 * `network` — from one download answer per version (its `packages`, and the signed SHA256SUMS).
 * Nothing is downloaded. Keyed by coverageKey(address, version).
 */
export async function platformCoverage(engine: Engine, entries: ReadonlyArray<{ address: string; version: string | null; hashes: readonly string[] }>,
  platforms: readonly string[], opts: { network: boolean; signal?: AbortSignal }): Promise<Map<string, ProviderCoverage>> {
  const gatherer = new HashGatherer({
    engine, source: { kind: 'registry' }, cache: lockHashCacheFor(engine), concurrency: 4, tempDir: tmpdir(), maxArchiveBytes: 0, signal: opts.signal,
  });
  const out = new Map<string, ProviderCoverage>();
  await Promise.all(entries.map(async (e) => {
    if (!e.version) return;
    let addr: ProviderAddress;
    try { addr = parseProviderSource(e.address); } catch { return; }
    if (isBuiltInProvider(addr)) return;
    const version = e.version;
    const lookup = async () => {
      const sums = await gatherer.sums(addr, version);
      const published = sums ? sumsPlatforms(sums.document) : [];
      return { sums, published, known: await gatherer.known(addr, version, [...platforms, ...published]) };
    };
    let found = await lookup();
    if (opts.network && (!found.sums || platforms.some((p) => !found.known.has(p)))) {
      // One download answer per version and half hour, shared by concurrent callers: without
      // `packages` a second one tells nothing new.
      const asked = askedAt(engine);
      const key = coverageKey(e.address, version);
      let prev = asked.get(key);
      if (!prev || Date.now() - prev.at > ASK_AGAIN_MS) {
        const entry: { at: number; done: Promise<void> } = { at: Date.now(), done: Promise.resolve() };
        entry.done = gatherer.learn(addr, version, platforms[0] ?? 'linux_amd64').catch((err: Error) => { // then: what the cache knows
          // a cancelled caller (its requests aborted) learned nothing: the next one asks again
          if (opts.signal?.aborted) { if (asked.get(key) === entry) asked.delete(key); return; }
          engine.options.log?.({ level: 'info', message: `platform coverage of ${addr.address} ${version}: ${err.message}` });
        });
        asked.set(key, prev = entry);
      }
      await untilAborted(prev.done, opts.signal);
      found = await lookup();
    }
    const have = new Set(e.hashes);
    const h1Platforms = [...found.known].filter(([, h]) => h.h1.some((x) => have.has(x))).map(([p]) => p).sort();
    out.set(coverageKey(e.address, version), {
      covered: platforms.filter((p) => h1Platforms.includes(p)),
      missing: platforms.filter((p) => found.known.has(p) && !h1Platforms.includes(p)),
      unknown: platforms.filter((p) => !found.known.has(p)),
      h1Platforms, zhPlatforms: found.sums ? zhPlatforms(found.sums.document, e.hashes) : [], published: found.published,
    });
  }));
  return out;
}
