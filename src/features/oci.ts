// oci:// module calls in the editor, thin over the engine (parseOciModuleSource, listOciTags,
// resolveOciModule): tofu init's refusals as diagnostics on the argument they name, the registry's
// answers (repository or tag not found, not a module package, credentials) as diagnostics, tag
// completion inside `?tag=`, the hover, and the "Pin to digest" / "Update tag to newest" fixes.
// Plain data (no editor API); registry answers are kept in the RegistryLookup, so they are
// single-flight, readable synchronously, and settling them recomputes diagnostics in both adapters.
import type { Position, Range } from '../engine/config/ast';
import { OciModuleSource, parseOciModuleSource, withOciSelector } from '../engine/addresses/oci-source';
import { listOciTags, newestOciTag, ociTagOrder, OciTagList, resolveOciModule, ResolvedOciModule } from '../engine/modulepkg/oci-registry';
import { RegistryError } from '../engine/net/errors';
import type { FeatureContext } from './context';
import type { Fix } from './fix';
import { NETWORK_CODES, RegistryLookup, Settled } from './lookup';
import { memoizedSourceParser } from './refs';
import type { ModuleRef, Ref, ValueRef } from './refs';

const parseOci = memoizedSourceParser(parseOciModuleSource);

/** The oci:// source of a module call's literal `source` (memoized), or undefined for other sources. */
export function ociSourceOfText(source: string | null | undefined): OciModuleSource | undefined {
  if (source === null || source === undefined || !/^\s*oci:/i.test(source)) return undefined;
  return parseOci(source);
}

export function ociSourceOfRef(ref: Ref): OciModuleSource | undefined {
  return ref.kind === 'module' ? ociSourceOfText(ref.source?.value) : undefined;
}

const repoKey = (src: OciModuleSource) => `${src.registry}/${src.repository}`;

/** The repository's tags, through the lookup (one request per repository while remembered). */
export function ociTags(ctx: FeatureContext, src: OciModuleSource): Promise<OciTagList> {
  const repo = { registry: src.registry, repository: src.repository };
  return ctx.lookup.remember(`ot:${repoKey(src)}`, () => listOciTags(ctx.engine, repo));
}

export function peekOciTags(lookup: RegistryLookup, src: OciModuleSource): Settled<OciTagList> | undefined {
  return lookup.peek(`ot:${repoKey(src)}`);
}

/** What tofu init would download for the source (its manifest and verdict), through the lookup. */
export function ociResolved(ctx: FeatureContext, src: OciModuleSource): Promise<ResolvedOciModule> {
  return ctx.lookup.remember(`or:${src.reference}`, () => resolveOciModule(ctx.engine, src));
}

export function peekOciResolved(lookup: RegistryLookup, src: OciModuleSource): Settled<ResolvedOciModule> | undefined {
  return lookup.peek(`or:${src.reference}`);
}

/** The tag order with `selected` marked (the lookup keeps the registry's order for one marking). */
export function ociTagsMarked(list: OciTagList, selected: string) {
  return ociTagOrder(list.tags.map((t) => t.tag), selected);
}

function at(base: Position, delta: number): Position {
  return { line: base.line, character: base.character + delta, offset: base.offset + delta };
}

/**
 * The document range of source offsets [start, end) (OciSourceArgument offsets), when the literal
 * is written on one line without escapes (the text is the value); else the whole string.
 */
export function sourceSpan(v: ValueRef, start: number, end: number): Range {
  const c = v.contentRange;
  if (!c || v.value === null || c.start.line !== c.end.line || c.end.offset - c.start.offset !== v.value.length) return v.range;
  return { start: at(c.start, start), end: at(c.start, end) };
}

export type OciDiagnosticCode = 'invalid-source' | 'not-found' | 'not-module-package' | 'auth';

export interface OciDiagnostic {
  range: Range;
  message: string;
  severity: 'error' | 'warning';
  code: OciDiagnosticCode;
}

/** The OpenTofu refusal of a source as a diagnostic on the argument it names (else the whole string). */
export function ociSourceProblem(ref: ModuleRef, src: OciModuleSource): OciDiagnostic | undefined {
  if (!src.error || !ref.source) return undefined;
  const named = src.error.argument ? src.args.filter((a) => a.name === src.error!.argument) : [];
  // A repeated argument or tag-and-digest: the later argument is the one to remove.
  const arg = named[named.length - 1];
  const range = arg ? sourceSpan(ref.source, arg.start, arg.end) : ref.source.contentRange ?? ref.source.range;
  return { range, severity: 'error', code: 'invalid-source', message: `Invalid oci:// module source: ${src.error.message}` };
}

export interface OciDiagnosticsResult {
  diagnostics: OciDiagnostic[];
  /** Failures of the network itself (offline, timeout, TLS): reported once per host, not as diagnostics. */
  network: Array<{ host: string; message: string }>;
}

/**
 * Diagnostics for a document's oci:// module calls: tofu's refusals always; with the network
 * allowed, what the registry answered for the manifest tofu init would fetch (lookups not made yet
 * are started, and the adapter recomputes when they settle).
 */
export function ociDiagnostics(ctx: FeatureContext, modules: readonly ModuleRef[], networkAllowed: boolean): OciDiagnosticsResult {
  const out: OciDiagnosticsResult = { diagnostics: [], network: [] };
  // a registry that refused the credentials is one diagnostic (on its first call), not one per call
  const refusedBy = new Set<string>();
  for (const ref of modules) {
    const src = ociSourceOfRef(ref);
    if (!src || !ref.source) continue;
    const problem = ociSourceProblem(ref, src);
    if (problem) { out.diagnostics.push(problem); continue; }
    if (!networkAllowed) continue;
    // The tag list too: the "Update tag to newest" CodeLens and fix need it (one request per repository).
    if (src.tag !== undefined && !peekOciTags(ctx.lookup, src)) ociTags(ctx, src).catch(() => { /* shown where it is used */ });
    const s = peekOciResolved(ctx.lookup, src);
    if (!s) { ociResolved(ctx, src).catch(() => { /* reported when it settles */ }); continue; }
    const range = ref.source.range;
    if (s.state === 'pending') continue;
    if (s.state === 'ok') {
      if (!s.value.isModulePackage) {
        out.diagnostics.push({ range, severity: 'error', code: 'not-module-package',
          message: `${src.reference} is not an OpenTofu module package: ${s.value.problem ?? 'tofu init refuses it'}` });
      }
      continue;
    }
    const err = s.error;
    if (err instanceof RegistryError && err.code === 'not-found') {
      out.diagnostics.push({ range, severity: 'error', code: 'not-found', message: notFoundMessage(ctx, src, err) });
    } else if (err instanceof RegistryError && (err.code === 'unauthorized' || err.code === 'forbidden')) {
      if (refusedBy.has(src.registry)) continue;
      refusedBy.add(src.registry);
      // a request skipped because of an earlier refusal shows that refusal (registry, where the credentials came from)
      const first = ctx.engine.oci.refusalOf(src.registry) ?? err;
      out.diagnostics.push({ range, severity: 'error', code: 'auth', message: first.message });
    } else if (err instanceof RegistryError && NETWORK_CODES.has(err.code)) {
      out.network.push({ host: err.host ?? src.registry, message: err.message });
    } else {
      out.network.push({ host: src.registry, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** "… has no tag "9.9.9"", with the repository's tags when known (a missing repository lists none). */
function notFoundMessage(ctx: FeatureContext, src: OciModuleSource, err: RegistryError): string {
  const tags = peekOciTags(ctx.lookup, src);
  if (!tags) ociTags(ctx, src).catch(() => { /* the diagnostic is recomputed when it settles */ });
  if (tags?.state === 'ok') {
    if (tags.value.tags.length === 0) return `Repository ${repoKey(src)} not found (or it has no tags): ${err.message}`;
    if (src.tag !== undefined) {
      const newest = tags.value.newest;
      return `Tag "${src.tag}" not found in ${repoKey(src)}${newest ? ` (newest version-like tag: ${newest})` : ''}: ${err.message}`;
    }
  }
  return err.message;
}

export type OciFix = Fix<'pin-digest' | 'update-tag'>;

/** "Pin to digest" (the tag's manifest digest now) and "Update tag to newest", from what the lookup knows. */
export function knownOciFixes(lookup: RegistryLookup, ref: Ref): OciFix[] {
  const src = ociSourceOfRef(ref);
  const v = ref.source;
  if (!src || src.error || !v?.contentRange || src.tag === undefined) return [];
  const fixes: OciFix[] = [];
  const resolved = peekOciResolved(lookup, src);
  if (resolved?.state === 'ok') {
    const digest = resolved.value.manifestDigest;
    fixes.push({
      kind: 'pin-digest', version: digest, range: v.contentRange, newText: withOciSelector(src, { digest }),
      title: `Pin to digest ${digest.slice(0, 19)}… (what tag "${src.tag}" points at now)`, lens: `pin to digest ${digest.slice(0, 19)}…`,
    });
  }
  const tags = peekOciTags(lookup, src);
  const newest = tags?.state === 'ok' ? newestOciTag(ociTagsMarked(tags.value, src.tag)) : null;
  if (newest && newest !== src.tag) {
    fixes.push({
      kind: 'update-tag', version: newest, range: v.contentRange, newText: withOciSelector(src, { tag: newest }),
      title: `Update tag to newest "${newest}" (currently "${src.tag}")`, lens: `newer tag available: ${newest} → update tag`,
    });
  }
  return fixes;
}

/** Starts the lookups the fixes need; resolves when they settled (or the caller's wait ran out). */
export function ociFixLookups(ctx: FeatureContext, ref: Ref): Promise<unknown> | undefined {
  const src = ociSourceOfRef(ref);
  if (!src || src.error || src.tag === undefined) return undefined;
  return Promise.allSettled([ociResolved(ctx, src), ociTags(ctx, src)]);
}

export interface OciTagItem {
  label: string;
  description?: string;
  detail: string;
  insertText: string;
  sortText: string;
  preselect: boolean;
  prerelease: boolean;
  /** Source-string offsets the item replaces. */
  start: number;
  end: number;
}

/**
 * What tag completion replaces in an oci:// source string `value` with the cursor at `cursor`:
 * the value of the `tag` argument being typed, or — right after the repository — a whole `?tag=`.
 * Undefined elsewhere in the string.
 */
export function ociTagSlot(value: string, cursor: number): { src: OciModuleSource; start: number; end: number; prefix: string } | undefined {
  const before = value.slice(0, cursor);
  const q = before.indexOf('?');
  const base = parseOciModuleSource(q < 0 ? before : before.slice(0, q));
  if (!base || (base.error && ['invalid-registry', 'invalid-repository', 'not-oci-scheme', 'archive-argument'].includes(base.error.code))) return undefined;
  const inTag = /[?&]tag=([^&#]*)$/.exec(before);
  if (inTag) {
    const rest = /^[^&#]*/.exec(value.slice(cursor))![0];
    return { src: base, start: cursor - inTag[1].length, end: cursor + rest.length, prefix: '' };
  }
  if (q < 0 && cursor === value.length && !before.includes('//', 'oci://'.length)) return { src: base, start: cursor, end: cursor, prefix: '?tag=' };
  return undefined;
}

/**
 * Tag completion items: version-like tags newest first (prereleases marked), the other tags after,
 * the newest release and the tag tofu init would use (`selected`: the source's tag, "latest"
 * without one) marked.
 */
export function ociTagItems(list: OciTagList, selected: string, slot: { start: number; end: number; prefix: string }): OciTagItem[] {
  const order = ociTagsMarked(list, selected);
  const newest = newestOciTag(order);
  return order.map((t, i) => {
    const notes: string[] = [];
    if (t.tag === newest) notes.push('newest');
    if (t.prerelease) notes.push('prerelease');
    if (t.selected) notes.push('used by tofu init');
    return {
      label: t.tag, description: notes.join(', ') || undefined, insertText: slot.prefix + t.tag, sortText: String(i).padStart(5, '0'),
      preselect: t.selected, prerelease: t.prerelease, start: slot.start, end: slot.end,
      detail: t.selected ? `tag ${t.tag}: the one tofu init would fetch${slot.prefix ? ' without ?tag=' : ''}`
        : t.version !== undefined ? `tag ${t.tag} (version ${t.version}${t.prerelease ? ', prerelease' : ''})` : `tag ${t.tag}`,
    };
  });
}
