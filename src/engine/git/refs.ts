// A remote's refs as `git ls-remote --symref` prints them, read into plain data: the default branch
// (HEAD), branches, and tags with annotated tags peeled to their commit (the `^{}` line). What a
// `?ref=` selects, as go-getter's git getter clones it (`git clone --branch REF` looks for a branch
// before a tag; a hex string of 7 to 40 digits is a commit), and tags ordered as versions. Names a
// hostile server could send to fool a terminal (control or bidirectional-override characters) are
// dropped and counted, never shown.
import { compareVersions, parseVersion, ParsedVersion } from '../versions/version';

export interface GitBranch { name: string; commit: string }
export interface GitTag {
  name: string;
  /** The commit the tag resolves to (an annotated tag peeled through `^{}`). */
  commit: string;
  /** Annotated tags: the tag object's id. */
  object?: string;
}

export interface GitRefs {
  /** The default branch: what `tofu init` clones when the source names no ref. */
  head?: { branch?: string; commit: string };
  branches: GitBranch[];
  tags: GitTag[];
  /** Refs left out because their names hold control or bidirectional characters. */
  unsafe: number;
}

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x20\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Whether a ref name is safe to show and to write into a source (no control, space or bidi characters). */
export function safeRefName(name: string): boolean {
  return name.length > 0 && name.length <= 1024 && !UNSAFE.test(name);
}

/** `git ls-remote --symref` output → refs (lines it does not understand are ignored). */
export function parseLsRemote(text: string): GitRefs {
  const out: GitRefs = { branches: [], tags: [], unsafe: 0 };
  const tags = new Map<string, GitTag>();
  let headBranch: string | undefined;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const left = line.slice(0, tab);
    const name = line.slice(tab + 1);
    if (left.startsWith('ref: ')) {
      const target = left.slice(5);
      if (name === 'HEAD' && target.startsWith('refs/heads/') && safeRefName(target)) headBranch = target.slice(11);
      continue;
    }
    if (!OBJECT_ID.test(left)) continue;
    if (name === 'HEAD') { out.head = { commit: left }; continue; }
    if (!safeRefName(name)) { out.unsafe++; continue; }
    if (name.startsWith('refs/heads/')) out.branches.push({ name: name.slice(11), commit: left });
    else if (name.startsWith('refs/tags/')) {
      const peeled = name.endsWith('^{}');
      const tag = name.slice(10, peeled ? -3 : undefined);
      const t = tags.get(tag);
      if (peeled) tags.set(tag, { name: tag, commit: left, ...(t ? { object: t.commit } : {}) });
      else if (!t) tags.set(tag, { name: tag, commit: left });
      else tags.set(tag, { ...t, object: left });
    }
  }
  if (out.head && headBranch) out.head.branch = headBranch;
  out.tags = [...tags.values()];
  return out;
}

export type GitRefKind = 'tag' | 'branch' | 'commit';

export interface ResolvedGitRef {
  /** The ref as the source names it; null: none (the default branch). */
  ref: string | null;
  kind: GitRefKind;
  /** The branch or tag name the ref selects (the default branch's name without a ref), or the commit as written. */
  name: string;
  /**
   * The commit: a branch's or tag's (annotated tags peeled); for a commit ref, the full id when a
   * branch or tag points at it, else the ref as written (git cannot say more without a clone).
   */
  commit: string;
  /** The source names no ref: tofu init clones the default branch. */
  defaultBranch?: boolean;
}

const COMMIT_RE = /^[0-9a-f]{7,40}$/i;

/** What `ref` selects among `refs` (undefined: the remote has no such branch or tag, and it is no commit id). */
export function resolveGitRef(refs: GitRefs, ref: string | undefined): ResolvedGitRef | undefined {
  if (ref === undefined) {
    if (!refs.head) return undefined;
    return { ref: null, kind: 'branch', name: refs.head.branch ?? 'HEAD', commit: refs.head.commit, defaultBranch: true };
  }
  const branch = refs.branches.find((b) => b.name === ref);
  if (branch && !COMMIT_RE.test(ref)) return { ref, kind: 'branch', name: ref, commit: branch.commit };
  const tag = refs.tags.find((t) => t.name === ref);
  if (tag && !COMMIT_RE.test(ref)) return { ref, kind: 'tag', name: ref, commit: tag.commit };
  if (COMMIT_RE.test(ref)) {
    const lower = ref.toLowerCase();
    const tips = new Set([...refs.branches, ...refs.tags].map((r) => r.commit).filter((c) => c.startsWith(lower)));
    return { ref, kind: 'commit', name: ref, commit: tips.size === 1 ? [...tips][0] : ref };
  }
  return undefined;
}

export interface GitRefItem {
  name: string;
  kind: 'tag' | 'branch';
  commit: string;
  /** Version-like tags ("1.2.0", "v1.2.0", "1.2.0-rc.1"): the version, else undefined. */
  version?: string;
  prerelease: boolean;
  /** The ref the source names now (the default branch when it names none). */
  selected: boolean;
  /** The default branch. */
  default?: boolean;
}

/** A tag read as a version: "v" allowed before it. */
export function tagVersion(tag: string): ParsedVersion | undefined {
  const p = parseVersion(tag.replace(/^v(?=\d)/, ''), 'module');
  return typeof p === 'string' ? undefined : p;
}

/**
 * Refs as completion and `versions` show them: version-like tags newest first (prereleases
 * marked), then the other tags by name, then the branches (the default branch first); `selected`
 * marks what the source's ref selects.
 */
export function gitRefOrder(refs: GitRefs, selected: string | undefined): GitRefItem[] {
  const versioned: Array<{ t: GitTag; v: ParsedVersion }> = [];
  const others: GitTag[] = [];
  for (const t of refs.tags) {
    const v = tagVersion(t.name);
    if (v) versioned.push({ t, v }); else others.push(t);
  }
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  versioned.sort((a, b) => compareVersions(b.v, a.v) || byName(a.t, b.t));
  others.sort(byName);
  const resolved = resolveGitRef(refs, selected);
  const isSel = (kind: 'tag' | 'branch', name: string) => !!resolved && resolved.kind === kind && resolved.name === name;
  const head = refs.head?.branch;
  const branches = [...refs.branches].sort((a, b) => (a.name === head ? -1 : b.name === head ? 1 : byName(a, b)));
  return [
    ...versioned.map(({ t, v }): GitRefItem => ({ name: t.name, kind: 'tag', commit: t.commit, version: v.raw.replace(/^v/, ''), prerelease: v.prerelease !== '', selected: isSel('tag', t.name) })),
    ...others.map((t): GitRefItem => ({ name: t.name, kind: 'tag', commit: t.commit, prerelease: false, selected: isSel('tag', t.name) })),
    ...branches.map((b): GitRefItem => ({ name: b.name, kind: 'branch', commit: b.commit, prerelease: false, selected: isSel('branch', b.name), ...(b.name === head ? { default: true } : {}) })),
  ];
}

/** The newest version-like tag that is not a prerelease, or null. */
export function newestGitTag(refs: GitRefs): string | null {
  let best: { name: string; v: ParsedVersion } | undefined;
  for (const t of refs.tags) {
    const v = tagVersion(t.name);
    if (!v || v.prerelease !== '') continue;
    if (!best || compareVersions(v, best.v) > 0 || (compareVersions(v, best.v) === 0 && t.name < best.name)) best = { name: t.name, v };
  }
  return best?.name ?? null;
}
