// tofu-registry discover | versions | resolve — thin wrappers over the Engine (versions and resolve
// also take oci:// module sources: tags, and the artifact a tag resolves to; and git module sources:
// tags and branches from one `git ls-remote`, and what a ?ref= resolves to). The --json shapes
// are a public contract (CI pipelines script against them): do not rename fields.
import { resolve } from 'node:path';
import { describeSource, Engine, EngineOptions } from '../engine/engine';
import { toModuleAddress } from '../engine/registry/modules';
import { toProviderAddress } from '../engine/registry/providers';
import { MAX_NAME_CHARS } from '../engine/providersources/types';
import { shortText, shownUrl } from '../engine/net/http-errors';
import { selectVersions } from '../engine/versions';
import { OciModuleSource, parseOciModuleSource } from '../engine/addresses/oci-source';
import { listOciTags, OciTag, resolveOciModule } from '../engine/modulepkg/oci-registry';
import { GitModuleSource, GitRefItem, gitRefOrder, newestGitTag, parseGitModuleSource } from '../engine/git';
import { RegistryError } from '../engine/net/errors';
import { cacheDirOption, CliIO, flag, parseArgs, ParsedArgs, printJson, printWarnings, reportFailure, timeoutMsOption, UsageError, value, values } from './common';

const COMMON = ['ca-file', 'timeout', 'cache-dir'];
const BOOLEANS = ['json', 'no-cache'];

/** The engine of a network command: --ca-file, --timeout, --cache-dir/--no-cache, TF_CLI_CONFIG_FILE. */
export function makeEngine(parsed: ParsedArgs, io: CliIO, extra: Pick<EngineOptions, 'networkAllowed'> = {}): Engine {
  const timeoutMs = timeoutMsOption(parsed);
  const engine = new Engine({
    env: io.env,
    cacheDir: cacheDirOption(parsed, io),
    caFiles: values(parsed, 'ca-file').map((f) => resolve(io.cwd, f)),
    timeoutMs,
    cliConfigFile: io.env.TF_CLI_CONFIG_FILE || undefined,
    // tofu's "There are some problems with the CLI configuration": one warning, then the command goes on
    onCliConfigProblem: (message) => printWarnings(io, [message]),
    ...extra,
  });
  engine.cliConfig(); // read now, as tofu does before any command: the warning comes first
  return engine;
}

function one(parsed: ParsedArgs, what: string): string {
  if (parsed.positionals.length !== 1) throw new UsageError(`expected exactly one ${what}`);
  return parsed.positionals[0];
}

/** Runs a command with an engine closed at the end; `run` may return an exit code (default 0). */
export async function withEngine(parsed: ParsedArgs, io: CliIO, run: (engine: Engine, json: boolean) => Promise<void | number>): Promise<number> {
  const json = flag(parsed, 'json');
  let engine: Engine | undefined;
  try {
    engine = makeEngine(parsed, io);
    return (await run(engine, json)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return reportFailure(io, err, json);
  } finally {
    await engine?.dispose();
  }
}

/** An oci:// source given to versions / resolve, or undefined for a registry address. */
function ociArgument(address: string): OciModuleSource | undefined {
  if (!/^oci:/i.test(address) && !/^oci::/i.test(address)) return undefined;
  const src = parseOciModuleSource(address);
  if (!src) throw new UsageError(`${JSON.stringify(address)} is not an oci:// repository`);
  if (src.error) throw new UsageError(`invalid oci:// source ${JSON.stringify(address)}: ${src.error.message}`);
  return src;
}

/** A git module source given to versions / resolve (git::…, git@host:…, github.com/…, bitbucket.org/…), or undefined. */
function gitArgument(address: string): GitModuleSource | undefined {
  const src = parseGitModuleSource(address);
  if (src?.error) throw new UsageError(`invalid git source ${JSON.stringify(shownUrl(address))}: ${src.error}`);
  return src;
}

/** versions GIT-SOURCE: version-like tags newest first, other tags, then branches (marked); the ref the source names selected. */
async function gitVersions(src: GitModuleSource, engine: Engine, json: boolean, io: CliIO): Promise<void> {
  const { refs, resolved } = await engine.resolveGitSource(src);
  const order = gitRefOrder(refs, src.ref);
  const tags = order.filter((r) => r.kind === 'tag');
  const branches = order.filter((r) => r.kind === 'branch');
  const newest = newestGitTag(refs);
  const selected = resolved ? resolved.name : null;
  if (json) {
    printJson(io, {
      address: refs.remote, host: refs.host, kind: 'git', versions: tags.map((t) => t.name), matching: tags.map((t) => t.name), selected, newest,
      tags: tags.map((t) => ({ tag: t.name, commit: t.commit, ...(t.version !== undefined ? { version: t.version } : {}), prerelease: t.prerelease, selected: t.selected })),
      branches: branches.map((b) => ({ branch: b.name, commit: b.commit, default: !!b.default, selected: b.selected })),
    });
    return;
  }
  io.stdout(`${refs.remote} (git remote on ${refs.host})\n`);
  const what = resolved ? `${resolved.name} (${resolved.defaultBranch ? 'default branch: the source names no ref' : resolved.kind}, commit ${resolved.commit})` : `(none: no branch or tag ${JSON.stringify(src.ref)})`;
  io.stdout(`  selected: ${what}\n`);
  io.stdout(`  newest:   ${newest ?? '(no version-like tag)'}\n`);
  const mark = (r: GitRefItem) => `${r.name}${r.prerelease ? ' (prerelease)' : ''}${r.default ? ' (default)' : ''}${r.selected ? ' *' : ''}`;
  io.stdout(`  tags:     ${tags.map(mark).join(' ') || '(none)'}\n`);
  io.stdout(`  branches: ${branches.map(mark).join(' ') || '(none)'}\n`);
}

/** resolve GIT-SOURCE: the remote, the ref, whether it is a tag, branch or commit, and the commit tofu init checks out. */
async function gitResolve(src: GitModuleSource, engine: Engine, json: boolean, io: CliIO): Promise<void> {
  const { refs, resolved: r } = await engine.resolveGitSource(src);
  if (!r) {
    const newest = newestGitTag(refs);
    throw new RegistryError('not-found', src.ref === undefined ? `git remote ${refs.remote} has no default branch (HEAD)`
      : `git remote ${refs.remote} has no branch or tag ${JSON.stringify(src.ref)}${newest ? ` (newest version-like tag: ${newest})` : ''}`, { host: refs.host, url: refs.remote });
  }
  const out = { source: shownUrl(src.source), remote: refs.remote, ref: r.name, kind: r.kind, commit: r.commit, subdir: src.subdir ?? null, defaultBranch: !!r.defaultBranch };
  if (json) return printJson(io, out);
  io.stdout(`${out.source}\n  remote: ${out.remote}\n  ref:    ${r.name} (${r.defaultBranch ? 'default branch: the source names no ref' : r.kind})\n  commit: ${r.commit}\n`);
  if (r.kind === 'commit' && r.commit === r.ref && r.commit.length < 40) io.stdout('  (no branch or tag points at it: the full id is known only to a clone)\n');
  if (src.subdir) io.stdout(`  subdir: ${src.subdir}\n`);
}

/** versions oci://HOST/REPO[?tag=T]: the tags as completion orders them. */
async function ociVersions(src: OciModuleSource, engine: Engine, json: boolean, io: CliIO): Promise<void> {
  const list = await listOciTags(engine, { registry: src.registry, repository: src.repository }, { selected: src.tag });
  const address = `oci://${src.registry}/${src.repository}`;
  const tags = list.tags.map((t) => t.tag);
  const selected = list.tags.find((t) => t.selected)?.tag ?? null;
  // one note for the names that are not tags (never shown: they may hold anything, a newline too)
  if (list.invalidTags) io.stderr(`tofu-registry: warning: ${address} lists ${list.invalidTags} ${list.invalidTags === 1 ? 'name that is not a valid tag' : 'names that are not valid tags'} (the distribution spec's [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}); ${list.invalidTags === 1 ? 'it is' : 'they are'} left out\n`);
  if (json) {
    printJson(io, { address, host: src.registry, kind: 'oci', versions: tags, matching: tags, selected, newest: list.newest, tags: list.tags, ...(list.invalidTags ? { invalidTags: list.invalidTags } : {}) });
    return;
  }
  io.stdout(`${address} (OCI repository on ${src.registry})\n`);
  io.stdout(`  selected: ${selected ?? `(none: no tag ${JSON.stringify(src.tag ?? 'latest')})`}${src.defaultTag ? '  (tag latest: the source names none)' : ''}\n`);
  io.stdout(`  newest:   ${list.newest ?? '(none)'}\n`);
  const mark = (t: OciTag) => `${t.tag}${t.prerelease ? ' (prerelease)' : ''}${t.selected ? ' *' : ''}`;
  io.stdout(`  tags:     ${list.tags.map(mark).join(' ') || '(none)'}\n`);
}

/** resolve oci://HOST/REPO?tag=T: the manifest, package blob and tofu's verdict on it. */
async function ociResolve(src: OciModuleSource, engine: Engine, json: boolean, io: CliIO): Promise<number> {
  const r = await resolveOciModule(engine, src);
  if (json) {
    printJson(io, { source: src.source, repository: `${r.registry}/${r.repository}`, tag: r.tag, manifestDigest: r.manifestDigest, blobDigest: r.blobDigest, size: r.size, artifactType: r.artifactType });
  } else {
    io.stdout(`${src.source}\n  repository: ${r.registry}/${r.repository}\n  tag:        ${r.tag ?? '(pinned by digest)'}\n  manifest:   ${r.manifestDigest}\n`);
    io.stdout(`  artifact:   ${r.artifactType ?? '(none)'}\n  package:    ${r.blobDigest ? `${r.blobDigest} (${r.size} bytes)` : '(none)'}\n`);
    for (const [k, v] of Object.entries(r.annotations).sort()) io.stdout(`  ${shortText(k, MAX_NAME_CHARS)}: ${shortText(v)}\n`);
    if (r.isModulePackage) io.stdout(`  tofu init downloads oci://${r.registry}/${r.repository}@${r.manifestDigest}\n`);
  }
  if (!r.isModulePackage) {
    io.stderr(`tofu-registry: oci://${r.registry}/${r.repository} (${r.manifestDigest}) is not a module package tofu init installs: ${r.problem}\n`);
    return 1;
  }
  return 0;
}

/** tofu-registry discover HOST [--json] */
export async function runDiscover(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: [...BOOLEANS, 'show-secrets'], values: COMMON });
  const host = one(parsed, 'HOST');
  const url = urlShown(parsed);
  return withEngine(parsed, io, async (engine, json) => {
    const d = await engine.discoverServices(host);
    const services = Object.fromEntries(Object.entries(d.services).map(([id, u]) => [id, url(u)]));
    if (json) {
      printJson(io, { host: d.host, discoveryUrl: url(d.discoveryUrl), finalUrl: url(d.finalUrl), services, cached: d.cached });
      return;
    }
    io.stdout(d.source === 'cli-config' ? `${d.host}  (from a host block in the CLI configuration ${url(d.finalUrl)})\n` : `${d.host}  (${url(d.finalUrl)})\n`);
    const ids = Object.keys(services).sort();
    if (!ids.length) io.stdout('  no services\n');
    for (const id of ids) io.stdout(`  ${shortText(id, MAX_NAME_CHARS).padEnd(14)} ${shortText(services[id])}\n`);
  });
}

/**
 * How `discover` and `resolve` print a URL: as every message shows it (user information and
 * signed query values as ***, see shownUrl), or as the registry sent it with --show-secrets.
 */
function urlShown(parsed: ParsedArgs): (url: string) => string {
  return flag(parsed, 'show-secrets') ? (u) => u : shownUrl;
}

/** tofu-registry versions ADDRESS [--constraint C] [--provider] [--json] */
export async function runVersions(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: [...BOOLEANS, 'provider'], values: [...COMMON, 'constraint'] });
  const address = one(parsed, 'ADDRESS');
  const constraint = value(parsed, 'constraint') ?? null;
  const provider = flag(parsed, 'provider');
  const oci = ociArgument(address);
  if (oci && (provider || constraint !== null)) throw new UsageError('--provider and --constraint do not apply to an oci:// repository');
  const git = oci || provider ? undefined : gitArgument(address);
  if (git && constraint !== null) throw new UsageError('--constraint does not apply to a git source: its ?ref= selects a tag, branch or commit');
  return withEngine(parsed, io, async (engine, json) => {
    if (oci) return ociVersions(oci, engine, json, io);
    if (git) return gitVersions(git, engine, json, io);
    let out: { address: string; host: string; kind: 'module' | 'provider'; versions: string[] };
    let from: string | undefined;
    let warnings: string[] = [];
    if (provider) {
      const p = toProviderAddress(address);
      const list = await engine.listProviderVersions(p);
      out = { address: p.address, host: p.host, kind: 'provider', versions: list.versions.map((v) => v.version) };
      if (list.sources) from = list.sources.map(describeSource).join(', ');
      warnings = list.warnings ?? []; // a filesystem mirror listing cut at its bound: said, never silent
    } else {
      const a = toModuleAddress(address);
      const list = await engine.listModuleVersions(a);
      out = { address: a.address, host: a.host, kind: 'module', versions: list.versions };
    }
    const sel = selectVersions(out.versions, constraint, provider ? 'provider' : 'module');
    if (sel.error) {
      throw new Error(`invalid version constraint ${JSON.stringify(constraint)}: ${sel.error}`);
    }
    const result = { ...out, versions: sel.versions, matching: sel.matching, selected: sel.selected, newest: sel.newest, ...(warnings.length ? { warnings } : {}) };
    printWarnings(io, warnings);
    if (json) return printJson(io, result);
    io.stdout(`${result.address} (${result.kind} on ${result.host}${from ? `, from ${from}` : ''})\n`);
    io.stdout(`  selected: ${result.selected ?? '(none)'}${constraint !== null ? `  for ${JSON.stringify(constraint)}` : ''}\n`);
    io.stdout(`  newest:   ${result.newest ?? '(none)'}\n`);
    const matching = new Set(result.matching);
    io.stdout(`  versions: ${result.versions.map((v) => (matching.has(v) ? v : `(${v})`)).join(' ') || '(none)'}\n`);
  });
}

/** tofu-registry resolve ADDRESS --version V [--json] */
export async function runResolve(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: [...BOOLEANS, 'show-secrets'], values: [...COMMON, 'version'] });
  const address = one(parsed, 'ADDRESS');
  const version = value(parsed, 'version');
  const oci = ociArgument(address);
  if (oci) {
    if (version) throw new UsageError('--version does not apply to an oci:// source: its ?tag= or ?digest= selects the artifact');
    return withEngine(parsed, io, (engine, json) => ociResolve(oci, engine, json, io));
  }
  const git = gitArgument(address);
  if (git) {
    if (version) throw new UsageError('--version does not apply to a git source: its ?ref= selects a tag, branch or commit');
    return withEngine(parsed, io, (engine, json) => gitResolve(git, engine, json, io));
  }
  if (!version) throw new UsageError('--version V is required');
  const url = urlShown(parsed);
  return withEngine(parsed, io, async (engine, json) => {
    const r = await engine.resolveDownloadLocation(address, version);
    if (json) return printJson(io, { address: r.address, version: r.version, downloadUrl: url(r.downloadUrl), location: url(r.location) });
    io.stdout(`${r.address} ${r.version}\n  location: ${url(r.location)}\n  (from ${url(r.downloadUrl)})\n`);
  });
}
