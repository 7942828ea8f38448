// publish-module: a module directory pushed as the OCI artifact OpenTofu installs ("Module Packages
// in OCI Registries"): the deterministic package zip (package-zip.ts) as the one `archive/zip`
// layer, the empty config descriptor of image-spec 1.1, an image manifest with artifactType
// application/vnd.opentofu.modulepkg (and the annotations asked for, keys sorted) — the same
// directory always gives the same blob and manifest digests. Order: tags are checked first (a tag
// that points at other content is refused unless `force`: released tags must not move under their
// users), then blobs (a blob the repository has is not sent), the manifest by digest, tags last.
import * as path from 'node:path';
import type { Engine } from '../engine';
import { parseOciModuleSource } from '../addresses/oci-source';
import { makeTempDir, removeTempDir } from '../fstree';
import { EMPTY_CONFIG, MEDIA_TYPE, repositoryName, sha256Digest, tagProblem } from '../oci';
import { buildModulePackage } from './package-zip';
import { MODULE_PACKAGE_ARTIFACT_TYPE, MODULE_PACKAGE_LAYER_TYPE } from '../modulepkg/oci-registry';

export class PublishError extends Error {}

export interface PublishRequest {
  engine: Engine;
  /** The module directory. */
  dir: string;
  /** "oci://HOST/REPO" (no tag, digest or subdirectory). */
  target: string;
  tags: string[];
  annotations?: Record<string, string>;
  /** Move tags that point at other content. */
  force?: boolean;
  signal?: AbortSignal;
}

export interface PublishResult {
  /** "HOST/REPO" */
  repository: string;
  tags: string[];
  manifestDigest: string;
  blobDigest: string;
  size: number;
  /** Blobs this run sent (0 when the registry had them all). */
  uploaded: number;
  /** Tags that pointed at other content and were moved (with --force): tag → previous digest. */
  moved: Array<{ tag: string; from: string }>;
  /** The source addresses to write: with the first tag, and pinned to the digest. */
  sources: { tag: string; digest: string };
  /** Files of the package and what was left out. */
  entries: string[];
  ignored: string[];
}

/** The registry and repository of a publish target, or a PublishError saying why it is not one. */
export function publishTarget(target: string): { registry: string; repository: string } {
  const src = parseOciModuleSource(target.startsWith('oci://') ? target : `oci://${target}`);
  if (!src) throw new PublishError(`${JSON.stringify(target)} is not an OCI repository (oci://HOST/REPOSITORY)`);
  if (src.error) throw new PublishError(`invalid target ${JSON.stringify(target)}: ${src.error.message}`);
  if (!src.defaultTag || src.subdir || src.args.length) throw new PublishError(`the target ${JSON.stringify(target)} names a repository only: tags come from --tag, and a package has no subdirectory`);
  return { registry: src.registry, repository: src.repository };
}

/** The image manifest of a module package, as deterministic bytes. */
export function modulePackageManifest(layer: { digest: string; size: number }, annotations: Record<string, string> = {}): Buffer {
  const keys = Object.keys(annotations).sort();
  return Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: MEDIA_TYPE.imageManifest,
    artifactType: MODULE_PACKAGE_ARTIFACT_TYPE,
    config: { mediaType: EMPTY_CONFIG.mediaType, digest: EMPTY_CONFIG.digest, size: EMPTY_CONFIG.size },
    layers: [{ mediaType: MODULE_PACKAGE_LAYER_TYPE, digest: layer.digest, size: layer.size }],
    ...(keys.length ? { annotations: Object.fromEntries(keys.map((k) => [k, annotations[k]])) } : {}),
  }));
}

export async function publishModule(req: PublishRequest): Promise<PublishResult> {
  const repo = publishTarget(req.target);
  if (!req.tags.length) throw new PublishError('at least one --tag is needed');
  for (const t of req.tags) {
    const problem = tagProblem(t);
    if (problem) throw new PublishError(`--tag ${t}: ${problem}`);
  }
  const tags = [...new Set(req.tags)];
  const client = req.engine.oci;
  const tmp = await makeTempDir('tofu-registry-publish-');
  try {
    const zip = await buildModulePackage(req.dir, path.join(tmp, 'package.zip'));
    const manifest = modulePackageManifest({ digest: zip.digest, size: zip.size }, req.annotations);
    const manifestDigest = sha256Digest(manifest);
    // Tags first: refuse before anything is pushed.
    const moved: PublishResult['moved'] = [];
    const current = new Map<string, string | undefined>();
    for (const tag of tags) {
      const head = await client.headManifest(repo, tag, { signal: req.signal });
      current.set(tag, head?.digest);
      if (head && head.digest !== manifestDigest) moved.push({ tag, from: head.digest });
    }
    if (moved.length && !req.force) {
      throw new PublishError(`${moved.map((m) => `tag ${m.tag} of ${repositoryName(repo)} points at other content (${m.from})`).join('; ')}; this package is ${manifestDigest}. Released tags must not move under their users: publish under a new tag, or pass --force to move ${moved.length === 1 ? 'it' : 'them'}`);
    }
    let uploaded = 0;
    for (const [blob, source] of [[{ digest: zip.digest, size: zip.size }, { path: path.join(tmp, 'package.zip') }], [EMPTY_CONFIG, Buffer.from('{}')]] as const) {
      const r = await client.pushBlob(repo, blob, source, { signal: req.signal });
      if (r.outcome === 'uploaded') uploaded++;
    }
    const byDigest = await client.headManifest(repo, manifestDigest, { signal: req.signal });
    if (!byDigest) await client.putManifest(repo, manifestDigest, { mediaType: MEDIA_TYPE.imageManifest, bytes: manifest }, { signal: req.signal });
    for (const tag of tags) {
      if (current.get(tag) !== manifestDigest) await client.putManifest(repo, tag, { mediaType: MEDIA_TYPE.imageManifest, bytes: manifest }, { signal: req.signal });
    }
    const base = `oci://${repositoryName(repo)}`;
    return {
      repository: repositoryName(repo), tags, manifestDigest, blobDigest: zip.digest, size: zip.size, uploaded, moved,
      sources: { tag: `${base}?tag=${tags[0]}`, digest: `${base}?digest=${manifestDigest}` },
      entries: zip.entries, ignored: zip.ignored,
    };
  } finally {
    await removeTempDir(tmp);
  }
}
