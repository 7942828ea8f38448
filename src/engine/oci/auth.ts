// The two challenges an OCI registry answers a 401 with (distribution spec, "Token Authentication
// Specification" of CNCF Distribution; OpenTofu through ORAS does the same):
//   Basic realm="…"                                  → username and password on every request;
//   Bearer realm="https://auth/token",service="…",scope="repository:a/b:pull"
//     → a token from the realm: GET with Basic credentials (or none: anonymous), or, with a
//       refresh (identity) token, the OAuth2 POST grant_type=refresh_token; an access token
//       configured as such is sent as is. Tokens are cached per registry and scope set until they
//       expire (expires_in, default 60 s as the spec says, less a margin).
// The realm may be on another host (Docker Hub's is auth.docker.io; OpenTofu, ORAS and Docker send
// it the registry's credentials too): it gets them only over HTTPS, and a realm that redirects is
// not followed — credentials are never sent after a redirect. Every value sent, and every token
// received, is remembered so that no output or log shows it (net/shown-text.ts).
import { Dispatcher, request } from 'undici';
import { RegistryError } from '../net/errors';
import { shortText, shownUrl, translateError } from '../net/http-errors';
import { parseJsonBounded } from '../net/json-depth';
import { rememberSentSecret } from '../net/shown-text';
import type { OciCredential } from './credentials';

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses a WWW-Authenticate header (one challenge; the first when several are given). */
export function parseChallenge(header: string | undefined): Challenge | undefined {
  if (!header) return undefined;
  const m = /^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(.*)$/s.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?\s*/gy;
  for (let p = re.exec(m[2]); p; p = re.lastIndex < m[2].length ? re.exec(m[2]) : null) {
    params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  }
  return { scheme: m[1].toLowerCase(), params };
}

/** Scope strings merged the way a token server reads them: one per repository, actions joined. */
export function mergeScopes(scopes: string[]): string[] {
  const byResource = new Map<string, Set<string>>();
  for (const s of scopes) {
    for (const one of s.split(' ')) {
      const cut = one.lastIndexOf(':');
      if (cut <= 0) continue;
      const resource = one.slice(0, cut);
      const actions = byResource.get(resource) ?? new Set<string>();
      for (const a of one.slice(cut + 1).split(',')) if (a) actions.add(a);
      byResource.set(resource, actions);
    }
  }
  return [...byResource].map(([r, a]) => `${r}:${[...a].sort().join(',')}`).sort();
}

export interface TokenRequest {
  realm: string;
  service?: string;
  scopes: string[];
  credential?: OciCredential;
  /** Where the credential came from (for messages). */
  source?: string;
  dispatcher: Dispatcher;
  userAgent: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** What is being asked for, for messages: "registry/repository". */
  what: string;
}

const MAX_TOKEN_RESPONSE = 1024 * 1024;

/** Asks the realm for a token; returns it with its lifetime in ms. */
export async function fetchToken(t: TokenRequest): Promise<{ token: string; lifetimeMs: number }> {
  const c = t.credential;
  if (c?.accessToken) { rememberSentSecret(c.accessToken); return { token: c.accessToken, lifetimeMs: 60_000 }; }
  let realm: URL;
  try { realm = new URL(t.realm); } catch {
    throw new RegistryError('protocol', `the registry for ${t.what} named an invalid token realm ${JSON.stringify(shortText(t.realm, 200))}`);
  }
  if (realm.protocol !== 'https:') {
    throw new RegistryError('protocol', `refusing the token realm ${shownUrl(realm.href)} for ${t.what}: not HTTPS`, { host: realm.host, url: shownUrl(realm.href) });
  }
  const headers: Record<string, string> = { 'user-agent': t.userAgent, accept: 'application/json' };
  let method: 'GET' | 'POST' = 'GET';
  let body: string | undefined;
  if (c?.refreshToken) {
    rememberSentSecret(c.refreshToken);
    method = 'POST';
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: 'tofu-registry' });
    if (t.service) form.set('service', t.service);
    if (t.scopes.length) form.set('scope', t.scopes.join(' '));
    body = form.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else {
    if (t.service) realm.searchParams.set('service', t.service);
    for (const s of t.scopes) realm.searchParams.append('scope', s);
    if (c?.username !== undefined && c.password !== undefined) {
      const blob = Buffer.from(`${c.username}:${c.password}`).toString('base64');
      for (const secret of [c.password, `${c.username}:${c.password}`, blob]) rememberSentSecret(secret);
      headers.authorization = `Basic ${blob}`;
    }
  }
  const shown = shownUrl(realm.href);
  const deadline = AbortSignal.timeout(t.timeoutMs);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(realm, {
      method, headers, body, dispatcher: t.dispatcher, headersTimeout: t.timeoutMs, bodyTimeout: t.timeoutMs,
      signal: t.signal ? AbortSignal.any([t.signal, deadline]) : deadline,
    });
  } catch (err) {
    throw translateError(err, realm.href, t.timeoutMs);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_TOKEN_RESPONSE) throw new RegistryError('too-large', `the token server ${shown} sent more than 1 MiB`, { host: realm.host, url: shown });
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    res.body.destroy();
    throw translateError(err, realm.href, t.timeoutMs);
  }
  const init = { host: realm.host, url: shown, status: res.statusCode };
  if (res.statusCode === 401 || res.statusCode === 403) {
    const how = c ? `the credentials from ${t.source ?? 'the configuration'}` : 'an anonymous request (no credentials were found)';
    throw new RegistryError(res.statusCode === 401 ? 'unauthorized' : 'forbidden',
      `the token server ${shown} refused ${how} for ${t.what} (${res.statusCode})`, init);
  }
  if (res.statusCode >= 300 && res.statusCode < 400) {
    throw new RegistryError('protocol', `the token server ${shown} redirected (${res.statusCode}) the request for ${t.what}: not followed, credentials are never sent after a redirect`, init);
  }
  if (res.statusCode < 200 || res.statusCode > 299) {
    throw new RegistryError(res.statusCode >= 500 ? 'server-error' : 'http-error', `the token server ${shown} answered ${res.statusCode} for ${t.what}`, init);
  }
  let doc: Record<string, unknown>;
  try { doc = parseJsonBounded(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>; } catch {
    throw new RegistryError('protocol', `the token server ${shown} sent invalid JSON for ${t.what}`, init);
  }
  const token = typeof doc?.token === 'string' && doc.token ? doc.token : typeof doc?.access_token === 'string' ? doc.access_token : '';
  if (!token || /[\r\n]/.test(token)) throw new RegistryError('protocol', `the token server ${shown} sent no token for ${t.what}`, init);
  rememberSentSecret(token); // sent with every request from now on
  const expires = typeof doc.expires_in === 'number' && doc.expires_in > 0 ? doc.expires_in : 60;
  return { token, lifetimeMs: Math.min(expires, 24 * 3600) * 1000 };
}

/** A cache of bearer tokens per registry and scope set; entries stop 10 s (or a tenth) before they expire. */
export class TokenCache {
  private readonly tokens = new Map<string, { token: string; expires: number }>();

  get(key: string): string | undefined {
    const t = this.tokens.get(key);
    if (!t) return undefined;
    if (t.expires <= Date.now()) { this.tokens.delete(key); return undefined; }
    return t.token;
  }

  set(key: string, token: string, lifetimeMs: number): void {
    const margin = Math.min(10_000, lifetimeMs / 10);
    this.tokens.set(key, { token, expires: Date.now() + lifetimeMs - margin });
    if (this.tokens.size > 1000) this.tokens.delete(this.tokens.keys().next().value!);
  }

  delete(key: string): void {
    this.tokens.delete(key);
  }
}
