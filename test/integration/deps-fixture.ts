// Shared by the dependency-view integration tests (not a test file itself): a test registry with a
// registry module whose archives carry outputs and REAL signed provider packages for acme/widget
// and hashicorp/random (relocking downloads and verifies them), the extension's dependency view,
// the team's platforms set, and the lock file those platforms need (hashes from the packages).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DependencyView } from '../../src/editor/dependencies';
import type { DepsNode } from '../../src/features/depsTree';
import { canonicalConstraints, renderLockFile } from '../../src/engine/lock';
import { expectedHashes } from '../support/expected-lock';
import { BuiltRelease, buildRelease, makeSigningKey, PackageFiles, providerDefinition } from '../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { removeTempDir, tempDir } from '../support/temp';
import { tarGz } from '../unit/types/archives';
import { extensionApi, trustTestCa, waitFor } from './editor-helpers';

export const TEAM = ['darwin_arm64', 'linux_amd64'];
export const OUTPUTS = 'output "vpc_id" {\n  value       = "vpc-1"\n  description = "ID of the VPC."\n}\noutput "subnet_ids" {\n  value = []\n}\noutput "admin_password" {\n  value     = "x"\n  sensitive = true\n}\n';

export interface DepsFixture {
  reg: TestRegistry;
  view: DependencyView;
  files: PackageFiles;
  /** The lock file the team's platforms need: [namespace/type, version, constraint] per provider, each with its packages' own hashes. */
  expectedLock(entries: Array<[string, string, string]>): Promise<string>;
  /** The zip of one package (for download faults). */
  zipOf(addr: string, version: string, platform: string): string;
  stop(): Promise<void>;
}

export async function startDepsFixture(): Promise<DepsFixture> {
  const reg = await startTestRegistry();
  reg.addModule({ namespace: 'deps', name: 'net', system: 'aws', versions: ['1.0.0', '1.1.0', '2.0.0'] });
  for (const v of ['1.1.0', '2.0.0']) reg.addFile(`/archives/deps/net/aws/${v}.tar.gz`, tarGz([{ name: 'outputs.tf', data: OUTPUTS }]), 'application/gzip');
  // Real signed packages for the providers (they replace the fixture's metadata-only ones).
  const files = new PackageFiles(reg.server);
  const key = await makeSigningKey();
  const packages = tempDir('it-deps-pkgs-');
  const releases = new Map<string, BuiltRelease>();
  for (const [ns, type, versions] of [['acme', 'widget', ['1.0.0', '1.1.0', '2.0.0']], ['hashicorp', 'random', ['3.5.0', '3.6.0']]] as const) {
    const built: BuiltRelease[] = [];
    for (const version of versions) built.push(await buildRelease(packages, { namespace: ns, type, version, platforms: ['darwin_arm64', 'linux_amd64', 'windows_amd64'] }, key));
    for (const r of built) { files.add(r); releases.set(`${ns}/${type} ${r.version}`, r); }
    reg.addProvider(providerDefinition(files, built, [key]));
  }
  const api = await extensionApi();
  await trustTestCa(api, reg);
  await vscode.workspace.getConfiguration('tofuRegistry').update('lock.platforms', TEAM, vscode.ConfigurationTarget.Global);
  assert.ok(api.dependencies, 'the dependencies view is registered');
  return {
    reg, files, view: api.dependencies,
    expectedLock: async (entries) => renderLockFile(await Promise.all(entries.map(async ([addr, version, constraint]) => ({
      address: `${reg.host}/${addr}`, version, constraints: canonicalConstraints([constraint]), hashes: await expectedHashes(releases.get(`${addr} ${version}`)!, TEAM),
    })))),
    zipOf: (addr, version, platform) => releases.get(`${addr} ${version}`)!.packages.find((p) => p.platform === platform)!.filename,
    async stop() {
      await vscode.workspace.getConfiguration('tofuRegistry').update('lock.platforms', undefined, vscode.ConfigurationTarget.Global);
      await reg.stop();
      removeTempDir(packages);
    },
  };
}

/** The dependency items of one folder item of the view. */
export function depNodes(view: DependencyView, dirLabel: string): DepsNode[] {
  const dir = view.getChildren().find((n) => n.label === dirLabel);
  assert.ok(dir, `a folder item "${dirLabel}" in ${JSON.stringify(view.getChildren().map((n) => n.label))}`);
  return view.getChildren(dir).flatMap((g) => view.getChildren(g));
}

export function depItem(view: DependencyView, dirLabel: string, name: string): Extract<DepsNode, { kind: 'dep' }> {
  const n = depNodes(view, dirLabel).find((x) => x.kind === 'dep' && x.label === name);
  assert.ok(n && n.kind === 'dep', `an item "${name}"`);
  return n;
}

/** Captures the messages the extension shows (information and warning) while `fn` runs; the first action is never chosen. */
export async function capturingMessages<T>(fn: (shown: string[]) => Promise<T>): Promise<T> {
  const shown: string[] = [];
  const w = vscode.window as unknown as Record<string, unknown>;
  const originals = { info: w.showInformationMessage, warn: w.showWarningMessage };
  w.showInformationMessage = (m: string) => { shown.push(`info: ${m}`); return Promise.resolve(undefined); };
  w.showWarningMessage = (m: string) => { shown.push(`warning: ${m}`); return Promise.resolve(undefined); };
  try {
    return await fn(shown);
  } finally {
    w.showInformationMessage = originals.info;
    w.showWarningMessage = originals.warn;
  }
}

/**
 * `mkdir -p` for a test that relies on the view's file watcher: one level at a time, each seen by
 * the workspace watcher before the next. A recursive inotify watcher learns of a directory from
 * its parent's event; a subdirectory created in the same instant (mkdir -p) is never watched, and
 * the files written into it are never reported.
 */
export async function mkdirWatched(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) missing.unshift(d);
  const seen = new Set<string>();
  const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, true);
  const sub = watcher.onDidCreate((uri) => seen.add(uri.fsPath));
  try {
    for (const d of missing) {
      fs.mkdirSync(d);
      await waitFor(`the workspace file watcher to report ${d}`, () => seen.has(d), 10000);
    }
  } finally {
    sub.dispose();
    watcher.dispose();
  }
}
