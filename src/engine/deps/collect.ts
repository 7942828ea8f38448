// The local facts of one configuration directory, before any registry is asked: its module calls,
// its required_providers, the lock file's versions and what `tofu init` installed
// (.terraform/modules/modules.json). Nothing here touches the network.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { impliedProvider, isBuiltInProvider, parseProviderSource, ProviderAddress } from '../addresses';
import { loadConfigDir, LoadedFile } from '../config/files';
import type { ModuleCall, RequiredProvider } from '../config/extract';
import { parseLockFile } from '../mirror/requirements';
import type { DeclarationSite } from './types';

export interface LocalModuleCall {
  name: string;
  /** The literal source, or null when it is missing or an expression. */
  source: string | null;
  constraint: string | null;
  /** The version argument is present but not a literal string. */
  versionNotLiteral: boolean;
  site: DeclarationSite;
}

export interface LocalProvider {
  name: string;
  address: ProviderAddress;
  /** Constraints written in this module, in file order. */
  constraints: string[];
  site?: DeclarationSite;
}

export interface LocalFacts {
  dir: string;
  modules: LocalModuleCall[];
  providers: LocalProvider[];
  /** Lock file versions by provider address. */
  locked: Map<string, string>;
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

/**
 * The providers a module requires (its required_providers; a missing `source` implies
 * hashicorp/NAME), merged by address. Built-in providers are left out: nothing to look up.
 */
export function providersOf(files: LoadedFile[], errors: string[]): LocalProvider[] {
  const byAddress = new Map<string, LocalProvider>();
  for (const f of files) {
    for (const rp of f.summary.requiredProviders) {
      const address = providerAddress(rp, f.path, errors);
      if (!address || isBuiltInProvider(address)) continue;
      const entry = byAddress.get(address.address) ?? { name: rp.name, address, constraints: [] };
      const c = rp.version?.literal;
      if (c && !entry.constraints.includes(c)) entry.constraints.push(c);
      entry.site ??= siteOf(f.path, rp.range, rp.version);
      byAddress.set(address.address, entry);
    }
  }
  return [...byAddress.values()];
}

function providerAddress(rp: RequiredProvider, file: string, errors: string[]): ProviderAddress | undefined {
  try {
    const src = rp.source?.literal;
    return src ? parseProviderSource(src) : impliedProvider(rp.name);
  } catch (err) {
    errors.push(`${file}: provider "${rp.name}": ${(err as Error).message}`);
    return undefined;
  }
}

/** Reads one configuration directory (not its subdirectories). Override files are not merged. */
export async function readLocalFacts(dir: string): Promise<LocalFacts> {
  const errors: string[] = [];
  let files: LoadedFile[] = [];
  try {
    files = (await loadConfigDir(dir)).files.filter((f) => !f.override);
  } catch (err) {
    errors.push(`cannot read ${dir}: ${(err as Error).message}`);
  }
  const modules = files.flatMap((f) => f.summary.modules.map((m) => moduleCall(f, m)));
  const providers = providersOf(files, errors);
  const locked = new Map<string, string>();
  const lockPath = path.join(dir, '.terraform.lock.hcl');
  try {
    for (const [address, entry] of parseLockFile(await fs.readFile(lockPath, 'utf8'))) locked.set(address, entry.version);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(`${lockPath}: ${(err as Error).message}`);
  }
  return { dir, modules, providers, locked, errors };
}
