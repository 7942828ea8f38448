// The one error type the engine throws for anything registry/network related. Messages are
// user-facing: they name the host and URL and say what was wrong. They never contain tokens: a
// credential value sent in this run is "***" whatever a server echoed, and a control character a
// server put in a name or a text is escaped (one message, one line).
import { escapeControls, redactSentSecrets } from './shown-text';

export type RegistryErrorCode =
  | 'not-found'
  | 'no-services'
  | 'unauthorized'
  | 'forbidden'
  | 'timeout'
  | 'network'
  | 'tls'
  | 'protocol'
  | 'too-large'
  | 'too-many-redirects'
  | 'rate-limited'
  | 'server-error'
  | 'http-error'
  | 'network-disabled'
  | 'invalid-address'
  | 'invalid-version'
  | 'aborted';

export interface RegistryErrorInit {
  host?: string;
  url?: string;
  status?: number;
  cause?: unknown;
}

export class RegistryError extends Error {
  readonly code: RegistryErrorCode;
  readonly host?: string;
  readonly url?: string;
  readonly status?: number;

  constructor(code: RegistryErrorCode, message: string, init: RegistryErrorInit = {}) {
    super(escapeControls(redactSentSecrets(message)), init.cause !== undefined ? { cause: init.cause } : undefined);
    this.name = 'RegistryError';
    this.code = code;
    this.host = init.host;
    this.url = init.url;
    this.status = init.status;
  }
}

export function isRegistryError(err: unknown, code?: RegistryErrorCode): err is RegistryError {
  return err instanceof RegistryError && (code === undefined || err.code === code);
}

/**
 * Awaits a registry request and rewords its 404 ('not-found') to say what is missing:
 * "<what> (404 Not Found for <url>)", with `host` the registry's host. Other errors pass through.
 */
export async function rewordNotFound<T>(request: Promise<T>, what: string, host: string, url: string): Promise<T> {
  try {
    return await request;
  } catch (err) {
    if (!isRegistryError(err, 'not-found')) throw err;
    const at = err.url ?? url;
    throw new RegistryError('not-found', `${what} (404 Not Found for ${at})`, { host, url: at, status: 404 });
  }
}

// The error of fetching a module package (download, clone, extraction, subdirectory), shared by
// the archive fetcher and the git runner. `unsupported`: the source type itself cannot be fetched
// (s3::, gcs::, hg::, oci://…), so retrying cannot help.
export class ModuleFetchError extends Error {
  constructor(message: string, readonly url?: string, readonly unsupported = false) { super(message); }
}
