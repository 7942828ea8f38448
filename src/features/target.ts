// From a module call / provider entry to what the registry is asked about. Pure (no vscode).
import { impliedProvider, isBuiltInProvider, parseModuleSource, parseProviderSource } from '../engine/addresses';
import type { ModuleSource, ProviderAddress, RegistryModuleSource } from '../engine/addresses';
import type { VersionRules } from '../engine/versions';
import type { Ref } from './refs';

export type Target =
  | { kind: 'module'; key: string; host: string; display: string; addr: RegistryModuleSource }
  | { kind: 'provider'; key: string; host: string; display: string; addr: ProviderAddress };

export interface TargetInfo {
  /** Set when the registry is involved (registry module source, provider). */
  target?: Target;
  /** Parsed module source (all kinds), for hovers. */
  moduleSource?: ModuleSource;
  /** Why the source is not usable (invalid address, dynamic expression …). */
  error?: string;
  /**
   * A provider built into OpenTofu (terraform.io/builtin/terraform): never installed from a
   * registry, so no target (no request, no registry diagnostic).
   */
  builtIn?: ProviderAddress;
}

export function rulesOf(kind: 'module' | 'provider'): VersionRules {
  return kind;
}

export function moduleTarget(addr: RegistryModuleSource): Target {
  return { kind: 'module', key: `m:${addr.fullAddress}`, host: addr.host, display: addr.address, addr };
}

export function providerTarget(addr: ProviderAddress): Target {
  return { kind: 'provider', key: `p:${addr.address}`, host: addr.host, display: addr.display, addr };
}

const memo = new Map<string, TargetInfo>();

/** Classify once per distinct source text (memoized: hovers and diagnostics ask often). */
export function targetOf(ref: Ref): TargetInfo {
  if (ref.kind === 'module') {
    if (!ref.source) return { error: 'module call without "source"' };
    if (ref.source.value === null) return { error: 'the module source must be a literal string' };
    return moduleSourceInfo(ref.source.value);
  }
  if (ref.source && ref.source.value === null) return { error: 'the provider source must be a literal string' };
  return providerSourceInfo(ref.source?.value ?? undefined, ref.name);
}

/** What a module `source` string means for the editor (memoized). */
export function moduleSourceInfo(source: string): TargetInfo {
  const key = `m|${source}`;
  let info = memo.get(key);
  if (!info) {
    const src = parseModuleSource(source);
    info = src.kind === 'registry' ? { target: moduleTarget(src), moduleSource: src } : { moduleSource: src };
    if (src.kind !== 'registry' && src.kind !== 'local' && 'error' in src && src.error) info.error = src.error;
    remember(key, info);
  }
  return info;
}

/**
 * What a required_providers entry means: its `source`, else the provider its local name implies
 * ("terraform" is the built-in provider, as in OpenTofu). Built-in providers get no target.
 */
export function providerSourceInfo(source: string | undefined, localName: string): TargetInfo {
  const key = source === undefined ? `i|${localName}` : `p|${source}`;
  let info = memo.get(key);
  if (!info) {
    try {
      const addr = source === undefined ? impliedProvider(localName) : parseProviderSource(source);
      info = isBuiltInProvider(addr) ? { builtIn: addr } : { target: providerTarget(addr) };
    } catch (err) {
      info = { error: err instanceof Error ? err.message : String(err) };
    }
    remember(key, info);
  }
  return info;
}

function remember(key: string, info: TargetInfo): void {
  if (memo.size > 5000) memo.clear();
  memo.set(key, info);
}
