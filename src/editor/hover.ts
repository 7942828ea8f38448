// Hovers on `version` (the constraint in words, what tofu init selects, matches, warnings) and on
// `source` (parsed address, service discovery, resolved download location): the features layer's
// Markdown as a vscode.Hover.
import * as vscode from 'vscode';
import { registryHover } from '../features/hover';
import { signalOf } from '../features/lookup';
import { toRange } from './convert';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';

export function md(text: string): vscode.MarkdownString {
  const m = new vscode.MarkdownString(text, true);
  m.isTrusted = false;
  return m;
}

export function registerHover(context: vscode.ExtensionContext, services: RegistryServices): void {
  const provider: vscode.HoverProvider = {
    async provideHover(document, position, token) {
      if (!services.isOurs(document)) return undefined;
      const h = await registryHover(services, services.refs(document).refs, document.offsetAt(position), undefined, signalOf(token));
      return h && new vscode.Hover(md(h.markdown), toRange(h.range));
    },
  };
  context.subscriptions.push(vscode.languages.registerHoverProvider(SELECTOR, provider));
}
