// Palette commands: "Show service discovery for host…", "Clear registry cache", "Show log".
import * as vscode from 'vscode';
import { describeError } from '../features/hover';
import type { Services } from './services';

export function registerCommands(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('tofuRegistry.showLog', () => services.log.show(true)),
    vscode.commands.registerCommand('tofuRegistry.clearCache', async () => {
      await services.engine.clearCache();
      services.reset();
      services.log.info('registry cache cleared');
      void vscode.window.showInformationMessage('OpenTofu Registry: cache cleared.');
    }),
    vscode.commands.registerCommand('tofuRegistry.showDiscovery', async (hostArg?: string) => {
      const host = hostArg ?? await vscode.window.showInputBox({
        title: 'Show service discovery for host', prompt: 'Registry host name (host or host:port)',
        value: 'registry.opentofu.org', ignoreFocusOut: true,
      });
      if (!host) return undefined;
      if (!services.networkAllowed()) {
        void vscode.window.showWarningMessage('OpenTofu Registry: no network requests in an untrusted workspace.');
        return undefined;
      }
      try {
        const d = await services.engine.discoverServices(host.trim());
        const text = JSON.stringify({ host: d.host, discoveryUrl: d.discoveryUrl, finalUrl: d.finalUrl, services: d.services }, null, 2);
        services.log.info(`service discovery for ${d.host}: ${JSON.stringify(d.services)}`);
        if (!hostArg) {
          const doc = await vscode.workspace.openTextDocument({ language: 'json', content: text + '\n' });
          await vscode.window.showTextDocument(doc, { preview: true });
        }
        return d;
      } catch (err) {
        const msg = describeError(err);
        services.log.error(`service discovery for ${host}: ${msg}`);
        if (!hostArg) void vscode.window.showErrorMessage(`OpenTofu Registry: ${msg}`);
        return { error: msg };
      }
    }),
  );
}
