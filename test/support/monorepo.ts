// A synthetic monorepo of N root modules (one per account × region × stack, as platform teams keep
// them) and the registry that serves what it needs, for the request-count tests and the monorepo
// bench: each root requires 3 providers from a pool, calls 5 registry modules from a pool with
// several constraint forms, a private child module (`./modules/private`) and a shared local module
// (`../../shared/network`). Everything is written at test time; `expected` says what a command
// must ask the registry for: each distinct thing once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tarGz } from '../unit/types/archives';
import { h1OfZip } from '../../src/engine/providerpkg/hash';
import { BuiltRelease, buildRelease, makeSigningKey, packagesOf, PackageFiles, providerDefinition } from './provider-packages';
import type { TestRegistry } from './registry-server';

export interface MonorepoSpec {
  roots: number;
  /** Pool sizes (default 20 providers, 50 modules). */
  providers?: number;
  modules?: number;
}

/** Module versions on the registry, and the constraint forms the calls use with what each selects. */
const MODULE_VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '2.0.0'];
const CONSTRAINT_FORMS: Array<{ version: string | null; selects: string }> = [
  { version: '1.1.0', selects: '1.1.0' },          // pinned (implicit =)
  { version: '~> 1.0', selects: '1.2.0' },
  { version: '>= 1.0, < 2.0', selects: '1.2.0' },  // the same version by another constraint
  { version: null, selects: '2.0.0' },             // no constraint: the newest
  { version: '= 1.0.0', selects: '1.0.0' },        // pinned (explicit =)
];
const PROVIDER_VERSIONS = ['1.0.0', '1.1.0'];
export const MONOREPO_PLATFORM = 'linux_amd64';

export interface Monorepo {
  /** The workspace (parent of `stacks/` and `shared/`). */
  root: string;
  /** The root module directories. */
  dirs: string[];
  /** Every directory with configuration files (roots, their private modules, the shared module). */
  configDirs: number;
  expected: {
    /** Distinct registry modules called, and distinct (module, selected version). */
    modules: Set<string>;
    moduleVersions: Set<string>;
    /** Modules with at least one call that is not an exact pin (those need a version list to select). */
    modulesNeedingList: Set<string>;
    /** Distinct providers required (by the roots and the modules' packages), each selecting PROVIDER_VERSIONS' last. */
    providers: Set<string>;
  };
}

/** Serves the pools on `reg` (providers with OpenTofu 1.12 `packages`, one platform; modules as tar.gz archives). */
export async function serveMonorepoPools(reg: TestRegistry, work: string, spec: Required<Pick<MonorepoSpec, 'providers' | 'modules'>>): Promise<void> {
  const files = new PackageFiles(reg.server);
  const key = await makeSigningKey();
  for (let p = 0; p < spec.providers; p++) {
    const releases: BuiltRelease[] = [];
    for (const version of PROVIDER_VERSIONS) {
      const rel = await buildRelease(join(work, 'provider-packages'), { namespace: 'mono', type: `p${p}`, version, platforms: [MONOREPO_PLATFORM], binarySize: 2048 }, key);
      files.add(rel);
      releases.push(rel);
    }
    const answers = new Map<string, Awaited<ReturnType<typeof packagesOf>>>();
    for (const rel of releases) answers.set(rel.version, await packagesOf(rel, (pkg) => h1OfZip(pkg.path)));
    reg.addProvider(providerDefinition(files, releases, [key], (pkg) => ({ packages: answers.get(pkg.version) })));
  }
  for (let m = 0; m < spec.modules; m++) {
    reg.addModule({ namespace: 'mono', name: `m${m}`, system: 'aws', versions: MODULE_VERSIONS });
    for (const v of MODULE_VERSIONS) {
      const tf = `variable "name" {\n  type = string\n}\n\nterraform {\n  required_providers {\n    p${m % spec.providers} = {\n      source  = "${reg.host}/mono/p${m % spec.providers}"\n      version = ">= 1.0"\n    }\n  }\n}\n\noutput "id" {\n  value = var.name\n}\n`;
      reg.addFile(`/archives/mono/m${m}/aws/${v}.tar.gz`, tarGz([{ name: 'main.tf', data: tf }]), 'application/gzip');
    }
  }
}

/** Writes the workspace under `root`: N roots under stacks/, one shared module. */
export function writeMonorepo(root: string, host: string, spec: MonorepoSpec): Monorepo {
  const providers = spec.providers ?? 20;
  const modules = spec.modules ?? 50;
  const expected: Monorepo['expected'] = { modules: new Set(), moduleVersions: new Set(), modulesNeedingList: new Set(), providers: new Set() };
  const shared = join(root, 'shared', 'network');
  mkdirSync(shared, { recursive: true });
  writeFileSync(join(shared, 'main.tf'), 'variable "cidr" {\n  type = string\n}\n\noutput "cidr" {\n  value = var.cidr\n}\n');
  const dirs: string[] = [];
  for (let r = 0; r < spec.roots; r++) {
    const dir = join(root, 'stacks', `stack-${String(r).padStart(5, '0')}`);
    mkdirSync(join(dir, 'modules', 'private'), { recursive: true });
    const provs = [0, 1, 2].map((i) => (r * 3 + i * 7) % providers);
    const calls = [0, 1, 2, 3, 4].map((i) => {
      const m = (r * 5 + i * 11) % modules;
      // every module is called with several forms across the roots (so several versions of it are selected)
      const form = CONSTRAINT_FORMS[(Math.floor(r / 10) + i) % CONSTRAINT_FORMS.length];
      const address = `${host}/mono/m${m}/aws`;
      expected.modules.add(address);
      expected.moduleVersions.add(`${address} ${form.selects}`);
      if (!form.version || !/^=?\s*\d/.test(form.version)) expected.modulesNeedingList.add(address);
      expected.providers.add(`${host}/mono/p${m % providers}`);
      return `module "m${m}_${i}" {\n  source  = "${address}"\n${form.version ? `  version = "${form.version}"\n` : ''}  name    = "stack-${r}-${i}"\n}\n`;
    });
    for (const p of provs) expected.providers.add(`${host}/mono/p${p}`);
    writeFileSync(join(dir, 'main.tf'), [
      `terraform {\n  required_providers {\n${provs.map((p) => `    p${p} = {\n      source  = "${host}/mono/p${p}"\n      version = "~> 1.0"\n    }\n`).join('')}  }\n}\n`,
      ...calls,
      'module "private" {\n  source = "./modules/private"\n  size   = 3\n}\n',
      'module "network" {\n  source = "../../shared/network"\n  cidr   = "10.0.0.0/16"\n}\n',
    ].join('\n'));
    writeFileSync(join(dir, 'modules', 'private', 'main.tf'), 'variable "size" {\n  type = number\n}\n');
    dirs.push(dir);
  }
  return { root, dirs, configDirs: spec.roots * 2 + 1, expected };
}

/** The selected provider version (every root's "~> 1.0" and every module's ">= 1.0"). */
export const MONOREPO_PROVIDER_VERSION = PROVIDER_VERSIONS[PROVIDER_VERSIONS.length - 1];
