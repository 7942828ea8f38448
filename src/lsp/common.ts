// What the language server's parts share: the command ids, the request budget, URI and
// cancellation helpers, and the LSP enums for the features layer's kinds.
import { fileURLToPath } from 'node:url';
import { CancellationToken, CompletionItemKind, DiagnosticSeverity, Position, Range } from 'vscode-languageserver/node';
import type { CompletionKind } from '../features/completion';
import type { EditorDiagnostic } from '../features/diagnostics';
import { within } from '../features/lookup';

/** How long any request waits for the network (the features layer's, shared with the VS Code adapter). */
export { REQUEST_BUDGET_MS } from '../features/lookup';

export const COMMANDS = {
  applyFix: 'tofuRegistry.applyFix',
  lock: 'tofuRegistry.lockProviders',
  mirror: 'tofuRegistry.mirrorProviders',
  mirrorModules: 'tofuRegistry.mirrorModules',
  outdated: 'tofuRegistry.outdated',
  publishModule: 'tofuRegistry.publishModule',
  exportSbom: 'tofuRegistry.exportSbom',
} as const;

export const DIAGNOSTIC_SOURCE = 'tofu-registry';

export const SEVERITY: Record<EditorDiagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, information: DiagnosticSeverity.Information, hint: DiagnosticSeverity.Hint,
};

export const KIND: Record<CompletionKind, CompletionItemKind> = {
  module: CompletionItemKind.Module, operator: CompletionItemKind.Operator, value: CompletionItemKind.Value,
  field: CompletionItemKind.Field, property: CompletionItemKind.Property,
};

export function uriToPath(uri: string): string {
  if (uri.startsWith('file:')) {
    try { return fileURLToPath(uri); } catch { /* not a local file: fall through */ }
  }
  return decodeURIComponent(uri.replace(/^[a-z][a-z0-9+.-]*:\/*/i, '/'));
}

/** An AbortSignal that follows a request's cancellation ($/cancelRequest). */
export { signalOf } from '../features/lookup';

export function within0<T>(p: Promise<T>, ms: number, token?: CancellationToken): Promise<{ value: T } | { error: unknown } | undefined> {
  if (!token) return within(p, ms);
  // A cancelled request stops waiting at once ($/cancelRequest).
  return Promise.race([within(p, ms), new Promise<undefined>((resolve) => token.onCancellationRequested(() => resolve(undefined)))]);
}


export function intersects(a: Range, b: Range): boolean {
  const before = (p: Position, q: Position) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/** Wires a connection to a server; resolves when the client has said exit. */
