// Every path segment that comes from the network (hostname, namespace, type, version, platform,
// filename) is checked here before it touches the file system: nothing may escape OUT.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isPlatform } from '../providerpkg/platform';

export class UnsafePathError extends Error {
  constructor(what: string, value: string) {
    super(`refusing unsafe ${what} ${JSON.stringify(value)} from the network`);
    this.name = 'UnsafePathError';
  }
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST_RE = new RegExp(`^${LABEL}(?:\\.${LABEL})*(?::[0-9]{1,5})?$`);
const NAME_RE = /^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$/;
const SEMVER_RE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const FILENAME_RE = /^[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,200}$/;

/**
 * A normalized hostname, optionally with :port (e.g. `registry.opentofu.org`, `127.0.0.1:8443`): ASCII
 * only (callers pass hostnameToASCII's punycode form, which is also what `tofu providers mirror` writes).
 */
export function safeHostname(host: string): string {
  const port = host.includes(':') ? Number(host.slice(host.indexOf(':') + 1)) : undefined;
  // "c:1" is a host with a port, but on Windows a drive-relative path: refused everywhere.
  if (!HOST_RE.test(host) || /^[a-z]:/.test(host) || (port !== undefined && !(port >= 1 && port <= 65535))) {
    throw new UnsafePathError('hostname', host);
  }
  return host;
}

/** A provider namespace or type (already lowercased by address normalisation). */
export function safeName(what: 'namespace' | 'type', value: string): string {
  if (!NAME_RE.test(value)) throw new UnsafePathError(what, value);
  return value;
}

/** A semantic version as the registry reports it (`1.2.3`, `1.2.3-beta.1`). */
export function safeVersion(version: string): string {
  if (!SEMVER_RE.test(version)) throw new UnsafePathError('version', version);
  return version;
}

export function safePlatform(platform: string): string {
  if (!isPlatform(platform)) throw new UnsafePathError('platform', platform);
  return platform;
}

/** A plain file name (no directory part, no leading dot), e.g. the registry's `filename`. */
export function safeFilename(name: string): string {
  if (!FILENAME_RE.test(name) || name.includes('..')) throw new UnsafePathError('filename', name);
  return name;
}

/** Joins validated segments under `root` and checks the result is still inside it. */
export function insideRoot(root: string, ...segments: string[]): string {
  const base = resolve(root);
  const full = resolve(base, ...segments);
  const rel = relative(base, full);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new UnsafePathError('path', segments.join('/'));
  }
  return full;
}

/** The archive name `tofu providers mirror` writes: terraform-provider-TYPE_V_OS_ARCH.zip */
export function archiveFilename(type: string, version: string, platform: string): string {
  return safeFilename(`terraform-provider-${safeName('type', type)}_${safeVersion(version)}_${safePlatform(platform)}.zip`);
}

/**
 * The file names versions take in their directories of OUT, compared as macOS and Windows file
 * systems compare them (ignoring case: "1.0.0-RC1" and "1.0.0-rc1" are one file there), so that a
 * version whose names collide with another version's — also on Linux, e.g. a module version
 * "1.0.0-x.tar.gz" whose directory is version "1.0.0-x"'s archive — is refused instead of
 * overwriting it or failing half-way.
 */
export class FileNameClaims {
  private readonly owners = new Map<string, string>();
  /** Per directory: the names of the versions OUT already lists there, claimed once before any of this run's. */
  private readonly seeded = new Map<string, Promise<void>>();

  /**
   * Claims `names` in `dir` for `version`, after the names of the versions OUT already lists there
   * (`listed`, asked once per directory: [version, its names] pairs): undefined, or the version
   * that has one of them.
   */
  async claim(dir: string, version: string, names: string[], listed: () => Promise<Array<[string, string[]]>>): Promise<string | undefined> {
    let seed = this.seeded.get(dir);
    if (!seed) {
      seed = listed().then((versions) => { for (const [v, n] of versions) this.take(dir, v, n); });
      this.seeded.set(dir, seed);
    }
    await seed;
    return this.take(dir, version, names);
  }

  private take(dir: string, version: string, names: string[]): string | undefined {
    const keys = names.map((n) => `${dir}\0${n.toLowerCase()}`);
    for (const k of keys) {
      const owner = this.owners.get(k);
      if (owner !== undefined && owner !== version) return owner;
    }
    for (const k of keys) this.owners.set(k, version);
    return undefined;
  }
}

/** What a refused version's message says about a collision. */
export function collisionText(names: string[], other: string): string {
  return `its file names in the output directory (${names.join(', ')}) collide with those of version ${other} (compared ignoring case, as macOS and Windows do); refusing it rather than overwriting that version`;
}
