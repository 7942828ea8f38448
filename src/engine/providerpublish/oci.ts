// publish-provider --oci: the checked release pushed in OpenTofu's oci_mirror layout by the OCI
// mirror writer (ocimirror/run.ts mirrorToOci), with the release as its archive source: the same
// blobs-then-manifests-then-tag order, the same "up to date" test, and a tag that already holds
// other content is never replaced.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { MirrorPlan } from '../mirror';
import type { ArchiveSource, FetchContext, FetchResult } from '../providersources/sources';
import type { MirrorTarget } from '../providersources/types';
import { mirrorToOci, OciMirrorOptions, parseRepositoryTemplate, versionTag } from '../ocimirror';
import { repositoryName } from '../oci';
import { ProviderPublishError, Release } from './release';

export interface OciPublishReport {
  repository: string;
  tag: string;
  /** Platforms pushed, and platforms the tag already held with these packages. */
  written: string[];
  unchanged: string[];
  /** The provider_installation block that makes tofu init install from the registry. */
  providerInstallation: string;
}

/** The release's packages as an ArchiveSource: described from the checked release, "fetched" by copying. */
class ReleaseSource implements ArchiveSource {
  readonly label: string;

  constructor(private readonly release: Release) {
    // the verified-description cache is keyed by the label: tie it to this content
    this.label = `release ${createHash('sha256').update(release.sums.bytes).digest('hex')}`;
  }

  async listVersions(): Promise<string[]> {
    return [this.release.version];
  }

  private pkg(t: MirrorTarget) {
    const p = this.release.packages.find((x) => x.platform === t.platform);
    if (!p) throw new Error(`the release has no ${t.platform} package`);
    return p;
  }

  async describe(t: MirrorTarget): Promise<{ filename: string; zh: string; size: number }> {
    const p = this.pkg(t);
    return { filename: p.filename, zh: p.zh, size: p.size };
  }

  async fetch(t: MirrorTarget, ctx: FetchContext): Promise<FetchResult> {
    const p = this.pkg(t);
    await fs.copyFile(p.path, ctx.dest);
    return { hashes: { h1: p.h1, zh: p.zh, size: p.size }, downloaded: true };
  }
}

/** Pushes the release into the registry `template` names for its address. Throws ProviderPublishError on a refusal. */
export async function publishToOci(opts: {
  engine: OciMirrorOptions['engine']; release: Release; template: string; signal?: AbortSignal;
}): Promise<OciPublishReport> {
  const { release } = opts;
  const template = parseRepositoryTemplate(opts.template);
  const repo = template.render(release.address);
  const targets: MirrorTarget[] = release.packages.map((p) => ({ provider: release.address.address, address: release.address, version: release.version, platform: p.platform }));
  const plan: MirrorPlan = { source: new ReleaseSource(release), targets, failed: [], notes: [] };
  const r = await mirrorToOci({ engine: opts.engine, dirs: [], template: opts.template, platforms: release.packages.map((p) => p.platform), plan, signal: opts.signal, concurrency: 4 });
  if (r.failed.length) {
    throw new ProviderPublishError(`${release.address.address} ${release.version} was not pushed to ${repositoryName(repo)}:\n  ${r.failed.map((f) => f.message).join('\n  ')}`);
  }
  return {
    repository: repositoryName(repo),
    tag: versionTag(release.version),
    written: r.pushed.map((p) => p.platform),
    unchanged: r.upToDate.map((p) => p.platform),
    providerInstallation: r.providerInstallation,
  };
}
