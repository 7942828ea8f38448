// What a lock file must record for built test releases, computed from the packages themselves
// (not by the lock engine's orchestration): each locked platform's h1: (the package as `tofu init`
// unpacks it) and every zh: of the release's SHA256SUMS, sorted as OpenTofu writes them.
import { normalizeHashes } from '../../src/engine/lockfile/render';
import { h1OfUnpackedZip } from '../../src/engine/providerpkg/hash';
import type { BuiltRelease } from './provider-packages';

export async function expectedHashes(rel: BuiltRelease, platforms: string[]): Promise<string[]> {
  const h1 = await Promise.all(rel.packages.filter((p) => platforms.includes(p.platform)).map((p) => h1OfUnpackedZip(p.path)));
  return normalizeHashes([...h1, ...rel.packages.map((p) => `zh:${p.sha256}`)]);
}
