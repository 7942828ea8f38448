// Turns undici/Node failures and HTTP statuses into RegistryErrors with user-facing messages
// that name the host, the URL and what was wrong.
import { RegistryError } from './errors';
import { escapeControls, redactSentSecrets } from './shown-text';

export function hostOf(url: string): string {
  try { return new URL(url).host; } catch { return shownUrl(url); }
}

// Query (and fragment) parameters whose values work as credentials: pre-signed archive URLs (S3's
// X-Amz-Signature / X-Amz-Credential / X-Amz-Security-Token, GCS's X-Goog-Signature, Azure's sig),
// ?token= / ?access_token= / ?private_token=, go-getter's ?sshkey= (a private key), passwords, API
// keys. Matched on the decoded name, generously: hiding a harmless value costs nothing.
const SECRET_PARAM = /token|sig|secret|passw|pwd|credential|auth|key|session|code|^x-amz-|^x-goog-/i;

function decodeName(name: string): string {
  try { return decodeURIComponent(name.replace(/\+/g, ' ')); } catch { return name; }
}

/** `a=1&token=s` → `a=1&token=***` (names and layout kept as written). */
function redactParams(params: string): string {
  return params.split(/([&;])/).map((p) => {
    const eq = p.indexOf('=');
    return eq > 0 && SECRET_PARAM.test(decodeName(p.slice(0, eq))) ? `${p.slice(0, eq)}=***` : p;
  }).join('');
}

/**
 * A URL or go-getter location as it may appear in messages, logs and error objects: user
 * information (`https://user:secret@host/x.zip`, `git::https://TOKEN@github.com/…`) becomes "***"
 * (a bare `git@` ssh user is kept: it is the protocol's fixed user name, not a secret), and the
 * values of secret-looking query and fragment parameters become "***". Everything else is kept as
 * written. Requests never send user information either.
 */
export function shownUrl(url: string): string {
  const forced = /^[A-Za-z0-9]+::/.exec(url)?.[0] ?? '';
  let rest = url.slice(forced.length).replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i,
    (whole, scheme: string, info: string) => (info === 'git' ? whole : `${scheme}***@`));
  const hash = rest.indexOf('#');
  let fragment = '';
  if (hash >= 0) { fragment = '#' + redactParams(rest.slice(hash + 1)); rest = rest.slice(0, hash); }
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q + 1) + redactParams(rest.slice(q + 1));
  return forced + rest + fragment;
}

// A URL in running text (any scheme, optionally behind a go-getter forced getter such as git::),
// up to whitespace, a quote or a closing bracket.
const URL_IN_TEXT = /\b(?:[A-Za-z0-9]+::)?[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`)\]]+/gi;
// A secret parameter anywhere else (scp-like `git@host:repo?sshkey=…`, a URL cut short).
const PARAM_IN_TEXT = /([?&;#])([^\s=&;#?"'<>]+)=([^\s&;#"'<>)\]]*)/g;

/**
 * Every URL and secret-looking parameter in a message, redacted with shownUrl: for text that did
 * not come from us (git's stderr, a helper's message) and as the last step before anything reaches
 * a log, the CLI's output or an error.
 */
export function redactUrls(message: string): string {
  const urls = redactSentSecrets(message).replace(URL_IN_TEXT, (match) => {
    const raw = match.replace(/[.,;:!?]+$/, ''); // sentence punctuation after a URL is not part of it
    return shownUrl(raw) + match.slice(raw.length);
  });
  return urls.replace(PARAM_IN_TEXT, (whole, sep: string, name: string, value: string) => {
    if (!SECRET_PARAM.test(decodeName(name))) return whole;
    const punctuation = /[.,;:!?]*$/.exec(value)![0];
    return `${sep}${name}=***${punctuation}`;
  });
}

/**
 * A message or log line made fit for a person or a log — the one step before it leaves the
 * process: URLs' secrets and every credential value sent in this run as "***" (redactUrls),
 * control characters escaped (`keep` lists those left, e.g. the line breaks of a stack trace).
 * The CLI's printing layer uses shownOutput (shown-text.ts) instead: --show-secrets prints URLs as sent.
 */
export function safeText(text: string, keep = ''): string {
  return escapeControls(redactUrls(text), keep);
}

/** Longest hostile string (a version, a module name, a discovery value, a location) a message quotes whole. */
export const MAX_SHOWN_CHARS = 2000;

/**
 * `text` cut to `max` characters with an ellipsis and how much was left out: a registry may send a
 * megabyte where a name belongs, and a message must stay a line a person can read.
 */
export function shortText(raw: string, max = MAX_SHOWN_CHARS, keepControls = ''): string {
  const text = escapeControls(raw, keepControls); // a value from a server is quoted on one line, as written
  if (text.length <= max) return text;
  const keep = Math.max(1, max - 40);
  return `${text.slice(0, keep)}… (${text.length - keep} more characters)`;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  408: 'Request Timeout', 410: 'Gone', 429: 'Too Many Requests', 500: 'Internal Server Error',
  501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const t = Date.parse(value);
  return Number.isFinite(t) ? Math.max(0, t - now) : undefined;
}

/** An unexpected HTTP status as a RegistryError (404 → 'not-found': callers reword it). */
export function statusError(status: number, rawUrl: string, headers: Record<string, string>, sentAuth = false): RegistryError {
  const url = shownUrl(rawUrl);
  const host = hostOf(url);
  const init = { host, url, status };
  const label = `${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  switch (status) {
    case 401:
      if (sentAuth) return new RegistryError('unauthorized', `${host} rejected the token sent for ${url} (401 Unauthorized)`, init);
      return new RegistryError('unauthorized', `${host} requires authentication (401 Unauthorized) for ${url}; set a token with ${host.includes(':') ? '' : `TF_TOKEN_${tokenEnvName(host)} or `}a credentials "${host}" block in your CLI configuration`, init);
    case 403:
      return new RegistryError('forbidden', sentAuth ? `${host} refused access (403 Forbidden) to ${url}; the token sent lacks permission`
        : `${host} refused access (403 Forbidden) to ${url}; no token was sent, and ${host} may require one`, init);
    case 404:
      return new RegistryError('not-found', `${host} answered 404 Not Found for ${url}`, init);
    case 429: {
      const retryAfterMs = parseRetryAfter(headers['retry-after']);
      const e = new RegistryError('rate-limited', `${host} is rate limiting requests (429 Too Many Requests) for ${url}${retryAfterMs !== undefined ? `; retry after ${Math.ceil(retryAfterMs / 1000)} s` : ''}`, init);
      return Object.assign(e, { retryAfterMs });
    }
    default: {
      const code = status >= 500 ? 'server-error' : 'http-error';
      const e = new RegistryError(code, `${host} answered ${label} for ${url}`, init);
      const retryAfterMs = parseRetryAfter(headers['retry-after']);
      return Object.assign(e, { retryAfterMs });
    }
  }
}

/** The TF_TOKEN_ variable name for a host (dots → "_", dashes → "__"). */
export function tokenEnvName(host: string): string {
  return host.replace(/-/g, '__').replace(/\./g, '_').replace(/:/g, '_');
}

export function translateError(err: unknown, rawUrl: string, timeoutMs: number): RegistryError {
  if (err instanceof RegistryError) return err;
  const url = shownUrl(rawUrl);
  const host = hostOf(url);
  const init = { host, url, cause: err };
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  const name = e?.name ?? '';
  const secs = timeoutMs / 1000;
  if (name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new RegistryError('timeout', `request to ${url} timed out after ${secs} s (no complete answer from ${host})`, init);
  }
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED') {
    return new RegistryError('aborted', `request to ${url} was cancelled`, init);
  }
  if (code === 'ECONNREFUSED') return new RegistryError('network', `cannot connect to ${host}: connection refused (${url})`, init);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RegistryError('network', `cannot resolve host ${host} (${url})`, init);
  if (code === 'ECONNRESET') return new RegistryError('network', `connection to ${host} was reset (${url})`, init);
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME_MISMATCH|ALTNAME/i.test(code)) {
    return new RegistryError('tls', `TLS certificate of ${host} is not trusted (${code}): ${url}; pass the CA with --ca-file or NODE_EXTRA_CA_CERTS`, init);
  }
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'ECONNABORTED' || /other side closed|terminated/i.test(e?.message ?? '')) {
    return new RegistryError('network', `response from ${url} was truncated: ${host} closed the connection before the body was complete`, init);
  }
  return new RegistryError('network', `request to ${url} failed: ${e?.message ?? String(err)}`, init);
}

/** An error's message on one line (for failure messages and the report), safe to show. */
export function errorText(err: unknown): string {
  return safeText((err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' '));
}
