// Bare git repositories made at test time, ready to be served as plain files (git's dumb HTTP
// protocol needs nothing but `git update-server-info`): one commit per tag, files from a map.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const git = (cwd: string, ...args: string[]) => execFileSync('git',
  ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args],
  { cwd, stdio: 'pipe' });

/**
 * `<parent>/<name>.git`: a bare repository whose tags each hold the files given for them (the
 * working tree is replaced per tag). Returns the bare repository's path.
 */
export function makeBareRepo(parent: string, name: string, tags: Record<string, Record<string, string>>): string {
  const work = join(parent, `${name}-work`);
  git(parent, 'init', '-q', work);
  for (const [tag, files] of Object.entries(tags)) {
    for (const f of Object.keys(files)) rmSync(join(work, f), { force: true });
    git(work, 'rm', '-rq', '--ignore-unmatch', '.');
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(dirname(join(work, f)), { recursive: true });
      writeFileSync(join(work, f), text);
    }
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '--allow-empty', '-m', tag);
    git(work, 'tag', tag);
  }
  const bare = join(parent, `${name}.git`);
  git(parent, 'clone', '-q', '--bare', work, bare);
  git(bare, 'update-server-info');
  rmSync(work, { recursive: true, force: true });
  return bare;
}
