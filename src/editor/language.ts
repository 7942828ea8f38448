// The fallback language for users who have neither HashiCorp's Terraform extension (language id
// `terraform`, claims `.tf`) nor OpenTofu's (language id `opentofu`, claims `.tf` and `.tofu`).
//
// VS Code gives a file extension to the LAST extension that registers it, and user extensions are
// registered in folder-name order: `tofu-registry.*` sorts after `hashicorp.*` and `opentofu.*`, so a
// static `.tf` claim from us would always win and take `.tf` away from their language servers; a
// grammar of ours for their language id would likewise replace theirs. So package.json contributes a
// language of our own (FALLBACK_LANGUAGE, with a grammar and a language configuration) that claims
// NO file extension, and this module hands it to a *.tf / *.tofu document only when nothing else
// did, i.e. when VS Code opened it as plain text. Each document is handled once per session, so a
// user who picks "Plain Text" by hand keeps it.
import * as vscode from 'vscode';
import type { EditorServices } from './services';

export const FALLBACK_LANGUAGE = 'tofu-registry-hcl';

const CLAIMABLE = /\.(?:tf|tofu)$/i; // not *.tf.json / *.tofu.json: those are JSON
const SCHEMES = new Set(['file', 'vscode-remote', 'untitled']);

export function registerFallbackLanguage(context: vscode.ExtensionContext, services: EditorServices): void {
  const seen = new Set<string>();
  const consider = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    if (seen.has(key) || !SCHEMES.has(doc.uri.scheme) || !CLAIMABLE.test(doc.uri.path)) return;
    seen.add(key);
    if (doc.languageId !== 'plaintext') return; // another extension (or the user's files.associations) has it
    vscode.languages.setTextDocumentLanguage(doc, FALLBACK_LANGUAGE).then(
      () => services.log.debug(`${doc.uri.path}: no other extension claims it; using ${FALLBACK_LANGUAGE}`),
      (err) => services.log.warn(`setting the language of ${doc.uri.path}: ${err instanceof Error ? err.message : String(err)}`),
    );
  };
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(consider),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      // Reopening an editor later is a new decision; a language switch closes+reopens the same
      // document immediately, which must not count (so forget only documents that stay closed).
      setTimeout(() => { if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === doc.uri.toString())) seen.delete(doc.uri.toString()); }, 1000);
    }),
  );
  for (const doc of vscode.workspace.textDocuments) consider(doc);
}
