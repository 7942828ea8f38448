// The language server's requests: completion, hover, code actions and code lenses — the features
// layer's answers, waited for at most the request budget, converted to the client's encoding.
import {
  CancellationToken, CodeAction, CodeActionKind, CodeLens, CompletionItem, CompletionList, Diagnostic, Hover, InsertTextFormat, MarkupKind,
  Position, Range, TextEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { completionsWithinBudget, FeatureCompletion } from '../features/completion';
import { isOurFileName } from '../features/documents';
import { Fix, fixDiagnosticRange, FIXED_CODES, fixLenses, quickFixesAt } from '../features/fixes';
import { FeatureHover, registryHover } from '../features/hover';
import { isLockFileName } from '../features/lockStatus';
import { COMMANDS, DIAGNOSTIC_SOURCE, intersects, KIND, REQUEST_BUDGET_MS, signalOf, uriToPath, within0 } from './common';
import type { TofuRegistryServer } from './server';

export function toCompletionItem(s: TofuRegistryServer, doc: TextDocument, c: FeatureCompletion): CompletionItem {
  const item: CompletionItem = {
    label: c.label, kind: KIND[c.kind],
    textEdit: TextEdit.replace(s.toClientRange(doc, c.range), c.insertText ?? c.label),
  };
  if (c.description !== undefined) item.labelDetails = { description: c.description };
  if (c.detail !== undefined) item.detail = c.detail;
  if (c.documentation !== undefined) item.documentation = { kind: MarkupKind.Markdown, value: c.documentation };
  if (c.snippet) item.insertTextFormat = InsertTextFormat.Snippet;
  if (c.filterText !== undefined) item.filterText = c.filterText;
  if (c.sortText !== undefined) item.sortText = c.sortText;
  if (c.preselect) item.preselect = true;
  return item;
}

export async function completion(s: TofuRegistryServer, uri: string, position: Position, token?: CancellationToken): Promise<CompletionList | null> {
  const doc = s.docs.get(uri);
  if (!doc || !isOurFileName(uriToPath(doc.uri))) return null;
  const pos = s.fromClientPosition(doc, position);
  const { parsed, refs } = s.cache.refs(s.snapshot(doc));
  const budget = REQUEST_BUDGET_MS;
  const signal = signalOf(token); // $/cancelRequest aborts the registry requests this completion started
  // the features layer's budget (shared with the VS Code adapter); `within0` only adds $/cancelRequest
  const reg = await within0(completionsWithinBudget(s, { text: parsed.text, refs }, doc.offsetAt(pos), pos.line,
    () => s.known.get(openSources(s)), signal, budget), budget + 100, token);
  if (token?.isCancellationRequested) return null;
  if (reg && 'value' in reg && reg.value) return { isIncomplete: reg.value.isIncomplete, items: reg.value.items.map((c) => toCompletionItem(s, doc, c)) };
  if (!reg) return { isIncomplete: true, items: [] };
  const typed = await within0(s.types.complete(s.cache.parse(s.snapshot(doc)), pos, budget, signal), budget + 50, token);
  if (typed && 'value' in typed && typed.value) return { isIncomplete: false, items: typed.value.map((c) => toCompletionItem(s, doc, c)) };
  return typed ? null : { isIncomplete: true, items: [] };
}

export function openSources(s: TofuRegistryServer): Array<string | null | undefined> {
  const out: Array<string | null | undefined> = [];
  for (const doc of s.docs.values()) {
    if (isOurFileName(uriToPath(doc.uri))) for (const m of s.cache.refs(s.snapshot(doc)).refs.modules) out.push(m.source?.value);
  }
  return out;
}

export async function hover(s: TofuRegistryServer, uri: string, position: Position, token?: CancellationToken): Promise<Hover | null> {
  const doc = s.docs.get(uri);
  if (!doc) return null;
  const pos = s.fromClientPosition(doc, position);
  const offset = doc.offsetAt(pos);
  const file = uriToPath(uri);
  const budget = REQUEST_BUDGET_MS;
  const signal = signalOf(token);
  let h: FeatureHover | undefined;
  if (isLockFileName(file)) {
    const r = await within0(s.lock.hover(file, doc.getText(), offset, signal), budget, token);
    h = r && 'value' in r ? r.value : undefined;
  } else {
    const refs = s.cache.refs(s.snapshot(doc)).refs;
    const r = await within0(registryHover(s, refs, offset, budget, signal), budget, token);
    // Past the budget: what the lookups know now (the slow ones go on, for the next hover).
    h = r && 'value' in r ? r.value : token?.isCancellationRequested ? undefined : await registryHover(s, refs, offset, 0, signal);
    if (!h && !token?.isCancellationRequested) {
      const t = await within0(s.types.hover(s.cache.parse(s.snapshot(doc)), pos, budget, signal), budget, token);
      h = t && 'value' in t ? t.value : undefined;
    }
  }
  if (!h || token?.isCancellationRequested) return null;
  return { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: s.toClientRange(doc, h.range) };
}

export function fixEdit(s: TofuRegistryServer, doc: TextDocument, fix: Fix): { changes: Record<string, TextEdit[]> } {
  return { changes: { [doc.uri]: [TextEdit.replace(s.toClientRange(doc, fix.range), fix.newText)] } };
}

export async function codeActions(s: TofuRegistryServer, uri: string, range: Range, context: { diagnostics: Diagnostic[] }, token?: CancellationToken): Promise<CodeAction[]> {
  const doc = s.docs.get(uri);
  if (!doc) return [];
  const file = uriToPath(uri);
  const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
  const out: CodeAction[] = [];
  if (isOurFileName(file)) {
    const start = s.fromClientPosition(doc, range.start);
    const found = await within0(quickFixesAt(s, s.cache.refs(s.snapshot(doc)).refs, doc.offsetAt(start), ours.length > 0, REQUEST_BUDGET_MS, signalOf(token)), REQUEST_BUDGET_MS + 50, token);
    const fixes = found && 'value' in found ? found.value : undefined;
    for (const fix of fixes?.fixes ?? []) {
      const target = s.toClientRange(doc, fixDiagnosticRange(fix, fixes!.ref));
      out.push({
        title: fix.title, kind: CodeActionKind.QuickFix, edit: fixEdit(s, doc, fix), isPreferred: fix.kind === 'update-constraint',
        diagnostics: ours.filter((d) => FIXED_CODES.has(String(d.code)) && intersects(d.range, target)),
      });
    }
  }
  if (uri.startsWith('file:')) {
    const utf16 = ours.map((d) => ({ diag: d, message: typeof d.message === 'string' ? d.message : d.message.value, range: s.fromClientRange(doc, d.range) }));
    for (const f of s.lock.fixes(file, utf16)) {
      out.push({
        title: f.title, kind: CodeActionKind.QuickFix, diagnostics: [f.diagnostic.diag], isPreferred: true,
        command: { title: f.title, command: COMMANDS.lock, arguments: [f.args] },
      });
    }
  }
  return out;
}

export function codeLenses(s: TofuRegistryServer, uri: string): CodeLens[] {
  const doc = s.docs.get(uri);
  if (!doc || !isOurFileName(uriToPath(uri))) return [];
  return fixLenses(s, s.cache.refs(s.snapshot(doc)).refs).map(({ range, fix }) => ({
    range: s.toClientRange(doc, range),
    command: { title: fix.lens, command: COMMANDS.applyFix, arguments: [uri, doc.version, fix] },
  }));
}
