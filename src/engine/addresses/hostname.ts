// Registry hostnames as OpenTofu's svchost treats them: Unicode form, compared after UTS-46
// mapping (case folding etc.), punycode input accepted, optional ":port" (":443" dropped).
import * as tr46 from 'tr46';
import { RegistryError } from '../net/errors';

export const DEFAULT_REGISTRY_HOST = 'registry.opentofu.org';

const OPTS = { checkBidi: true, checkJoiners: true, checkHyphens: false, useSTD3ASCIIRules: true, transitionalProcessing: false };
const cache = new Map<string, string>();

// Plain ASCII letter-digit-hyphen labels (not punycode) map to their lowercase form under UTS-46,
// so the common case never loads tr46's large mapping table (it is bundled to load on first use).
const PLAIN_ASCII_HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;
const isPlainAscii = (host: string) => PLAIN_ASCII_HOST.test(host) && !/(?:^|\.)xn--/i.test(host);

/** Normalised Unicode form "host[:port]"; throws RegistryError('invalid-address') when invalid. */
export function normalizeHostname(given: string): string {
  const hit = cache.get(given);
  if (hit !== undefined) return hit;
  const r = tryNormalizeHostname(given);
  if (typeof r !== 'string' || r === '') throw new RegistryError('invalid-address', (r as { error: string }).error);
  if (cache.size > 1000) cache.clear();
  cache.set(given, r);
  return r;
}

/** Like normalizeHostname but returns {error} instead of throwing. */
export function tryNormalizeHostname(given: string): string | { error: string } {
  const bad = (why: string) => ({ error: `invalid hostname ${JSON.stringify(given)}: ${why}` });
  let host = given.trim();
  if (host === '') return bad('empty');
  let port = '';
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return bad('unclosed "["');
    const rest = host.slice(end + 1);
    if (rest && !/^:[0-9]+$/.test(rest)) return bad('port must be a decimal number');
    port = rest.slice(1);
    host = host.slice(0, end + 1).toLowerCase();
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      port = host.slice(colon + 1);
      host = host.slice(0, colon);
      if (!/^[0-9]+$/.test(port)) return bad('port must be a decimal number');
    }
    if (/[/\\?#@\s]/.test(host)) return bad('contains characters not allowed in a hostname');
    // svchost validates labels (IDNA CheckHyphens): none may begin or end with "-"
    if (host.split('.').some((l) => l.startsWith('-') || l.endsWith('-'))) return bad('a label may not begin or end with "-"');
    if (isPlainAscii(host)) {
      host = host.toLowerCase();
    } else {
      const ascii = tr46.toASCII(host, { ...OPTS, verifyDNSLength: false });
      if (ascii === null || ascii === '') return bad('not a valid internationalized domain name');
      const uni = tr46.toUnicode(ascii, OPTS);
      if (uni.error) return bad('not a valid internationalized domain name');
      host = uni.domain;
    }
  }
  if (port !== '') {
    const n = Number(port);
    if (n < 1 || n > 65535) return bad('port out of range');
    if (n !== 443) host += `:${n}`;
  }
  return host;
}

/** ASCII (punycode) form for DNS/URLs: "xn--bcher-kva.example:8443". */
export function hostnameToASCII(normalized: string): string {
  if (normalized.startsWith('[')) return normalized;
  const colon = normalized.lastIndexOf(':');
  const host = colon >= 0 ? normalized.slice(0, colon) : normalized;
  const port = colon >= 0 ? normalized.slice(colon) : '';
  if (isPlainAscii(host)) return host + port;
  return (tr46.toASCII(host, { ...OPTS, verifyDNSLength: false }) ?? host) + port;
}

/** Same host (including port) after normalisation. */
export function sameHost(a: string, b: string): boolean {
  const na = tryNormalizeHostname(a);
  const nb = tryNormalizeHostname(b);
  return typeof na === 'string' && typeof nb === 'string' && na === nb;
}
