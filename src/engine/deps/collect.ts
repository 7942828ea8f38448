// The local facts of one configuration directory, before any registry is asked: its module calls,
// where its providers are declared (for "open" and for rewriting a constraint), the lock file
// (read by the lock engine's readLockFile: versions, each entry's range, and whether `tofu init`
// would refuse the file) and what `tofu init` installed (.terraform/modules/modules.json). Which
// providers the configuration requires is not decided here: see children.ts. No network.
import * as path from 'node:path';
import { impliedProvider, parseProviderSource, ProviderAddress } from '../addresses';
import { loadConfigDir, LoadedFile } from '../config/files';
import { readText } from '../fstree';
import type { ModuleCall, RequiredProvider } from '../config/extract';
import { LOCK_FILE_NAME } from '../lockfile/render';
import { readLockFile } from '../lockfile/read';
import type { DeclarationSite, LockSite } from './types';

export interface LocalModuleCall {
  name: string;
  /** The literal source, or null when it is missing or an expression. */
  source: string | null;
  constraint: string | null;
  /** The version argument is present but not a literal string. */
  versionNotLiteral: boolean;
  site: DeclarationSite;
}

/** A provider declared in the root module's required_providers. */
export interface DeclaredProvider {
  name: string;
  address: ProviderAddress;
  site: DeclarationSite;
}

export interface LockFacts {
  path: string;
  /** Locked versions by normalized provider address, with where each entry is. */
  providers: Map<string, { version: string; site: LockSite }>;
  /** Why `tofu init` refuses the file ("PATH:LINE: message"), when it does. */
  error?: string;
}

export interface LocalFacts {
  dir: string;
  modules: LocalModuleCall[];
  /** Root required_providers entries by address, in file order (the first declaration of each). */
  declared: Map<string, DeclaredProvider>;
  lock: LockFacts;
  errors: string[];
}

export function siteOf(file: string, range: DeclarationSite['range'], version: { literal: string | null; contentRange?: DeclarationSite['range'] } | null): DeclarationSite {
  const site: DeclarationSite = { file, range };
  if (version?.literal !== null && version?.literal !== undefined && version.contentRange) site.versionRange = version.contentRange;
  return site;
}

function moduleCall(f: LoadedFile, call: ModuleCall): LocalModuleCall {
  return {
    name: call.name,
    source: call.source?.literal ?? null,
    constraint: call.version?.literal ?? null,
    versionNotLiteral: !!call.version && call.version.literal === null,
    site: siteOf(f.path, call.range, call.version),
  };
}

/** Where each provider of the root's required_providers is declared; bad sources are the requirement collector's to report. */
function declaredProviders(files: LoadedFile[]): Map<string, DeclaredProvider> {
  const out = new Map<string, DeclaredProvider>();
  for (const f of files) {
    for (const rp of f.summary.requiredProviders) {
      const address = addressOf(rp);
      if (address && !out.has(address.address)) out.set(address.address, { name: rp.name, address, site: siteOf(f.path, rp.range, rp.version) });
    }
  }
  return out;
}

function addressOf(rp: RequiredProvider): ProviderAddress | undefined {
  try {
    const src = rp.source?.literal;
    return src ? parseProviderSource(src) : impliedProvider(rp.name);
  } catch {
    return undefined;
  }
}

async function readLock(dir: string, errors: string[]): Promise<LockFacts> {
  const lockPath = path.join(dir, LOCK_FILE_NAME);
  const lock: LockFacts = { path: lockPath, providers: new Map() };
  let text: string;
  try {
    text = await readText(lockPath); // under the process-wide open-files limit
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(`${lockPath}: ${(err as Error).message}`);
    return lock;
  }
  const read = readLockFile(text);
  const broken = read.diagnostics.find((d) => d.severity === 'error');
  if (broken) lock.error = `${lockPath}:${broken.range.start.line + 1}: ${broken.message}`;
  for (const p of read.providers) {
    let address: string;
    try { address = parseProviderSource(p.address).address; } catch { continue; }
    if (p.version !== null && !lock.providers.has(address)) lock.providers.set(address, { version: p.version, site: { file: lockPath, range: p.range } });
  }
  return lock;
}

/** The configuration files of one directory, override files left out (they are not merged here). */
async function configFiles(dir: string, errors: string[]): Promise<LoadedFile[]> {
  try {
    return (await loadConfigDir(dir)).files.filter((f) => !f.override);
  } catch (err) {
    errors.push(`cannot read ${dir}: ${(err as Error).message}`);
    return [];
  }
}

/** Reads one configuration directory (not its subdirectories). Override files are not merged. */
export async function readLocalFacts(dir: string): Promise<LocalFacts> {
  const errors: string[] = [];
  const files = await configFiles(dir, errors);
  const modules = files.flatMap((f) => f.summary.modules.map((m) => moduleCall(f, m)));
  return { dir, modules, declared: declaredProviders(files), lock: await readLock(dir, errors), errors };
}

/** The module calls of one directory, as readLocalFacts reads them (an unreadable directory has none). */
export async function readModuleCalls(dir: string): Promise<LocalModuleCall[]> {
  return (await configFiles(dir, [])).flatMap((f) => f.summary.modules.map((m) => moduleCall(f, m)));
}
