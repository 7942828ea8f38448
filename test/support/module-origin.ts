// The origin side of the module mirror tests, bench and demo: the HTTPS test registry (with a token)
// serving module versions whose packages live where real registries put them — tar.gz archives
// by relative and absolute locations (204 X-Terraform-Get and 200 JSON), a zip by `?archive=zip`,
// a location with its own `//subdir`, a git repository served over git's dumb HTTP protocol by a
// second server — plus a module whose archive does not exist and hostile ones.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tar from 'tar';
import { Engine, EngineOptions } from '../../src/engine/engine';
import { makeBareRepo } from './git-repo';
import { TestHttpsServer } from './https-server';
import { startTestRegistry, TestRegistry } from './registry-server';
import { serveDirectory } from './static-server';
import { tempDir, writeFiles } from './temp';
import { writeZip } from './zip-writer';
import { tarGz } from '../unit/types/archives';

export type Files = Record<string, string>;

export interface ModuleOrigin {
  reg: TestRegistry;
  /** Serves /gitmod.git/ (dumb HTTP). */
  git: TestHttpsServer;
  root: string;
  token: string;
  /** A CLI configuration file with the registry's credentials block. */
  rcFile: string;
  /** An engine as the CLI would make one: the test CA, the token, a disk cache in `cacheDir` (default: none). */
  engine(extra?: EngineOptions): Engine;
  /** Writes a configuration directory (files relative to it) and returns its path. */
  workspace(name: string, files: Files): string;
  /** Registry requests (discovery, modules.v1), archive requests, git requests. */
  counts(): { registry: number; archives: number; git: number };
  stop(): Promise<void>;
}

export const MODULE_TOKEN = 'T0KEN-modules-only-for-the-registry';

export async function startModuleOrigin(): Promise<ModuleOrigin> {
  const reg = await startTestRegistry({ fixtures: false, token: MODULE_TOKEN });
  const git = await new TestHttpsServer().start();
  const root = tempDir('modmirror-origin-');
  const h = reg.host;
  const pkgDir = (name: string, files: Files) => {
    const dir = join(root, 'pkgs', name);
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      writeFileSync(join(dir, f), text);
      if (f.endsWith('.sh')) chmodSync(join(dir, f), 0o755);
    }
    return dir;
  };
  // Origin archives are made by node-tar and a zip writer: independent of the mirror's own packer.
  const tgz = async (name: string, files: Files) => {
    const dir = pkgDir(name, files);
    const file = join(root, `${name}.tar.gz`);
    await tar.c({ gzip: true, file, cwd: dir, portable: true }, Object.keys(files).sort());
    return readFileSync(file);
  };

  reg.addModule({ namespace: 'acme', name: 'app', system: 'aws', versions: ['1.0.0', '1.1.0'],
    location: (v) => ({ kind: 'header', location: `/archives/app/${v}.tar.gz` }) });
  for (const v of ['1.0.0', '1.1.0']) {
    reg.addFile(`/archives/app/${v}.tar.gz`, await tgz(`app-${v}`, {
      'main.tf': `module "base" {\n  source  = "${h}/acme/base/aws"\n  version = "~> 1.0"\n}\n\nmodule "inner" {\n  source = "./modules/inner"\n}\n\nmodule "vendored" {\n  source = "git::https://git.example.com/vendored.git?ref=v1"\n}\n\noutput "app_version" {\n  value = "${v}"\n}\n`,
      'modules/inner/main.tf': `module "leaf" {\n  source = "${h}/acme/leaf/aws"\n}\n`,
      'examples/demo/main.tf': `module "unused" {\n  source = "${h}/acme/unused/aws"\n}\n`,
      'scripts/setup.sh': '#!/bin/sh\necho setup\n',
    }), 'application/gzip');
  }
  reg.addModule({ namespace: 'acme', name: 'base', system: 'aws', versions: ['1.0.0', '1.1.0', '2.0.0'],
    location: (v) => ({ kind: 'json', location: `${reg.origin}/archives/base/${v}.tar.gz` }) });
  for (const v of ['1.0.0', '1.1.0', '2.0.0']) {
    reg.addFile(`/archives/base/${v}.tar.gz`, await tgz(`base-${v}`, { 'main.tf': `variable "name" {\n  type = string\n}\n# base ${v}\n` }), 'application/gzip');
  }
  reg.addModule({ namespace: 'acme', name: 'leaf', system: 'aws', versions: ['0.1.0'],
    location: () => ({ kind: 'header200', location: '../../../../../../dl/leaf-0.1.0?archive=zip' }) });
  const zipPath = join(root, 'leaf.zip');
  await writeZip(zipPath, [{ name: 'leaf/' }, { name: 'leaf/main.tf', data: Buffer.from('output "leaf" {\n  value = true\n}\n') }, { name: 'README.md', data: Buffer.from('# leaf\n') }]);
  reg.addFile('/dl/leaf-0.1.0', readFileSync(zipPath));
  reg.addModule({ namespace: 'acme', name: 'multi', system: 'aws', versions: ['2.0.0'],
    location: () => ({ kind: 'json', location: `${reg.origin}/archives/multi-2.0.0.tar.gz//modules` }) });
  reg.addFile('/archives/multi-2.0.0.tar.gz', await tgz('multi', {
    'README.md': '# multi\n', 'modules/vpc/main.tf': 'variable "cidr" {}\n', 'modules/dns/main.tf': 'variable "zone" {}\n',
  }));
  const bare = makeBareRepo(root, 'gitmod', {
    'v1.0.0': { 'README.md': '# git module\n', 'sub/main.tf': 'variable "from_git" {\n  default = "v1"\n}\n' },
    'v2.0.0': { 'sub/main.tf': 'variable "from_git" {\n  default = "v2"\n}\n' },
  });
  serveDirectory(git, '/gitmod.git/', bare);
  reg.addModule({ namespace: 'acme', name: 'gitmod', system: 'aws', versions: ['1.0.0'],
    location: (v) => ({ kind: 'json', location: `git::https://127.0.0.1:${git.port}/gitmod.git//sub?ref=v${v}` }) });
  reg.addModule({ namespace: 'acme', name: 'broken', system: 'aws', versions: ['1.0.0'],
    location: () => ({ kind: 'json', location: `${reg.origin}/archives/does-not-exist.tar.gz` }) });
  // hostile packages and locations
  reg.addModule({ namespace: 'evil', name: 'escape', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/evil.tar.gz` }) });
  reg.addFile('/archives/evil.tar.gz', tarGz([{ name: 'main.tf', data: 'x' }, { name: '../../escaped.tf', data: 'pwned' }]));
  reg.addModule({ namespace: 'evil', name: 'link', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/link.tar.gz` }) });
  reg.addFile('/archives/link.tar.gz', tarGz([{ name: 'main.tf', data: 'x' }, { name: 'passwd.tf', type: '2', linkname: '../../../../etc/passwd' }]));
  reg.addModule({ namespace: 'evil', name: 'subdir', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: `${reg.origin}/archives/base/1.0.0.tar.gz//../../etc` }) });
  reg.addModule({ namespace: 'evil', name: 's3', system: 'aws', versions: ['1.0.0'], location: () => ({ kind: 'json', location: 's3::https://s3.amazonaws.com/bucket/module.zip' }) });

  const rcFile = join(root, 'tofurc');
  writeFileSync(rcFile, `credentials "${reg.host}" {\n  token = "${MODULE_TOKEN}"\n}\n`);
  const engines: Engine[] = [];
  return {
    reg, git, root, token: MODULE_TOKEN, rcFile,
    engine(extra = {}) {
      const e = new Engine({ env: { HOME: root }, caFiles: [reg.caCertPath], cliConfigFile: rcFile, timeoutMs: 10_000, maxAttempts: 1, ...extra });
      engines.push(e);
      return e;
    },
    workspace: (name, files) => writeFiles(join(root, 'ws', name), files),
    counts() {
      const paths = reg.server.requests.map((r) => r.path);
      return {
        registry: paths.filter((p) => p.startsWith('/v1/') || p.startsWith('/.well-known/')).length,
        archives: paths.filter((p) => p.startsWith('/archives/') || p.startsWith('/dl/')).length,
        git: git.requests.length,
      };
    },
    async stop() {
      await Promise.all(engines.map((e) => e.dispose()));
      await Promise.all([reg.stop(), git.stop()]);
    },
  };
}

/** Every file below `dir` with its content and executable bit (what an installed module is). */
export function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else out[r] = `${statSync(p).mode & 0o111 ? '(x) ' : ''}${readFileSync(p, 'utf8')}`;
    }
  };
  walk(dir, '');
  return out;
}
