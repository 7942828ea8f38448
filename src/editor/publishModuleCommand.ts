// "OpenTofu: Publish module to an OCI registry…" (palette + explorer context menu on a folder): asks
// for the repository and the tags, publishes with cancellable progress, and shows the source
// addresses to write (by tag, and pinned to the digest). A tag that points at other content is
// refused; the user may then move it explicitly. Thin adapter over src/features/publish.ts.
//
// Programmatic use (tests) skips every prompt:
//   executeCommand('tofuRegistry.publishModule', { dir, target, tags, annotations?, force? }) → PublishResult | undefined
import * as vscode from 'vscode';
import type { PublishResult } from '../engine/publish/publish';
import { parsePublishTags, publishFromEditor, publishSummary, publishTagsProblem, publishTargetProblem } from '../features/publish';
import type { EditorServices } from './services';

const TITLE = 'Publish module to an OCI registry';
const LAST_TARGET_KEY = 'tofuRegistry.publishModule.lastTarget';

interface PublishCommandArgs {
  dir?: string;
  target?: string;
  tags?: string[];
  annotations?: Record<string, string>;
  force?: boolean;
}

/** tofuRegistry.publishModule's handler (registered by lazyCommands.ts, loaded on first use). */
export function publishModuleCommand(context: vscode.ExtensionContext, services: EditorServices) {
  return (arg?: unknown) => runPublish(context, services, arg instanceof vscode.Uri ? { dir: arg.fsPath } : (arg && typeof arg === 'object' ? arg as PublishCommandArgs : {}));
}

async function chooseDir(): Promise<string | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const picked = await vscode.window.showOpenDialog({ title: `${TITLE}: the module's folder`, canSelectFolders: true, canSelectFiles: false,
    defaultUri: folders[0]?.uri, openLabel: 'Publish this folder' });
  return picked?.[0]?.fsPath;
}

async function runPublish(context: vscode.ExtensionContext, services: EditorServices, args: PublishCommandArgs): Promise<PublishResult | undefined> {
  if (!services.networkAllowed()) {
    void vscode.window.showWarningMessage(`${TITLE} needs network access, which is disabled in an untrusted workspace.`);
    return undefined;
  }
  const programmatic = !!args.dir && !!args.target && !!args.tags;
  const dir = args.dir ?? await chooseDir();
  if (!dir) return undefined;
  const target = args.target ?? await vscode.window.showInputBox({
    title: `${TITLE} (1/2): repository`, prompt: `Where to publish ${vscode.workspace.asRelativePath(dir)}`, placeHolder: 'oci://registry.example.com/modules/network',
    value: context.globalState.get<string>(LAST_TARGET_KEY), ignoreFocusOut: true, validateInput: (v) => publishTargetProblem(v),
  });
  if (!target) return undefined;
  const tagText = args.tags?.join(' ') ?? await vscode.window.showInputBox({
    title: `${TITLE} (2/2): tags`, prompt: 'One or more tags, separated by spaces or commas (released tags are never moved silently)',
    placeHolder: '1.0.0, latest', ignoreFocusOut: true, validateInput: (v) => publishTagsProblem(v),
  });
  if (!tagText) return undefined;
  if (!programmatic) await context.globalState.update(LAST_TARGET_KEY, target.trim());
  const run = (force: boolean) => vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Publishing to ${target.trim()}`, cancellable: true },
    (_progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      return publishFromEditor(services, { dir, target, tags: parsePublishTags(tagText), annotations: args.annotations, force, signal: ac.signal });
    });
  let result: PublishResult;
  try {
    result = await run(!!args.force);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    services.log.error(`publish module: ${message}`);
    if (programmatic || !/--force/.test(message)) {
      void vscode.window.showErrorMessage(`${TITLE}: ${message}`);
      return undefined;
    }
    // A released tag would move: only on an explicit, modal choice.
    const move = await vscode.window.showWarningMessage(message.replace(/, or pass --force to move (it|them)$/, '.'), { modal: true }, 'Move the tags');
    if (move !== 'Move the tags') return undefined;
    try { result = await run(true); } catch (again) {
      void vscode.window.showErrorMessage(`${TITLE}: ${again instanceof Error ? again.message : String(again)}`);
      return undefined;
    }
  }
  const summary = publishSummary(result);
  services.log.info(summary);
  if (!programmatic) {
    void vscode.window.showInformationMessage(summary, 'Copy source (tag)', 'Copy source (digest)').then((choice) => {
      if (choice) void vscode.env.clipboard.writeText(`source = "${choice.endsWith('(tag)') ? result.sources.tag : result.sources.digest}"`);
    });
  }
  return result;
}
