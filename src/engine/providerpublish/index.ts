// Publishing the team's own provider (`tofu-registry publish-provider`): a release as the standard
// release tooling writes it, checked (sums, executable names, signature) before anything is written,
// then merged into a static providers.v1 registry site any web server serves (site.ts), or pushed
// into an OCI registry in OpenTofu's oci_mirror layout (oci.ts).
// Plain data in and out; it reuses providerpkg/ (hashes, signatures), fstree/ (output directory,
// paths) and ocimirror/ (the OCI writer).
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
import type { ProviderAddress } from '../addresses/provider-source';
import { publishToOci, OciPublishReport } from './oci';
import type { OciMirrorOptions } from '../ocimirror';
import { readRelease } from './release';
import { KeyInput, readKeys, releaseSignature } from './signing';
import { publishToSite, SiteReport } from './site';

export { ProviderPublishError, executableProblem, readRelease } from './release';
export type { Release, ReleasePackage } from './release';
export { readKeys, releaseSignature } from './signing';
export type { KeyInput, PublishKeys } from './signing';
export { downloadDocument, DISCOVERY_FILE, PROVIDERS_V1, publishToSite } from './site';
export type { SiteReport } from './site';
export { publishToOci } from './oci';
export type { OciPublishReport } from './oci';

export interface PublishProviderOptions extends KeyInput {
  /** The release directory (DIST). */
  dist: string;
  address: ProviderAddress;
  /** The version to publish (default: the one version DIST holds). */
  version?: string;
  /** A static site directory … */
  out?: string;
  /** … or OpenTofu's repository_template of an OCI registry (needs `engine`). */
  oci?: string;
  engine?: OciMirrorOptions['engine'];
  /** Replace a version already published with other content (--out only). */
  force?: boolean;
  signal?: AbortSignal;
}

/** The report: the JSON contract of `publish-provider --json` (site or repository + tag). */
export interface PublishProviderReport {
  address: string;
  version: string;
  platforms: string[];
  written: string[];
  unchanged: string[];
  site?: string;
  repository?: string;
  tag?: string;
  removed?: string[];
  providerInstallation?: string;
}

/** Checks the release and the keys, then publishes. Throws ProviderPublishError for a refusal (nothing written). */
export async function publishProvider(opts: PublishProviderOptions): Promise<PublishProviderReport> {
  if ((opts.out === undefined) === (opts.oci === undefined)) throw new Error('publishProvider needs exactly one of out and oci');
  const release = await readRelease(opts.dist, opts.address, opts.version, opts.signal);
  const keys = await readKeys(opts);
  const base = { address: opts.address.address, version: release.version, platforms: release.packages.map((p) => p.platform) };
  if (opts.out !== undefined) {
    const r: SiteReport = await publishToSite({ out: opts.out, release, keys, force: opts.force, signal: opts.signal });
    return { ...base, written: r.written, unchanged: r.unchanged, site: r.site, ...(r.removed.length ? { removed: r.removed } : {}) };
  }
  if (!opts.engine) throw new Error('publishProvider --oci needs an engine');
  // OpenTofu's oci_mirror layout carries no signature (tofu checks the digests the index names);
  // with a key given, the release's own signature must still verify before anything is pushed.
  if (keys.keys.length && release.signature) await releaseSignature(release, keys);
  const r: OciPublishReport = await publishToOci({ engine: opts.engine, release, template: opts.oci!, signal: opts.signal });
  return { ...base, written: r.written, unchanged: r.unchanged, repository: r.repository, tag: r.tag, providerInstallation: r.providerInstallation };
}
