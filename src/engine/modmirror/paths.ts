// The module site's layout, every segment validated before it touches the disk:
//   OUT/modules/HOST/NS/NAME/SYSTEM/versions            {"modules":[{"versions":[{"version":"V"},…]}]}
//   OUT/modules/HOST/NS/NAME/SYSTEM/V/download          {"location":"../V.tar.gz[//subdir]"}
//   OUT/modules/HOST/NS/NAME/SYSTEM/V.tar.gz            the package, repacked deterministically
// OUT/modules/HOST/ is a modules.v1 base URL: tofu asks for NS/NAME/SYSTEM/versions and
// NS/NAME/SYSTEM/V/download below it and resolves the relative location against the latter.
import { join } from 'node:path';
import { hostnameToASCII } from '../addresses';
import type { ModuleAddress } from '../addresses/module-source';
import { insideRoot, safeHostname, UnsafePathError } from '../fstree/safe-paths';

export const MODULES_DIR = 'modules';

// Names as OpenTofu's registry-address accepts them (case kept: registries may match case-sensitively).
const NAME_RE = /^[0-9A-Za-z](?:[0-9A-Za-z_-]{0,62}[0-9A-Za-z])?$/;
const SYSTEM_RE = /^[0-9a-z]{1,64}$/;
// A canonical module version (go-version's String()): numeric parts, prerelease, build metadata.
const VERSION_RE = /^[0-9]{1,20}(?:\.[0-9]{1,20})*(?:-[0-9A-Za-z~-]+(?:\.[0-9A-Za-z~-]+)*)?(?:\+[0-9A-Za-z~-]+(?:\.[0-9A-Za-z~-]+)*)?$/;

export interface VersionPaths {
  /** OUT/modules/HOST/NS/NAME/SYSTEM */
  moduleDir: string;
  /** …/versions */
  versionsFile: string;
  /** …/V (holds `download`) */
  versionDir: string;
  /** …/V/download */
  downloadFile: string;
  /** …/V.tar.gz */
  archive: string;
  /** `V.tar.gz` */
  archiveName: string;
  /** The archive relative to OUT, with forward slashes (what the report calls `archive`). */
  archiveInOut: string;
}

/** `HOST/NS/NAME/SYSTEM` with the hostname in its ASCII form (the directory name). */
export function siteModuleName(a: ModuleAddress): string {
  return `${hostnameToASCII(a.host)}/${a.namespace}/${a.name}/${a.system}`;
}

export function safeModuleVersion(version: string): string {
  if (!VERSION_RE.test(version)) throw new UnsafePathError('version', version);
  return version;
}

/** The files of one module version in the site under `out` (throws UnsafePathError). */
export function versionPaths(out: string, a: ModuleAddress, version: string): VersionPaths {
  const host = safeHostname(hostnameToASCII(a.host));
  for (const [what, value] of [['namespace', a.namespace], ['name', a.name]] as const) {
    if (!NAME_RE.test(value)) throw new UnsafePathError(what, value);
  }
  if (!SYSTEM_RE.test(a.system)) throw new UnsafePathError('system', a.system);
  const v = safeModuleVersion(version);
  const moduleDir = insideRoot(out, MODULES_DIR, host, a.namespace, a.name, a.system);
  const archiveName = `${v}.tar.gz`;
  const versionDir = insideRoot(moduleDir, v);
  return {
    moduleDir, versionDir, archiveName,
    versionsFile: join(moduleDir, 'versions'),
    downloadFile: join(versionDir, 'download'),
    archive: insideRoot(moduleDir, archiveName),
    archiveInOut: [MODULES_DIR, host, a.namespace, a.name, a.system, archiveName].join('/'),
  };
}

/** What `download` says: the archive beside the version directory, the origin's `//subdir` kept. */
export function siteLocation(version: string, subdir: string): string {
  return `../${safeModuleVersion(version)}.tar.gz${subdir ? `//${subdir}` : ''}`;
}

/** The subdir of a location this site wrote for `version`, or undefined when it is not one of ours. */
export function subdirOfSiteLocation(location: unknown, version: string): string | undefined {
  const prefix = `../${version}.tar.gz`;
  if (typeof location !== 'string' || !location.startsWith(prefix)) return undefined;
  const rest = location.slice(prefix.length);
  if (rest === '') return '';
  return rest.startsWith('//') && rest.length > 2 ? rest.slice(2) : undefined;
}
