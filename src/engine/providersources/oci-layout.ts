// OpenTofu's layout of a provider mirror in an OCI repository ("Provider Mirrors in OCI Registries",
// internal/getproviders/oci_registry_mirror_source.go), and its repository_template:
//   tag "VERSION" (build metadata's "+" written "_") → an image index, artifactType
//   application/vnd.opentofu.provider, one descriptor per platform (its artifactType and
//   platform {os, architecture}) → an image manifest, artifactType …provider-target, the empty
//   config of image-spec 1.1 and exactly one `archive/zip` layer: the origin's zip, byte for byte,
//   so its digest is the signed zh: hash. The repository_template and tags: addresses/oci-template.ts.
// Everything we write is deterministic (no timestamps), so an unchanged run writes the same bytes.
import { EMPTY_CONFIG, MEDIA_TYPE, sha256Digest } from '../oci';
export { parseRepositoryTemplate, TemplateError, templateProblem, versionTag, tagVersion } from '../addresses/oci-template';
export type { RepositoryTemplate } from '../addresses/oci-template';

export const PROVIDER_ARTIFACT_TYPE = 'application/vnd.opentofu.provider';
export const PROVIDER_TARGET_ARTIFACT_TYPE = 'application/vnd.opentofu.provider-target';
export const PACKAGE_MEDIA_TYPE = 'archive/zip';
export const TITLE_ANNOTATION = 'org.opencontainers.image.title';


export interface PlatformManifest {
  bytes: Buffer;
  digest: string;
}

/** The image manifest of one platform's package. */
export function platformManifest(zip: { digest: string; size: number; filename: string }): PlatformManifest {
  const bytes = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: MEDIA_TYPE.imageManifest,
    artifactType: PROVIDER_TARGET_ARTIFACT_TYPE,
    config: { mediaType: EMPTY_CONFIG.mediaType, digest: EMPTY_CONFIG.digest, size: EMPTY_CONFIG.size },
    layers: [{ mediaType: PACKAGE_MEDIA_TYPE, digest: zip.digest, size: zip.size, annotations: { [TITLE_ANNOTATION]: zip.filename } }],
  }));
  return { bytes, digest: sha256Digest(bytes) };
}

/** A descriptor as an index lists it (kept as read for descriptors we do not touch). */
export type IndexDescriptor = Record<string, unknown> & { digest: string; mediaType?: string; artifactType?: string; platform?: { os?: string; architecture?: string; variant?: string; 'os.version'?: string } };

/** The descriptor of a platform manifest we pushed. */
export function platformDescriptor(m: PlatformManifest, platform: string): IndexDescriptor {
  const [os, architecture] = splitPlatform(platform);
  return { mediaType: MEDIA_TYPE.imageManifest, artifactType: PROVIDER_TARGET_ARTIFACT_TYPE, digest: m.digest, size: m.bytes.length, platform: { architecture, os } };
}

/** The image index of a version. */
export function providerIndex(manifests: IndexDescriptor[]): Buffer {
  return Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE.imageIndex, artifactType: PROVIDER_ARTIFACT_TYPE, manifests }));
}

export function splitPlatform(platform: string): [string, string] {
  const cut = platform.indexOf('_');
  return [platform.slice(0, cut), platform.slice(cut + 1)];
}

/** The "os_arch" of a descriptor OpenTofu would pick for a platform, or undefined. */
export function descriptorPlatform(d: IndexDescriptor): string | undefined {
  if (d.artifactType !== PROVIDER_TARGET_ARTIFACT_TYPE || d.mediaType !== MEDIA_TYPE.imageManifest) return undefined;
  const p = d.platform;
  if (!p || typeof p.os !== 'string' || typeof p.architecture !== 'string' || p['os.version']) return undefined;
  return `${p.os}_${p.architecture}`;
}

/**
 * The descriptors of an existing tag's index, or a reason it is not a provider index OpenTofu
 * reads (then it is never replaced).
 */
export function readProviderIndex(manifest: unknown, mediaType: string): { manifests: IndexDescriptor[] } | { problem: string } {
  const m = manifest as { mediaType?: unknown; artifactType?: unknown; manifests?: unknown };
  const type = typeof m?.mediaType === 'string' ? m.mediaType : mediaType;
  if (type !== MEDIA_TYPE.imageIndex) return { problem: `it is a ${type || 'manifest of unknown type'}, not an OCI image index` };
  if (m.artifactType !== PROVIDER_ARTIFACT_TYPE) return { problem: `its artifactType is ${JSON.stringify(m.artifactType ?? null)}, not ${PROVIDER_ARTIFACT_TYPE}` };
  if (!Array.isArray(m.manifests)) return { problem: 'it lists no manifests' };
  const manifests = m.manifests.filter((d): d is IndexDescriptor => !!d && typeof d === 'object' && typeof (d as { digest?: unknown }).digest === 'string');
  return { manifests };
}

/** The `archive/zip` layer of a platform manifest (OpenTofu requires exactly one), or a reason. */
export function packageLayer(manifest: unknown): { digest: string; size: number } | { problem: string } {
  const layers = (manifest as { layers?: unknown })?.layers;
  if (!Array.isArray(layers)) return { problem: 'the platform manifest has no layers' };
  const zips = layers.filter((l) => l && typeof l === 'object' && (l as { mediaType?: unknown }).mediaType === PACKAGE_MEDIA_TYPE);
  if (zips.length !== 1) return { problem: `the platform manifest has ${zips.length} ${PACKAGE_MEDIA_TYPE} layers (OpenTofu needs exactly one)` };
  const z = zips[0] as { digest?: unknown; size?: unknown };
  if (typeof z.digest !== 'string' || typeof z.size !== 'number') return { problem: 'the platform manifest\'s package layer has no digest or size' };
  return { digest: z.digest, size: z.size };
}
