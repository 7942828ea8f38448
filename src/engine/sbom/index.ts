// Software bill of materials of OpenTofu configurations (`tofu-registry sbom`, the editor's
// "Export SBOM…"): it reads deps/ (the dependency graph's parts), modulepkg/ (the resolver that
// fetches packages and records their hashes), lock/ and lockfile/; nothing imports it but the
// front ends.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there). collectSbom walks the roots into plain data (types.ts); cyclonedx.ts and spdx.ts
// write it; renderSbom gives the exact bytes (deterministic: same inventory and time, same bytes).
import { cycloneDxDocument } from './cyclonedx';
import { spdxDocument } from './spdx';
import type { SbomDocumentOptions, SbomInventory } from './types';

export * from './types';
export { collectSbom, printable, SbomCollectOptions } from './collect';
export { GitCommitLookup } from './git-commit';
export { modulePurlOf, providerPurlOf, ociPurlOf, PURL_DEFAULT_TERRAFORM_REGISTRY } from './purl';
export { cycloneDxDocument, referenceUrl } from './cyclonedx';
export { spdxDocument, spdxId } from './spdx';

export type SbomFormat = 'cyclonedx' | 'spdx';
export const SBOM_FORMATS: readonly SbomFormat[] = ['cyclonedx', 'spdx'];

/** The document's bytes: JSON with two-space indentation and a final newline. */
export function renderSbom(inv: SbomInventory, format: SbomFormat, doc: SbomDocumentOptions): string {
  const json = format === 'spdx' ? spdxDocument(inv, doc) : cycloneDxDocument(inv, doc);
  return JSON.stringify(json, null, 2) + '\n';
}

/**
 * The document's time: SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds convention)
 * when set and valid, else `now`; ISO 8601 in UTC without fractions. Throws for a malformed value.
 */
export function sbomTimestamp(env: NodeJS.ProcessEnv, now: Date = new Date()): string {
  const raw = env.SOURCE_DATE_EPOCH;
  let ms = Math.floor(now.getTime() / 1000) * 1000;
  if (raw !== undefined && raw !== '') {
    if (!/^\d{1,12}$/.test(raw)) throw new Error(`SOURCE_DATE_EPOCH must be a number of seconds since 1970, not ${JSON.stringify(raw.slice(0, 40))}`);
    ms = Number(raw) * 1000;
  }
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
