// Quick fixes and CodeLenses: "newer version available: X → update constraint" (keeps the user's
// operator style) and "add missing version" (pins to ~> of the newest).
import * as vscode from 'vscode';
import { Fix, fixDiagnosticRange, FIXED_CODES, fixLenses, quickFixesAt } from '../features/fixes';
import { signalOf } from '../features/lookup';
import { toRange } from './convert';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';

export const APPLY_FIX_COMMAND = 'tofuRegistry.applyFix';

function fixEdit(uri: vscode.Uri, fix: Fix): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, toRange(fix.range), fix.newText);
  return edit;
}

export function registerCodeActions(context: vscode.ExtensionContext, services: RegistryServices): void {
  const actions: vscode.CodeActionProvider = {
    async provideCodeActions(document, range, ctx, token) {
      if (!services.isOurs(document)) return undefined;
      const ours = ctx.diagnostics.some((d) => d.source === 'tofu-registry');
      const found = await quickFixesAt(services, services.refs(document).refs, document.offsetAt(range.start), ours, undefined, signalOf(token));
      if (!found) return undefined;
      return found.fixes.map((fix) => {
        const a = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        a.edit = fixEdit(document.uri, fix);
        a.isPreferred = fix.kind === 'update-constraint';
        a.diagnostics = ctx.diagnostics.filter((d) => d.source === 'tofu-registry' &&
          FIXED_CODES.has(String(d.code)) && d.range.intersection(toRange(fixDiagnosticRange(fix, found.ref))));
        return a;
      });
    },
  };
  context.subscriptions.push(vscode.languages.registerCodeActionsProvider(SELECTOR, actions,
    { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }));

  const changed = new vscode.EventEmitter<void>();
  const settle = services.lookup.onDidSettle(() => changed.fire());
  // Turning tofuRegistry.codeLens.enabled on or off takes effect at once, without a reload.
  const toggled = vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('tofuRegistry.codeLens')) changed.fire(); });
  const lenses: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses(document) {
      if (!services.isOurs(document)) return [];
      return fixLenses(services, services.refs(document).refs).map(({ range, fix }) => new vscode.CodeLens(toRange(range), {
        title: fix.lens, command: APPLY_FIX_COMMAND, tooltip: fix.title,
        arguments: [document.uri.toString(), document.version, fix],
      }));
    },
  };
  context.subscriptions.push(vscode.languages.registerCodeLensProvider(SELECTOR, lenses), changed,
    { dispose: () => settle.dispose() }, toggled,
    vscode.commands.registerCommand(APPLY_FIX_COMMAND, async (uri: string, version: number, fix: Fix) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      if (!doc || doc.version !== version) {
        void vscode.window.showInformationMessage('The document changed; run the fix again from the updated CodeLens.');
        return false;
      }
      return vscode.workspace.applyEdit(fixEdit(doc.uri, fix));
    }));
}
