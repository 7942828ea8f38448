// OpenTofu's layout of a provider mirror in an OCI repository ("Provider Mirrors in OCI Registries",
// internal/getproviders/oci_registry_mirror_source.go), and its repository_template:
//   tag "VERSION" (build metadata's "+" written "_") → an image index, artifactType
//   application/vnd.opentofu.provider, one descriptor per platform (its artifactType and
//   platform {os, architecture}) → an image manifest, artifactType …provider-target, the empty
//   config of image-spec 1.1 and exactly one `archive/zip` layer: the origin's zip, byte for byte,
//   so its digest is the signed zh: hash.
// Everything we write is deterministic (no timestamps), so an unchanged run writes the same bytes.
import { EMPTY_CONFIG, MEDIA_TYPE, OciReferenceError, OciRepository, parseOciReference, sha256Digest } from '../oci';
import type { ProviderAddress } from '../addresses/provider-source';

export const PROVIDER_ARTIFACT_TYPE = 'application/vnd.opentofu.provider';
export const PROVIDER_TARGET_ARTIFACT_TYPE = 'application/vnd.opentofu.provider-target';
export const PACKAGE_MEDIA_TYPE = 'archive/zip';
export const TITLE_ANNOTATION = 'org.opencontainers.image.title';

/** The tag OpenTofu looks for: the version with "+" written as "_". */
export function versionTag(version: string): string {
  return version.replace(/\+/g, '_');
}

/** The version a tag stands for ("_" read as "+"), as OpenTofu reads tags. */
export function tagVersion(tag: string): string {
  return tag.replace(/_/g, '+');
}

export interface RepositoryTemplate {
  text: string;
  /** Which of hostname, namespace, type the template uses. */
  symbols: Set<'hostname' | 'namespace' | 'type'>;
  render(addr: Pick<ProviderAddress, 'host' | 'namespace' | 'type'>): OciRepository;
}

export class TemplateError extends Error {}

const SYMBOLS = ['hostname', 'namespace', 'type'] as const;

/**
 * OpenTofu's `repository_template`: text with `${hostname}`, `${namespace}` and `${type}` (and `$${`
 * for a literal `${`); it must give "registry-host/repository". Other template expressions are
 * refused, as OpenTofu refuses other symbols.
 */
export function parseRepositoryTemplate(text: string): RepositoryTemplate {
  const parts: Array<{ text: string } | { symbol: (typeof SYMBOLS)[number] }> = [];
  const symbols = new Set<(typeof SYMBOLS)[number]>();
  let literal = '';
  for (let i = 0; i < text.length;) {
    if (text.startsWith('$${', i) || text.startsWith('%%{', i)) { literal += text.slice(i + 1, i + 3); i += 3; continue; }
    if (text.startsWith('%{', i)) throw new TemplateError(`invalid repository template ${JSON.stringify(text)}: template directives (%{…}) are not allowed`);
    if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i);
      const name = end < 0 ? '' : text.slice(i + 2, end).trim();
      if (!(SYMBOLS as readonly string[]).includes(name)) {
        throw new TemplateError(`invalid repository template ${JSON.stringify(text)}: only \${hostname}, \${namespace} and \${type} may be interpolated${end < 0 ? ' (unclosed ${)' : `, not \${${text.slice(i + 2, end)}}`}`);
      }
      if (literal) parts.push({ text: literal });
      literal = '';
      parts.push({ symbol: name as (typeof SYMBOLS)[number] });
      symbols.add(name as (typeof SYMBOLS)[number]);
      i = end + 1;
      continue;
    }
    literal += text[i++];
  }
  if (literal) parts.push({ text: literal });
  const render = (addr: Pick<ProviderAddress, 'host' | 'namespace' | 'type'>): OciRepository => {
    const values = { hostname: addr.host, namespace: addr.namespace, type: addr.type };
    const out = parts.map((p) => ('symbol' in p ? values[p.symbol] : p.text)).join('');
    try {
      const ref = parseOciReference(out, 'repository');
      return { registry: ref.registry, repository: ref.repository };
    } catch (err) {
      throw new TemplateError(`the repository template ${JSON.stringify(text)} gives ${JSON.stringify(out)} for ${addr.host}/${addr.namespace}/${addr.type}, which is not an OCI repository address (${(err as OciReferenceError).message})`);
    }
  };
  // as OpenTofu does: the template must give a valid address for an example provider
  render({ host: 'example.com', namespace: 'example-namespace', type: 'example-type' });
  return { text, symbols, render };
}

/**
 * Why a template cannot serve these providers in one oci_mirror block whose `include` lists exactly
 * them (OpenTofu: a symbol may be left out only when the include patterns fix that part), or undefined.
 */
export function templateProblem(t: RepositoryTemplate, providers: Array<Pick<ProviderAddress, 'host' | 'namespace' | 'type'>>): string | undefined {
  const distinct = (f: (p: Pick<ProviderAddress, 'host' | 'namespace' | 'type'>) => string) => new Set(providers.map(f)).size;
  const missing: string[] = [];
  if (distinct((p) => p.host) > 1 && !t.symbols.has('hostname')) missing.push('${hostname} (the providers come from more than one registry)');
  if (distinct((p) => p.namespace) > 1 && !t.symbols.has('namespace')) missing.push('${namespace} (the providers have more than one namespace)');
  if (distinct((p) => p.type) > 1 && !t.symbols.has('type')) missing.push('${type} (there is more than one provider)');
  return missing.length ? `the repository template ${JSON.stringify(t.text)} must use ${missing.join(' and ')}` : undefined;
}

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
