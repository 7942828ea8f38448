// A module mirror's OUT as a reader of the site finds it: what each `versions` file lists, and
// every way the site is not valid — a listed version without its `download` JSON, a `download`
// that does not point at the archive beside it, an archive missing or not readable as a whole
// .tar.gz (checked with node-tar, independent of the mirror's own packer and unpacker).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { removeTempDir, tempDir } from './temp';

export interface SiteState {
  /** `HOST/NS/NAME/SYSTEM` → the versions its `versions` file lists, in file order. */
  listed: Record<string, string[]>;
  /** Empty when the site is valid. */
  problems: string[];
}

const dirs = (d: string) => (existsSync(d) ? readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort() : []);

export async function readSite(out: string): Promise<SiteState> {
  const listed: Record<string, string[]> = {};
  const problems: string[] = [];
  const root = join(out, 'modules');
  for (const host of dirs(root)) for (const ns of dirs(join(root, host))) for (const name of dirs(join(root, host, ns))) {
    for (const system of dirs(join(root, host, ns, name))) {
      const module = `${host}/${ns}/${name}/${system}`;
      const dir = join(root, module);
      if (!existsSync(join(dir, 'versions'))) continue;
      const doc = JSON.parse(readFileSync(join(dir, 'versions'), 'utf8'));
      listed[module] = doc.modules[0].versions.map((v: { version: string }) => v.version);
      for (const v of listed[module]) {
        const download = join(dir, v, 'download');
        if (!existsSync(download)) { problems.push(`${module} ${v}: listed without its download JSON`); continue; }
        const location = JSON.parse(readFileSync(download, 'utf8')).location;
        if (typeof location !== 'string' || !location.startsWith(`../${v}.tar.gz`)) problems.push(`${module} ${v}: download points at ${location}`);
        const archive = join(dir, `${v}.tar.gz`);
        if (!existsSync(archive)) { problems.push(`${module} ${v}: listed without its archive`); continue; }
        let entries = 0;
        try {
          await tar.t({ file: archive, strict: true, onReadEntry: () => { entries++; } });
          if (!entries) problems.push(`${module} ${v}: the archive is empty`);
        } catch (err) {
          problems.push(`${module} ${v}: the archive is damaged (${(err as Error).message})`);
        }
      }
    }
  }
  return { listed, problems };
}

/** The regular files of a .tar.gz (name → text), extracted by node-tar into a temp directory removed after. */
export async function archiveFiles(archive: string): Promise<Record<string, string>> {
  const dir = tempDir('module-site-archive-');
  try {
    const names: string[] = [];
    await tar.x({ file: archive, cwd: dir, strict: true, onReadEntry: (e) => { if (e.type === 'File') names.push(e.path); } });
    return Object.fromEntries(names.sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
  } finally {
    removeTempDir(dir);
  }
}
