// Plain data of the workspace dependency graph: what each configuration directory depends on,
// what is locked or installed, what `tofu init` would select now, and what is newer.
import type { Range } from '../config/ast';

export type DependencyKind = 'module' | 'provider';

/**
 * - up-to-date: nothing newer than what `tofu init` selects (or not versioned by a registry)
 * - update-in-range: a newer version matches the constraint (lock or installed module holds it back)
 * - update-out-of-range: only a new constraint reaches the newest release
 * - unsatisfiable: no version matches, or the lock contradicts the constraint (`tofu init` fails)
 * - not-found: the registry does not know the module/provider
 * - error: the lookup failed, the constraint is malformed, or the locked provider version is no longer published (see `message`)
 */
export type DependencyStatus = 'up-to-date' | 'update-in-range' | 'update-out-of-range' | 'unsatisfiable' | 'not-found' | 'error';

/** Where a dependency is declared, for "open the block" and for rewriting its constraint. */
export interface DeclarationSite {
  file: string;
  /** The module block / the required_providers entry. */
  range: Range;
  /** The `version` string's content (between the quotes), when it is a literal string. */
  versionRange?: Range;
}

/** A provider's entry in `.terraform.lock.hcl` (the whole `provider "…" { … }` block). */
export interface LockSite {
  file: string;
  range: Range;
}

export interface Dependency {
  /** The configuration directory (absolute). */
  dir: string;
  kind: DependencyKind;
  /** The module block's label, or the provider's local name. */
  name: string;
  /** The module source as written, or the provider's full address (host/namespace/type). */
  source: string;
  /** Every constraint that applies, joined with ", " (providers: root and child modules); null when none. */
  constraint: string | null;
  /** Providers: the lock file's version; modules: the version `tofu init` installed (modules.json). */
  locked: string | null;
  /** What `tofu init` (without -upgrade) would select now; null when it would fail or nothing is versioned. */
  selected: string | null;
  /** The newest version matching the constraint (what `tofu init -upgrade` picks). */
  newestMatching: string | null;
  /** The newest release (a prerelease only when the constraint names it). */
  newest: string | null;
  status: DependencyStatus;
  message: string | null;
  /** Registry dependencies only: module address (host/ns/name/system) or provider address. */
  registryAddress?: string;
  /** Host asked (for reporting network problems once per host). */
  host?: string;
  /**
   * Why no registry answer is known: the network is disabled (untrusted workspace / --offline) or
   * the host could not be reached. Status is then `error`; editors show it quietly, once per host.
   */
  problem?: 'network-disabled' | 'unreachable';
  /** Where it is declared in the root module (absent for providers only required by child modules or the lock file). */
  site?: DeclarationSite;
  /** Providers: the lock file's entry, when it has one. */
  lockSite?: LockSite;
  /** Providers: the constraints of child modules, by module path (e.g. "module.vpc"). */
  childConstraints?: { module: string; constraint: string }[];
  /**
   * Modules: the key of the local child module whose block calls it (as modules.json keys it:
   * "network", "network.subnets"); absent for the root module's own calls.
   */
  modulePath?: string;
  /**
   * oci:// module calls: the repository, what the source selects and the status in OpenTofu's OCI
   * terms ('update-available': a newer version-like tag exists; 'pinned': the source names a
   * digest). `status` holds the nearest general status (update-available → update-out-of-range:
   * reaching it means editing the source; pinned → up-to-date), which the CLI's JSON replaces.
   */
  oci?: OciDependency;
  /**
   * Git-sourced module calls (git::, ssh, GitHub/Bitbucket shorthands): the remote, the `?ref=`,
   * what it is and the commit it resolves to, and the status in git terms ('update-available': a
   * newer version-like tag exists; 'pinned': the ref is a commit id; 'unpinned': a branch or no
   * ref). `status` holds the nearest general status (update-available → update-out-of-range,
   * pinned and unpinned → up-to-date), which the CLI's JSON replaces.
   */
  git?: GitDependency;
}

export type GitDependencyStatus = 'up-to-date' | 'update-available' | 'pinned' | 'unpinned' | 'not-found' | 'error';

export interface GitDependency {
  /** The remote git contacts (user information may be in it: show it with shownUrl). */
  remote: string;
  ref?: string;
  kind?: 'tag' | 'branch' | 'commit';
  commit?: string;
  subdir?: string;
  status: GitDependencyStatus;
}

export type OciDependencyStatus = 'up-to-date' | 'update-available' | 'pinned' | 'not-found' | 'error';

export interface OciDependency {
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
  status: OciDependencyStatus;
}

/** A dependency as a person reads it: a module called by a child module is "child.name". */
export function dependencyLabel(d: Pick<Dependency, 'name' | 'modulePath'>): string {
  return d.modulePath ? `${d.modulePath}.${d.name}` : d.name;
}

export interface DirectoryDependencies {
  dir: string;
  modules: Dependency[];
  providers: Dependency[];
  /** Problems reading the directory, its lock file or its module tree (parse errors of single files are not here). */
  errors: string[];
}

export interface DependencyGraph {
  directories: DirectoryDependencies[];
}
