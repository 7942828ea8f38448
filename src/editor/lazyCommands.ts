// The palette commands that run jobs — mirror providers, mirror modules, mirror to OCI, publish a
// module, export an SBOM — are registered at activation but their code (and the engine's job
// folders only they use: mirror, modmirror, ocimirror, publish, sbom) is loaded on first use:
// jobCommands.ts, bundled apart as dist/extension-commands.js (scripts/build.mjs), so activation
// neither parses nor evaluates it. Anything it shares with the extension's bundle comes from that
// bundle (one engine, one RegistryError class).
import * as vscode from 'vscode';
import type { EditorServices } from './services';

/** The commands jobCommands.ts handles (its HANDLERS has one factory for each). */
export const JOB_COMMANDS = ['tofuRegistry.mirrorProviders', 'tofuRegistry.mirrorModules', 'tofuRegistry.mirrorProvidersToOci',
  'tofuRegistry.publishModule', 'tofuRegistry.exportSbom'] as const;
export type JobCommand = typeof JOB_COMMANDS[number];
/** A command's handler, made once per activation from the context and services. */
export type CommandFactory = (context: vscode.ExtensionContext, services: EditorServices) => (...args: unknown[]) => unknown;

export function registerJobCommands(context: vscode.ExtensionContext, services: EditorServices): void {
  let module: Promise<typeof import('./jobCommands')> | undefined;
  const handlers = new Map<JobCommand, (...args: unknown[]) => unknown>();
  for (const id of JOB_COMMANDS) {
    context.subscriptions.push(vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      // a failed load (a damaged installation) is tried again on the next use
      module ??= import('./jobCommands').catch((err: unknown) => { module = undefined; throw err; });
      const { HANDLERS } = await module;
      let run = handlers.get(id);
      if (!run) handlers.set(id, run = HANDLERS[id](context, services));
      return run(...args);
    }));
  }
}
