// An oci:// module call in the dependency graph: what its source selects (the tag, or the digest
// it pins), the newest version-like tag of its repository, and a status in OCI terms — the tag
// does not exist (not-found), a newer version-like tag exists (update-available), the source pins
// a digest (pinned), or up-to-date. Tags come from the engine's OCI client (listOciTags).
import type { Engine } from '../engine';
import type { OciModuleSource } from '../addresses/oci-source';
import { listOciTags } from '../modulepkg/oci-registry';
import { compareVersions, parseVersion } from '../versions/version';
import type { Dependency, DependencyStatus, OciDependencyStatus } from './types';

const GENERAL: Record<OciDependencyStatus, DependencyStatus> = {
  'up-to-date': 'up-to-date', 'update-available': 'update-out-of-range', pinned: 'up-to-date', 'not-found': 'not-found', error: 'error',
};

function settle(dep: Dependency, oci: Omit<NonNullable<Dependency['oci']>, 'status'>, status: OciDependencyStatus, fields: Partial<Dependency> = {}): Dependency {
  return { ...dep, ...fields, status: GENERAL[status], oci: { ...oci, status } };
}

function versionOf(tag: string) {
  const v = parseVersion(tag.replace(/^v(?=\d)/, ''), 'module');
  return typeof v === 'string' ? undefined : v;
}

/**
 * The dependency of one oci:// call (`dep` as the graph made it). `lookup` is false offline;
 * `failed` turns a lookup error into the graph's usual error dependency.
 */
export async function ociModuleDependency(dep: Dependency, src: OciModuleSource, engine: Engine, online: boolean,
  failed: (dep: Dependency, err: unknown) => Dependency, offline: (dep: Dependency) => Dependency, signal?: AbortSignal): Promise<Dependency> {
  const oci = { registry: src.registry, repository: src.repository, ...(src.digest ? { digest: src.digest } : { tag: src.tag! }) };
  const base = { ...dep, host: src.registry, selected: src.digest ?? src.tag ?? null };
  if (src.error) return settle(base, oci, 'error', { selected: null, message: `tofu init refuses this oci:// source: ${src.error.message}` });
  if (!online) return { ...offline(base), oci: { ...oci, status: 'error' } };
  try {
    signal?.throwIfAborted();
    const list = await listOciTags(engine, { registry: src.registry, repository: src.repository }, { selected: src.tag, signal });
    const newest = list.newest;
    if (src.digest) return settle(base, oci, 'pinned', { newest, message: `pinned to the manifest ${src.digest}` });
    const tag = src.tag!;
    if (!list.tags.some((t) => t.tag === tag)) {
      const message = list.tags.length ? `oci://${src.registry}/${src.repository} has no tag ${JSON.stringify(tag)}` : `oci://${src.registry}/${src.repository} does not exist or has no tags`;
      return settle(base, oci, 'not-found', { newest, selected: null, message });
    }
    const current = versionOf(tag);
    const latest = newest ? versionOf(newest) : undefined;
    if (current && latest && compareVersions(latest, current) > 0) {
      return settle(base, oci, 'update-available', { newest, newestMatching: tag, message: `a newer tag exists: ${newest}` });
    }
    return settle(base, oci, 'up-to-date', { newest, newestMatching: tag });
  } catch (err) {
    const d = failed(base, err);
    return { ...d, oci: { ...oci, status: d.status === 'not-found' ? 'not-found' : 'error' } };
  }
}
