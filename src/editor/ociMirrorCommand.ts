// "OpenTofu: Mirror providers to an OCI registry…": picks the configurations, asks for the
// repository template (prefilled from tofuRegistry.oci.providerRepositoryTemplate, remembered there),
// pushes with cancellable progress and opens a summary with the provider_installation block to
// paste. Thin adapter over src/engine/ocimirror (the same engine as `tofu-registry mirror --oci`).
//
// Programmatic use (tests, other extensions) skips every prompt:
//   executeCommand('tofuRegistry.mirrorProvidersToOci', { template, dirs, platforms?, concurrency?, fromMirror?, show? })
// resolves to { report, markdown } (undefined when the user cancelled a prompt).
import * as vscode from 'vscode';
import type { EditorServices } from './services';
import { chooseDirs, commandArgs } from './mirrorCommand';
import { platformsSetting } from '../engine/mirror';
import { cell } from '../engine/mirror/report';
import { mirrorToOci, OciMirrorReport, parseRepositoryTemplate } from '../engine/ocimirror';

export const TEMPLATE_SETTING = 'oci.providerRepositoryTemplate';
const TITLE = 'Mirror providers to an OCI registry';

export interface OciMirrorCommandArgs {
  template?: string;
  dirs?: string[];
  platforms?: string[];
  concurrency?: number;
  fromMirror?: string;
  /** Open the Markdown summary (default true). */
  show?: boolean;
}

/** tofuRegistry.mirrorProvidersToOci's handler (registered by lazyCommands.ts, loaded on first use). */
export function ociMirrorCommand(_context: vscode.ExtensionContext, services: EditorServices) {
  return (arg?: unknown, selection?: unknown) => runOciMirrorCommand(services, commandArgs<OciMirrorCommandArgs>(arg, selection));
}

async function askTemplate(): Promise<string | undefined> {
  const cfg = vscode.workspace.getConfiguration('tofuRegistry');
  const template = await vscode.window.showInputBox({
    title: `${TITLE}: repository template`,
    prompt: 'OpenTofu\'s repository_template: the registry host, then a path with ${namespace} and ${type} (and ${hostname} for several origin registries)',
    placeHolder: 'registry.example.com/opentofu-providers/${namespace}/${type}',
    value: cfg.get<string>(TEMPLATE_SETTING) || undefined,
    ignoreFocusOut: true,
    validateInput: (text) => {
      try { parseRepositoryTemplate(text.trim()); return undefined; } catch (err) { return (err as Error).message; }
    },
  });
  const t = template?.trim();
  if (t && t !== cfg.get<string>(TEMPLATE_SETTING)) await cfg.update(TEMPLATE_SETTING, t, vscode.ConfigurationTarget.Global);
  return t || undefined;
}

async function runOciMirrorCommand(services: EditorServices, args: OciMirrorCommandArgs): Promise<{ report: OciMirrorReport; markdown: string } | undefined> {
  if (!services.networkAllowed()) {
    void vscode.window.showWarningMessage(`${TITLE} needs network access, which is disabled in an untrusted workspace.`);
    return undefined;
  }
  const programmatic = !!args.template && !!args.dirs;
  const dirs = await chooseDirs(args, programmatic, services.log, TITLE);
  if (!dirs) return undefined;
  const template = args.template ?? (await askTemplate());
  if (!template) return undefined;
  const cfg = vscode.workspace.getConfiguration('tofuRegistry');
  const platforms = args.platforms?.length ? args.platforms : platformsSetting(cfg.get<unknown>('mirror.platforms'));
  const concurrency = Math.min(64, Math.max(1, args.concurrency ?? cfg.get<number>('mirror.concurrency') ?? 8));

  let report: OciMirrorReport;
  try {
    report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: TITLE, cancellable: true }, async (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      let total = 0;
      let done = 0;
      return mirrorToOci({
        engine: services.engine, dirs, template, platforms, concurrency, fromMirror: args.fromMirror, signal: ac.signal,
        onProgress: (e) => {
          if (e.kind === 'failed') { for (const f of e.failures) services.log.warn(`oci mirror: ${f.message}`); return; }
          if (e.kind === 'planned') { total = e.total; progress.report({ message: `${total} packages to check` }); return; }
          if (e.kind !== 'done') return;
          done++;
          const who = `${e.target.provider} ${e.target.version} ${e.target.platform}`;
          const outcome = e.outcome === 'mirrored' ? 'pushed' : e.outcome;
          if (e.outcome === 'failed') services.log.warn(`oci mirror: ${e.message ?? `${who}: failed`}`);
          else services.log.info(`oci mirror: ${outcome} ${who}`);
          progress.report({ increment: total ? 100 / total : 0, message: `${done}/${total} — ${who}: ${outcome}` });
        },
      });
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    services.log.error(`oci mirror: ${message}`);
    void vscode.window.showErrorMessage(`${TITLE}: ${message}`);
    return undefined;
  }
  const markdown = summaryMarkdown(report);
  if (args.show !== false) {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
  const summary = `OCI mirror: ${report.pushed.length} pushed, ${report.upToDate.length} up to date, ${report.failed.length} failed.`;
  if (report.failed.length) void vscode.window.showWarningMessage(summary);
  else void vscode.window.showInformationMessage(summary);
  return { report, markdown };
}

/** What was pushed, what failed and the block to paste into the CLI configuration. */
function summaryMarkdown(r: OciMirrorReport): string {
  const lines = [`# ${TITLE}`, '', `Repository template: \`${r.repositoryTemplate}\``, '',
    `${r.pushed.length} pushed, ${r.upToDate.length} up to date, ${r.failed.length} failed.`, ''];
  const rows = [...r.pushed.map((p) => ({ ...p, outcome: 'pushed' })), ...r.upToDate.map((p) => ({ ...p, outcome: 'up to date' }))];
  if (rows.length) {
    lines.push('| Provider | Version | Platform | Repository:tag | Outcome |', '|---|---|---|---|---|');
    for (const p of rows) lines.push(`| ${cell(p.provider)} | ${cell(p.version)} | ${p.platform} | ${cell(`${p.repository}:${p.tag}`)} | ${p.outcome} |`);
    lines.push('');
  }
  if (r.failed.length) {
    lines.push('## Failed', '');
    for (const f of r.failed) lines.push(`- ${f.message.replace(/\n/g, ' ')}`);
    lines.push('');
  }
  if (rows.length) lines.push('## CLI configuration', '', 'For `tofu init` (1.10 or later) to install these providers from the registry, add to `~/.tofurc`:', '', '```hcl', r.providerInstallation.trimEnd(), '```', '');
  return lines.join('\n');
}
