// Plain data of a software bill of materials of OpenTofu configurations, before it is written
// in a format (cyclonedx.ts, spdx.ts): the root modules, every module package they call
// (recursively, through fetched packages), every provider with its lock file entry, and who
// depends on whom. Every string that may have held a secret (a source, a download location) is
// already redacted (shownUrl) here; the writers add nothing from outside.

export type ComponentKind = 'root' | 'module' | 'provider';

/** How a module package is found: tofu's source kinds, as the SBOM groups them. */
export type ModuleSourceKind = 'registry' | 'git' | 'http' | 'oci' | 'local' | 'other';

export interface SbomComponent {
  /** Stable identity in the document ("root:envs/prod", "module:host/ns/name/system@1.2.0", "provider:host/ns/type@5.0.0"). */
  ref: string;
  kind: ComponentKind;
  /** Modules: how the package is found. */
  sourceKind?: ModuleSourceKind;
  /** What a person reads: a root's directory, a module's address or source, a provider's address. */
  name: string;
  /** The version tofu uses (registry modules, providers), a git ref or an OCI tag; null when unknown or not versioned. */
  version: string | null;
  /** The exact source address as tofu reads it (redacted), or the provider's address. */
  source: string;
  /** Package URL (provisional for the `terraform` type, see docs/sbom.md). */
  purl?: string;
  /** Where the package was (or would be) downloaded from, redacted. */
  downloadLocation?: string;
  /** SHA-256 (hex) of the module package's bytes as fetched, or of each provider archive (`zh:`). */
  sha256: string[];
  /** Git sources: the repository, the ref the source names, the commit when known. */
  git?: { url: string; ref?: string; commit?: string };
  /** oci:// sources: the repository, tag and digests when resolved. */
  oci?: { registry: string; repository: string; tag?: string; manifestDigest?: string; blobDigest?: string };
  /** Local modules: the component they are part of, and their path inside it. */
  partOf?: string;
  path?: string;
  /** Providers: the lock file's hashes as written (h1:, zh:); whether a lock file pins it. */
  lockHashes?: string[];
  locked?: boolean;
  /** Further facts, as name → value (repeated names allowed), sorted when written. */
  properties: Array<[string, string]>;
  /** What could not be known about it (not fetched, offline, unreachable), sorted and unique. */
  notes: string[];
}

export interface SbomInventory {
  /** The root modules, in the order given. */
  roots: string[];
  /** Every component (roots first, in order; then sorted by ref). */
  components: SbomComponent[];
  /** ref → the refs it depends on (sorted). */
  dependencies: Map<string, string[]>;
  /** What could not be known for the document as a whole (a walk cut short, offline). */
  notes: string[];
  /** Whether the packages were fetched (false: --offline). */
  online: boolean;
}

/** Document-level settings of a written SBOM. */
export interface SbomDocumentOptions {
  /** ISO 8601 time (from SOURCE_DATE_EPOCH when set: sbomTimestamp). */
  timestamp: string;
  /** The document's name (the workspace directory's name by default). */
  name: string;
  toolVersion: string;
}
