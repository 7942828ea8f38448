// Which platforms a lock entry's hashes cover. A hash does not say which platform it belongs to:
// a zh: is attributed through the archive names of the signed SHA256SUMS, an h1: through what the
// cache learned (this run's packages, earlier runs, the registry's `packages`).
import type { ProviderAddress } from '../addresses';
import { parseSha256Sums } from '../mirror/signature';
import type { PlatformHashes } from './cache';

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
