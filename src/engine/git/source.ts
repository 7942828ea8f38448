// A module source `tofu init` fetches with git, read for its ref: every form go-getter's detectors
// turn into the git getter (git::https, git::ssh, git@host:org/repo, github.com/…, bitbucket.org/…),
// the remote git contacts (ref and depth left out, other query arguments kept, as the clone path
// passes them), the `?ref=` as written (where it is in the source string, for diagnostics and
// completion), `depth` and the subdirectory. The ref is checked by the clone path's own rules
// (git/clone.ts parseGitSource): no option-like or odd characters reach git's argv.
import { detectPackage, forcedGetter, packageGetter } from '../addresses/go-getter';
import { isLocalSource, parseModuleRegistryAddress } from '../addresses/module-source';
import { parseGitSource } from './clone';

export interface GitModuleSource {
  /** The source as written. */
  source: string;
  /** What git contacts: the package URL without `git::`, `ref` and `depth` (may hold user information: show it with shownUrl). */
  remote: string;
  /** host[:port] of the remote ('' when none can be read), for messages and cache keys. */
  host: string;
  /** `?ref=` decoded (as go-getter reads the query), when there is one. */
  ref?: string;
  depth?: number;
  subdir?: string;
  /** The go-getter detector that recognised a shorthand ("github", "git", "bitbucket"). */
  detector?: string;
  /** Offsets in `source` of the ref's value as written (for diagnostics and completion). */
  refSpan?: { start: number; end: number };
  /** Why tofu-registry will not ask git about this source (the clone path refuses it too). */
  error?: string;
}

/** The git remote of a module source, or undefined when `tofu init` would not fetch it with git. */
export function parseGitModuleSource(raw: string): GitModuleSource | undefined {
  if (!raw || isLocalSource(raw) || !('error' in parseModuleRegistryAddress(raw))) return undefined;
  const detected = detectPackage(raw);
  if ('error' in detected || packageGetter(detected.package) !== 'git') return undefined;
  // Nothing with control or bidirectional characters is run, or shown in a message or a terminal.
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(raw)) {
    return { source: raw, remote: '', host: '', error: 'the source holds control or bidirectional-override characters' };
  }
  const url = forcedGetter(detected.package)[1];
  const refSpan = refSpanOf(raw);
  const base = {
    source: raw, remote: url, host: remoteHost(url), ...(detected.subdir ? { subdir: detected.subdir } : {}),
    ...(detected.detector ? { detector: detected.detector } : {}), ...(refSpan ? { refSpan } : {}),
  };
  try {
    const g = parseGitSource(url);
    return { ...base, remote: g.url, ...(g.ref !== undefined ? { ref: g.ref } : {}), ...(g.depth !== undefined ? { depth: g.depth } : {}) };
  } catch (err) {
    const q = url.indexOf('?');
    return { ...base, remote: q < 0 ? url : url.slice(0, q), error: (err as Error).message };
  }
}

/** host[:port] of an https/ssh/git URL or an scp-like address ("git@host:org/repo"). */
export function remoteHost(url: string): string {
  try {
    const u = new URL(url);
    if (u.host) return u.host;
  } catch { /* scp-like */ }
  return /^(?:[^@/]+@)?([^:/]+):/.exec(url)?.[1] ?? '';
}

/** Offsets of the last `ref=` argument's value in a source string's query (go-getter reads the first; a repeated one is rare). */
export function refSpanOf(raw: string): { start: number; end: number } | undefined {
  const q = raw.indexOf('?');
  if (q < 0) return undefined;
  const re = /(?:^|&)ref=([^&#]*)/g;
  const query = raw.slice(q + 1);
  const m = re.exec(query);
  if (!m) return undefined;
  const start = q + 1 + m.index + m[0].length - m[1].length;
  return { start, end: start + m[1].length };
}

/** A ref as written in a query string: what URL decoding gives back exactly ("+" and "%" escaped, "/" kept). */
export function encodeRef(ref: string): string {
  return encodeURIComponent(ref).replace(/%2F/gi, '/');
}

/**
 * The source with its `?ref=` set to `ref` (the value replaced in place, else `ref=` added to the
 * query): subdirectory, `depth` and every other argument kept as written.
 */
export function withGitRef(raw: string, ref: string): string {
  const span = refSpanOf(raw);
  const value = encodeRef(ref);
  if (span) return raw.slice(0, span.start) + value + raw.slice(span.end);
  return raw + (raw.includes('?') ? (raw.endsWith('?') || raw.endsWith('&') ? '' : '&') : '?') + `ref=${value}`;
}
