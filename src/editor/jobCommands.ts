// The job commands' handlers, loaded on their first use (lazyCommands.ts): its own bundle,
// dist/extension-commands.js, whose imports of code the extension's bundle has come from there.
import type { CommandFactory, JobCommand } from './lazyCommands';
import { mirrorCommand } from './mirrorCommand';
import { moduleMirrorCommand } from './modMirrorCommand';
import { ociMirrorCommand } from './ociMirrorCommand';
import { publishModuleCommand } from './publishModuleCommand';
import { sbomCommand } from './sbomCommand';

export const HANDLERS: Record<JobCommand, CommandFactory> = {
  'tofuRegistry.mirrorProviders': mirrorCommand,
  'tofuRegistry.mirrorModules': moduleMirrorCommand,
  'tofuRegistry.mirrorProvidersToOci': ociMirrorCommand,
  'tofuRegistry.publishModule': publishModuleCommand,
  'tofuRegistry.exportSbom': sbomCommand,
};
