// Provider source addresses: [hostname/]namespace/type, as OpenTofu's tfaddr.ParseProviderSource.
import * as tr46 from 'tr46';
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

const PART_CHARS = /^[a-z0-9_-]+$/;
const TR46 = { checkBidi: true, checkJoiners: true, checkHyphens: false, useSTD3ASCIIRules: false, transitionalProcessing: false };

// registry-address's ParseProviderPart: a DNS-style label (case-folded, Unicode letters allowed)
// that may also contain single underscores, never "--", "__", ".", or a leading/trailing "-"/"_".
function part(given: string, what: string): string {
  const bad = (why: string) => new RegistryError('invalid-address', `invalid provider ${what} ${JSON.stringify(given)}: ${why}`);
  if (given === '') throw bad('must have at least one character');
  if (given.includes('.')) throw bad('dots are not allowed');
  if (given.includes('--')) throw bad('cannot use multiple consecutive dashes');
  if (given.includes('__')) throw bad('cannot use multiple consecutive underscores');
  if (given.startsWith('_') || given.endsWith('_')) throw bad('underscores may not be used as a prefix or suffix');
  const lettersOnly = 'must contain only letters, digits, dashes, and underscores, and may not use leading or trailing dashes or underscores';
  if (given.startsWith('-') || given.endsWith('-')) throw bad(lettersOnly);
  let p = given.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(given)) {
    const r = tr46.toUnicode(given, TR46);
    if (r.error) throw bad(lettersOnly);
    p = r.domain;
  }
  for (const ch of p) if (ch <= '\x7f' && !PART_CHARS.test(ch)) throw bad(lettersOnly);
  return p;
}

function checkTypePrefix(type: string, suggest: (t: string) => string): void {
  for (const [redundant, userError, what] of [['terraform-', 'terraform-provider-', 'Terraform'], ['opentofu-', 'opentofu-provider-', 'OpenTofu']]) {
    if (!type.startsWith(redundant)) continue;
    const rest = type.slice(userError.length);
    if (type.startsWith(userError) && rest !== '') {
      let ok = true;
      try { part(rest, 'type'); } catch { ok = false; }
      if (ok) throw new RegistryError('invalid-address', `invalid provider type ${JSON.stringify(type)}: must not have the "${userError}" prefix; did you mean ${JSON.stringify(suggest(rest))}?`);
    }
    throw new RegistryError('invalid-address', `invalid provider type ${JSON.stringify(type)}: the "${redundant}" prefix is redundant for ${what === 'Terraform' ? 'a Terraform' : 'an OpenTofu'} provider and isn't allowed`);
  }
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
  const type = part(parts[parts.length - 1], 'type');
  let namespace = 'hashicorp';
  if (parts.length === 2) {
    if (parts[0] === '-') {
      // the legacy namespace is tolerated, but only on the default registry host
      if (host !== DEFAULT_REGISTRY_HOST) {
        throw new RegistryError('invalid-address', `invalid provider source ${JSON.stringify(src)}: the legacy provider namespace "-" can be used only with hostname ${DEFAULT_REGISTRY_HOST}`);
      }
      namespace = '-';
    } else {
      namespace = part(parts[0], 'namespace');
    }
  }
  checkTypePrefix(type, (t) => (host === DEFAULT_REGISTRY_HOST ? `${namespace}/${t}` : `${host}/${namespace}/${t}`));
  const address = `${host}/${namespace}/${type}`;
  return { host, namespace, type, address, display: host === DEFAULT_REGISTRY_HOST ? `${namespace}/${type}` : address };
}

/** OpenTofu's pseudo-host and namespace for providers built into the tofu binary (addrs.BuiltInProviderHost/Namespace). */
export const BUILTIN_PROVIDER_HOST = 'terraform.io';
export const BUILTIN_PROVIDER_NAMESPACE = 'builtin';

/**
 * True for a built-in provider ("terraform.io/builtin/TYPE", e.g. terraform.io/builtin/terraform,
 * the provider of the terraform_remote_state data source), as OpenTofu's Provider.IsBuiltIn: it is
 * part of OpenTofu and never installed from a registry or mirror. A string is parsed first
 * (an invalid address is not built in).
 */
export function isBuiltInProvider(addr: ProviderAddress | string): boolean {
  let p: ProviderAddress;
  try {
    p = typeof addr === 'string' ? parseProviderSource(addr) : addr;
  } catch {
    return false;
  }
  return p.host === BUILTIN_PROVIDER_HOST && p.namespace === BUILTIN_PROVIDER_NAMESPACE;
}

/**
 * The provider a required_providers entry without `source` (or an implied provider) means, as
 * OpenTofu's ImpliedProviderForUnqualifiedType: "terraform" is the built-in
 * terraform.io/builtin/terraform, every other name hashicorp/NAME on the default registry.
 * Throws RegistryError('invalid-address') for an invalid name.
 */
export function impliedProvider(localName: string): ProviderAddress {
  const type = part(localName.trim(), 'type');
  if (type === 'terraform') {
    const address = `${BUILTIN_PROVIDER_HOST}/${BUILTIN_PROVIDER_NAMESPACE}/${type}`;
    return { host: BUILTIN_PROVIDER_HOST, namespace: BUILTIN_PROVIDER_NAMESPACE, type, address, display: address };
  }
  return parseProviderSource(type);
}

/** The error for asking a registry about a built-in provider (CLI, engine guards). */
export function builtInProviderError(addr: ProviderAddress): RegistryError {
  return new RegistryError('invalid-address',
    `provider ${addr.address} is built into OpenTofu: it is never installed from a registry, so there are no versions to list or packages to download`,
    { host: addr.host });
}
