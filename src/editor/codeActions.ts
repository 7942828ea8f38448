// Quick fixes and CodeLenses: "newer version available: X → update constraint" (keeps the user's
// operator style) and "add missing version" (pins to ~> of the newest).
import * as vscode from 'vscode';
import { Fix, fixesFor } from '../features/fixes';
import { within } from '../features/lookup';
import { attributeAt, contains, refAt, Ref } from '../features/refs';
import { targetOf } from '../features/target';
import { toRange } from './convert';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';

export const APPLY_FIX_COMMAND = 'tofuRegistry.applyFix';

function fixEdit(uri: vscode.Uri, fix: Fix): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, toRange(fix.range), fix.newText);
  return edit;
}

function knownFixes(services: RegistryServices, ref: Ref): Fix[] {
  const t = targetOf(ref).target;
  if (!t) return [];
  const s = services.lookup.peekVersions(t);
  return s && s.state === 'ok' ? fixesFor(ref, s.value, t.kind) : [];
}

export function registerCodeActions(context: vscode.ExtensionContext, services: RegistryServices): void {
  const actions: vscode.CodeActionProvider = {
    async provideCodeActions(document, range, ctx) {
      if (!services.isOurs(document) || !services.networkAllowed()) return undefined;
      const { refs } = services.refs(document);
      const offset = document.offsetAt(range.start);
      const ref = refAt(refs, offset);
      if (!ref) return undefined;
      // Only where the fix belongs: the block header, its source/version, or one of our
      // diagnostics — not on every line of a module block (e.g. a type error in an argument).
      const ours = ctx.diagnostics.some((d) => d.source === 'tofu-registry');
      if (!ours && !attributeAt(ref, offset) && !contains(ref.headerRange, offset)) return undefined;
      const t = targetOf(ref).target;
      if (!t) return undefined;
      if (!services.lookup.peekVersions(t)) await within(services.lookup.versions(t), 5000);
      return knownFixes(services, ref).map((fix) => {
        const a = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        a.edit = fixEdit(document.uri, fix);
        a.isPreferred = fix.kind === 'update-constraint';
        a.diagnostics = ctx.diagnostics.filter((d) => d.source === 'tofu-registry' &&
          (d.code === 'unsatisfiable' || d.code === 'missing-version') && d.range.intersection(toRange(fix.range.start.offset === fix.range.end.offset ? ref.range : fix.range)));
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
      if (!services.isOurs(document) || !services.networkAllowed() || !services.settings().codeLensEnabled) return [];
      const { refs } = services.refs(document);
      const out: vscode.CodeLens[] = [];
      for (const ref of [...refs.modules, ...refs.providers]) {
        for (const fix of knownFixes(services, ref)) {
          const at = fix.kind === 'update-constraint' && ref.version ? ref.version.attrRange : ref.headerRange;
          out.push(new vscode.CodeLens(toRange(at), {
            title: fix.lens, command: APPLY_FIX_COMMAND, tooltip: fix.title,
            arguments: [document.uri.toString(), document.version, fix],
          }));
        }
      }
      return out;
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
