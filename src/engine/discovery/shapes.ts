// Shape checks for the values the engine keeps on disk (CachedLookup's `validate`): a cache file
// that is valid JSON but not what this version writes (hand-edited, written by an older version)
// is ignored and removed instead of failing later with a TypeError.

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const hasStrings = (o: Obj, ...keys: string[]) => keys.every((k) => isString(o[k]));

/** Omit<DiscoveryResult, 'cached'>: host, discoveryUrl, finalUrl, services (id → URL string), objectServices?. */
export function isDiscoveryValue(v: unknown): boolean {
  return isObject(v) && hasStrings(v, 'host', 'discoveryUrl', 'finalUrl')
    && isObject(v.services) && Object.values(v.services).every(isString)
    && (v.objectServices === undefined || isObject(v.objectServices))
    && (v.source === undefined || v.source === 'cli-config');
}

/** A module version list (without `cached`). */
export function isModuleVersionList(v: unknown): boolean {
  return isObject(v) && hasStrings(v, 'address', 'host', 'url') && isStringArray(v.versions) && isStringArray(v.invalid);
}

/** A module version's download location (DownloadLocation). */
export function isDownloadLocation(v: unknown): boolean {
  return isObject(v) && hasStrings(v, 'address', 'version', 'downloadUrl', 'location');
}

const isPlatform = (p: unknown) => isObject(p) && hasStrings(p, 'os', 'arch');
const isProviderVersion = (p: unknown) => isObject(p) && isString(p.version)
  && isStringArray(p.protocols) && Array.isArray(p.platforms) && p.platforms.every(isPlatform);
const isSource = (s: unknown) => isObject(s) && hasStrings(s, 'method', 'location');

/** A provider version list (without `cached`), with the optional `sources` of provider_installation. */
export function isProviderVersionList(v: unknown): boolean {
  return isObject(v) && hasStrings(v, 'address', 'host', 'url') && isStringArray(v.invalid)
    && Array.isArray(v.versions) && v.versions.every(isProviderVersion)
    && (v.sources === undefined || (Array.isArray(v.sources) && v.sources.every(isSource)))
    && (v.warnings === undefined || isStringArray(v.warnings));
}
