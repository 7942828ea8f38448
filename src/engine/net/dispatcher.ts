// Builds the undici dispatcher every request goes through: extra CA certificates (caFiles +
// NODE_EXTRA_CA_CERTS, on top of the system roots), proxy (explicit or HTTPS_PROXY/NO_PROXY),
// connect timeout.
import { readFileSync } from 'node:fs';
import { createSecureContext, SecureContext } from 'node:tls';
import { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import { RegistryError } from './errors';

export interface DispatcherOptions {
  env: NodeJS.ProcessEnv;
  caFiles: string[];
  proxy?: string;
  /** Extra proxy bypass list (NO_PROXY syntax, comma-separated), added to NO_PROXY/no_proxy. */
  noProxy?: string;
  connectTimeoutMs: number;
}

/** PEM bundles to trust in addition to the system store; unreadable files are an error. */
export function extraCaCertificates(env: NodeJS.ProcessEnv, caFiles: string[]): string[] {
  const files = [...caFiles];
  if (env.NODE_EXTRA_CA_CERTS) files.push(env.NODE_EXTRA_CA_CERTS);
  const out: string[] = [];
  for (const f of files) {
    if (!f) continue;
    try {
      out.push(readFileSync(f, 'utf8'));
    } catch (err) {
      throw new RegistryError('tls', `cannot read CA certificate file ${f}: ${(err as Error).message}`);
    }
  }
  return out;
}

export function proxySettings(env: NodeJS.ProcessEnv, proxy?: string, extraNoProxy?: string): { httpsProxy?: string; noProxy?: string } {
  const httpsProxy = proxy || env.HTTPS_PROXY || env.https_proxy || undefined;
  const fromEnv = env.NO_PROXY ?? env.no_proxy ?? undefined;
  const parts = [extraNoProxy, fromEnv].map((p) => p?.trim()).filter((p): p is string => !!p);
  return { httpsProxy: httpsProxy || undefined, noProxy: parts.length ? parts.join(',') : fromEnv };
}

// Parsing the system roots plus the extra PEMs takes tens of ms; an engine is created per CLI run
// and again whenever the editor's settings change, so the context is kept per PEM content.
const contexts = new Map<string, SecureContext>();
function secureContextFor(extra: string[]): SecureContext {
  const key = extra.join('\n');
  let ctx = contexts.get(key);
  if (!ctx) {
    // Node's default context trusts its root store (parsed once per process, in C++); adding a
    // certificate copies that store and adds to the copy. Passing `ca: [...rootCertificates, ...]`
    // instead made Node parse the ≈ 145 root PEMs again from strings: ≈ 20 ms more per process.
    // (Verifying against the extra CAs alone first does not spare that parse: Node 20's addCACert,
    // which `ca` goes through too, builds the root store to compare with — 20–30 ms either way.)
    ctx = createSecureContext();
    for (const pem of extra) (ctx.context as { addCACert(pem: string): void }).addCACert(pem);
    if (contexts.size >= 8) contexts.delete(contexts.keys().next().value!);
    contexts.set(key, ctx);
  }
  return ctx;
}

/**
 * Connections kept open to one origin at once, for every request of the engine (each is a file
 * descriptor): a run over thousands of directories queues its requests here instead of opening a
 * socket per request in flight. Above the mirrors' largest download and request slots (64 + 16).
 */
export const CONNECTIONS_PER_ORIGIN = 96;

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const extra = extraCaCertificates(opts.env, opts.caFiles);
  // One secure context for every connection: building it from ~150 PEM roots per TLS handshake
  // cost tens of ms of CPU each (it dominated a parallel provider mirror run).
  const tls = extra.length ? { secureContext: secureContextFor(extra) } : {};
  const connect = { ...tls, timeout: opts.connectTimeoutMs };
  const { httpsProxy, noProxy } = proxySettings(opts.env, opts.proxy, opts.noProxy);
  if (httpsProxy) {
    return new EnvHttpProxyAgent({
      httpsProxy, httpProxy: httpsProxy, noProxy: noProxy ?? '',
      connect, requestTls: connect, proxyTls: connect, connections: CONNECTIONS_PER_ORIGIN,
    });
  }
  return new Agent({ connect, keepAliveTimeout: 4_000, connections: CONNECTIONS_PER_ORIGIN });
}
