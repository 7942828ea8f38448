// Version completion inside `version = "…"` (module calls with a registry source, required_providers
// entries) and cheap source completion (addresses already used in the workspace).
import * as vscode from 'vscode';
import { sourceCompletions, versionCompletions } from '../features/completion';
import { locateString } from '../features/locate';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';
import { knownSources } from './workspaceSources';

export function registerCompletion(context: vscode.ExtensionContext, services: RegistryServices): void {
  const provider: vscode.CompletionItemProvider = {
    async provideCompletionItems(document, position) {
      if (!services.isOurs(document)) return undefined;
      const { parsed, refs } = services.refs(document);
      const offset = document.offsetAt(position);
      const loc = locateString(parsed.text, refs, offset, position.line);
      if (!loc) return undefined;
      const { at, info } = loc;
      const range = new vscode.Range(at.line, at.startChar, at.line, at.endChar);
      if (at.attr === 'source') {
        if (loc.ref?.kind === 'provider' || (loc.ref === undefined && info.target?.kind === 'provider')) return undefined;
        const items = sourceCompletions(await knownSources(services), at.value).map((s, i) => {
          const item = new vscode.CompletionItem(s, vscode.CompletionItemKind.Module);
          item.range = range;
          item.sortText = String(i).padStart(5, '0');
          item.detail = 'module source used in this workspace';
          return item;
        });
        return new vscode.CompletionList(items, false);
      }
      const t = info.target;
      if (!t || !services.networkAllowed()) return undefined;
      let versions: string[] & { from?: string };
      try {
        versions = await services.lookup.versions(t);
      } catch (err) {
        services.log.warn(`completion: versions of ${t.display}: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
      const items = versionCompletions(versions, t.kind, at.value).map((v) => {
        const item = new vscode.CompletionItem({ label: v.label, description: v.description },
          v.kind === 'constraint' ? vscode.CompletionItemKind.Operator : vscode.CompletionItemKind.Value);
        item.insertText = v.insertText;
        item.filterText = v.filterText;
        item.sortText = v.sortText;
        item.preselect = v.preselect;
        item.detail = versions.from ? `${v.detail} (from ${versions.from})` : v.detail;
        item.range = range;
        return item;
      });
      // isIncomplete: the list depends on the whole string, not only on the word being typed.
      return new vscode.CompletionList(items, true);
    },
  };
  context.subscriptions.push(vscode.languages.registerCompletionItemProvider(SELECTOR, provider, '"', '.', ' ', '~', '>', '=', '/'));
}
