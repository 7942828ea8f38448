// Provider matching patterns of provider_installation include/exclude, with OpenTofu's rules
// (internal/getproviders/multi_source.go ParseMultiSourceMatchingPatterns / CanHandleProvider):
// "[HOST/]NAMESPACE/TYPE", any segment may be "*", but a wildcard host needs wildcard namespace
// and type, and a wildcard namespace needs a wildcard type. No host → registry.opentofu.org.
// Exclusions win over inclusions; no include patterns means "everything".
import { DEFAULT_REGISTRY_HOST, tryNormalizeHostname } from '../addresses/hostname';

export interface ProviderPattern { host: string; namespace: string; type: string }
export interface ProviderRef { host: string; namespace: string; type: string }

export const WILDCARD = '*';
const PART_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

function part(s: string): string | undefined {
  if (s === WILDCARD) return s;
  const p = s.toLowerCase();
  return PART_RE.test(p) && !p.includes('--') ? p : undefined;
}

/** One pattern; throws Error("invalid …") with OpenTofu's wording. */
export function parsePattern(str: string): ProviderPattern {
  let parts = str.split('/');
  if (parts.length < 2 || parts.length > 3) {
    throw new Error(`invalid provider matching pattern ${JSON.stringify(str)}: must have either two or three slash-separated segments`);
  }
  let host = DEFAULT_REGISTRY_HOST;
  if (parts.length === 3) {
    if (parts[0] === WILDCARD) host = WILDCARD;
    else {
      const h = tryNormalizeHostname(parts[0]);
      if (typeof h !== 'string') throw new Error(`invalid hostname in provider matching pattern ${JSON.stringify(str)}: ${h.error}`);
      host = h;
    }
    parts = parts.slice(1);
  }
  const type = part(parts[1]);
  if (type === undefined) throw new Error(`invalid provider type ${JSON.stringify(parts[1])} in provider matching pattern ${JSON.stringify(str)}: must either be the wildcard * or a provider type name`);
  const namespace = part(parts[0]);
  if (namespace === undefined) throw new Error(`invalid registry namespace ${JSON.stringify(parts[0])} in provider matching pattern ${JSON.stringify(str)}: must either be the wildcard * or a literal namespace`);
  if (host === WILDCARD && !(namespace === WILDCARD && type === WILDCARD)) {
    throw new Error(`invalid provider matching pattern ${JSON.stringify(str)}: hostname can be a wildcard only if both namespace and provider type are also wildcards`);
  }
  if (namespace === WILDCARD && type !== WILDCARD) {
    throw new Error(`invalid provider matching pattern ${JSON.stringify(str)}: namespace can be a wildcard only if the provider type is also a wildcard`);
  }
  return { host, namespace, type };
}

export function parsePatterns(strs: string[]): ProviderPattern[] {
  return strs.map(parsePattern);
}

export function matchesAny(patterns: ProviderPattern[], p: ProviderRef): boolean {
  return patterns.some((x) => (x.host === WILDCARD || x.host === p.host)
    && (x.namespace === WILDCARD || x.namespace === p.namespace)
    && (x.type === WILDCARD || x.type === p.type));
}

/** CanHandleProvider: not excluded, and included (no include patterns = all). */
export function canHandle(sel: { include: ProviderPattern[]; exclude: ProviderPattern[] }, p: ProviderRef): boolean {
  if (matchesAny(sel.exclude, p)) return false;
  return sel.include.length ? matchesAny(sel.include, p) : true;
}
