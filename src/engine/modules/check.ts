// Whole-file / whole-directory type checks shared by `tofu-registry types check` and the editor:
// variable type constraints and defaults, and every module call's inputs.
import * as path from 'node:path';
import type { ConfigFile, Diagnostic } from '../config/ast';
import type { FileSummary, ModuleCall } from '../config/extract';
import { findConfigFiles, loadConfigDir, isConfigFileName, parseConfig } from '../config/files';
import { mapLimit } from '../fstree';
import { redactUrls } from '../net/http-errors';
import { checkOutputReferences, moduleCallsOfDirectory, outputReferences } from '../modulepkg/outputs';
import { analyzeVariable, interfaceFromFiles } from '../modulepkg/variables';
import { checkModuleCall } from './inputs';
import type { ModuleResolver, ResolvedModule } from '../modulepkg/resolve';

export interface FileCheckInput {
  path: string;
  text: string;
  syntax: 'hcl' | 'json';
  summary: FileSummary;
  /** The parsed file, when the caller has it (parsed from `text` otherwise). */
  file?: ConfigFile;
}

export interface FileCheckResult {
  diagnostics: Diagnostic[];
  variables: { name: string; type: string }[];
}

/** The literal source of a module call, or undefined when it is missing / not a literal. */
export function callSource(call: ModuleCall): string | undefined {
  return call.source?.literal ?? undefined;
}

/**
 * Diagnostics for one file: its variable declarations, and each module call whose module can be
 * resolved (a module that cannot be loaded yields a warning on its `source`).
 */
export async function checkFile(
  input: FileCheckInput,
  resolver: ModuleResolver | undefined,
  /** Called instead of adding the warning when a module cannot be loaded (the editor logs it). */
  onUnresolved?: (call: ModuleCall, err: unknown) => void,
): Promise<FileCheckResult> {
  const diagnostics: Diagnostic[] = [];
  const variables: FileCheckResult['variables'] = [];
  for (const decl of input.summary.variables) {
    const r = analyzeVariable(decl, input.text, input.path, input.syntax);
    diagnostics.push(...r.diagnostics);
    variables.push({ name: decl.name, type: r.variable.typeText });
  }
  if (resolver) {
    const dir = path.dirname(path.resolve(input.path));
    const results = await Promise.all(input.summary.modules.map(async (call) => {
      const source = callSource(call);
      if (!source) return [];
      let mod: ResolvedModule;
      try {
        mod = await resolver.resolve({ callerDir: dir, name: call.name, source, version: call.version?.literal ?? null });
      } catch (err) {
        if (onUnresolved) { onUnresolved(call, err); return []; }
        return [{
          // The resolver's errors are redacted at their source; this covers any other thrower.
          message: `Cannot check the inputs of module "${call.name}": ${redactUrls(err instanceof Error ? err.message : String(err))}`,
          range: call.source!.range, severity: 'warning' as const,
        }];
      }
      return checkModuleCall(call, mod.iface, input.text);
    }));
    for (const r of results) diagnostics.push(...r);
    diagnostics.push(...await checkOutputs(input, dir, resolver));
  }
  diagnostics.sort((a, b) => a.range.start.offset - b.range.start.offset);
  return { diagnostics, variables };
}

/** References to outputs the called module does not declare (modules that cannot be loaded are skipped). */
async function checkOutputs(input: FileCheckInput, dir: string, resolver: ModuleResolver): Promise<Diagnostic[]> {
  const file = input.file ?? parseConfig(input.text, input.path);
  const refs = outputReferences(file);
  if (!refs.length) return [];
  const calls = await moduleCallsOfDirectory({ path: input.path, calls: input.summary.modules });
  const names = [...new Set(refs.map((r) => r.module))];
  const loaded = new Map<string, ResolvedModule>();
  await Promise.all(names.map(async (name) => {
    const call = calls.find((c) => c.name === name);
    const source = call && callSource(call);
    if (!call || !source) return;
    try {
      loaded.set(name, await resolver.resolve({ callerDir: dir, name, source, version: call.version?.literal ?? null }));
    } catch { /* reported on the module block by the input check */ }
  }));
  return checkOutputReferences(file, (name) => loaded.get(name)?.iface.outputs);
}

export interface DirectoryCheckResult {
  diagnostics: { path: string; diagnostic: Diagnostic }[];
  variables: { path: string; name: string; type: string }[];
}

/**
 * Directories checked at once: enough for the module lookups of many directories to overlap (a
 * registry's latency is paid once per round, not once per directory), few enough that only their
 * parsed files are in memory — each directory's are dropped once it is checked.
 */
const CHECK_CONCURRENCY = 16;

/** Every configuration directory under `root` (recursively, skipping .terraform/.git/node_modules). */
export async function checkDirectory(root: string, resolver: ModuleResolver | undefined): Promise<DirectoryCheckResult> {
  const files = (await findConfigFiles([root])).filter((f) => isConfigFileName(f));
  const dirs = [...new Set(files.map((f) => path.dirname(f)))].sort();
  const perDir = await mapLimit(dirs, CHECK_CONCURRENCY, (dir) => checkOneDirectory(dir, resolver));
  return { diagnostics: perDir.flatMap((r) => r.diagnostics), variables: perDir.flatMap((r) => r.variables) };
}

/** One directory's files: read, parsed, checked; only the results are kept. */
async function checkOneDirectory(dir: string, resolver: ModuleResolver | undefined): Promise<DirectoryCheckResult> {
  const out: DirectoryCheckResult = { diagnostics: [], variables: [] };
  const loaded = (await loadConfigDir(dir)).files;
  // Override files: problems that only appear once they are merged over the primary files.
  const merge = interfaceFromFiles(dir, loaded).overrideDiagnostics;
  const results = await Promise.all(loaded.map((f) => checkFile({ path: f.path, text: f.text, syntax: f.file.syntax, summary: f.summary, file: f.file }, resolver)));
  for (const [i, f] of loaded.entries()) {
    const p = path.join(dir, path.basename(f.path));
    const r = results[i];
    const diags = [...r.diagnostics, ...merge.filter((m) => m.path === f.path).map((m) => m.diagnostic)];
    diags.sort((a, b) => a.range.start.offset - b.range.start.offset);
    for (const d of f.file.diagnostics) if (d.severity === 'error') out.diagnostics.push({ path: p, diagnostic: d });
    for (const d of diags) out.diagnostics.push({ path: p, diagnostic: d });
    for (const v of r.variables) out.variables.push({ path: p, name: v.name, type: v.type });
  }
  return out;
}
