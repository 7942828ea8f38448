// Registry diagnostics for one document, from its refs and what the lookup already knows. Plain
// data (no editor API) and synchronous: the adapter triggers lookups, then recomputes when they settle.
import type { Range } from '../engine/config/ast';
import { RegistryError } from '../engine/net/errors';
import { parseVersion, tryParseConstraint, VersionRules } from '../engine/versions';
import { select } from './select';
import { describeError } from './hover';
import { NETWORK_CODES, Settled } from './lookup';
import type { DocRefs, Ref } from './refs';
import { Target, targetOf } from './target';
import type { FeatureContext } from './context';
import { ociDiagnostics, ociSourceOfRef } from './oci';
import { gitDiagnostics } from './git';

export type DiagnosticCode =
  | 'malformed-constraint' | 'invalid-source' | 'unknown-host' | 'no-service' | 'not-found'
  | 'unsatisfiable' | 'auth' | 'no-versions' | 'missing-version' | 'registry-error' | 'not-module-package'
  | 'ref-not-found' | 'unpinned-ref';

export interface EditorDiagnostic {
  range: Range;
  message: string;
  severity: 'error' | 'warning' | 'information' | 'hint';
  code: DiagnosticCode;
}

export interface NetworkProblem {
  /** A registry's host, or a git remote as shown (user information hidden). */
  host: string;
  message: string;
  /** 'git': `host` is a git remote (a registry's or OCI registry's host otherwise). */
  kind?: 'git';
}

/** The short notice an editor shows once for a host newly found unreachable (a status bar message). */
export function unreachableNotice(p: NetworkProblem): string {
  return `${p.kind === 'git' ? 'Git' : 'OpenTofu Registry'}: ${p.host} unreachable`;
}

export interface DiagnosticsResult {
  diagnostics: EditorDiagnostic[];
  /** Targets whose versions are not known yet: the adapter starts these lookups. */
  wanted: Target[];
  /** Failures of the network itself (offline, timeout, TLS): shown once per host, not as diagnostics. */
  network: NetworkProblem[];
}

const PUBLIC_REGISTRIES = new Set(['registry.opentofu.org', 'registry.terraform.io']);

function isUnknownHost(err: RegistryError): boolean {
  const cause = err.cause as { code?: string; cause?: { code?: string } } | undefined;
  const c = cause?.code ?? cause?.cause?.code;
  return err.code === 'network' && (c === 'ENOTFOUND' || /cannot resolve host/.test(err.message));
}

const parseMemo = new Map<string, { error?: string }>();
function parseCached(text: string, rules: VersionRules): { error?: string } {
  const key = `${rules}\u0000${text}`;
  let r = parseMemo.get(key);
  if (!r) {
    if (parseMemo.size > 5000) parseMemo.clear();
    const p = tryParseConstraint(text, rules);
    r = 'error' in p ? { error: p.error } : {};
    parseMemo.set(key, r);
  }
  return r;
}

/** "~> M.m" for the newest release (what the add-version fix inserts). */
function pinFor(newest: string | null): string | undefined {
  const p = newest ? parseVersion(newest, 'module') : undefined;
  return p && typeof p !== 'string' ? `~> ${p.major}.${p.minor}` : undefined;
}

/**
 * "Module corp/vpc/aws not found on host (404 for URL)": the engine's message already names the
 * address, host and URL. Private registries often answer 404 rather than 401 to a request without
 * credentials, so say where credentials come from too.
 */

function notFoundMessage(t: Target, err: RegistryError): string {
  const m = err.message;
  const what = m.includes(t.display) ? m.charAt(0).toUpperCase() + m.slice(1)
    : `${t.kind === 'module' ? 'Module' : 'Provider'} ${t.display} not found: ${m}`;
  if (PUBLIC_REGISTRIES.has(t.host)) return `${what}. Check the address.`;
  return `${what}. Check the address; a private registry may also answer 404 when no credentials for ${t.host} are configured.`;
}

/**
 * Diagnostics for the refs of one document. `peek` returns what the lookup knows about a
 * target's version list (undefined: never asked). `networkAllowed` false: only offline checks.
 */
export function computeDiagnostics(refs: DocRefs, peek: (t: Target) => Settled<string[]> | undefined,
  networkAllowed: boolean): DiagnosticsResult {
  const out: DiagnosticsResult = { diagnostics: [], wanted: [], network: [] };
  const all: Ref[] = [...refs.modules, ...refs.providers];
  for (const ref of all) {
    if (ociSourceOfRef(ref)) continue; // oci:// calls: ociDiagnostics
    const info = targetOf(ref);
    const srcRange = ref.source?.range ?? ref.headerRange;
    if (info.error) {
      if (ref.source && ref.source.value !== null) {
        out.diagnostics.push({ range: srcRange, message: info.error, severity: 'error', code: 'invalid-source' });
      }
      continue;
    }
    const t = info.target;
    if (!t) continue; // local path, git, … : nothing to check against a registry
    const rules = t.kind;
    const constraint = ref.version?.value ?? null;
    if (ref.version && constraint !== null) {
      const parsed = parseCached(constraint, rules);
      if (parsed.error !== undefined) {
        out.diagnostics.push({ range: ref.version.range, severity: 'error', code: 'malformed-constraint',
          message: `Malformed version constraint (${rules} rules): ${parsed.error}` });
        continue;
      }
    }
    if (!networkAllowed) continue;
    const s = peek(t);
    if (!s) { out.wanted.push(t); continue; }
    if (s.state === 'pending') continue;
    if (s.state === 'error') {
      const err = s.error;
      if (err instanceof RegistryError) {
        if (err.code === 'not-found') {
          out.diagnostics.push({ range: srcRange, severity: 'error', code: 'not-found', message: notFoundMessage(t, err) });
          continue;
        }
        if (err.code === 'no-services') {
          out.diagnostics.push({ range: srcRange, severity: 'error', code: 'no-service', message: err.message });
          continue;
        }
        if (err.code === 'unauthorized' || err.code === 'forbidden') {
          out.diagnostics.push({ range: srcRange, severity: 'error', code: 'auth', message: describeError(err) });
          continue;
        }
        if (err.code === 'invalid-address' || err.code === 'invalid-version') {
          out.diagnostics.push({ range: srcRange, severity: 'error', code: 'invalid-source', message: err.message });
          continue;
        }
        // The failing host may be a mirror from the CLI configuration, not the provider's host.
        const host = err.host ?? t.host;
        // The public registries are never a typo: not resolving them means offline or air-gapped,
        // which is a network problem (shown once, gently), not an error on every public module.
        if (isUnknownHost(err) && PUBLIC_REGISTRIES.has(host)) {
          out.network.push({ host, message: `${err.message}. Offline or air-gapped? A network mirror in your OpenTofu CLI configuration (provider_installation, host blocks; setting tofuRegistry.cliConfigFile) answers instead.` });
          continue;
        }
        if (isUnknownHost(err)) {
          out.diagnostics.push({ range: srcRange, severity: 'error', code: 'unknown-host',
            message: `Unknown ${host === t.host ? 'registry' : 'mirror'} host ${host}: ${err.message}` });
          continue;
        }
        if (NETWORK_CODES.has(err.code)) {
          out.network.push({ host, message: err.message });
          continue;
        }
      }
      out.network.push({ host: t.host, message: describeError(err) });
      continue;
    }
    const versions = s.value;
    if (versions.length === 0) {
      out.diagnostics.push({ range: srcRange, severity: 'warning', code: 'no-versions',
        message: `The registry lists no versions for ${t.display}` });
      continue;
    }
    const sel = select(versions, constraint, rules);
    if (ref.version && constraint !== null && !sel.selected) {
      out.diagnostics.push({ range: ref.version.range, severity: 'error', code: 'unsatisfiable',
        message: `No version of ${t.display} satisfies "${constraint}"${sel.newest ? `: the newest is ${sel.newest}` : ''}` });
    } else if (!ref.version && t.kind === 'module') {
      const pin = pinFor(sel.newest);
      out.diagnostics.push({ range: ref.headerRange, severity: 'information', code: 'missing-version',
        message: `No version constraint for ${t.display}: tofu init takes the newest release${sel.newest ? ` (now ${sel.newest})` : ''}${pin ? `; pin it, e.g. version = "${pin}"` : ''}` });
    }
  }
  return out;
}

/**
 * One document's registry diagnostics from what the lookup knows now: the lookups still missing are
 * started (they double as the prefetch that makes completion and hover instant, and the adapter
 * recomputes when they settle), and each unreachable host is logged once per `reported` set.
 * Returns the hosts newly found unreachable, for the adapter to show once.
 */
export function registryDiagnostics(ctx: FeatureContext, refs: DocRefs, reported: Set<string>): { diagnostics: EditorDiagnostic[]; unreachable: NetworkProblem[] } {
  const net = ctx.networkAllowed();
  const r = computeDiagnostics(refs, (t) => ctx.lookup.peekVersions(t), net);
  for (const t of r.wanted) ctx.lookup.versions(t).catch(() => { /* reported when it settles */ });
  const oci = ociDiagnostics(ctx, refs.modules, net);
  const git = gitDiagnostics(ctx, refs.modules, net);
  const unreachable: NetworkProblem[] = [];
  for (const p of [...r.network, ...oci.network, ...git.network] as NetworkProblem[]) {
    if (reported.has(p.host)) continue;
    reported.add(p.host);
    ctx.log.warn(`${p.kind === 'git' ? 'git remote' : 'registry'} ${p.host} unreachable: ${p.message}`);
    unreachable.push(p);
  }
  return { diagnostics: [...r.diagnostics, ...oci.diagnostics, ...git.diagnostics], unreachable };
}
