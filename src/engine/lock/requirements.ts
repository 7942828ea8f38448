// Every provider a configuration needs, as OpenTofu's Config.ProviderRequirements() sees it: the
// root module and all child modules, each with its own local names — `required_providers`
// (object and legacy string forms), `provider` blocks (their deprecated `version` adds a
// constraint), and resources / data sources (implied by type prefix or their `provider` argument).
// Local modules are read from disk; other sources through a ModuleResolver (installed by `tofu
// init` under .terraform/modules, else fetched — where tofu would refuse, we read them anyway).
// Every constraint keeps where it came from, for the editor's diagnostics.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { impliedProvider, isBuiltInProvider, parseProviderSource, ProviderAddress } from '../addresses';
import type { Block, ConfigFile, Expression, Range } from '../config/ast';
import { extractFile, extractModule } from '../config/extract';
import { FS_CONCURRENCY, mapLimit, readText, withOpenFile } from '../fstree';
import { applyTofuPrecedence, isConfigFileName, isOverrideFile, parseConfig } from '../config/files';
import { ModuleBudget, untilAborted } from '../modulepkg/budget';
import { localModuleDir, locateModule } from '../modulepkg/locate';
import type { ModuleRequest } from '../modulepkg/resolve';
import { redactUrls, shortText, shownUrl } from '../net/http-errors';
import { compareStrings } from '../types/model';
import { tryParseConstraint } from '../versions';

export interface ConstraintOrigin {
  /** Module path: "" for the root module, else call names joined by "." ("network.subnets"). */
  module: string;
  /** The configuration file (absolute path). */
  file: string;
  /** The version constraint as written, or null when this place sets none. */
  constraint: string | null;
  /** The constraint's value (or, without one, the entry/block that requires the provider). */
  range: Range;
  kind: 'required_providers' | 'provider-block' | 'implied';
  localName: string;
}

export interface RequiredProviderInfo {
  /** hostname/namespace/type */
  address: string;
  provider: ProviderAddress;
  /** Every constraint on it across all modules, as written (duplicates kept; see canonicalConstraints). */
  constraints: string[];
  origins: ConstraintOrigin[];
}

export interface RequirementProblem {
  message: string;
  file?: string;
  range?: Range;
}

export interface ProviderRequirements {
  /** The root module directory (absolute). */
  dir: string;
  /** Providers that participate in locking, by address. */
  providers: RequiredProviderInfo[];
  /** Built-in providers required (terraform.io/builtin/…): never locked. */
  builtIn: string[];
  /** Child modules read: module path → directory. */
  modules: Array<{ path: string; dir: string; source: string }>;
  /** Configuration problems (invalid address or constraint, module that could not be read…). */
  errors: RequirementProblem[];
  /** Every configuration file read (absolute paths). */
  files: string[];
}

/** What finds a non-local module's directory: a ModuleResolver, or sharedModuleReader's view of one (both locateModule). */
export interface ModuleDirResolver {
  resolve(req: ModuleRequest): Promise<{ dir: string }>;
}

export interface CollectOptions {
  /** Finds called modules; without one only local modules are read, others are an error (the list would be incomplete). */
  resolver?: ModuleDirResolver;
  /** Text of files that differ from disk (an editor's unsaved buffers), by absolute path. */
  overlay?: ReadonlyMap<string, string>;
  /** How deep module calls may nest and how many modules the walk may reach (default: a budget of its own per call). */
  budget?: ModuleBudget;
  /** Stops the walk: no module is fetched or read after it aborts. */
  signal?: AbortSignal;
}

/** "FILE:LINE: message" (or the message alone), as lock runs and the dependency graph report a problem. */
export function problemText(e: RequirementProblem): string {
  return e.file ? `${e.file}${e.range ? `:${e.range.start.line + 1}` : ''}: ${e.message}` : e.message;
}

interface LocalRequirement { source?: string; constraint: string | null; range: Range; file: string; override: boolean }

// What reading one module contributes to the result, in the order a sequential depth-first walk
// adds it: modules are read in parallel, then replayed in this order, so every list in the result
// (files, errors, modules, each provider's origins and constraints) is the same as one at a time.
type Op =
  | { kind: 'error'; problem: RequirementProblem }
  | { kind: 'file'; path: string }
  | { kind: 'require'; addr: ProviderAddress; origin: ConstraintOrigin }
  | { kind: 'module'; entry: { path: string; dir: string; source: string }; ops: Op[] }
  // a call past the budget after its error was reported once
  | { kind: 'module-skipped' };

/** Child modules of one module read at a time (each level; file reads share one limit below). */
const CHILD_CONCURRENCY = 8;

/** Reads the module tree rooted at `dir`; never throws for configuration problems (see `errors`). */
export async function collectProviderRequirements(dir: string, opts: CollectOptions = {}): Promise<ProviderRequirements> {
  const root = path.resolve(dir);
  const result: ProviderRequirements = { dir: root, providers: [], builtIn: [], modules: [], errors: [], files: [] };
  const budget = opts.budget ?? new ModuleBudget();
  // `chain`: the directories from the root (a call back into one is a cycle); `calls`: the calls that led here, for messages.
  const visit = async (moduleDir: string, modulePath: string, chain: string[], calls: string[]): Promise<Op[]> => {
    const ops: Op[] = [];
    const error = (problem: RequirementProblem) => { ops.push({ kind: 'error', problem }); };
    const require = (addr: ProviderAddress, origin: ConstraintOrigin) => { ops.push({ kind: 'require', addr, origin }); };
    const files = await readModuleFiles(moduleDir, opts.overlay, ops);
    const local = new Map<string, LocalRequirement>();
    for (const f of files) {
      for (const rp of extractFile(f.file, f.text).requiredProviders) {
        const prev = local.get(rp.name);
        if (prev && !f.override) {
          error({ message: `Duplicate required provider "${rp.name}" (also required at ${prev.file}:${prev.range.start.line + 1})`, file: f.path, range: rp.nameRange });
          continue;
        }
        local.set(rp.name, {
          source: rp.source?.literal ?? undefined, constraint: rp.version?.literal ?? null,
          range: rp.version?.range ?? rp.range, file: f.path, override: f.override,
        });
      }
    }
    const addressOf = (localName: string, file: string, range: Range): ProviderAddress | undefined => {
      try {
        const r = local.get(localName);
        return r?.source !== undefined ? parseProviderSource(r.source) : impliedProvider(localName);
      } catch (err) {
        error({ message: `provider "${localName}": ${(err as Error).message}`, file, range });
        return undefined;
      }
    };
    const checked = (constraint: string | null, file: string, range: Range): string | null => {
      if (constraint === null) return null;
      const parsed = tryParseConstraint(constraint, 'provider');
      if ('error' in parsed) { error({ message: parsed.error, file, range }); return null; }
      return constraint;
    };
    for (const [name, r] of local) {
      const addr = addressOf(name, r.file, r.range);
      if (addr) require(addr, { module: modulePath, file: r.file, constraint: checked(r.constraint, r.file, r.range), range: r.range, kind: 'required_providers', localName: name });
    }
    const moduleCalls: Array<{ name: string; source: string; version: string | null; file: string; range: Range }> = [];
    for (const f of files) {
      for (const b of f.file.body.items) {
        if (b.kind !== 'block') continue;
        if (b.type === 'provider' && b.labels[0]) {
          const name = b.labels[0].value;
          const version = b.body.items.find((i) => i.kind === 'attribute' && i.name === 'version');
          const constraint = version?.kind === 'attribute' ? literal(version.expr) : null;
          const range = version?.kind === 'attribute' ? version.expr.range : b.labels[0].range;
          const addr = addressOf(name, f.path, range);
          if (addr) require(addr, { module: modulePath, file: f.path, constraint: checked(constraint, f.path, range), range, kind: 'provider-block', localName: name });
        } else if ((b.type === 'resource' || b.type === 'data' || b.type === 'ephemeral') && b.labels[0]) {
          const name = providerLocalName(b);
          if (!name || local.has(name)) continue; // an explicit requirement already covers it
          const addr = addressOf(name, f.path, b.labels[0].range);
          if (addr) require(addr, { module: modulePath, file: f.path, constraint: null, range: b.labels[0].range, kind: 'implied', localName: name });
        } else if (b.type === 'module' && b.labels[0]) {
          const call = extractModule(b, f.text);
          const source = call.source?.literal;
          if (!source) continue; // reported by the configuration diagnostics; nothing to follow
          moduleCalls.push({ name: b.labels[0].value, source, version: call.version?.literal ?? null, file: f.path, range: call.source!.range });
        }
      }
    }
    const children = await mapLimit(moduleCalls, CHILD_CONCURRENCY, async (c): Promise<Op> => {
      const childPath = modulePath ? `${modulePath}.${c.name}` : c.name;
      const problem = (message: string): Op => ({ kind: 'error', problem: { message, file: c.file, range: c.range } });
      const childCalls = [...calls, `${c.name} (${shortText(shownUrl(c.source), 200)})`];
      const refused = budget.claim(childCalls);
      if (refused !== undefined) return refused ? problem(`module "${childPath}": ${refused}`) : { kind: 'module-skipped' };
      if (opts.signal?.aborted) return problem(`module "${childPath}": not read, the run was cancelled`);
      let childDir: string;
      try {
        childDir = await untilAborted(moduleDirOf(moduleDir, c, opts.resolver, opts.signal), opts.signal);
      } catch (err) {
        return problem(`module "${childPath}" (${shownUrl(c.source)}) could not be read, so its providers are unknown: ${redactUrls((err as Error).message)}`);
      }
      if (chain.includes(childDir)) return problem(`module "${childPath}" calls itself (${childDir})`);
      return { kind: 'module', entry: { path: childPath, dir: childDir, source: c.source }, ops: await visit(childDir, childPath, [...chain, childDir], childCalls) };
    });
    for (const child of children) ops.push(child); // one argument per call: a module may make thousands
    return ops;
  };

  const byAddress = new Map<string, RequiredProviderInfo>();
  const builtIn = new Set<string>();
  const replay = (ops: Op[]): void => {
    for (const op of ops) {
      if (op.kind === 'error') result.errors.push(op.problem);
      else if (op.kind === 'file') result.files.push(op.path);
      else if (op.kind === 'module') { result.modules.push(op.entry); replay(op.ops); } else if (op.kind === 'require') {
        const { addr, origin } = op;
        if (isBuiltInProvider(addr)) { builtIn.add(addr.address); continue; }
        if (addr.namespace === '-') continue; // legacy provider addresses never take part in locking
        const e = byAddress.get(addr.address) ?? { address: addr.address, provider: addr, constraints: [], origins: [] };
        e.origins.push(origin);
        if (origin.constraint !== null) e.constraints.push(origin.constraint);
        byAddress.set(addr.address, e);
      }
    }
  };
  replay(await visit(root, '', [root], [root]));
  result.providers = [...byAddress.values()].sort((a, b) => compareStrings(a.address, b.address));
  result.builtIn = [...builtIn].sort();
  return result;
}

interface ModuleFile { path: string; text: string; file: ConfigFile; override: boolean }

/**
 * The module's configuration files (`.tofu` precedence applied), override files last; read in
 * parallel, recorded in name order. Every read counts against the process-wide open-files limit
 * (withOpenFile), however many trees are read at once.
 */
async function readModuleFiles(dir: string, overlay: ReadonlyMap<string, string> | undefined, ops: Op[]): Promise<ModuleFile[]> {
  let names: string[];
  try {
    names = (await withOpenFile(() => fs.readdir(dir, { withFileTypes: true })))
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && isConfigFileName(e.name)).map((e) => path.join(dir, e.name)).sort();
  } catch (err) {
    ops.push({ kind: 'error', problem: { message: `cannot read module directory ${dir}: ${(err as Error).message}` } });
    return [];
  }
  const used = applyTofuPrecedence(names).used;
  const texts = await mapLimit(used, FS_CONCURRENCY, (p) => {
    const text = overlay?.get(p);
    return text !== undefined ? Promise.resolve(text) : readText(p).catch((err: Error) => err);
  });
  const out: ModuleFile[] = [];
  for (const [i, p] of used.entries()) {
    const text = texts[i];
    if (text instanceof Error) {
      ops.push({ kind: 'error', problem: { message: `cannot read ${p}: ${text.message}`, file: p } });
      continue;
    }
    ops.push({ kind: 'file', path: p });
    out.push({ path: p, text, file: parseConfig(text, p), override: isOverrideFile(p) });
  }
  return [...out.filter((f) => !f.override), ...out.filter((f) => f.override)];
}

async function moduleDirOf(callerDir: string, c: { name: string; source: string; version: string | null }, resolver: ModuleDirResolver | undefined, signal: AbortSignal | undefined): Promise<string> {
  const req: ModuleRequest = { callerDir, name: c.name, source: c.source, version: c.version, ...(signal ? { signal } : {}) };
  const local = localModuleDir(callerDir, c.source) !== undefined;
  return (await (resolver && !local ? resolver.resolve(req) : locateModule(req, {}))).dir;
}

/** The provider local name a resource uses: its `provider` argument (`aws.west` → aws), else the type prefix. */
function providerLocalName(b: Block): string | undefined {
  const arg = b.body.items.find((i) => i.kind === 'attribute' && i.name === 'provider');
  if (arg?.kind === 'attribute') {
    let e: Expression = arg.expr;
    while (e.kind === 'getattr') e = e.target;
    if (e.kind === 'variable') return e.name;
    const s = literal(arg.expr); // JSON syntax: "aws.west"
    if (s) return s.split('.')[0];
  }
  return b.labels[0].value.split('_')[0] || undefined;
}

function literal(e: Expression): string | null {
  return e.kind === 'literal' && typeof e.value === 'string' ? e.value : null;
}
