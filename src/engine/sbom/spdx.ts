// An SbomInventory as an SPDX 2.3 JSON document (https://spdx.github.io/spdx-spec/v2.3/), valid
// against the SPDX JSON schema (the tests validate it with the official schema file). One package
// per component; DESCRIBES for each root, DEPENDS_ON for calls and required providers, CONTAINS
// for a local module inside its parent; NOASSERTION wherever a value is unknown. The document
// namespace is derived from a SHA-256 of the content: unique per content, the same for the same
// content.
import { createHash } from 'node:crypto';
import { contentUuid, referenceUrl } from './cyclonedx';
import type { SbomComponent, SbomDocumentOptions, SbomInventory } from './types';

type Json = Record<string, unknown>;

/** An SPDX identifier for a component ref: letters, digits, '.' and '-' only. */
export function spdxId(ref: string): string {
  const kind = ref.slice(0, ref.indexOf(':')).replace(/[^A-Za-z0-9.-]/g, '') || 'component';
  return `SPDXRef-${kind}-${createHash('sha256').update(ref).digest('hex').slice(0, 16)}`;
}

/** SPDX's download location: a URL, `git+URL@commit` (or `@ref`), or NOASSERTION. */
function downloadLocation(c: SbomComponent): string {
  if (c.git) {
    const url = referenceUrl(c.git.url.startsWith('git::') ? c.git.url : `git::${c.git.url}`);
    const at = c.git.commit ?? c.git.ref;
    return at ? `${url}@${at}` : url;
  }
  if (c.oci?.manifestDigest) return `oci://${c.oci.registry}/${c.oci.repository}@${c.oci.manifestDigest}`;
  return c.downloadLocation ? referenceUrl(c.downloadLocation) : 'NOASSERTION';
}

function packageJson(c: SbomComponent): Json {
  const out: Json = { SPDXID: spdxId(c.ref), name: c.name };
  if (c.version !== null) out.versionInfo = c.version;
  out.downloadLocation = c.kind === 'root' ? 'NOASSERTION' : downloadLocation(c);
  out.filesAnalyzed = false;
  if (c.sha256.length) out.checksums = c.sha256.map((h) => ({ algorithm: 'SHA256', checksumValue: h }));
  out.licenseConcluded = 'NOASSERTION';
  out.licenseDeclared = 'NOASSERTION';
  out.copyrightText = 'NOASSERTION';
  out.supplier = 'NOASSERTION';
  out.primaryPackagePurpose = c.kind === 'module' ? 'LIBRARY' : 'APPLICATION';
  if (c.purl) out.externalRefs = [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: c.purl }];
  const lines = [`tofu-registry:kind=${c.kind === 'module' ? `module/${c.sourceKind}` : c.kind}`, ...c.properties.map(([k, v]) => `${k}=${v}`)];
  if (c.path) lines.push(`tofu-registry:path=${c.path}`);
  if (c.kind !== 'root' && c.source) out.sourceInfo = `source address: ${c.source}`;
  out.comment = [...lines, ...c.notes.map((n) => `note: ${n}`)].join('\n');
  return out;
}

export function spdxDocument(inv: SbomInventory, doc: SbomDocumentOptions): Json {
  const relationships: Json[] = [];
  for (const r of inv.roots) relationships.push({ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: spdxId(r) });
  const refs = new Set(inv.components.map((c) => c.ref));
  for (const c of inv.components) {
    if (c.partOf && refs.has(c.partOf)) relationships.push({ spdxElementId: spdxId(c.partOf), relationshipType: 'CONTAINS', relatedSpdxElement: spdxId(c.ref) });
  }
  for (const [from, to] of inv.dependencies) {
    for (const t of to) relationships.push({ spdxElementId: spdxId(from), relationshipType: 'DEPENDS_ON', relatedSpdxElement: spdxId(t) });
  }
  const body: Json = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: doc.name,
    documentNamespace: '',
    creationInfo: { created: doc.timestamp, creators: [`Tool: tofu-registry-${doc.toolVersion}`] },
    packages: inv.components.map(packageJson),
    relationships,
  };
  if (inv.notes.length) body.comment = inv.notes.map((n) => `note: ${n}`).join('\n');
  const safeName = doc.name.replace(/[^A-Za-z0-9._-]/g, '-') || 'workspace';
  body.documentNamespace = `https://spdx.org/spdxdocs/tofu-registry-${encodeURIComponent(safeName)}-${contentUuid(JSON.stringify(body))}`;
  return body;
}
