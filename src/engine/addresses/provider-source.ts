// Provider source addresses: [hostname/]namespace/type, as OpenTofu's tfaddr.ParseProviderSource.
import { RegistryError } from '../net/errors';
import { DEFAULT_REGISTRY_HOST, tryNormalizeHostname } from './hostname';

export interface ProviderAddress {
  host: string;
  namespace: string;
  type: string;
  /** Always "host/namespace/type" (the lock-file form). */
  address: string;
  /** "namespace/type" on the default host, else the full address. */
  display: string;
}

const PART_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

function part(given: string, what: string): string {
  const p = given.toLowerCase();
  if (!PART_RE.test(p) || p.includes('--')) {
    throw new RegistryError('invalid-address',
      `invalid provider ${what} ${JSON.stringify(given)}: must contain only letters, digits and dashes, and may not use leading or trailing dashes`);
  }
  return p;
}

/** Throws RegistryError('invalid-address'). A bare type gets namespace "hashicorp". */
export function parseProviderSource(src: string): ProviderAddress {
  const parts = src.trim().split('/');
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === '')) {
    throw new RegistryError('invalid-address',
      `invalid provider source ${JSON.stringify(src)}: must be [hostname/]namespace/type`);
  }
  let host = DEFAULT_REGISTRY_HOST;
  if (parts.length === 3) {
    const h = tryNormalizeHostname(parts[0]);
    if (typeof h !== 'string') throw new RegistryError('invalid-address', `invalid provider source ${JSON.stringify(src)}: ${h.error}`);
    host = h;
    parts.shift();
  }
  const namespace = parts.length === 2 ? part(parts[0], 'namespace') : 'hashicorp';
  const type = part(parts[parts.length - 1], 'type');
  if (type.startsWith('terraform-provider-')) {
    throw new RegistryError('invalid-address',
      `invalid provider type ${JSON.stringify(type)}: must not have the "terraform-provider-" prefix; did you mean ${JSON.stringify(type.slice(19))}?`);
  }
  const address = `${host}/${namespace}/${type}`;
  return { host, namespace, type, address, display: host === DEFAULT_REGISTRY_HOST ? `${namespace}/${type}` : address };
}
