// Module packages in OCI registries, read as `tofu init` reads them (OpenTofu's
// internal/getmodules/oci_getter.go): a tag or digest resolves to an image manifest, which is a
// module package when its artifactType is application/vnd.opentofu.modulepkg and it has exactly
// one `archive/zip` layer. Plain data for the CLI and the editor (tag completion, hover,
// diagnostics, quick fixes): listOciTags, ociTagOrder, resolveOciModule, through the engine's OCI
// client (engine.oci: its CAs, proxy, timeout, oci_credentials and network switch).
import type { Engine } from '../engine';
import { OciModuleSource, parseOciModuleSource } from '../addresses/oci-source';
import { RegistryError } from '../net/errors';
import { Descriptor, MEDIA_TYPE, OciRepository, repositoryName } from '../oci';
import { parseVersion, compareVersions, ParsedVersion } from '../versions/version';

export const MODULE_PACKAGE_ARTIFACT_TYPE = 'application/vnd.opentofu.modulepkg';
export const MODULE_PACKAGE_LAYER_TYPE = 'archive/zip';

export interface OciTag {
  tag: string;
  /** Version-like tags ("1.2.0", "v1.2.0", "1.2.0-rc.1"): the version, else undefined. */
  version?: string;
  prerelease: boolean;
  /** The tag `tofu init` would use for the source (its `?tag=`, or "latest" without one). */
  selected: boolean;
}

/** A tag read as a version: "v" allowed before it, as teams tag releases either way. */
function tagVersion(tag: string): ParsedVersion | undefined {
  const p = parseVersion(tag.replace(/^v(?=\d)/, ''), 'module');
  return typeof p === 'string' ? undefined : p;
}

/**
 * Tags as completion and `versions` show them: version-like tags newest first (prereleases
 * marked, after nothing: they sit where their version sorts), then the other tags in name order;
 * `selected` marks the tag `tofu init` would use.
 */
export function ociTagOrder(tags: string[], selected = 'latest'): OciTag[] {
  const versioned: Array<{ tag: string; v: ParsedVersion }> = [];
  const others: string[] = [];
  for (const tag of new Set(tags)) {
    const v = tagVersion(tag);
    if (v) versioned.push({ tag, v }); else others.push(tag);
  }
  versioned.sort((a, b) => compareVersions(b.v, a.v) || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  others.sort();
  return [
    ...versioned.map(({ tag, v }) => ({ tag, version: v.raw.replace(/^v/, ''), prerelease: v.prerelease !== '', selected: tag === selected })),
    ...others.map((tag) => ({ tag, prerelease: false, selected: tag === selected })),
  ];
}

/** The newest version-like tag that is not a prerelease (what "update available" compares with), or null. */
export function newestOciTag(order: OciTag[]): string | null {
  return order.find((t) => t.version !== undefined && !t.prerelease)?.tag ?? null;
}

export interface OciTagList {
  registry: string;
  repository: string;
  tags: OciTag[];
  newest: string | null;
}

/** How long a repository's tag list is reused: one request per repository for a run (outdated, a completion burst). */
const TAG_LIST_TTL_MS = 60_000;
const tagLists = new WeakMap<Engine, Map<string, { at: number; tags: Promise<string[]> }>>();

/** The tags of a repository, asked once per engine and minute however many calls use it (failures not kept). */
function repositoryTags(engine: Engine, repo: OciRepository, signal?: AbortSignal): Promise<string[]> {
  let memo = tagLists.get(engine);
  if (!memo) tagLists.set(engine, (memo = new Map()));
  const key = repositoryName(repo);
  const hit = memo.get(key);
  if (hit && Date.now() - hit.at < TAG_LIST_TTL_MS) return hit.tags;
  const entry = { at: Date.now(), tags: engine.oci.listTags(repo, { signal }) };
  memo.set(key, entry);
  entry.tags.catch(() => { if (memo!.get(key) === entry) memo!.delete(key); });
  return entry.tags;
}

/** The repository's tags in ociTagOrder ([] when the repository does not exist). */
export async function listOciTags(engine: Engine, repo: OciRepository, opts: { selected?: string; signal?: AbortSignal } = {}): Promise<OciTagList> {
  const tags = await repositoryTags(engine, repo, opts.signal);
  const order = ociTagOrder(tags, opts.selected);
  return { registry: repo.registry, repository: repo.repository, tags: order, newest: newestOciTag(order) };
}

export interface ResolvedOciModule {
  /** The source as given ("oci://…"), or the reference. */
  source: string;
  registry: string;
  repository: string;
  /** The tag resolved (null when the source pins a digest). */
  tag: string | null;
  manifestDigest: string;
  manifestMediaType: string;
  artifactType: string | null;
  /** The `archive/zip` layer tofu init downloads (null when there is not exactly one). */
  blobDigest: string | null;
  size: number | null;
  /** The manifest's annotations (org.opencontainers.image.created, source, revision, version, …). */
  annotations: Record<string, string>;
  /** Whether tofu init would install it. */
  isModulePackage: boolean;
  /** Why tofu init refuses it (its own message), when it does. */
  problem?: string;
}

/** The source of an oci:// module call, or a RegistryError 'invalid-address' with tofu's message. */
export function ociSourceOf(source: string | OciModuleSource): OciModuleSource {
  const src = typeof source === 'string' ? parseOciModuleSource(source) : source;
  if (!src) throw new RegistryError('invalid-address', `${JSON.stringify(source)} is not an oci:// module source`);
  if (src.error) throw new RegistryError('invalid-address', `invalid oci:// module source ${JSON.stringify(src.source)}: ${src.error.message}`);
  return src;
}

/**
 * What `tofu init` would download for an oci:// source: the tag (or digest) resolved to its
 * manifest, read and checked against its digest, with tofu's verdict on it. A tag or repository
 * that does not exist is a RegistryError 'not-found' naming it.
 */
export async function resolveOciModule(engine: Engine, source: string | OciModuleSource, opts: { signal?: AbortSignal } = {}): Promise<ResolvedOciModule> {
  const src = ociSourceOf(source);
  const repo = { registry: src.registry, repository: src.repository };
  const reference = src.digest ?? src.tag ?? 'latest';
  const client = engine.oci;
  const head = await client.headManifest(repo, reference, opts);
  if (!head) {
    const what = src.digest ? `manifest ${src.digest}` : `tag ${JSON.stringify(reference)}`;
    throw new RegistryError('not-found', `${repositoryName(repo)} has no ${what} (oci://${repositoryName(repo)})`, { host: repo.registry });
  }
  const got = await client.getManifest(repo, head.digest, { ...opts, accept: [MEDIA_TYPE.imageManifest, MEDIA_TYPE.imageIndex] });
  const m = (got.manifest ?? {}) as { mediaType?: unknown; artifactType?: unknown; layers?: unknown; annotations?: unknown };
  const mediaType = typeof m.mediaType === 'string' ? m.mediaType : got.mediaType;
  const artifactType = typeof m.artifactType === 'string' ? m.artifactType : null;
  const annotations: Record<string, string> = {};
  if (m.annotations && typeof m.annotations === 'object') {
    for (const [k, v] of Object.entries(m.annotations as Record<string, unknown>)) if (typeof v === 'string') annotations[k] = v;
  }
  const layers = Array.isArray(m.layers) ? (m.layers as Descriptor[]).filter((l) => l && typeof l === 'object') : [];
  const zips = layers.filter((l) => l.mediaType === MODULE_PACKAGE_LAYER_TYPE);
  const out: ResolvedOciModule = {
    source: src.source, registry: repo.registry, repository: repo.repository, tag: src.digest ? null : reference,
    manifestDigest: got.digest, manifestMediaType: mediaType, artifactType,
    blobDigest: null, size: null, annotations, isModulePackage: false,
  };
  // tofu's checks, in its order (resolveManifestDescriptor, fetchOCIImageManifest, selectOCILayerBlob).
  if (mediaType !== MEDIA_TYPE.imageManifest) {
    out.problem = mediaType === MEDIA_TYPE.imageIndex ? 'found index manifest but need image manifest' : 'selected object is not an OCI image manifest';
  } else if (artifactType !== MODULE_PACKAGE_ARTIFACT_TYPE) {
    out.problem = `unexpected artifact type ${JSON.stringify(artifactType ?? '')}`;
  } else if (zips.length > 1) {
    out.problem = `multiple layers with media type "${MODULE_PACKAGE_LAYER_TYPE}"`;
  } else if (zips.length === 0) {
    out.problem = `image manifest contains no layers of types supported as module packages by OpenTofu${layers.length ? ', but has other unsupported formats; this OCI artifact might be intended for a different version of OpenTofu' : ''}`;
  } else if (typeof zips[0].digest !== 'string' || typeof zips[0].size !== 'number' || zips[0].size < 0) {
    out.problem = 'the archive/zip layer has no valid digest or size';
  } else {
    out.blobDigest = zips[0].digest;
    out.size = zips[0].size;
    out.isModulePackage = true;
  }
  return out;
}
