// A git-sourced module call in the dependency graph: what its `?ref=` selects (tag, branch or
// commit, and the commit it resolves to), the newest version-like tag of its remote, and a status
// in git terms — the remote has no such ref (not-found), a newer version-like tag exists
// (update-available), the ref is a commit id (pinned), a branch or no ref at all (unpinned: the
// code moves under you), or up-to-date. Refs come from the engine's ref lookup (one ls-remote per
// remote and TTL, however many roots call it).
import type { Engine } from '../engine';
import { GitModuleSource, newestGitTag, tagVersion } from '../git';
import { compareVersions } from '../versions/version';
import type { Dependency, DependencyStatus, GitDependency, GitDependencyStatus } from './types';

const GENERAL: Record<GitDependencyStatus, DependencyStatus> = {
  'up-to-date': 'up-to-date', 'update-available': 'update-out-of-range', pinned: 'up-to-date', unpinned: 'up-to-date',
  'not-found': 'not-found', error: 'error',
};

function settle(dep: Dependency, git: Omit<GitDependency, 'status'>, status: GitDependencyStatus, fields: Partial<Dependency> = {}): Dependency {
  return { ...dep, ...fields, status: GENERAL[status], git: { ...git, status } };
}

/**
 * The dependency of one git-sourced call (`dep` as the graph made it). `online` false: no lookup;
 * `failed` turns a lookup error into the graph's usual error dependency.
 */
export async function gitModuleDependency(dep: Dependency, src: GitModuleSource, engine: Engine, online: boolean,
  failed: (dep: Dependency, err: unknown) => Dependency, offline: (dep: Dependency) => Dependency, signal?: AbortSignal): Promise<Dependency> {
  const git: Omit<GitDependency, 'status'> = { remote: src.remote, ...(src.ref !== undefined ? { ref: src.ref } : {}), ...(src.subdir ? { subdir: src.subdir } : {}) };
  const base: Dependency = { ...dep, host: src.host, selected: src.ref ?? null };
  if (src.error) return settle(base, git, 'error', { selected: null, message: src.error });
  if (!online) return { ...offline(base), git: { ...git, status: 'error' } };
  try {
    signal?.throwIfAborted();
    const { refs, resolved: r } = await engine.resolveGitSource(src, { signal });
    const newest = newestGitTag(refs);
    if (!r) {
      const message = src.ref === undefined ? `git remote ${refs.remote} has no default branch (HEAD)` : `git remote ${refs.remote} has no branch or tag ${JSON.stringify(src.ref)}`;
      return settle(base, git, 'not-found', { newest, selected: null, message });
    }
    const resolved = { ...git, kind: r.kind, commit: r.commit };
    const suggest = newest ? `; pin a tag, e.g. ?ref=${newest}` : '';
    if (r.kind === 'commit') return settle(base, resolved, 'pinned', { newest, message: `pinned to the commit ${r.commit}` });
    if (r.kind === 'branch') {
      const what = r.defaultBranch ? `no ?ref=: tofu init clones the default branch ${r.name}` : `?ref=${r.name} is a branch`;
      return settle(base, resolved, 'unpinned', { newest, selected: r.name, message: `${what} (now commit ${r.commit}): the code moves under you${suggest}` });
    }
    const current = tagVersion(r.name);
    const latest = newest ? tagVersion(newest) : undefined;
    if (current && latest && compareVersions(latest, current) > 0) {
      return settle(base, resolved, 'update-available', { newest, newestMatching: r.name, message: `a newer tag exists: ${newest}` });
    }
    return settle(base, resolved, 'up-to-date', { newest, newestMatching: r.name });
  } catch (err) {
    const d = failed(base, err);
    return { ...d, git: { ...git, status: d.status === 'not-found' ? 'not-found' : 'error' } };
  }
}
