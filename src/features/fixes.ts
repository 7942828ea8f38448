// Quick fixes / CodeLens edits: "newer version available → update constraint" (keeps the user's
// operator style) and "add missing version" (pins to ~> of the newest). Plain data (no editor API).
import type { Position, Range } from '../engine/config/ast';
import { parseVersion, selectVersions, tryParseConstraint } from '../engine/versions';
import { select } from './select';
import type { ConstraintTerm, ParsedVersion, VersionRules } from '../engine/versions';
import { attributeAt, contains, DocRefs, Ref, refAt } from './refs';
import type { FeatureContext } from './context';
import { RegistryLookup, within } from './lookup';
import { targetOf } from './target';
import { knownOciFixes, ociFixLookups, ociSourceOfRef } from './oci';
import { gitFixLookups, gitSourceOfRef, knownGitFixes } from './git';
import type { Fix } from './fix';

export type { Fix } from './fix';

/**
 * The first `n` numeric parts of `v` (at least one, at most as many as `v` has): "~> 1.2.3.4"
 * rewritten for 1.2.3.9 keeps four parts, as go-version's pessimistic operator pins all but the
 * last part written; a newest version with fewer parts (1.3.0) limits it to its own three.
 */
function parts(v: ParsedVersion, n: number): string {
  return v.segments.slice(0, Math.max(1, Math.min(v.segments.length, n))).join('.') +
    (v.prerelease ? `-${v.prerelease}` : '');
}

function bumpTerm(t: ConstraintTerm, newest: ParsedVersion): string {
  const op = t.implicit ? '' : `${t.op} `;
  switch (t.op) {
    case '~>': return `${op}${parts(newest, t.version.specified)}`;
    case '=': return `${op}${newest.raw}`;
    case '<': return `< ${newest.major + 1}.0.0`;
    case '<=': return `<= ${newest.raw}`;
    default: return t.text;
  }
}

/** The user's constraint rewritten so that `newest` is selected, keeping its operators. */
export function updateConstraint(text: string, newest: string, rules: VersionRules): string | undefined {
  const p = tryParseConstraint(text, rules);
  const nv = parseVersion(newest, rules);
  if ('error' in p || typeof nv === 'string') return undefined;
  const candidate = p.constraint.terms.map((t) => bumpTerm(t, nv)).join(', ');
  if (selectVersions([newest], candidate, rules).selected === newest) return candidate;
  const fallback = `~> ${nv.major}.${nv.minor}`;
  return selectVersions([newest], fallback, rules).selected === newest ? fallback : undefined;
}

function pos(p: Position): Position {
  return { line: p.line, character: p.character, offset: p.offset };
}

/** The fixes available for one ref, given the registry's version list. */
export function fixesFor(ref: Ref, versions: readonly string[], rules: VersionRules): Fix[] {
  const all = select(versions, null, rules);
  const newest = all.newest;
  if (!newest) return [];
  const fixes: Fix[] = [];
  const v = ref.version;
  if (v && v.value !== null && v.contentRange) {
    const sel = select(versions, v.value, rules);
    if (!sel.error && sel.selected !== newest) {
      const next = updateConstraint(v.value, newest, rules);
      if (next && next !== v.value) {
        // Nothing satisfies the constraint: the fix is a change, not an upgrade to a "newer" version.
        const title = sel.selected
          ? `Update constraint to "${next}" (newest ${newest}; currently selects ${sel.selected})`
          : `Change constraint to "${next}" (nothing satisfies "${v.value}"; newest ${newest})`;
        fixes.push({
          kind: 'update-constraint', version: newest, newText: next, range: v.contentRange, title,
          lens: sel.selected ? `newer version available: ${newest} → update constraint`
            : `no version satisfies "${v.value}" → change constraint to "${next}"`,
        });
      }
    }
  } else if (!v && ref.kind === 'module' && ref.source) {
    const nv = parseVersion(newest, rules);
    if (typeof nv !== 'string') {
      const c = `~> ${nv.major}.${nv.minor}`;
      const at = pos(ref.source.attrRange.end);
      fixes.push({
        kind: 'add-version', version: newest, newText: `\n${ref.indent}version = "${c}"`, range: { start: at, end: at },
        title: `Add missing version = "${c}" (newest ${newest})`, lens: `add missing version: "${c}"`,
      });
    }
  }
  return fixes;
}

/** The diagnostic codes the version fixes answer. */
export const FIXED_CODES: ReadonlySet<string> = new Set(['unsatisfiable', 'missing-version', 'not-found', 'ref-not-found', 'unpinned-ref']);

/** The fixes for one ref from what the lookup already knows (none while its versions are unknown). */
export function knownFixes(lookup: RegistryLookup, ref: Ref): Fix[] {
  const oci = knownOciFixes(lookup, ref);
  if (oci.length || ociSourceOfRef(ref)) return oci;
  if (gitSourceOfRef(ref)) return knownGitFixes(lookup, ref);
  const t = targetOf(ref).target;
  if (!t) return [];
  const s = lookup.peekVersions(t);
  return s && s.state === 'ok' ? fixesFor(ref, s.value, t.kind) : [];
}

/** Where a fix's diagnostic sits: the edited range, or the whole block for an insertion. */
export function fixDiagnosticRange(fix: Fix, ref: Ref): Range {
  return fix.range.start.offset === fix.range.end.offset ? ref.range : fix.range;
}

/**
 * The quick fixes at an offset: only where they belong (the block header, its source/version, or
 * where one of our diagnostics is), not on every line of a module block. Waits at most `waitMs`
 * for a version list not asked for yet.
 */
export async function quickFixesAt(ctx: FeatureContext, refs: DocRefs, offset: number, onOurDiagnostic: boolean,
  waitMs = 5000, signal?: AbortSignal): Promise<{ ref: Ref; fixes: Fix[] } | undefined> {
  if (!ctx.networkAllowed()) return undefined;
  const ref = refAt(refs, offset);
  if (!ref) return undefined;
  if (!onOurDiagnostic && !attributeAt(ref, offset) && !contains(ref.headerRange, offset)) return undefined;
  const oci = ociFixLookups(ctx, ref) ?? gitFixLookups(ctx, ref);
  if (oci) {
    await within(oci, waitMs);
    return { ref, fixes: knownFixes(ctx.lookup, ref) };
  }
  const t = targetOf(ref).target;
  if (!t) return undefined;
  if (!ctx.lookup.peekVersions(t)) await within(ctx.lookup.versions(t, signal), waitMs);
  return { ref, fixes: knownFixes(ctx.lookup, ref) };
}

/** The code lenses of a document ("newer version available → update constraint", "add missing version"). */
export function fixLenses(ctx: FeatureContext, refs: DocRefs): Array<{ range: Range; fix: Fix }> {
  if (!ctx.networkAllowed() || !ctx.settings().codeLensEnabled) return [];
  const out: Array<{ range: Range; fix: Fix }> = [];
  for (const ref of [...refs.modules, ...refs.providers]) {
    for (const fix of knownFixes(ctx.lookup, ref)) {
      if (fix.kind === 'pin-digest' || fix.kind === 'pin-commit') continue; // a choice, not news: offered as a quick fix only
      out.push({ range: fix.kind === 'update-constraint' && ref.version ? ref.version.attrRange : ref.headerRange, fix });
    }
  }
  return out;
}
