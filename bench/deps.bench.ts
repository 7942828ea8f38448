// Dependency graph targets: a workspace of 50 configuration directories sharing 30 registry
// modules and 10 providers. Requests are counted on the test registry: one versions lookup per
// distinct module/provider (target), whatever the number of directories; before `tofu init` each
// module is also fetched once (for its own provider constraints). Warm-cache time is measured
// against the cold run of the same process as baseline.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReporter } from './index';
import { readyTimed } from './machine';
import { buildDependencyGraph } from '../src/engine/deps';
import { Engine } from '../src/engine/engine';
import { ModuleResolver } from '../src/engine/modulepkg/resolve';
import { startTestRegistry, TestRegistry } from '../test/support/registry-server';
import { tarGz } from '../test/unit/types/archives';
import { removeTempDir, tempDir } from '../test/support/temp';

export const title = 'dependency graph (50 directories, 30 modules, 10 providers)';

const DIRS = 50, MODULES = 30, PROVIDERS = 10, CALLS = 6, REQUIRED = 3;

function setup(reg: TestRegistry, root: string, installed: boolean): string[] {
  for (let p = 0; p < PROVIDERS; p++) {
    reg.addProvider({ namespace: 'bench', type: `p${p}`, versions: ['1.0.0', '1.1.0', '2.0.0'].map((version) => ({ version, platforms: [] })) });
  }
  for (let m = 0; m < MODULES; m++) {
    reg.addModule({ namespace: 'bench', name: `m${m}`, system: 'aws', versions: ['1.0.0', '1.2.0', '2.0.0'] });
    const tf = `terraform {\n  required_providers {\n    p${m % PROVIDERS} = {\n      source  = "${reg.host}/bench/p${m % PROVIDERS}"\n      version = ">= 1.0"\n    }\n  }\n}\n`;
    reg.addFile(`/archives/bench/m${m}/aws/1.2.0.tar.gz`, tarGz([{ name: 'versions.tf', data: tf }]), 'application/gzip');
  }
  return Array.from({ length: DIRS }, (_, d) => {
    const dir = join(root, `stack-${d}`);
    mkdirSync(dir, { recursive: true });
    const mods = Array.from({ length: CALLS }, (_, i) => (d * CALLS + i) % MODULES);
    const provs = Array.from({ length: REQUIRED }, (_, i) => (d + i * 3) % PROVIDERS);
    writeFileSync(join(dir, 'main.tf'), mods.map((m) => `module "m${m}" {\n  source  = "${reg.host}/bench/m${m}/aws"\n  version = "~> 1.0"\n}\n`).join('\n') +
      `terraform {\n  required_providers {\n${provs.map((p) => `    p${p} = {\n      source  = "${reg.host}/bench/p${p}"\n      version = "~> 1.0"\n    }\n`).join('')}  }\n}\n`);
    writeFileSync(join(dir, '.terraform.lock.hcl'), provs.map((p) => `provider "${reg.host}/bench/p${p}" {\n  version = "1.0.0"\n}\n`).join('\n'));
    if (installed) {
      const entries = [{ Key: '', Source: '', Dir: '.' }, ...mods.map((m) => ({ Key: `m${m}`, Source: `${reg.host}/bench/m${m}/aws`, Version: '1.2.0', Dir: `.terraform/modules/m${m}` }))];
      for (const m of mods) {
        mkdirSync(join(dir, `.terraform/modules/m${m}`), { recursive: true });
        writeFileSync(join(dir, `.terraform/modules/m${m}/versions.tf`), `terraform {\n  required_providers {\n    p${m % PROVIDERS} = {\n      source  = "${reg.host}/bench/p${m % PROVIDERS}"\n    }\n  }\n}\n`);
      }
      writeFileSync(join(dir, '.terraform/modules/modules.json'), JSON.stringify({ Modules: entries }));
    }
    return dir;
  });
}

async function scenario(report: BenchReporter, installed: boolean): Promise<void> {
  const reg = await startTestRegistry({ fixtures: false });
  const root = tempDir('tofu-registry-bench-deps-');
  const what = installed ? 'after tofu init' : 'before tofu init';
  try {
    const dirs = setup(reg, root, installed);
    const engine = new Engine({ env: {}, caFiles: [reg.caCertPath] });
    const resolver = new ModuleResolver({ engine, cacheDir: join(root, 'cache') });
    reg.server.resetLog();
    // Ready times (machine.ts): the wall time less this thread's waits for a core.
    const cold = await readyTimed(() => buildDependencyGraph(dirs, { engine, resolver }));
    const g = cold.value;
    const coldMs = cold.readyMs;
    const deps = g.directories.reduce((n, d) => n + d.modules.length + d.providers.length, 0);
    const errors = g.directories.flatMap((d) => [...d.errors, ...[...d.modules, ...d.providers].filter((x) => x.status === 'error').map((x) => x.message)]);
    if (errors.length) report.note(`unexpected errors: ${errors.slice(0, 3).join('; ')}`);
    const moduleLists = reg.server.count('/v1/modules/') - reg.server.requests.filter((r) => r.path.endsWith('/download')).length;
    const providerLists = reg.server.count('/v1/providers/');
    report.result(`${what}: dependencies in the graph`, String(deps));
    report.result(`${what}: module versions requests`, String(moduleLists), `= ${MODULES}`, moduleLists === MODULES);
    report.result(`${what}: provider versions requests`, String(providerLists), `= ${PROVIDERS}`, providerLists === PROVIDERS);
    if (!installed) {
      const downloads = reg.server.requests.filter((r) => r.path.endsWith('/download')).length;
      const archives = reg.server.count('/archives/');
      report.result(`${what}: module fetches (location + archive)`, `${downloads} + ${archives}`, `= ${MODULES} + ${MODULES}`, downloads === MODULES && archives === MODULES);
    }
    report.result(`${what}: all requests (incl. 1 discovery)`, String(reg.server.requests.length));
    report.result(`${what}: cold graph (baseline)`, `${coldMs.toFixed(0)} ms`);
    reg.server.resetLog();
    const N = 5;
    const warmMs = (await readyTimed(async () => { for (let i = 0; i < N; i++) await buildDependencyGraph(dirs, { engine, resolver }); })).readyMs / N;
    report.result(`${what}: warm-cache graph`, `${warmMs.toFixed(0)} ms`, '< cold, 0 requests', warmMs < coldMs && reg.server.requests.length === 0);
    report.result(`${what}: warm / cold ratio`, (warmMs / coldMs).toFixed(2));
    await engine.dispose();
  } finally {
    await reg.stop();
    removeTempDir(root);
  }
}

export async function run(report: BenchReporter): Promise<void> {
  await scenario(report, false);
  await scenario(report, true);
}
