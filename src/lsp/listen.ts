// Wires a connection's protocol events to the server.
import {
  Connection, DidChangeConfigurationParams, DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
  DidOpenTextDocumentParams, DidSaveTextDocumentParams, DocumentDiagnosticReportKind, Range,
} from 'vscode-languageserver/node';
import { executeCommand } from './commands';
import { COMMANDS } from './common';
import { codeActions, codeLenses, completion, hover } from './requests';
import { ServerOptions, TofuRegistryServer } from './server';

export function listen(connection: Connection, options: ServerOptions): Promise<number> {
  const server = new TofuRegistryServer(connection, options);
  let watchedFilesDynamic = false;
  let shutdown = false;
  connection.onInitialize((params) => {
    watchedFilesDynamic = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    return server.initialize(params);
  });
  connection.onInitialized(() => { void server.initialized({ watchedFilesDynamic }); });
  connection.onDidChangeConfiguration((p: DidChangeConfigurationParams) => { void server.configurationChanged(p.settings); });
  connection.onDidOpenTextDocument((p: DidOpenTextDocumentParams) => server.opened(p.textDocument.uri, p.textDocument.languageId, p.textDocument.version, p.textDocument.text));
  connection.onDidChangeTextDocument((p: DidChangeTextDocumentParams) => server.changed(p.textDocument.uri, p.textDocument.version, p.contentChanges as Array<{ range?: Range; text: string }>));
  connection.onDidSaveTextDocument((p: DidSaveTextDocumentParams) => server.saved(p.textDocument.uri));
  connection.onDidCloseTextDocument((p: DidCloseTextDocumentParams) => server.closed(p.textDocument.uri));
  connection.onDidChangeWatchedFiles((p: DidChangeWatchedFilesParams) => server.watchedFilesChanged(p.changes.map((c) => c.uri)));
  connection.onCompletion((p, token) => completion(server, p.textDocument.uri, p.position, token));
  connection.onHover((p, token) => hover(server, p.textDocument.uri, p.position, token));
  connection.onCodeAction((p, token) => codeActions(server, p.textDocument.uri, p.range, p.context, token));
  connection.onCodeLens((p) => codeLenses(server, p.textDocument.uri));
  connection.onExecuteCommand(async (p, token, progress) => {
    // The client's work-done token when it sent one; else progress the server creates (window/workDoneProgress/create),
    // which the client may cancel too.
    const reporter = p.workDoneToken === undefined && server.workDoneProgress && p.command !== COMMANDS.applyFix
      ? await connection.window.createWorkDoneProgress().catch(() => progress) : progress;
    return executeCommand(server, p.command, p.arguments ?? [], token, reporter);
  });
  connection.languages.diagnostics.on((p) => ({ kind: DocumentDiagnosticReportKind.Full, items: server.pulled(p.textDocument.uri) }));
  connection.onShutdown(() => { shutdown = true; server.dispose(); });
  return new Promise((resolve) => {
    connection.onExit(() => resolve(shutdown ? 0 : 1));
    connection.listen();
  });
}
