// Version completion inside `version = "…"` (module calls with a registry source, required_providers
// entries) and cheap source completion (addresses already used in the workspace): the features
// layer's answer as vscode.CompletionItems.
import * as vscode from 'vscode';
import { CompletionKind, completionsWithinBudget, FeatureCompletion } from '../features/completion';
import { signalOf } from '../features/lookup';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';
import { toRange } from './convert';
import { knownSources } from './workspaceSources';

const KIND: Record<CompletionKind, vscode.CompletionItemKind> = {
  module: vscode.CompletionItemKind.Module,
  operator: vscode.CompletionItemKind.Operator,
  value: vscode.CompletionItemKind.Value,
  field: vscode.CompletionItemKind.Field,
  property: vscode.CompletionItemKind.Property,
};

export function toCompletionItem(c: FeatureCompletion): vscode.CompletionItem {
  const item = new vscode.CompletionItem(c.description === undefined ? c.label : { label: c.label, description: c.description }, KIND[c.kind]);
  if (c.insertText !== undefined) item.insertText = c.snippet ? new vscode.SnippetString(c.insertText) : c.insertText;
  if (c.filterText !== undefined) item.filterText = c.filterText;
  if (c.sortText !== undefined) item.sortText = c.sortText;
  if (c.preselect !== undefined) item.preselect = c.preselect;
  if (c.detail !== undefined) item.detail = c.detail;
  if (c.documentation !== undefined) item.documentation = new vscode.MarkdownString(c.documentation);
  item.range = toRange(c.range);
  return item;
}

export function registerCompletion(context: vscode.ExtensionContext, services: RegistryServices): void {
  const provider: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position, token) {
      if (!services.isOurs(document)) return undefined;
      const { parsed, refs } = services.refs(document);
      // Within the request budget, as the language server: what is cached now, else an incomplete list (asked again on the next keystroke).
      const list = await completionsWithinBudget(services, { text: parsed.text, refs }, document.offsetAt(position), position.line,
        () => knownSources(services), signalOf(token));
      if (token.isCancellationRequested) return undefined;
      return list && new vscode.CompletionList(list.items.map(toCompletionItem), list.isIncomplete);
    },
  };
  context.subscriptions.push(vscode.languages.registerCompletionItemProvider(SELECTOR, provider, '"', '.', ' ', '~', '>', '=', '/'));
}
