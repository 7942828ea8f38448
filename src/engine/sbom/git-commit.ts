// The commit an SBOM gives a git module call. The one its clone checked out comes with the fetched
// facts (collect.ts addFacts); without it: the one its ?ref= names when that is a full commit id
// (what `tofu init` checks out, known offline too); else, online and not cloned, the one the remote
// says the ref names now (the lookup); else NOASSERTION, with the reason as a note.
import type { FetchedFacts } from '../modulepkg/locate';
import type { SbomComponent } from './types';

/**
 * The commit a git module source's ref names on its remote now (features/sbom.ts sbomGitCommits:
 * `git ls-remote` as `resolve` reads it), undefined when the remote names no such ref; rejects when
 * it cannot be read. Asked online only, for a git package not fetched (a clone failed or cut short).
 */
export type GitCommitLookup = (source: string, signal?: AbortSignal) => Promise<string | undefined>;

/** A full git commit id: SHA-1 (40 hex digits) or SHA-256 (64). */
const FULL_COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * Sets `c.git.commit` (and its property and note) for the git component `c` of `source`. `lookup`
 * is given online only; `clean` makes an error message fit for the document.
 */
export async function settleGitCommit(c: SbomComponent, source: string, facts: FetchedFacts | undefined,
  lookup: GitCommitLookup | undefined, signal: AbortSignal | undefined, clean: (message: string) => string): Promise<void> {
  const git = c.git;
  let unknown = 'the package was not cloned and the remote was not read';
  if (git && !git.commit && git.ref && FULL_COMMIT.test(git.ref)) {
    git.commit = git.ref;
    c.properties.push(['tofu-registry:git-commit', git.ref]);
    if (!facts) c.notes.push('git commit as the source names it (?ref= is a full commit id); the package was not cloned');
  }
  // Not cloned: the commit the remote says the ref names. (A package cached without its commit
  // was cloned: its bytes may be another commit than the ref names now; it keeps its note.)
  if (git && !git.commit && !facts && lookup) {
    let failed: string | undefined;
    const commit = await lookup(source, signal).catch((err: Error) => {
      if (signal?.aborted) throw err;
      failed = `the remote's refs could not be read: ${clean(err.message)}`;
    });
    if (commit && FULL_COMMIT.test(commit)) {
      git.commit = commit;
      c.properties.push(['tofu-registry:git-commit', commit]);
      c.notes.push('git commit read from the remote (git ls-remote): the one the ref names now; the package was not cloned');
    } else {
      unknown = `the package was not cloned, and ${failed ?? (commit ? 'the remote names no full id of the abbreviated commit the ref gives' : 'the remote names no such ref')}`;
    }
  }
  if (!git?.commit) c.notes.push(`git commit unknown (NOASSERTION): ${unknown}`);
}
