// workspace/executeCommand: apply a code lens's fix, and the extension's lock, mirror, module mirror,
// SBOM and outdated runs with work-done progress ($/progress), stopped by $/cancelRequest.
import { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { lockProviders } from '../engine/lock';
import { mirrorProviders } from '../engine/mirror';
import { mirrorModules } from '../engine/modmirror';
import { mirrorToOci } from '../engine/ocimirror';
import { buildDependencyGraph, rootConfigDirs } from '../engine/deps';
import type { Fix } from '../features/fixes';
import type { LockFixArgs } from '../features/lockStatus';
import { scanFeatureDirs } from '../features/workspace';
import { publishFromEditor } from '../features/publish';
import { exportSbom, SbomExportResult } from '../features/sbom';
import { COMMANDS } from './common';
import { fixEdit } from './requests';
import type { TofuRegistryServer } from './server';

export async function executeCommand(s: TofuRegistryServer, command: string, args: unknown[], token: CancellationToken,
  progress: WorkDoneProgressReporter & { token?: CancellationToken }): Promise<unknown> {
  if (command === COMMANDS.applyFix) {
    const [uri, version, fix] = args as [string, number, Fix];
    const doc = s.docs.get(uri);
    if (!doc || doc.version !== version) {
      void s.connection.window.showInformationMessage('The document changed; run the fix again from the updated code lens.');
      return false;
    }
    return (await s.connection.workspace.applyEdit({ label: fix.title, edit: fixEdit(s, doc, fix) })).applied;
  }
  if (command === COMMANDS.exportSbom) return sbomCommand(s, args, token, progress);
  if (!s.networkAllowed()) throw new Error(`${command} needs network access, which the offline setting turns off`);
  const a = (args[0] && typeof args[0] === 'object' ? args[0] : {}) as LockFixArgs & { platforms?: string[]; out?: string; oci?: string | boolean; allMatching?: boolean; baseUrl?: string };
  const ac = new AbortController();
  token.onCancellationRequested(() => ac.abort());
  progress.token?.onCancellationRequested(() => ac.abort()); // the progress's own cancel button
  if (command === COMMANDS.publishModule) {
    // [{"dir": DIR, "target": "oci://HOST/REPO", "tags": [...], "annotations"?: {...}, "force"?: true}] → publish-module's result
    const p = (args[0] && typeof args[0] === 'object' ? args[0] : {}) as { dir?: string; target?: string; tags?: string[]; annotations?: Record<string, string>; force?: boolean };
    if (!p.dir || !p.target || !Array.isArray(p.tags)) throw new Error(`${command}: arguments [{"dir": DIR, "target": "oci://HOST/REPO", "tags": ["1.0.0"]}] are required`);
    progress.begin(`Publishing to ${p.target}`, 0, undefined, true);
    try {
      return await publishFromEditor(s, { dir: p.dir, target: p.target, tags: p.tags, annotations: p.annotations, force: p.force === true, signal: ac.signal });
    } finally {
      progress.done();
    }
  }
  const dirs = a.dirs?.length ? a.dirs : s.workspaceFolders;
  if (!dirs.length) throw new Error(`${command}: no directory given (arguments [{"dirs": [...]}]) and no workspace folder`);
  const title = command === COMMANDS.lock ? 'Locking providers' : command === COMMANDS.mirror ? 'Mirroring providers'
    : command === COMMANDS.mirrorModules ? 'Mirroring modules' : command === COMMANDS.outdated ? 'Checking dependencies' : undefined;
  if (!title) throw new Error(`unknown command ${command}`);
  progress.begin(title, 0, undefined, true);
  let total = 0;
  let done = 0;
  const step = (message: string) => { done++; progress.report(total ? Math.min(100, Math.round((100 * done) / total)) : 0, `${done}/${total} — ${message}`); };
  try {
    if (command === COMMANDS.lock) {
      const platforms = a.platforms?.length ? a.platforms : s.current.lockPlatforms;
      const report = await lockProviders({
        engine: s.engine, dirs, platforms, concurrency: s.current.mirrorConcurrency, upgrade: a.upgrade, signal: ac.signal,
        onProgress: (e) => {
          if (e.kind === 'planned') total += e.packages;
          if (e.kind === 'package') step(`${e.provider} ${e.version} ${e.platform}: ${e.outcome}`);
        },
      });
      for (const f of report.lockFiles) s.lock.lockFileChanged(f.dir);
      return report;
    }
    // mirror into an OCI registry: {"oci": TEMPLATE}, or {"oci": true} for tofuRegistry.oci.providerRepositoryTemplate
    const ociTemplate = command === COMMANDS.mirror && a.oci ? (typeof a.oci === 'string' ? a.oci : s.current.ociProviderRepositoryTemplate) : undefined;
    if (command === COMMANDS.mirror && a.oci) {
      if (!ociTemplate) throw new Error(`${command}: no repository template (arguments [{"oci": "host/repo/\${namespace}/\${type}"}] or the oci.providerRepositoryTemplate setting)`);
      if (a.out) throw new Error(`${command}: "out" and "oci" exclude each other`);
      const scan = await scanFeatureDirs(dirs, s.current, s.log);
      return await mirrorToOci({
        engine: s.engine, dirs: scan.dirs, template: ociTemplate, concurrency: s.current.mirrorConcurrency, signal: ac.signal,
        platforms: a.platforms?.length ? a.platforms : s.current.mirrorPlatforms,
        onProgress: (e) => {
          if (e.kind === 'planned') total = e.total;
          if (e.kind === 'done') step(`${e.target.provider} ${e.target.version} ${e.target.platform}: ${e.outcome}`);
        },
      });
    }
    if (command === COMMANDS.mirror || command === COMMANDS.mirrorModules) {
      if (!a.out) throw new Error(`${command}: the output directory is required (arguments [{"dirs": [...], "out": "DIR"}])`);
      const scan = await scanFeatureDirs(dirs, s.current, s.log);
      if (command === COMMANDS.mirror) {
        return await mirrorProviders({
          engine: s.engine, dirs: scan.dirs, out: a.out, concurrency: s.current.mirrorConcurrency, signal: ac.signal,
          platforms: a.platforms?.length ? a.platforms : s.current.mirrorPlatforms,
          onProgress: (e) => {
            if (e.kind === 'planned') total = e.total;
            if (e.kind === 'done') step(`${e.target.provider} ${e.target.version} ${e.target.platform}: ${e.outcome}`);
          },
        });
      }
      return await mirrorModules({
        engine: s.engine, dirs: scan.dirs, out: a.out, concurrency: s.current.mirrorConcurrency, allMatching: a.allMatching, baseUrl: a.baseUrl, signal: ac.signal,
        onProgress: (e) => {
          if (e.kind === 'queued') total += 1;
          if (e.kind === 'done') step(`${e.module} ${e.version}`);
        },
      });
    }
    const scan = await scanFeatureDirs(dirs, s.current, s.log);
    const graph = await buildDependencyGraph(await rootConfigDirs(scan.dirs, dirs), { engine: s.engine, resolver: s.types.resolver, installed: s.types.resolver.installed, signal: ac.signal } as Parameters<typeof buildDependencyGraph>[1]);
    return { dependencies: graph.directories.flatMap((d) => [...d.modules, ...d.providers]), ...(scan.warnings.length ? { warnings: scan.warnings } : {}) };
  } finally {
    progress.done();
  }
}

/**
 * [{"dirs"?: [...], "format"?: "cyclonedx" | "spdx", "out"?: FILE, "offline"?: true}] → the export's result (the document in
 * `text` only when no `out` is given). Without network access (the offline setting) it is the offline document.
 */
async function sbomCommand(s: TofuRegistryServer, args: unknown[], token: CancellationToken,
  progress: WorkDoneProgressReporter & { token?: CancellationToken }): Promise<SbomExportResult | Omit<SbomExportResult, 'text'>> {
  const a = (args[0] && typeof args[0] === 'object' ? args[0] : {}) as { dirs?: string[]; format?: string; out?: string; offline?: boolean };
  const format = a.format ?? 'cyclonedx';
  if (format !== 'cyclonedx' && format !== 'spdx') throw new Error(`${COMMANDS.exportSbom}: "format" must be "cyclonedx" or "spdx"`);
  const dirs = a.dirs?.length ? a.dirs : s.workspaceFolders;
  if (!dirs.length) throw new Error(`${COMMANDS.exportSbom}: no directory given (arguments [{"dirs": [...]}]) and no workspace folder`);
  const ac = new AbortController();
  token.onCancellationRequested(() => ac.abort());
  progress.token?.onCancellationRequested(() => ac.abort());
  progress.begin('Exporting SBOM', 0, undefined, true);
  try {
    const r = await exportSbom(s, { dirs, format, out: a.out, offline: a.offline === true, signal: ac.signal });
    if (!a.out) return r;
    const { text: _text, ...rest } = r;
    return rest;
  } finally {
    progress.done();
  }
}
