// Planning an upgrade of one dependency against the CURRENT text of the file that declares it
// (an editor buffer may differ from disk): find its `version` string again, rewrite the
// constraint, and return the minimal edit. Pure: text in, plain data out.
import { extractFile } from '../config/extract';
import { parseConfig } from '../config/files';
import type { ValueInfo } from '../config/extract';
import { selectVersions } from '../versions/select';
import { constraintEdit, rewriteConstraint, TextEdit } from './rewrite';
import type { Dependency } from './types';
import { parseOciModuleSource, withOciSelector } from '../addresses/oci-source';
import { parseGitModuleSource, withGitRef } from '../git';

export interface UpgradePlan {
  /** The edit of the declaring file; absent when there is nothing to edit (see message). */
  edit?: TextEdit;
  /** The constraint after the edit (or the current one). */
  constraint: string | null;
  /** The version `tofu init -upgrade` selects after the edit. */
  version: string | null;
  /** Why nothing is edited, or what else is needed (e.g. a child module's constraint). */
  message?: string;
  /**
   * No constraint edit is needed, but the lock file holds another version of this provider: relock
   * it (as "Update within constraint" does) to reach `version`. Without this the upgrade would end
   * with the old version still locked.
   */
  relock?: true;
}

/** The literal `version` value of the dependency's declaration in `text`, found by kind and name. */
export function versionValueOf(dep: Pick<Dependency, 'kind' | 'name'>, text: string, filePath: string): { found: boolean; version: ValueInfo | null } {
  const summary = extractFile(parseConfig(text, filePath), text);
  if (dep.kind === 'module') {
    const call = summary.modules.find((m) => m.name === dep.name);
    return { found: !!call, version: call?.version ?? null };
  }
  const rp = summary.requiredProviders.find((p) => p.name === dep.name);
  return { found: !!rp, version: rp?.version ?? null };
}

/** "Upgrade to newest": rewrite the constraint so that `tofu init -upgrade` selects `dep.newest`. */
export function planUpgradeToNewest(dep: Dependency, text: string, filePath: string): UpgradePlan {
  const target = dep.newest;
  const rules = dep.kind;
  if (!target) return { constraint: dep.constraint, version: null, message: `no version of ${dep.source} is known` };
  if (dep.oci) return planOciUpgrade(dep, target, text, filePath);
  if (dep.git) return planGitUpgrade(dep, target, text, filePath);
  const { found, version } = versionValueOf(dep, text, filePath);
  if (!found) return { constraint: dep.constraint, version: null, message: `${dep.kind} "${dep.name}" is no longer declared in ${filePath}` };
  if (!version) return withoutEdit(dep, null, target, `${dep.kind} "${dep.name}" has no version constraint`);
  if (version.literal === null || !version.contentRange) return { constraint: null, version: null, message: 'the version argument is not a literal string' };
  const current = version.literal;
  if (selectVersions([target], current, rules).selected === target && !childBlocks(dep, target)) {
    return withoutEdit(dep, current, target, `"${current}" already allows ${target}`);
  }
  const next = rewriteConstraint(current, target, rules);
  if (!next) return { constraint: current, version: null, message: `cannot rewrite "${current}" to reach ${target}` };
  const edit = constraintEdit(text, version.contentRange, current, next);
  if (!edit) return { constraint: current, version: null, message: `the version string "${current}" is not plain text (escapes or several lines)` };
  const blocker = childBlocks(dep, target);
  return { edit, constraint: next, version: blocker ? null : target, ...(blocker ? { message: `${blocker.module} requires "${blocker.constraint}", which excludes ${target}` } : {}) };
}

/** "Upgrade to newest" of an oci:// call: its source's `?tag=` becomes the newest version-like tag. */
function planOciUpgrade(dep: Dependency, target: string, text: string, filePath: string): UpgradePlan {
  const none = (message: string): UpgradePlan => ({ constraint: null, version: null, message });
  if (dep.oci?.digest) return none(`module "${dep.name}" is pinned to a digest: write a ?tag= to follow newer tags`);
  const call = extractFile(parseConfig(text, filePath), text).modules.find((m) => m.name === dep.name);
  if (!call) return none(`module "${dep.name}" is no longer declared in ${filePath}`);
  const src = call.source?.literal ? parseOciModuleSource(call.source.literal) : undefined;
  if (!src || src.error || !call.source?.contentRange) return none(`module "${dep.name}" no longer has a valid oci:// source`);
  if (src.tag === target) return { constraint: `?tag=${target}`, version: target, message: `the source already names tag ${target}` };
  const edit = constraintEdit(text, call.source.contentRange, call.source.literal!, withOciSelector(src, { tag: target }));
  if (!edit) return none('the source string is not plain text (escapes or several lines)');
  return { edit, constraint: `?tag=${target}`, version: target };
}

/**
 * "Upgrade to newest" of a git-sourced call: its `?ref=` becomes the newest version-like tag (added
 * when the source names no ref or a branch); subdirectory, depth and other arguments kept. A
 * commit pin is left alone.
 */
function planGitUpgrade(dep: Dependency, target: string, text: string, filePath: string): UpgradePlan {
  const none = (message: string): UpgradePlan => ({ constraint: null, version: null, message });
  if (dep.git?.kind === 'commit') return none(`module "${dep.name}" is pinned to a commit: write a tag as ?ref= to follow newer tags`);
  const call = extractFile(parseConfig(text, filePath), text).modules.find((m) => m.name === dep.name);
  if (!call) return none(`module "${dep.name}" is no longer declared in ${filePath}`);
  const src = call.source?.literal ? parseGitModuleSource(call.source.literal) : undefined;
  if (!src || src.error || !call.source?.contentRange) return none(`module "${dep.name}" no longer has a valid git source`);
  if (src.ref === target) return { constraint: `?ref=${target}`, version: target, message: `the source already names ref ${target}` };
  const edit = constraintEdit(text, call.source.contentRange, call.source.literal!, withGitRef(src.source, target));
  if (!edit) return none('the source string is not plain text (escapes or several lines)');
  return { edit, constraint: `?ref=${target}`, version: target };
}

/**
 * "Upgrade to newest" for a provider only child modules or the lock file declare (nothing of the
 * root to edit): a relock when its constraints already allow the newest, else why not.
 */
export function planUndeclaredUpgrade(dep: Dependency): UpgradePlan {
  const target = dep.newest;
  const why = `${dep.kind} "${dep.name}" is declared only by a child module or the lock file`;
  if (dep.kind !== 'provider' || !target || selectVersions([target], dep.constraint, 'provider').selected !== target) {
    return { constraint: dep.constraint, version: null, message: `${why}: change its constraint there` };
  }
  return withoutEdit(dep, dep.constraint, target, `its constraints already allow ${target}`);
}

/** The constraint already reaches `target`: a provider locked at another version is relocked; otherwise `tofu init -upgrade` picks it. */
function withoutEdit(dep: Dependency, constraint: string | null, target: string, why: string): UpgradePlan {
  if (dep.kind === 'provider' && dep.locked !== null && dep.locked !== target) {
    return { constraint, version: target, relock: true, message: `${why}: the lock file moves from ${dep.locked} to ${target}` };
  }
  const what = dep.kind === 'module' ? `tofu init -upgrade installs it (installed: ${dep.locked ?? 'none yet'})` : `tofu init already selects it`;
  return { constraint, version: target, message: `${why}: nothing to edit, ${what}` };
}

/** A child module's provider constraint that excludes `target`, if any. */
function childBlocks(dep: Dependency, target: string): { module: string; constraint: string } | undefined {
  return dep.childConstraints?.find((c) => selectVersions([target], c.constraint, 'provider').selected !== target);
}
