// Git-sourced module calls in the editor (git::, ssh, git@host:…, github.com/…, bitbucket.org/…),
// thin over the engine's ref lookup (engine/git/, engine.listGitRefs: one `git ls-remote` per remote):
// ref completion inside `?ref=` (and of a whole `?ref=` after the repository), diagnostics (a ref
// the remote lacks; a remote that refuses credentials or cannot be reached, once per remote; a
// branch or no ref), and the fixes "Update ref to newest tag", "Pin to commit", "Pin to newest
// tag". Plain data (no editor API); answers are kept in the RegistryLookup, so they are
// single-flight, readable synchronously, and settling them recomputes diagnostics in both adapters.
import type { Range } from '../engine/config/ast';
import {
  encodeRef, GitModuleSource, GitRefItem, GitRefList, gitRefOrder, newestGitTag, parseGitModuleSource, refSpanOf, resolveGitRef, tagVersion, withGitRef,
} from '../engine/git';
import { RegistryError } from '../engine/net/errors';
import { shownUrl } from '../engine/net/http-errors';
import { compareVersions } from '../engine/versions/version';
import type { FeatureContext } from './context';
import type { Fix } from './fix';
import { NETWORK_CODES, RegistryLookup, Settled } from './lookup';
import { sourceSpan } from './oci';
import { memoizedSourceParser } from './refs';
import type { ModuleRef, Ref } from './refs';

const parseGit = memoizedSourceParser(parseGitModuleSource);

/** The git source of a module call's literal `source` (memoized), or undefined for other sources. */
export function gitSourceOfText(source: string | null | undefined): GitModuleSource | undefined {
  if (source === null || source === undefined || /^\s*oci:/i.test(source)) return undefined;
  return parseGit(source);
}

export function gitSourceOfRef(ref: Ref): GitModuleSource | undefined {
  return ref.kind === 'module' ? gitSourceOfText(ref.source?.value) : undefined;
}

const key = (src: GitModuleSource) => `gr:${src.remote}`;

/** The remote's refs, through the lookup (one ls-remote per remote while remembered, and the engine's cache). */
export function gitRefs(ctx: FeatureContext, src: GitModuleSource): Promise<GitRefList> {
  return ctx.lookup.remember(key(src), () => ctx.engine.listGitRefs(src.remote));
}

export function peekGitRefs(lookup: RegistryLookup, src: GitModuleSource): Settled<GitRefList> | undefined {
  return lookup.peek(key(src));
}

export type GitDiagnosticCode = 'invalid-source' | 'ref-not-found' | 'not-found' | 'auth' | 'unpinned-ref';

export interface GitDiagnostic {
  range: Range;
  message: string;
  severity: 'error' | 'warning' | 'information';
  code: GitDiagnosticCode;
}

export interface GitDiagnosticsResult {
  diagnostics: GitDiagnostic[];
  /** A remote that cannot be reached: reported once per remote (`host` is the remote as shown), not as diagnostics. */
  network: Array<{ host: string; message: string; kind: 'git' }>;
}

/** Where the ref's value is written (else the whole source string). */
function refRange(ref: ModuleRef, src: GitModuleSource): Range {
  return src.refSpan && ref.source ? sourceSpan(ref.source, src.refSpan.start, src.refSpan.end) : ref.source!.range;
}

/**
 * Diagnostics for a document's git-sourced module calls. With the network allowed, lookups not
 * made yet are started (the adapter recomputes when they settle). A remote that refuses
 * credentials is one error, on its first call in the document.
 */
export function gitDiagnostics(ctx: FeatureContext, modules: readonly ModuleRef[], networkAllowed: boolean): GitDiagnosticsResult {
  const out: GitDiagnosticsResult = { diagnostics: [], network: [] };
  const refused = new Set<string>();
  for (const ref of modules) {
    const src = gitSourceOfRef(ref);
    if (!src || !ref.source) continue;
    if (src.error) {
      out.diagnostics.push({ range: ref.source.range, severity: 'error', code: 'invalid-source', message: `Invalid git module source: ${src.error}` });
      continue;
    }
    if (!networkAllowed) continue;
    const s = peekGitRefs(ctx.lookup, src);
    if (!s) { gitRefs(ctx, src).catch(() => { /* reported when it settles */ }); continue; }
    if (s.state === 'pending') continue;
    const remote = shownUrl(src.remote);
    if (s.state === 'error') {
      const err = s.error;
      if (err instanceof RegistryError && (err.code === 'unauthorized' || err.code === 'forbidden')) {
        if (!refused.has(src.remote)) out.diagnostics.push({ range: ref.source.range, severity: 'error', code: 'auth', message: err.message });
        refused.add(src.remote);
      } else if (err instanceof RegistryError && err.code === 'not-found') {
        out.diagnostics.push({ range: ref.source.range, severity: 'error', code: 'not-found', message: `${err.message}. Check the address; a private remote may also answer "not found" to a request without credentials.` });
      } else if (err instanceof RegistryError && err.code === 'network-disabled') {
        continue;
      } else {
        const message = err instanceof Error ? err.message : String(err);
        out.network.push({ host: remote, kind: 'git', message: err instanceof RegistryError && NETWORK_CODES.has(err.code) ? message : `git ls-remote of ${remote}: ${message}` });
      }
      continue;
    }
    const refs = s.value;
    const newest = newestGitTag(refs);
    const r = resolveGitRef(refs, src.ref);
    const suggest = newest ? ` Pin a tag, e.g. ?ref=${newest}.` : ' The remote has no version-like tag to pin.';
    if (!r) {
      if (src.ref === undefined) continue; // a remote without HEAD: tofu init says so itself
      out.diagnostics.push({ range: refRange(ref, src), severity: 'error', code: 'ref-not-found',
        message: `${remote} has no branch or tag "${src.ref}"${newest ? ` (newest version-like tag: ${newest})` : ''}: tofu init fails to check it out` });
    } else if (r.kind === 'branch') {
      out.diagnostics.push({
        range: r.defaultBranch ? ref.source.range : refRange(ref, src), severity: 'information', code: 'unpinned-ref',
        message: r.defaultBranch
          ? `No ?ref=: tofu init clones the default branch ${r.name} of ${remote} (now commit ${r.commit.slice(0, 12)}), and the code moves under you.${suggest}`
          : `?ref=${r.name} is a branch of ${remote} (now commit ${r.commit.slice(0, 12)}): the code moves under you.${suggest}`,
      });
    }
  }
  return out;
}

export type GitFix = Fix<'update-ref' | 'pin-commit' | 'pin-tag'>;

/** "Update ref to newest tag", "Pin to commit <sha>", "Pin to newest tag", from what the lookup knows. */
export function knownGitFixes(lookup: RegistryLookup, ref: Ref): GitFix[] {
  const src = gitSourceOfRef(ref);
  const v = ref.source;
  if (!src || src.error || !v?.contentRange || v.value === null) return [];
  const s = peekGitRefs(lookup, src);
  if (s?.state !== 'ok') return [];
  const refs = s.value;
  const newest = newestGitTag(refs);
  const r = resolveGitRef(refs, src.ref);
  const fixes: GitFix[] = [];
  const edit = (to: string) => withGitRef(v.value!, to);
  if (newest && r?.kind === 'tag' && r.name !== newest) {
    const cur = tagVersion(r.name);
    const next = tagVersion(newest)!;
    if (!cur || compareVersions(next, cur) > 0) {
      fixes.push({ kind: 'update-ref', version: newest, range: v.contentRange, newText: edit(newest),
        title: `Update ref to newest tag ${newest} (currently ${r.name})`, lens: `newer tag available: ${newest} → update ref` });
    }
  }
  if (newest && (src.ref === undefined || r?.kind === 'branch')) {
    fixes.push({ kind: 'pin-tag', version: newest, range: v.contentRange, newText: edit(newest),
      title: `Pin to newest tag ${newest}${r ? ` (now ${r.defaultBranch ? 'the default branch' : 'branch'} ${r.name})` : ''}`, lens: `unpinned → pin to newest tag ${newest}` });
  }
  if (r && r.kind !== 'commit' && /^[0-9a-f]{40}$/.test(r.commit)) {
    fixes.push({ kind: 'pin-commit', version: r.commit, range: v.contentRange, newText: edit(r.commit),
      title: `Pin to commit ${r.commit} (what ${r.defaultBranch ? 'the default branch' : `${r.kind} ${r.name}`} points at now)`, lens: `pin to commit ${r.commit.slice(0, 12)}` });
  }
  return fixes;
}

/** Starts the lookup the fixes need; resolves when it settled. */
export function gitFixLookups(ctx: FeatureContext, ref: Ref): Promise<unknown> | undefined {
  const src = gitSourceOfRef(ref);
  if (!src || src.error) return undefined;
  return gitRefs(ctx, src).catch(() => undefined);
}

/**
 * What ref completion replaces in a git source string `value` with the cursor at `cursor`: the
 * value of the `ref` argument being typed, or — at the end of a source that names no ref — a whole
 * `?ref=` (`&ref=` after other arguments). Undefined elsewhere in the string.
 */
export function gitRefSlot(value: string, cursor: number): { src: GitModuleSource; start: number; end: number; prefix: string } | undefined {
  const before = value.slice(0, cursor);
  const inRef = /[?&]ref=([^&#]*)$/.exec(before);
  if (inRef) {
    const q = before.indexOf('?');
    const src = gitSourceOfText(before.slice(0, q));
    if (!src) return undefined;
    const rest = /^[^&#]*/.exec(value.slice(cursor))![0];
    return { src, start: cursor - inRef[1].length, end: cursor + rest.length, prefix: '' };
  }
  if (cursor !== value.length || refSpanOf(value)) return undefined;
  const src = gitSourceOfText(value);
  if (!src || src.error) return undefined;
  const prefix = !value.includes('?') ? '?ref=' : value.endsWith('?') || value.endsWith('&') ? 'ref=' : '&ref=';
  return { src, start: cursor, end: cursor, prefix };
}

export interface GitRefCompletion {
  label: string;
  description?: string;
  detail: string;
  insertText: string;
  sortText: string;
  preselect: boolean;
  /** Source-string offsets the item replaces. */
  start: number;
  end: number;
}

/**
 * Ref completion items: version-like tags newest first (prereleases marked), other tags, then
 * branches; the newest release and what the source's ref selects now marked.
 */
export function gitRefItems(list: GitRefList, selected: string | undefined, slot: { start: number; end: number; prefix: string }): GitRefCompletion[] {
  const order = gitRefOrder(list, selected);
  const newest = newestGitTag(list);
  return order.map((r: GitRefItem, i) => {
    const notes: string[] = [];
    if (r.name === newest && r.kind === 'tag') notes.push('newest');
    if (r.prerelease) notes.push('prerelease');
    if (r.kind === 'branch') notes.push(r.default ? 'default branch' : 'branch');
    if (r.selected) notes.push('current');
    return {
      label: r.name, description: notes.join(', ') || undefined, insertText: slot.prefix + encodeRef(r.name), sortText: String(i).padStart(5, '0'),
      preselect: r.selected, start: slot.start, end: slot.end,
      detail: `${r.kind} ${r.name} → commit ${r.commit.slice(0, 12)}${r.version !== undefined ? ` (version ${r.version}${r.prerelease ? ', prerelease' : ''})` : ''}${r.kind === 'branch' ? ': moves with the branch' : ''}`,
    };
  });
}
