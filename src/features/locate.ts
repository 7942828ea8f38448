// From (document text + refs + cursor offset) to what the cursor is on: the `version`/`source`
// string and the module call or provider entry it belongs to. Pure (no vscode).
import { ownerByText, stringAtCursor, StringAtCursor } from './cursor';
import { attributeAt, DocRefs, Ref, refAt } from './refs';
import { moduleSourceInfo, providerSourceInfo, targetOf, TargetInfo } from './target';

export interface CursorTarget {
  at: StringAtCursor;
  info: TargetInfo;
  /** The ref from the syntax tree (absent when only the text fallback found the owner). */
  ref?: Ref;
}

/** For completion: the string under the cursor and its owner (works with an unterminated string). */
export function locateString(text: string, refs: DocRefs, offset: number, line?: number): CursorTarget | undefined {
  const at = stringAtCursor(text, offset, line);
  if (!at) return undefined;
  const ref = refAt(refs, offset);
  if (ref && (ref.kind === 'provider' || at.attr === 'version' || ref.source)) {
    // The tree's source may be the string being typed: prefer it only when it is another attribute.
    return { at, info: targetOf(ref), ref };
  }
  const owner = ownerByText(text, offset);
  if (!owner) return undefined;
  if (owner.kind === 'module') {
    if (!owner.source) return { at, info: { error: 'module call without "source"' } };
    return { at, info: moduleSourceInfo(owner.source) };
  }
  return { at, info: providerSourceInfo(owner.source, owner.name) };
}

/** For hovers: the ref and attribute (name or value) under the cursor. */
export function locateAttribute(refs: DocRefs, offset: number) {
  const ref = refAt(refs, offset);
  if (!ref) return undefined;
  const a = attributeAt(ref, offset);
  if (!a) return undefined;
  return { ref, ...a, info: targetOf(ref) };
}
