// mirror --oci: the providers and versions `mirror` selects, verified exactly as `mirror` verifies
// them, pushed into an OCI registry in OpenTofu's layout (providersources/oci-layout.ts). Per version:
//   1. read the tag's index (if any) and the zip digests of its platforms we were asked for;
//   2. a platform whose zip digest equals the signed zh: hash is up to date (nothing downloaded);
//      every other one is downloaded and verified (size, shasum, signed SHA256SUMS, h1:, lock files);
//      a platform the tag already has with another zip is a conflict, never replaced;
//   3. only when every platform of the version verified: blobs (HEAD first; mounted when another
//      repository of this run has the zip), then the platform manifests by digest, then the index
//      with every platform it had plus the new ones, under the tag — the tag moves last, so a run
//      killed at any point leaves no tag pointing at missing content, and the next run completes it.
import { join } from 'node:path';
import { promises as fs } from 'node:fs';
import { createLimiter, makeTempDir, mapLimit, removeTempDir } from '../fstree';
import { VerifiedPackages } from './verified';
import { isRegistryError } from '../net/errors';
import { MirrorEngine, MirrorPlan, planMirror } from '../mirror';
import { byTarget, lockMismatch, ProviderRequirement } from '../mirror/run';
import { fetchSlots, MirrorStepError } from '../providersources/sources';
import { errorText, mirrorFailure } from '../providersources/types';
import type { MirrorFailure, MirrorProgressEvent, MirrorStep, MirrorTarget } from '../providersources/types';
import { EMPTY_CONFIG, MEDIA_TYPE, OciClient, OciRepository, repositoryName, tagProblem } from '../oci';
import {
  descriptorPlatform, IndexDescriptor, packageLayer, parseRepositoryTemplate, platformDescriptor, platformManifest,
  providerIndex, readProviderIndex, TemplateError, templateProblem, versionTag,
} from '../providersources/oci-layout';

export interface OciMirrorOptions {
  engine: MirrorEngine & { oci: OciClient; options?: { cacheDir?: string }; cliSettings?(): { hosts: Map<string, { services: Record<string, unknown> }> } };
  dirs: string[];
  /** OpenTofu's repository_template. */
  template: string;
  platforms: string[];
  fromMirror?: string;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (e: MirrorProgressEvent) => void;
  requirements?: ProviderRequirement[];
  /** Size cap per archive (default 2 GiB). */
  maxArchiveBytes?: number;
  /** What to push, planned by the caller (publish-provider: a checked local release) instead of from `dirs`. */
  plan?: MirrorPlan;
}

/** One platform of one version in the registry; `digest` is its platform manifest's. Part of the JSON contract. */
export interface OciMirrored {
  provider: string;
  version: string;
  platform: string;
  repository: string;
  tag: string;
  digest: string;
}

export interface OciMirrorReport {
  repositoryTemplate: string;
  pushed: OciMirrored[];
  upToDate: OciMirrored[];
  failed: MirrorFailure[];
  notes: string[];
  /** The provider_installation block that makes `tofu init` use the mirror for these providers. */
  providerInstallation: string;
  /** Zips uploaded (not counting the 2-byte empty config), and mounted from another repository. */
  blobsUploaded: number;
  blobsMounted: number;
  bytesDownloaded: number;
}

export { TemplateError };

interface Ready { t: MirrorTarget; file: string; zip: { digest: string; size: number; filename: string } }

/** Mirrors into the OCI registry the template names. Throws TemplateError for a template that cannot serve the providers (a usage error). */
export async function mirrorToOci(opts: OciMirrorOptions): Promise<OciMirrorReport> {
  const template = parseRepositoryTemplate(opts.template);
  const client = opts.engine.oci;
  const plan = opts.plan ?? await planMirror(opts);
  const providers = [...new Map(plan.targets.map((t) => [t.provider, t.address])).values()];
  const problem = templateProblem(template, providers);
  if (problem) throw new TemplateError(problem);
  const progress = opts.onProgress ?? (() => undefined);
  const pushed: OciMirrored[] = [];
  const upToDate: OciMirrored[] = [];
  const failed: MirrorFailure[] = [...plan.failed];
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const slots = fetchSlots(concurrency);
  const pushSlot = concurrency <= 1 ? slots.download : createLimiter(concurrency);
  // registry reads (tags, manifests: small) get their own bound, beside the origin's requests
  const registrySlot = concurrency <= 1 ? slots.request : createLimiter(4 * concurrency);
  const verified = new VerifiedPackages(opts.engine.options?.cacheDir);
  const engine = opts.engine;
  const sourceKey = (t: MirrorTarget) => [plan.source.label, JSON.stringify(engine.cliSettings?.().hosts.get(t.address.host)?.services ?? null), t.provider, t.version, t.platform];
  const configured = new Map<string, Promise<unknown>>();
  const zipHomes = new Map<string, OciRepository>();
  const stats = { blobsUploaded: 0, blobsMounted: 0, bytesDownloaded: 0 };
  const signal = opts.signal;
  progress({ kind: 'planned', total: plan.targets.length });

  const groups = new Map<string, MirrorTarget[]>();
  for (const t of plan.targets) groups.set(`${t.provider} ${t.version}`, [...(groups.get(`${t.provider} ${t.version}`) ?? []), t]);
  const tmp = await makeTempDir('tofu-registry-oci-');
  let fileNo = 0;
  const fail = (t: MirrorTarget, step: MirrorStep, detail: string) => {
    const f = mirrorFailure(t.provider, t.version, t.platform, step, detail);
    failed.push(f);
    progress({ kind: 'done', target: t, outcome: 'failed', message: f.message });
  };
  const stepOf = (err: unknown, fallback: MirrorStep): MirrorStep => (signal?.aborted ? 'cancelled' : err instanceof MirrorStepError ? err.step : fallback);

  const mirrorVersion = async (targets: MirrorTarget[]): Promise<void> => {
    const first = targets[0];
    for (const t of targets) progress({ kind: 'start', target: t });
    let repo: OciRepository;
    try {
      repo = template.render(first.address);
    } catch (err) {
      for (const t of targets) fail(t, 'path', errorText(err));
      return;
    }
    const tag = versionTag(first.version);
    const bad = tagProblem(tag);
    if (bad) { for (const t of targets) fail(t, 'path', `version ${first.version} cannot be an OCI tag: ${bad}`); return; }
    const name = repositoryName(repo);
    const entry = (t: MirrorTarget, digest: string): OciMirrored => ({ provider: t.provider, version: t.version, platform: t.platform, repository: name, tag, digest });

    // what the source vouches for (metadata, signed SHA256SUMS) is asked at once, beside the registry reads
    const described = new Map(targets.map((t) => {
      const d = verified.get(sourceKey(t), () => plan.source.describe(t, { signal, slots }));
      d.catch(() => undefined); // awaited in step 2
      return [t, d] as const;
    }));

    // 1. the tag as it is
    let existing: IndexDescriptor[] | undefined;
    const oldDescriptor = new Map<string, IndexDescriptor>();
    try {
      const current = await registrySlot(() => client.getManifest(repo, tag, { signal })).catch((err: unknown) => {
        if (isRegistryError(err, 'not-found')) return undefined;
        throw err;
      });
      if (current) {
        const index = readProviderIndex(current.manifest, current.mediaType);
        if ('problem' in index) {
          for (const t of targets) fail(t, 'tag-conflict', `${name}:${tag} already exists and is not an OpenTofu provider index (${index.problem}); it is left as it is`);
          return;
        }
        existing = index.manifests;
        for (const d of existing) {
          const p = descriptorPlatform(d);
          if (p && !oldDescriptor.has(p)) oldDescriptor.set(p, d);
        }
      }
    } catch (err) {
      for (const t of targets) fail(t, stepOf(err, 'push'), `reading ${name}:${tag}: ${errorText(err)}`);
      return;
    }

    // 2. verify: up to date by the signed zh:, else download and verify
    const ready: Ready[] = [];
    const current: Array<{ t: MirrorTarget; digest: string }> = [];
    let verifyFailed: MirrorTarget | undefined;
    await Promise.all(targets.map(async (t) => {
      let file: string | undefined;
      try {
        const about = await described.get(t)!;
        const od = oldDescriptor.get(t.platform);
        const zhDigest = about.zh && `sha256:${about.zh.slice(3)}`;
        const lockOk = !!about.zh && !lockMismatch({ h1: '', zh: about.zh }, t);
        // the manifest we would write for the verified zip: the index's digest commits to its bytes
        if (od && zhDigest && about.size !== undefined && lockOk && od.digest === platformManifest({ digest: zhDigest, size: about.size, filename: about.filename }).digest) {
          current.push({ t, digest: od.digest });
          return;
        }
        let old: { digest: string } | { problem: string } | undefined;
        if (od) {
          try {
            old = packageLayer((await registrySlot(() => client.getManifest(repo, od.digest, { signal }))).manifest);
          } catch (err) {
            throw new MirrorStepError('push', `reading the ${t.platform} manifest of ${name}:${tag}: ${errorText(err)}`);
          }
          if ('digest' in old && zhDigest === old.digest && lockOk) {
            current.push({ t, digest: od.digest });
            return;
          }
        }
        file = join(tmp, `${fileNo++}.zip`);
        const res = await plan.source.fetch(t, { dest: file, maxBytes: opts.maxArchiveBytes ?? 2 * 1024 ** 3, signal, slots,
          onBytes: (received, total) => progress({ kind: 'bytes', target: t, received, total }) });
        stats.bytesDownloaded += res.hashes.size;
        verified.remember(sourceKey(t), { filename: about.filename, zh: res.hashes.zh, size: res.hashes.size });
        const disagree = lockMismatch(res.hashes, t);
        if (disagree) throw new MirrorStepError('lock-hash', `package ${res.hashes.h1} ${res.hashes.zh} matches none of the hashes in ${disagree}`);
        const digest = `sha256:${res.hashes.zh.slice(3)}`;
        if (old) {
          if ('problem' in old || old.digest !== digest) {
            throw new MirrorStepError('tag-conflict', `${name}:${tag} already has a ${t.platform} package (${'problem' in old ? old.problem : old.digest}) that is not the verified zip (${digest}); the tag is left as it is`);
          }
          current.push({ t, digest: oldDescriptor.get(t.platform)!.digest });
          return;
        }
        ready.push({ t, file, zip: { digest, size: res.hashes.size, filename: about.filename } });
        file = undefined;
      } catch (err) {
        verifyFailed ??= t;
        fail(t, stepOf(err, 'download'), errorText(err));
      } finally {
        if (file) await fs.rm(file, { force: true });
      }
    }));
    const notPushed = (why: string) => {
      for (const r of ready) fail(r.t, signal?.aborted ? 'cancelled' : 'push', why);
      for (const c of current) upToDate.push(entry(c.t, c.digest));
      for (const c of current) progress({ kind: 'done', target: c.t, outcome: 'up-to-date' });
    };
    if (verifyFailed) {
      notPushed(`not pushed: ${verifyFailed.platform} of this version failed, so ${name}:${tag} is left as it was`);
      return;
    }

    // 3. blobs, platform manifests, then the index under the tag
    try {
      const manifests = await Promise.all(ready.map((r) => pushSlot(async () => {
        const config = configured.get(name) ?? client.pushBlob(repo, EMPTY_CONFIG, Buffer.from('{}'), { signal });
        configured.set(name, config);
        await config;
        const home = zipHomes.get(r.zip.digest);
        const out = await client.pushBlob(repo, r.zip, { path: r.file }, { signal, mountFrom: home ? [home] : [] });
        if (out.outcome === 'uploaded') stats.blobsUploaded++;
        if (out.outcome === 'mounted') stats.blobsMounted++;
        zipHomes.set(r.zip.digest, repo);
        const m = platformManifest(r.zip);
        await client.putManifest(repo, m.digest, { mediaType: MEDIA_TYPE.imageManifest, bytes: m.bytes }, { signal });
        return { r, m };
      })));
      if (manifests.length) {
        const replaced = new Map(manifests.map(({ r, m }) => [r.t.platform, platformDescriptor(m, r.t.platform)]));
        const kept = (existing ?? []).map((d) => {
          const p = descriptorPlatform(d);
          const mine = p !== undefined && oldDescriptor.get(p) === d ? replaced.get(p) : undefined;
          if (mine) replaced.delete(p!);
          return mine ?? d;
        });
        const added = [...replaced.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
        if (signal?.aborted) throw new MirrorStepError('cancelled', 'cancelled before the tag was written');
        await client.putManifest(repo, tag, { mediaType: MEDIA_TYPE.imageIndex, bytes: providerIndex([...kept, ...added]) }, { signal });
      }
      for (const { r, m } of manifests) {
        pushed.push(entry(r.t, m.digest));
        progress({ kind: 'done', target: r.t, outcome: 'mirrored' });
      }
      for (const c of current) upToDate.push(entry(c.t, c.digest));
      for (const c of current) progress({ kind: 'done', target: c.t, outcome: 'up-to-date' });
    } catch (err) {
      notPushed(`${errorText(err)}${ready.length > 1 ? ` (${name}:${tag} was not updated)` : ''}`);
    } finally {
      await Promise.all(ready.map((r) => fs.rm(r.file, { force: true })));
    }
  };

  try {
    await mapLimit([...groups.values()], concurrency <= 1 ? 1 : 4 * concurrency, mirrorVersion);
  } finally {
    await Promise.all([removeTempDir(tmp), verified.flush()]);
  }
  return {
    repositoryTemplate: opts.template,
    pushed: pushed.sort(byTarget),
    upToDate: upToDate.sort(byTarget),
    failed: failed.sort(byTarget),
    notes: plan.notes,
    providerInstallation: ociProviderInstallation(opts.template, providers.map((p) => p.address)),
    ...stats,
  };
}

/** The provider_installation block for these providers: the OCI mirror for them, direct for the rest. */
export function ociProviderInstallation(template: string, providers: string[]): string {
  const list = [...new Set(providers)].sort().map((p) => JSON.stringify(p)).join(', ');
  return [
    'provider_installation {',
    '  oci_mirror {',
    `    repository_template = ${JSON.stringify(template)}`,
    `    include             = [${list}]`,
    '  }',
    '  direct {',
    `    exclude = [${list}]`,
    '  }',
    '}',
    '',
  ].join('\n');
}
