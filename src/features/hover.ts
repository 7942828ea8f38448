// Hover text (Markdown) for `version` and `source`, and the hover on them. Plain data (no editor API).
import { describeConstraint, parseVersion, tryParseConstraint } from '../engine/versions';
import { select } from './select';
import type { VersionRules } from '../engine/versions';
import { splitSubdir } from '../engine/addresses';
import type { ModuleSource, ProviderAddress } from '../engine/addresses';
import { RegistryError } from '../engine/net/errors';
import { shownUrl, tokenEnvName } from '../engine/net/http-errors';
import { DiscoveryInfo, within } from './lookup';
import type { Target } from './target';
import type { FeatureContext } from './context';
import type { LineRange } from './completion';
import { locateAttribute } from './locate';
import type { DocRefs } from './refs';
import type { OciModuleSource } from '../engine/addresses/oci-source';
import type { OciTagList, ResolvedOciModule } from '../engine/modulepkg/oci-registry';
import { ociResolved, ociSourceOfText, ociTags } from './oci';
import { GitModuleSource, GitRefList, newestGitTag, resolveGitRef } from '../engine/git';
import { gitRefs, gitSourceOfText } from './git';

export const NO_NETWORK = 'Registry lookups are off in this untrusted workspace (no network requests are made). Trust the workspace to see versions and download locations.';

export type Outcome<T> = { value: T } | { error: unknown } | undefined;

/** A user-facing sentence for an engine error (never contains a token). */
export function describeError(err: unknown): string {
  if (err instanceof RegistryError) {
    if (err.code === 'unauthorized' || err.code === 'forbidden') {
      const host = err.host ?? 'the registry host';
      // The engine's message says what happened (and may already name TF_TOKEN_…): add where
      // the extension reads credentials from, so the user knows which file or setting to edit.
      const env = err.host && !err.host.includes(':') && !err.message.includes('TF_TOKEN_') ? `TF_TOKEN_${tokenEnvName(err.host)}, ` : '';
      if (/CLI configuration/.test(err.message)) {
        return `${err.message} (~/.tofurc or ~/.terraformrc, or the file in the setting tofuRegistry.cliConfigFile).`;
      }
      return `${err.message}. Credentials for ${host} are read from ${env}a credentials "${host}" block in ~/.tofurc or ~/.terraformrc, or the CLI configuration file in the setting tofuRegistry.cliConfigFile.`;
    }
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

export function esc(s: string): string {
  return s.replace(/[\\`*_{}[\]<>()#+!|]/g, (c) => `\\${c}`);
}

export function code(s: string): string {
  return s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``;
}

export interface VersionHoverInput {
  target: Target;
  constraint: string | null;
  versions: Outcome<string[]>;
  networkAllowed: boolean;
}

/** Hover on `version`: the constraint in words, what tofu init selects, newest, matches, warnings. */
export function versionHover(i: VersionHoverInput): string {
  const rules: VersionRules = i.target.kind;
  const lines: string[] = [];
  const what = i.target.kind === 'module' ? 'module' : 'provider';
  lines.push(`**${esc(i.target.display)}** (${what} version rules)`);
  if (i.constraint === null) lines.push('', 'No literal version constraint: `tofu init` takes the newest release.');
  else {
    const parsed = tryParseConstraint(i.constraint, rules);
    if ('error' in parsed) {
      lines.push('', `$(error) Malformed constraint ${code(i.constraint)}: ${esc(parsed.error)}`);
      return lines.join('\n');
    }
    lines.push('', `${code(i.constraint)}: ${esc(describeConstraint(i.constraint, rules))}`);
  }
  if (!i.networkAllowed) return [...lines, '', NO_NETWORK].join('\n');
  if (!i.versions) return [...lines, '', '_Looking up versions…_'].join('\n');
  if ('error' in i.versions) return [...lines, '', `$(warning) ${esc(describeError(i.versions.error))}`].join('\n');
  const sel = select(i.versions.value, i.constraint, rules);
  lines.push('');
  if (sel.selected) lines.push(`- Selected by \`tofu init\`: **${sel.selected}**`);
  else lines.push('- $(warning) **No available version satisfies this constraint**');
  if (sel.newest) lines.push(`- Newest available: ${sel.newest}`);
  const from = (i.versions.value as { from?: string }).from;
  if (from) lines.push(`- Versions from ${esc(from)} (CLI configuration provider_installation)`);
  const top = sel.matching.slice(0, 5);
  lines.push(`- ${sel.matching.length} of ${sel.versions.length} versions match${top.length ? `: ${top.join(', ')}${sel.matching.length > top.length ? ', …' : ''}` : ''}`);
  if (sel.selected && sel.newest) {
    const s = parseVersion(sel.selected, rules);
    const n = parseVersion(sel.newest, rules);
    if (typeof s !== 'string' && typeof n !== 'string' && n.major > s.major) {
      lines.push(`- $(warning) The constraint excludes newer major version ${sel.newest}`);
    }
  }
  return lines.join('\n');
}

export interface SourceHoverInput {
  source: string;
  moduleSource?: ModuleSource;
  target?: Target;
  error?: string;
  discovery?: Outcome<DiscoveryInfo>;
  selected?: string | null;
  /** The module call's version constraint (null: none), to say why `selected` was picked. */
  constraint?: string | null;
  location?: Outcome<string>;
  networkAllowed: boolean;
  /** A built-in provider (terraform.io/builtin/…): no registry involved. */
  builtIn?: ProviderAddress;
}

/** Hover for a provider built into OpenTofu (terraform.io/builtin/terraform). */
export function builtInHover(addr: ProviderAddress): string {
  return [`**Built-in provider** ${code(addr.address)}`, '',
    `Built into OpenTofu: \`tofu init\` never installs it from a registry or mirror, so there are no versions to look up${addr.type === 'terraform' ? ' (it provides the `terraform_remote_state` data source)' : ''}.`].join('\n');
}

/** What go-getter's query arguments ask of a package: " (ref `v1`, archive `zip`)". */
function packageOptions(pkg: string): string {
  const q = pkg.indexOf('?');
  if (q < 0) return '';
  const params = new URLSearchParams(pkg.slice(q + 1));
  const said = ([['ref', 'ref'], ['tag', 'tag'], ['digest', 'digest'], ['depth', 'depth'], ['archive', 'archive'], ['version', 'object version']] as const)
    .filter(([k]) => params.get(k)).map(([k, label]) => `${label} ${code(params.get(k)!)}`);
  return said.length ? ` (${said.join(', ')})` : '';
}

const KIND_NAMES: Record<string, string> = { local: 'Local path (no registry involved: the module is read from disk)' };

/** Hover on `source`: the parsed address, service discovery, the resolved download location. */
export function sourceHover(i: SourceHoverInput): string {
  const lines: string[] = [];
  const ms = i.moduleSource;
  const t = i.target;
  if (!t && i.builtIn) return builtInHover(i.builtIn);
  if (!t) {
    if (ms && ms.kind === 'local') lines.push(`**${KIND_NAMES.local}**: ${code(ms.path)}`);
    else if (ms && ms.kind === 'file') {
      lines.push(`**Absolute path** ${code(splitSubdir(ms.source)[0])}: not a local source (those begin with \`./\` or \`../\`); \`tofu init\` copies the directory like a remote package (no registry involved)`);
      if (ms.subdir) lines.push('', `Subdirectory: ${code(ms.subdir)}`);
    } else if (ms && ms.kind !== 'registry') {
      lines.push(ms.kind === 'unknown' ? `**Not a module source \`tofu init\` can fetch**`
        : `**${esc(ms.description)}** (${ms.kind} source, fetched directly by \`tofu init\`, not through a registry)`);
      if (ms.package && ms.kind !== 'unknown') lines.push('', `Package: ${code(shownUrl(ms.package))}${packageOptions(ms.package)}`);
      if (ms.subdir) lines.push('', `Subdirectory: ${code(ms.subdir)}`);
    }
    if (i.error) lines.push('', `$(error) ${esc(i.error)}`);
    return lines.join('\n') || esc(i.error ?? 'not a registry source');
  }
  if (t.kind === 'module') {
    const a = t.addr;
    lines.push(`**Registry module** ${code(a.fullAddress)}`, '',
      `| host | namespace | name | system${a.subdir ? ' | subdir' : ''} |`,
      `|---|---|---|---${a.subdir ? '|---' : ''}|`,
      `| ${esc(a.host)} | ${esc(a.namespace)} | ${esc(a.name)} | ${esc(a.system)}${a.subdir ? ` | ${esc(a.subdir)}` : ''} |`);
  } else {
    const a = t.addr;
    lines.push(`**Provider** ${code(a.address)}`, '', '| host | namespace | type |', '|---|---|---|',
      `| ${esc(a.host)} | ${esc(a.namespace)} | ${esc(a.type)} |`);
  }
  if (!i.networkAllowed) return [...lines, '', NO_NETWORK].join('\n');
  // What the user came for first: where `tofu init` downloads the module from.
  if (t.kind === 'module') {
    const why = i.constraint ? ` (for ${code(`version = "${i.constraint}"`)})` : i.selected ? ' (newest: no version constraint)' : '';
    if (i.selected === null) lines.push('', `**Download**: none, no version satisfies ${i.constraint ? code(i.constraint) : 'the constraint'}.`);
    else if (i.selected) {
      const loc = i.location;
      const head = `**Download** of ${i.selected}${why}:`;
      if (!loc) lines.push('', `${head} _resolving…_`);
      else if ('error' in loc) lines.push('', `${head} $(warning) ${esc(describeError(loc.error))}`);
      else lines.push('', head, '', code(loc.value));
    }
  }
  lines.push('', `**Service discovery** for ${code(t.host)}:`);
  const d = i.discovery;
  if (!d) lines.push('_Looking up…_');
  else if ('error' in d) lines.push(`$(warning) ${esc(describeError(d.error))}`);
  else {
    const svc = t.kind === 'module' ? 'modules.v1' : 'providers.v1';
    const base = d.value.services[svc];
    lines.push(base ? `- ${svc}: ${code(base)}` : `- $(warning) the host does not offer ${svc}`);
    const ids = Object.keys(d.value.services).sort();
    lines.push(`- services: ${ids.length ? ids.map(code).join(', ') : 'none'}`);
    if (d.value.redirectedTo) lines.push(`- redirected to ${code(d.value.redirectedTo)}`);
  }
  return lines.join('\n');
}

export interface OciHoverInput {
  src: OciModuleSource;
  resolved?: Outcome<ResolvedOciModule>;
  tags?: Outcome<OciTagList>;
  networkAllowed: boolean;
}

/** The annotation keys shown first, in this order; other org.opencontainers.image.* ones follow. */
const OCI_ANNOTATIONS = ['created', 'version', 'source', 'revision'];

/**
 * Hover on an oci:// source: registry, repository, tag or digest, then what the registry says —
 * the manifest digest, tofu's verdict on the package, its size, the org.opencontainers.image.*
 * annotations — and the exact artifact tofu init downloads.
 */
export function ociSourceHover(i: OciHoverInput): string {
  const { src } = i;
  const sel = src.digest ? `digest ${code(src.digest)}` : `tag ${code(src.tag ?? 'latest')}${src.defaultTag ? ' (no `?tag=`: tofu init uses "latest")' : ''}`;
  const lines = [`**OCI module package** ${code(src.source)}`, '',
    `- registry: ${code(src.registry)}`, `- repository: ${code(src.repository)}`, `- ${sel}`];
  if (src.subdir) lines.push(`- subdirectory: ${code(src.subdir)}`);
  if (src.error) return [...lines, '', `$(error) tofu init refuses this source: ${esc(src.error.message)}`].join('\n');
  if (!i.networkAllowed) return [...lines, '', NO_NETWORK].join('\n');
  const r = i.resolved;
  lines.push('');
  if (!r) lines.push('_Resolving the manifest…_');
  else if ('error' in r) lines.push(`$(warning) ${esc(describeError(r.error))}`);
  else {
    const m = r.value;
    lines.push(`${src.digest ? 'Digest' : `Tag ${code(m.tag ?? '')}`} → manifest ${code(m.manifestDigest)}`, '');
    if (m.isModulePackage) {
      lines.push(`- Module package: yes (${code(m.artifactType ?? '')}, one \`archive/zip\` layer)`,
        `- Size: ${m.size} bytes`,
        `- \`tofu init\` downloads ${code(`${m.registry}/${m.repository}@${m.manifestDigest}`)}, layer ${code(m.blobDigest ?? '')}`);
    } else {
      lines.push(`- $(error) **Not a module package**: ${esc(m.problem ?? 'tofu init refuses it')} (artifactType ${code(m.artifactType ?? 'none')})`);
    }
    const prefix = 'org.opencontainers.image.';
    const keys = Object.keys(m.annotations).filter((k) => k.startsWith(prefix))
      .sort((a, b) => rank(a.slice(prefix.length)) - rank(b.slice(prefix.length)) || (a < b ? -1 : 1));
    for (const k of keys) lines.push(`- ${esc(k.slice(prefix.length))}: ${code(m.annotations[k])}`);
  }
  const t = i.tags;
  if (t && 'value' in t) lines.push(t.value.newest ? `- Newest version-like tag: ${code(t.value.newest)}${t.value.newest === src.tag ? ' (this one)' : ''}` : '- No version-like tags');
  return lines.join('\n');
}

export interface GitHoverInput {
  src: GitModuleSource;
  refs?: Outcome<GitRefList>;
  networkAllowed: boolean;
}

/**
 * Hover on a git source: the remote, the ref (or the default branch), then what `git ls-remote`
 * says — a tag, a branch or a commit, the commit tofu init checks out (annotated tags peeled) —
 * and the newest version-like tag.
 */
export function gitSourceHover(i: GitHoverInput): string {
  const { src } = i;
  const lines = [`**Git module source** ${code(shownUrl(src.source))}`, '', `- remote: ${code(shownUrl(src.remote))}`,
    `- ref: ${src.ref !== undefined ? code(src.ref) : 'none (`tofu init` clones the default branch)'}`];
  if (src.subdir) lines.push(`- subdirectory: ${code(src.subdir)}`);
  if (src.depth !== undefined) lines.push(`- depth: ${src.depth}`);
  if (src.error) return [...lines, '', `$(error) ${esc(src.error)}`].join('\n');
  if (!i.networkAllowed) return [...lines, '', 'Remote lookups are off in this untrusted workspace (git is not run). Trust the workspace to see the refs.'].join('\n');
  const r = i.refs;
  lines.push('');
  if (!r) lines.push('_Listing the remote\'s refs…_');
  else if ('error' in r) lines.push(`$(warning) ${esc(r.error instanceof Error ? r.error.message : String(r.error))}`);
  else {
    const resolved = resolveGitRef(r.value, src.ref);
    const newest = newestGitTag(r.value);
    if (!resolved) lines.push(`$(error) The remote has no branch or tag ${code(src.ref ?? 'HEAD')}: \`tofu init\` fails`);
    else {
      const what = resolved.defaultBranch ? `the default branch ${code(resolved.name)}` : `${resolved.kind} ${code(resolved.name)}`;
      lines.push(`- kind: ${resolved.defaultBranch ? 'branch (default)' : resolved.kind}`, `- commit: ${code(resolved.commit)} (${what}${resolved.kind === 'commit' && resolved.commit === resolved.ref && resolved.commit.length < 40 ? '; no branch or tag points at it' : ''})`);
      if (resolved.kind === 'branch') lines.push('- $(info) a branch moves: pin a tag (or a commit) so every `tofu init` gets the same code');
    }
    lines.push(newest ? `- Newest version-like tag: ${code(newest)}${newest === src.ref ? ' (this one)' : ''}` : '- No version-like tags');
  }
  return lines.join('\n');
}

function rank(name: string): number {
  const i = OCI_ANNOTATIONS.indexOf(name);
  return i < 0 ? OCI_ANNOTATIONS.length : i;
}

/** How long a hover waits for the registry before showing what it has. */
export const HOVER_WAIT_MS = 5000;

export interface FeatureHover {
  /** Markdown (untrusted: no command links). */
  markdown: string;
  range: LineRange;
}

/**
 * The hover on a module call's or provider entry's `version` or `source` (name or value), waiting
 * at most `waitMs` for each registry answer (then it says what is still being looked up).
 */
export async function registryHover(ctx: FeatureContext, refs: DocRefs, offset: number, waitMs = HOVER_WAIT_MS, signal?: AbortSignal): Promise<FeatureHover | undefined> {
  const hit = locateAttribute(refs, offset);
  if (!hit) return undefined;
  const net = ctx.networkAllowed();
  const { info, value } = hit;
  const t = info.target;
  const range = value.attrRange;
  if (info.builtIn) return { markdown: builtInHover(info.builtIn), range };
  const oci = hit.attr === 'source' ? ociSourceOfText(value.value) : undefined;
  if (oci) {
    const ok = net && !oci.error;
    const [resolved, tags] = ok ? await Promise.all([within(ociResolved(ctx, oci), waitMs), within(ociTags(ctx, oci), waitMs)]) : [];
    return { markdown: ociSourceHover({ src: oci, resolved, tags, networkAllowed: net }), range };
  }
  const git = hit.attr === 'source' ? gitSourceOfText(value.value) : undefined;
  if (git) {
    const refs = net && !git.error ? await within(gitRefs(ctx, git), waitMs) : undefined;
    return { markdown: gitSourceHover({ src: git, refs, networkAllowed: net }), range };
  }
  if (hit.attr === 'version') {
    if (!t) return undefined;
    const versions = net ? await within(ctx.lookup.versions(t, signal), waitMs) : undefined;
    return { markdown: versionHover({ target: t, constraint: value.value, versions, networkAllowed: net }), range };
  }
  const source = value.value ?? '';
  if (!t || !net) {
    return { markdown: sourceHover({ source, moduleSource: info.moduleSource, target: t, error: info.error, networkAllowed: net }), range };
  }
  const discovery = within(ctx.lookup.discovery(t.host, signal), waitMs);
  let selected: string | null | undefined;
  let location: Outcome<string>;
  if (t.kind === 'module') {
    const v = await within(ctx.lookup.versions(t, signal), waitMs);
    if (v && 'value' in v) {
      selected = select(v.value, hit.ref.version?.value ?? null, 'module').selected;
      if (selected) location = await within(ctx.lookup.location(t.addr, selected, signal), waitMs);
    }
  }
  return {
    markdown: sourceHover({
      source, moduleSource: info.moduleSource, target: t, discovery: await discovery, selected, location, networkAllowed: net,
      constraint: hit.ref.version?.value ?? null,
    }),
    range,
  };
}
