// Version and source completion, computed from the registry's version list. Plain data (no
// editor API): each adapter only converts these to its own completion items.
import { tryParseConstraint, VersionRules, parseVersion } from '../engine/versions';
import { select } from './select';
import type { FeatureContext } from './context';
import { locateString } from './locate';
import { REQUEST_BUDGET_MS, VersionsFrom, within } from './lookup';
import type { DocRefs } from './refs';
import { ociTagItems, ociTags, ociTagSlot, ociSourceOfText } from './oci';
import { gitRefItems, gitRefs, gitRefSlot, gitSourceOfText } from './git';

export interface VersionItem {
  /** What the list shows ("5.31.0", "~> 5.31"). */
  label: string;
  /** Short note beside the label ("selected by tofu init", "prerelease", …). */
  description?: string;
  /** Text that replaces the whole string content. */
  insertText: string;
  filterText: string;
  sortText: string;
  preselect: boolean;
  kind: 'version' | 'constraint';
  prerelease: boolean;
  detail: string;
}

const OP_PREFIX = /^\s*(~>|>=|<=|!=|=|>|<)\s*/;

/**
 * Items for `version = "<typed>"`: every valid version newest first (prereleases marked, last), the
 * version `tofu init` would select preselected, and the usual constraint forms for the newest
 * release. When the user already typed an operator ("~> "), versions are offered with it.
 */
const itemMemo = new WeakMap<readonly string[], Map<string, VersionItem[]>>();

export function versionCompletions(versions: readonly string[], rules: VersionRules, typed: string): VersionItem[] {
  let m = itemMemo.get(versions);
  if (!m) itemMemo.set(versions, (m = new Map()));
  const key = `${rules}\u0000${typed}`;
  let items = m.get(key);
  if (!items) {
    if (m.size > 100) m.clear();
    items = computeVersionCompletions(versions, rules, typed);
    m.set(key, items);
  }
  return items;
}

function computeVersionCompletions(versions: readonly string[], rules: VersionRules, typed: string): VersionItem[] {
  const all = select(versions, null, rules);
  // What tofu init would pick: under the typed constraint if it parses, else the newest release.
  let selected = all.newest;
  const t = typed.trim();
  if (t) {
    const parsed = tryParseConstraint(t, rules);
    if ('constraint' in parsed) selected = select(versions, t, rules).selected ?? all.newest;
  }
  const opMatch = OP_PREFIX.exec(typed);
  const op = opMatch ? `${opMatch[1]} ` : '';
  const items: VersionItem[] = [];
  const releases: string[] = [];
  const pre: string[] = [];
  for (const v of all.versions) {
    const p = parseVersion(v, rules);
    if (typeof p !== 'string' && p.prerelease) pre.push(v);
    else releases.push(v);
  }
  let n = 0;
  const sort = () => String(n++).padStart(5, '0');
  const newest = releases[0] ?? null;
  for (const v of releases) {
    const notes: string[] = [];
    if (v === newest) notes.push('latest');
    if (v === selected) notes.push('selected by tofu init');
    items.push({
      label: v, description: notes.join(', ') || undefined, insertText: op + v, filterText: op + v, sortText: sort(),
      preselect: v === selected, kind: 'version', prerelease: false,
      detail: v === selected ? `${v}: the version tofu init would select` : `version ${v}`,
    });
  }
  if (newest) {
    const p = parseVersion(newest, rules);
    if (typeof p !== 'string') {
      const forms: Array<[string, string]> = [
        [`~> ${p.major}.${p.minor}`, `${p.major}.${p.minor}.0 or newer, below ${p.major + 1}.0.0`],
        [`~> ${p.major}.${p.minor}.${p.patch}`, `${p.major}.${p.minor}.${p.patch} or newer patch releases, below ${p.major}.${p.minor + 1}.0`],
        [`>= ${newest}`, `${newest} or any newer version`],
      ];
      for (const [c, d] of forms) {
        items.push({
          label: c, description: 'constraint', insertText: c, filterText: c, sortText: sort(), preselect: false,
          kind: 'constraint', prerelease: false, detail: d,
        });
      }
    }
  }
  for (const v of pre) {
    items.push({
      label: v, description: 'prerelease', insertText: op + v, filterText: op + v, sortText: sort(),
      preselect: false, kind: 'version', prerelease: true,
      detail: `prerelease ${v}: tofu init selects it only when requested exactly`,
    });
  }
  return items;
}

/**
 * Source completion: registry addresses already used in the workspace whose text starts with what
 * was typed (cheap: no network).
 */
export function sourceCompletions(known: Iterable<string>, typed: string): string[] {
  const t = typed.trim().toLowerCase();
  const out = new Set<string>();
  for (const s of known) if (s.toLowerCase().startsWith(t) && s !== typed) out.add(s);
  return [...out].sort();
}

/** A line/character range (UTF-16 columns), as the engine's ranges are without their offsets. */
export interface LineRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export type CompletionKind = 'module' | 'operator' | 'value' | 'field' | 'property';

/** A completion item as plain data: each adapter converts it to its own item type. */
export interface FeatureCompletion {
  label: string;
  /** Short note beside the label. */
  description?: string;
  kind: CompletionKind;
  detail?: string;
  /** Markdown. */
  documentation?: string;
  insertText?: string;
  /** insertText is a snippet (tab stops `${1:…}`). */
  snippet?: boolean;
  filterText?: string;
  sortText?: string;
  preselect?: boolean;
  /** What the item replaces. */
  range: LineRange;
}

export interface FeatureCompletionList {
  items: FeatureCompletion[];
  /** The list depends on more than the word being typed (or is still being looked up): ask again. */
  isIncomplete: boolean;
  /** The version list was not there within the budget: the answer comes with a later request. */
  pending?: boolean;
}

/**
 * Completion inside `version = "…"` (module calls with a registry source, required_providers
 * entries) and `source = "…"` (addresses already used in the workspace). `waitMs`: how long to
 * wait for the registry (undefined: until it answers); past it the list is empty, incomplete and
 * `pending`, and the lookup goes on (the next request finds it).
 */
export async function registryCompletions(ctx: FeatureContext, doc: { text: string; refs: DocRefs }, offset: number, line: number,
  known: () => Promise<Set<string>>, waitMs?: number, signal?: AbortSignal): Promise<FeatureCompletionList | undefined> {
  const loc = locateString(doc.text, doc.refs, offset, line);
  if (!loc) return undefined;
  const { at, info } = loc;
  const range: LineRange = { start: { line: at.line, character: at.startChar }, end: { line: at.line, character: at.endChar } };
  // Tags inside an oci:// source's `?tag=` (or a whole `?tag=` after the repository): asked of the OCI registry.
  const slot = at.attr === 'source' && /^oci:/i.test(at.value) ? ociTagSlot(at.value, offset - at.contentStart) : undefined;
  if (slot) {
    if (!ctx.networkAllowed()) return undefined;
    const answer = waitMs === undefined ? await ociTags(ctx, slot.src).then((value) => ({ value }), (error: unknown) => ({ error }))
      : await within(ociTags(ctx, slot.src), waitMs);
    if (!answer) return { items: [], isIncomplete: true, pending: true };
    if ('error' in answer) {
      ctx.log.warn(`completion: tags of oci://${slot.src.registry}/${slot.src.repository}: ${answer.error instanceof Error ? answer.error.message : String(answer.error)}`);
      return undefined;
    }
    const selected = ociSourceOfText(at.value)?.tag ?? 'latest';
    const items = ociTagItems(answer.value, selected, slot).map((t): FeatureCompletion => ({
      label: t.label, description: t.description, kind: 'value', detail: t.detail, insertText: t.insertText,
      filterText: t.insertText, sortText: t.sortText, preselect: t.preselect,
      range: { start: { line: at.line, character: at.startChar + t.start }, end: { line: at.line, character: at.startChar + t.end } },
    }));
    return { items, isIncomplete: true };
  }
  // Refs inside a git source's `?ref=` (or a whole `?ref=` at the end of one without): from one git ls-remote.
  const gslot = at.attr === 'source' && loc.ref?.kind !== 'provider' ? gitRefSlot(at.value, offset - at.contentStart) : undefined;
  if (gslot) {
    if (!ctx.networkAllowed()) return undefined;
    const answer = waitMs === undefined ? await gitRefs(ctx, gslot.src).then((value) => ({ value }), (error: unknown) => ({ error }))
      : await within(gitRefs(ctx, gslot.src), waitMs);
    if (!answer) return { items: [], isIncomplete: true, pending: true };
    if ('error' in answer) {
      ctx.log.warn(`completion: refs of ${answer.error instanceof Error ? answer.error.message : String(answer.error)}`);
      return undefined;
    }
    const items = gitRefItems(answer.value, gitSourceOfText(at.value)?.ref ?? gslot.src.ref, gslot).map((t): FeatureCompletion => ({
      label: t.label, description: t.description, kind: 'value', detail: t.detail, insertText: t.insertText,
      filterText: t.insertText, sortText: t.sortText, preselect: t.preselect,
      range: { start: { line: at.line, character: at.startChar + t.start }, end: { line: at.line, character: at.startChar + t.end } },
    }));
    return { items, isIncomplete: true };
  }
  if (at.attr === 'source') {
    if (loc.ref?.kind === 'provider' || (loc.ref === undefined && info.target?.kind === 'provider')) return undefined;
    const items = sourceCompletions(await known(), at.value).map((s, i): FeatureCompletion => ({
      label: s, kind: 'module', range, sortText: String(i).padStart(5, '0'), detail: 'module source used in this workspace',
    }));
    return { items, isIncomplete: false };
  }
  const t = info.target;
  if (!t || !ctx.networkAllowed()) return undefined;
  const answer = waitMs === undefined ? await ctx.lookup.versions(t, signal).then((value) => ({ value }), (error: unknown) => ({ error }))
    : await within(ctx.lookup.versions(t, signal), waitMs);
  if (signal?.aborted) return undefined;
  if (!answer) return { items: [], isIncomplete: true, pending: true };
  if ('error' in answer) {
    ctx.log.warn(`completion: versions of ${t.display}: ${answer.error instanceof Error ? answer.error.message : String(answer.error)}`);
    return undefined;
  }
  const versions: VersionsFrom = answer.value;
  const items = versionCompletions(versions, t.kind, at.value).map((v): FeatureCompletion => ({
    label: v.label, description: v.description, kind: v.kind === 'constraint' ? 'operator' : 'value',
    insertText: v.insertText, filterText: v.filterText, sortText: v.sortText, preselect: v.preselect,
    detail: versions.from ? `${v.detail} (from ${versions.from})` : v.detail, range,
  }));
  // isIncomplete: the list depends on the whole string, not only on the word being typed.
  return { items, isIncomplete: true };
}

/**
 * registryCompletions within the editors' request budget (REQUEST_BUDGET_MS), what both adapters
 * answer: the versions known now (cached) at once; a registry (or a workspace source scan) slower
 * than the budget gives an empty list marked incomplete and `pending` — the lookup goes on and the
 * next request (the next keystroke) finds it. A failure answers nothing (it is logged).
 */
export async function completionsWithinBudget(ctx: FeatureContext, doc: { text: string; refs: DocRefs }, offset: number, line: number,
  known: () => Promise<Set<string>>, signal?: AbortSignal, budgetMs = REQUEST_BUDGET_MS): Promise<FeatureCompletionList | undefined> {
  const answer = await within(registryCompletions(ctx, doc, offset, line, known, budgetMs, signal), budgetMs + 50);
  if (!answer) return { items: [], isIncomplete: true, pending: true };
  if ('error' in answer) {
    ctx.log.warn(`completion: ${answer.error instanceof Error ? answer.error.message : String(answer.error)}`);
    return undefined;
  }
  return answer.value;
}
