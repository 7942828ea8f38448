// tofu-registry publish-module DIR oci://HOST/REPO --tag T [--tag T2]... [--annotation k=v]... [--force] [--json]
//   DIR pushed as the OCI artifact tofu init installs (engine/publish/publish.ts): a deterministic
//   zip, the same digests for the same files, nothing uploaded when the registry has it, tags last;
//   a tag that points at other content is refused unless --force. Prints the source addresses.
//   --json: {"repository","tags","manifestDigest","blobDigest","size","uploaded"}
//   Exit 0 on success, 1 on failure (a refused tag included), 2 on usage errors.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { publishModule, PublishError, publishTarget } from '../engine/publish/publish';
import { CliIO, flag, parseArgs, printJson, UsageError, values } from './common';
import { withEngine } from './registry';

export async function runPublishModule(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json', 'force', 'no-cache'], values: ['tag', 'annotation', 'ca-file', 'timeout', 'cache-dir'] });
  if (parsed.positionals.length !== 2) throw new UsageError('expected DIR and oci://HOST/REPO');
  const [dirArg, target] = parsed.positionals;
  const tags = values(parsed, 'tag');
  if (!tags.length) throw new UsageError('at least one --tag T is required');
  try { publishTarget(target); } catch (err) { throw new UsageError((err as Error).message); }
  const annotations: Record<string, string> = {};
  for (const a of values(parsed, 'annotation')) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new UsageError(`--annotation ${a}: expected KEY=VALUE`);
    annotations[a.slice(0, eq)] = a.slice(eq + 1);
  }
  const dir = path.resolve(io.cwd, dirArg);
  if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) throw new UsageError(`${dirArg} is not a directory`);
  return withEngine(parsed, io, async (engine, json) => {
    let r;
    try {
      r = await publishModule({ engine, dir, target, tags, annotations, force: flag(parsed, 'force') });
    } catch (err) {
      if (err instanceof PublishError) throw new Error(err.message);
      throw err;
    }
    if (json) {
      printJson(io, { repository: r.repository, tags: r.tags, manifestDigest: r.manifestDigest, blobDigest: r.blobDigest, size: r.size, uploaded: r.uploaded });
      return;
    }
    io.stdout(`${r.repository}: ${r.tags.join(', ')} → ${r.manifestDigest}\n`);
    io.stdout(`  package ${r.blobDigest} (${r.size} bytes, ${r.entries.filter((e) => !e.endsWith('/')).length} files${r.ignored.length ? `, ${r.ignored.length} left out` : ''}); ${r.uploaded} blob${r.uploaded === 1 ? '' : 's'} uploaded\n`);
    for (const m of r.moved) io.stdout(`  moved tag ${m.tag} (was ${m.from})\n`);
    io.stdout(`\nsource = "${r.sources.tag}"\nsource = "${r.sources.digest}"\n`);
  });
}
