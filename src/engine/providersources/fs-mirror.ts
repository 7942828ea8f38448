// A package in a filesystem mirror (`--fs-mirror DIR`), found the way tofu's filesystem source
// finds it (internal/getproviders/filesystem_search.go): packed
// HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip, or unpacked
// HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/. Directory names compare as OpenTofu normalises them. The
// lock records the package's h1: as installed (the unpacked directory), like `tofu providers lock
// -fs-mirror`: a filesystem mirror vouches for nothing else.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProviderAddress } from '../addresses';
import { h1OfDirectory, h1OfUnpackedZip } from '../providerpkg/hash';
import { filesystemMirrorTypeDirs, MAX_FS_MIRROR_ENTRIES } from '../registry/installation';
import { parseVersion } from '../versions';

export interface FsMirrorPackage {
  path: string;
  /** Archive size (0 for an unpacked directory). */
  size: number;
  h1(signal?: AbortSignal): Promise<string>;
}

export async function findFsMirrorPackage(base: string, addr: ProviderAddress, version: string, platform: string): Promise<FsMirrorPackage | undefined> {
  const want = parseVersion(version, 'provider');
  if (typeof want === 'string') return undefined;
  const sameVersion = (v: string) => {
    const p = parseVersion(v, 'provider');
    return typeof p !== 'string' && p.canonical === want.canonical && p.build === want.build;
  };
  for (const typeDir of await filesystemMirrorTypeDirs(base, addr)) {
    for (const name of await list(typeDir)) {
      const full = join(typeDir, name);
      const lower = name.toLowerCase();
      const prefix = `terraform-provider-${addr.type}_`;
      if (lower.startsWith(prefix) && lower.endsWith(`_${platform}.zip`)) {
        const v = name.slice(prefix.length, -`_${platform}.zip`.length);
        const st = await stat(full).catch(() => undefined);
        if (st?.isFile() && sameVersion(v)) return { path: full, size: st.size, h1: (signal) => h1OfUnpackedZip(full, signal) };
      } else if (sameVersion(name)) {
        const dir = join(full, platform);
        if ((await stat(dir).catch(() => undefined))?.isDirectory()) return { path: dir, size: 0, h1: (signal) => h1OfDirectory(dir, signal) };
      }
    }
  }
  return undefined;
}

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort().slice(0, MAX_FS_MIRROR_ENTRIES);
  } catch {
    return [];
  }
}
