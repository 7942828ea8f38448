// "Publish module to an OCI registry…" as plain data for both adapters: what the prompts accept
// (the repository as `publishTarget` reads it, tags as the distribution spec allows them) and the
// run itself (publishModule: deterministic package, tags set last, a moved tag refused unless forced).
import { tagProblem } from '../engine/addresses/oci-reference';
import { publishModule, PublishRequest, PublishResult, publishTarget } from '../engine/publish/publish';
import type { FeatureContext } from './context';

/** Why `target` is not a repository to publish to ("oci://HOST/REPO"), or undefined. */
export function publishTargetProblem(target: string): string | undefined {
  if (!target.trim()) return 'an OCI repository, e.g. oci://registry.example.com/modules/network';
  try { publishTarget(target.trim()); return undefined; } catch (err) { return err instanceof Error ? err.message : String(err); }
}

/** Tags typed as "1.2.0, latest" or "1.2.0 latest" (first one used in the source shown). */
export function parsePublishTags(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** Why the typed tags cannot be used, or undefined. */
export function publishTagsProblem(text: string): string | undefined {
  const tags = parsePublishTags(text);
  if (!tags.length) return 'at least one tag, e.g. 1.0.0 (several: 1.0.0, latest)';
  for (const t of tags) {
    const p = tagProblem(t);
    if (p) return `tag ${JSON.stringify(t)}: ${p}`;
  }
  return undefined;
}

/** A publish request as the editors make it: the engine comes from the feature context. */
export type PublishRun = Omit<PublishRequest, 'engine'>;

/** Publishes DIR; the result's `sources` are the addresses to write (by tag and pinned to the digest). */
export async function publishFromEditor(ctx: Pick<FeatureContext, 'engine' | 'log' | 'networkAllowed'>, run: PublishRun): Promise<PublishResult> {
  if (!ctx.networkAllowed()) throw new Error('publishing needs network access, which is off (untrusted workspace or offline)');
  const target = run.target.trim().startsWith('oci://') ? run.target.trim() : `oci://${run.target.trim()}`;
  const r = await publishModule({ engine: ctx.engine, dir: run.dir, target, tags: run.tags, annotations: run.annotations, force: run.force, signal: run.signal });
  ctx.log.info(`publish module: ${run.dir} → ${r.repository} tags ${r.tags.join(', ')}: ${r.manifestDigest} (${r.size} bytes, ${r.uploaded} blobs uploaded)`);
  return r;
}

/** What the user is told after a publish, with both source addresses to copy. */
export function publishSummary(r: PublishResult): string {
  const moved = r.moved.length ? ` Moved: ${r.moved.map((m) => `${m.tag} (was ${m.from.slice(0, 19)}…)`).join(', ')}.` : '';
  return `Published ${r.repository} (${r.tags.join(', ')}; ${r.size} bytes, ${r.uploaded ? `${r.uploaded} blobs uploaded` : 'nothing new to upload'}).${moved} ` +
    `source = "${r.sources.tag}" or, pinned, source = "${r.sources.digest}"`;
}
