// Hovers on `version` (the constraint in words, what tofu init selects, matches, warnings) and on
// `source` (parsed address, service discovery, resolved download location).
import * as vscode from 'vscode';
import { select } from '../features/select';
import { builtInHover, sourceHover, versionHover } from '../features/hover';
import { locateAttribute } from '../features/locate';
import { within } from '../features/lookup';
import { toRange } from './convert';
import type { RegistryServices } from './services';
import { SELECTOR } from './selector';

/** How long a hover waits for the registry before showing what it has. */
const HOVER_WAIT_MS = 5000;

function md(text: string): vscode.MarkdownString {
  const m = new vscode.MarkdownString(text, true);
  m.isTrusted = false;
  return m;
}

export function registerHover(context: vscode.ExtensionContext, services: RegistryServices): void {
  const provider: vscode.HoverProvider = {
    async provideHover(document, position) {
      if (!services.isOurs(document)) return undefined;
      const { refs } = services.refs(document);
      const hit = locateAttribute(refs, document.offsetAt(position));
      if (!hit) return undefined;
      const net = services.networkAllowed();
      const { info, value } = hit;
      const t = info.target;
      const range = toRange(value.attrRange);
      if (info.builtIn) return new vscode.Hover(md(builtInHover(info.builtIn)), range);
      if (hit.attr === 'version') {
        if (!t) return undefined;
        const versions = net ? await within(services.lookup.versions(t), HOVER_WAIT_MS) : undefined;
        return new vscode.Hover(md(versionHover({ target: t, constraint: value.value, versions, networkAllowed: net })), range);
      }
      const source = value.value ?? '';
      if (!t || !net) {
        return new vscode.Hover(md(sourceHover({ source, moduleSource: info.moduleSource, target: t, error: info.error, networkAllowed: net })), range);
      }
      const discovery = within(services.lookup.discovery(t.host), HOVER_WAIT_MS);
      let selected: string | null | undefined;
      let location: Awaited<ReturnType<typeof within<string>>>;
      if (t.kind === 'module') {
        const v = await within(services.lookup.versions(t), HOVER_WAIT_MS);
        if (v && 'value' in v) {
          selected = select(v.value, hit.ref.version?.value ?? null, 'module').selected;
          if (selected) location = await within(services.lookup.location(t.addr, selected), HOVER_WAIT_MS);
        }
      }
      return new vscode.Hover(md(sourceHover({
        source, moduleSource: info.moduleSource, target: t, discovery: await discovery, selected, location, networkAllowed: net,
        constraint: hit.ref.version?.value ?? null,
      })), range);
    },
  };
  context.subscriptions.push(vscode.languages.registerHoverProvider(SELECTOR, provider));
}
