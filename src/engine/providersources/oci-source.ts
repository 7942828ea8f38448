// Archives from an OCI registry in OpenTofu's oci_mirror layout: the source `lock --oci-mirror`
// reads, beside the origin registry and network mirror sources of sources.ts.
import { createWriteStream, promises as fs } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { RegistryError } from '../net/errors';
import { OciClient, OciRepository, RepositoryTemplate, tagVersion } from '../oci';
import { descriptorPlatform, packageLayer, readProviderIndex } from './oci-layout';
import { h1OfZip } from '../providerpkg/hash';
import { parseVersion } from '../versions/version';
import { archiveFilename, safeFilename } from '../fstree/safe-paths';
import { ArchiveDescription, ArchiveSource, FetchContext, FetchResult, FetchSlots, MirrorStepError, unlimited } from './sources';
import { errorText } from './types';
import type { MirrorTarget, ProviderAddress } from './types';

/**
 * Archives from an OCI registry in OpenTofu's oci_mirror layout (`repository_template`): versions are
 * the tags that read as versions ("_" as "+", others ignored); a platform's package is the one
 * `archive/zip` layer of the manifest the version's index lists for it, and its digest is the zh:
 * hash `tofu init` checks (the blob is verified against it as it is read).
 */
export class OciSource implements ArchiveSource {
  readonly label: string;
  private readonly indexes = new Map<string, Promise<Map<string, string>>>();

  constructor(private readonly client: OciClient, private readonly template: RepositoryTemplate) {
    this.label = `OCI mirror ${template.text}`;
  }

  repository(addr: ProviderAddress): OciRepository {
    try {
      return this.template.render(addr);
    } catch (err) {
      throw new MirrorStepError('path', errorText(err));
    }
  }

  async listVersions(addr: ProviderAddress, signal?: AbortSignal): Promise<string[]> {
    const tags = await this.client.listTags(this.repository(addr), { signal });
    return tags.map(tagVersion).filter((v) => typeof parseVersion(v, 'provider') !== 'string');
  }

  /** The platform's package layer: the index (once per version), then the platform's manifest. */
  async layer(t: MirrorTarget, signal?: AbortSignal): Promise<{ repo: OciRepository; digest: string; size: number; filename: string }> {
    const repo = this.repository(t.address);
    const key = `${t.provider} ${t.version}`;
    let index = this.indexes.get(key);
    if (!index) {
      index = this.client.getManifest(repo, t.version.replace(/\+/g, '_'), { signal }).then((m) => {
        const read = readProviderIndex(m.manifest, m.mediaType);
        if ('problem' in read) throw new MirrorStepError('metadata', `${this.label}: ${repo.registry}/${repo.repository}:${t.version} is not a provider index: ${read.problem}`);
        const byPlatform = new Map<string, string>();
        for (const d of read.manifests) {
          const p = descriptorPlatform(d);
          if (p && !byPlatform.has(p)) byPlatform.set(p, d.digest);
        }
        return byPlatform;
      });
      this.indexes.set(key, index);
      index.catch(() => this.indexes.delete(key));
    }
    let manifestDigest: string | undefined;
    try {
      manifestDigest = (await index).get(t.platform);
    } catch (err) {
      throw err instanceof MirrorStepError ? err : new MirrorStepError('metadata', errorText(err));
    }
    if (!manifestDigest) throw new MirrorStepError('metadata', `${this.label} has no ${t.platform} package of ${t.provider} ${t.version}`);
    let manifest: unknown;
    try {
      manifest = (await this.client.getManifest(repo, manifestDigest, { signal })).manifest;
    } catch (err) {
      throw new MirrorStepError('metadata', errorText(err));
    }
    const layer = packageLayer(manifest);
    if ('problem' in layer) throw new MirrorStepError('metadata', `${this.label}: ${t.provider} ${t.version} ${t.platform}: ${layer.problem}`);
    const title = ((manifest as { layers: Array<{ digest?: string; annotations?: Record<string, unknown> }> }).layers
      .find((l) => l.digest === layer.digest)?.annotations?.['org.opencontainers.image.title']);
    let filename: string;
    try { filename = safeFilename(typeof title === 'string' ? title : ''); } catch { filename = archiveFilename(t.address.type, t.version, t.platform); }
    return { repo, ...layer, filename };
  }

  async describe(t: MirrorTarget, opts: { signal?: AbortSignal; slots?: FetchSlots } = {}): Promise<ArchiveDescription> {
    const l = await (opts.slots?.request ?? unlimited)(() => this.layer(t, opts.signal));
    return { filename: l.filename, ...(l.digest.startsWith('sha256:') ? { zh: `zh:${l.digest.slice(7)}` } : {}) };
  }

  async fetch(t: MirrorTarget, ctx: FetchContext): Promise<FetchResult> {
    const slots = ctx.slots ?? { request: unlimited, download: unlimited };
    const l = await slots.request(() => this.layer(t, ctx.signal));
    if (!l.digest.startsWith('sha256:')) throw new MirrorStepError('metadata', `${this.label}: the package of ${t.provider} ${t.version} ${t.platform} has a ${l.digest.split(':')[0]} digest; OpenTofu needs sha256`);
    await slots.download(async () => {
      try {
        const body = await this.client.getBlob(l.repo, { digest: l.digest, size: l.size }, { maxBytes: ctx.maxBytes, signal: ctx.signal });
        let received = 0;
        body.on('data', (c: Buffer) => { received += c.length; ctx.onBytes?.(received, l.size); });
        await pipeline(body, createWriteStream(ctx.dest));
      } catch (err) {
        await fs.rm(ctx.dest, { force: true });
        if (ctx.signal?.aborted) throw new MirrorStepError('cancelled', 'cancelled');
        throw new MirrorStepError(err instanceof RegistryError && err.code === 'too-large' ? 'size' : 'download', errorText(err));
      }
    });
    let h1: string;
    try {
      h1 = await h1OfZip(ctx.dest, ctx.signal);
    } catch (err) {
      throw new MirrorStepError('archive', `the package of ${t.provider} ${t.version} ${t.platform} in ${this.label} is not a readable zip: ${errorText(err)}`);
    }
    return { hashes: { h1, zh: `zh:${l.digest.slice(7)}`, size: l.size }, downloaded: true };
  }
}

