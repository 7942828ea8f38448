// What the "OpenTofu Dependencies" tree shows, as plain data: directory → Modules / Providers →
// one item per dependency with its description ("~> 5.1 · locked 5.1.2 · newest 6.0.0"), an icon
// per status, a tooltip and the actions it offers. Pure (no vscode).
import * as path from 'node:path';
import { dependencyLabel } from '../engine/deps/types';
import { shownUrl } from '../engine/net/http-errors';
import type { Dependency, DependencyGraph, DirectoryDependencies } from '../engine/deps/types';

export type DepsNode =
  | { kind: 'dir'; id: string; dir: string; label: string; description: string; outdated: number }
  | { kind: 'group'; id: string; dir: string; group: 'modules' | 'providers'; label: string; description: string; deps: Dependency[] }
  | { kind: 'dep'; id: string; dep: Dependency; label: string; description: string; icon: DepIcon; tooltip: string; contextValue: string };

export interface DepIcon {
  /** A codicon id. */
  id: string;
  /** A theme color id, or undefined for the default foreground. */
  color?: string;
}

export function isOutdated(d: Dependency): boolean {
  return d.status === 'update-in-range' || d.status === 'update-out-of-range';
}

export function countOutdated(graph: DependencyGraph): number {
  return graph.directories.reduce((n, d) => n + [...d.modules, ...d.providers].filter(isOutdated).length, 0);
}

/** The label of a directory: relative to the workspace folder that contains it. */
export function dirLabel(dir: string, roots: string[]): string {
  const root = roots.filter((r) => dir === r || dir.startsWith(r + path.sep)).sort((a, b) => b.length - a.length)[0];
  if (!root) return dir;
  const rel = path.relative(root, dir).split(path.sep).join('/');
  return roots.length > 1 || !rel ? `${path.basename(root)}${rel ? `/${rel}` : ''}` : rel;
}

export function depIcon(d: Dependency): DepIcon {
  if (d.problem === 'network-disabled') return { id: 'workspace-untrusted' };
  if (d.problem === 'unreachable') return { id: 'debug-disconnect', color: 'disabledForeground' };
  if (d.oci?.status === 'pinned' || d.git?.status === 'pinned') return { id: 'pinned', color: 'testing.iconPassed' };
  if (d.git?.status === 'unpinned') return { id: 'git-branch', color: 'charts.blue' };
  switch (d.status) {
    case 'up-to-date': return { id: 'pass', color: 'testing.iconPassed' };
    case 'update-in-range': return { id: 'arrow-circle-up', color: 'charts.blue' };
    case 'update-out-of-range': return { id: 'arrow-up', color: 'charts.yellow' };
    case 'unsatisfiable': return { id: 'error', color: 'errorForeground' };
    case 'not-found': return { id: 'question', color: 'errorForeground' };
    case 'error': return { id: 'warning', color: 'editorWarning.foreground' };
  }
}

/** oci:// calls in OCI terms: "tag 1.0.0 · newest 1.2.0 · update available", "digest sha256:1234abcd… · pinned". */
function ociDescription(d: Dependency, oci: NonNullable<Dependency['oci']>): string {
  const parts = [oci.digest ? `digest ${oci.digest.slice(0, 15)}…` : `tag ${oci.tag}`];
  if (d.newest && d.newest !== oci.tag) parts.push(`newest ${d.newest}`);
  if (d.problem === 'network-disabled') parts.push('registry not asked');
  else if (d.problem === 'unreachable') parts.push(`${d.host ?? 'registry'} unreachable`);
  else parts.push(OCI_STATUS_TEXT[oci.status]);
  return parts.join(' · ');
}

const OCI_STATUS_TEXT: Record<NonNullable<Dependency['oci']>['status'], string> = {
  'up-to-date': 'up to date', 'update-available': 'update available', pinned: 'pinned', 'not-found': 'not found', error: 'error',
};

/** git calls in git terms: "tag v1.0.0 · newest v1.2.0 · update available", "branch develop · unpinned", "commit 1234abcd… · pinned". */
function gitDescription(d: Dependency, git: NonNullable<Dependency['git']>): string {
  const parts = [git.kind === 'commit' ? `commit ${git.ref!.slice(0, 12)}` : git.ref === undefined ? `default branch${d.selected ? ` ${d.selected}` : ''}` : `${git.kind ?? 'ref'} ${git.ref}`];
  if (d.newest && d.newest !== git.ref) parts.push(`newest ${d.newest}`);
  if (d.problem === 'network-disabled') parts.push('remote not asked');
  else if (d.problem === 'unreachable') parts.push(`${d.host ?? 'remote'} unreachable`);
  else parts.push(GIT_STATUS_TEXT[git.status]);
  return parts.join(' · ');
}

const GIT_STATUS_TEXT: Record<NonNullable<Dependency['git']>['status'], string> = {
  'up-to-date': 'up to date', 'update-available': 'update available', pinned: 'pinned to a commit', unpinned: 'unpinned (moves with the branch)',
  'not-found': 'ref not found', error: 'error',
};

/** "~> 5.1 · locked 5.1.2 · newest 6.0.0" */
export function depDescription(d: Dependency): string {
  if (d.oci) return ociDescription(d, d.oci);
  if (d.git) return gitDescription(d, d.git);
  const parts: string[] = [d.constraint ?? (d.registryAddress ? 'any version' : shortSource(d.source))];
  if (d.locked) parts.push(`${d.kind === 'module' ? 'installed' : 'locked'} ${d.locked}`);
  else if (d.selected) parts.push(`selects ${d.selected}`);
  if (d.status === 'update-in-range' && d.newestMatching) parts.push(`${d.newestMatching} in range`);
  if (d.newest && d.newest !== d.selected && d.newest !== d.locked) parts.push(`newest ${d.newest}`);
  if (d.problem === 'network-disabled') parts.push('registry not asked');
  else if (d.problem === 'unreachable') parts.push(`${d.host ?? 'registry'} unreachable`);
  else if (d.status === 'not-found') parts.push('not found');
  else if (d.status === 'unsatisfiable') parts.push('unsatisfiable');
  else if (d.status === 'error') parts.push('error');
  return parts.join(' · ');
}

function shortSource(s: string): string {
  return s.length > 48 ? `${s.slice(0, 47)}…` : s;
}

const STATUS_TEXT: Record<Dependency['status'], string> = {
  'up-to-date': 'up to date',
  'update-in-range': 'a newer version matches the constraint',
  'update-out-of-range': 'newer version outside the constraint',
  unsatisfiable: 'unsatisfiable',
  'not-found': 'not found',
  error: 'error',
};

/** Markdown tooltip with every fact. */
export function depTooltip(d: Dependency): string {
  const rows: Array<[string, string | null]> = [
    ['source', `\`${d.source}\``],
    ['constraint', d.constraint ? `\`${d.constraint}\`` : null],
    ...(d.childConstraints ?? []).map((c) => [`  from ${c.module}`, `\`${c.constraint}\``] as [string, string]),
    [d.kind === 'module' ? 'installed' : 'locked', d.locked],
    ['tofu init selects', d.selected],
    ['newest matching', d.newestMatching],
    ['newest', d.newest],
  ];
  if (d.oci) {
    rows.splice(1, rows.length, ['registry', d.oci.registry], ['repository', d.oci.repository],
      [d.oci.digest ? 'digest' : 'tag', `\`${d.oci.digest ?? d.oci.tag}\``], ['newest version-like tag', d.newest]);
  }
  if (d.git) {
    rows.splice(1, rows.length, ['remote', `\`${shownUrl(d.git.remote)}\``], ['ref', d.git.ref === undefined ? null : `\`${d.git.ref}\` (${d.git.kind ?? 'unknown'})`],
      ['commit', d.git.commit ? `\`${d.git.commit}\`` : null], ['subdirectory', d.git.subdir ? `\`${d.git.subdir}\`` : null], ['newest version-like tag', d.newest]);
  }
  const status = d.oci ? OCI_STATUS_TEXT[d.oci.status] : d.git ? GIT_STATUS_TEXT[d.git.status] : STATUS_TEXT[d.status];
  const lines = [`**${d.kind} ${dependencyLabel(d)}**: ${status}`, ''];
  for (const [k, v] of rows) if (v) lines.push(`${k}: ${v}  `);
  if (d.message) lines.push('', d.message);
  return lines.join('\n');
}

/** For menus: "dep.module.outdated.declared", "dep.provider.current.locked", … (".locked": a lock file entry to open). */
export function contextValue(d: Dependency): string {
  const state = isOutdated(d) ? 'outdated' : d.status === 'unsatisfiable' ? 'unsatisfiable' : 'current';
  return `dep.${d.kind}.${state}${d.lockSite ? '.locked' : ''}${d.site ? '.declared' : ''}`;
}

export function depNode(d: Dependency): DepsNode {
  return {
    kind: 'dep', id: `${d.dir}\u0000${d.kind}\u0000${dependencyLabel(d)}`, dep: d, label: dependencyLabel(d),
    description: depDescription(d), icon: depIcon(d), tooltip: depTooltip(d), contextValue: contextValue(d),
  };
}

function visible(d: Dependency, onlyOutdated: boolean): boolean {
  return !onlyOutdated || isOutdated(d);
}

export function dirNodes(graph: DependencyGraph, roots: string[], onlyOutdated: boolean): DepsNode[] {
  return graph.directories
    .filter((d) => d.modules.length + d.providers.length > 0)
    .filter((d) => !onlyOutdated || [...d.modules, ...d.providers].some(isOutdated))
    .map((d) => {
      const outdated = [...d.modules, ...d.providers].filter(isOutdated).length;
      return { kind: 'dir' as const, id: d.dir, dir: d.dir, label: dirLabel(d.dir, roots), outdated, description: outdated ? `${outdated} outdated` : '' };
    })
    .sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

export function groupNodes(d: DirectoryDependencies, onlyOutdated: boolean): DepsNode[] {
  const out: DepsNode[] = [];
  for (const group of ['modules', 'providers'] as const) {
    const deps = d[group].filter((x) => visible(x, onlyOutdated));
    if (!deps.length) continue;
    const outdated = deps.filter(isOutdated).length;
    out.push({ kind: 'group', id: `${d.dir}\u0000${group}`, dir: d.dir, group, label: group === 'modules' ? 'Modules' : 'Providers', deps,
      description: `${deps.length}${outdated ? ` · ${outdated} outdated` : ''}` });
  }
  return out;
}

/**
 * The dependency declared by a block of `file`: by its directory, kind and name; a module block of
 * a local child module (listed under the root that calls it) by the file it is declared in.
 */
export function findDependency(graph: DependencyGraph | undefined, file: string, kind: Dependency['kind'], name: string): Dependency | undefined {
  const d = graph?.directories.find((x) => x.dir === path.dirname(file));
  const own = (kind === 'module' ? d?.modules : d?.providers)?.find((x) => x.name === name && !x.modulePath);
  if (own || kind !== 'module') return own;
  for (const dir of graph?.directories ?? []) {
    const nested = dir.modules.find((x) => x.modulePath && x.name === name && x.site?.file === file);
    if (nested) return nested;
  }
  return undefined;
}
