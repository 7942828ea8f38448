// npm run demo: the main job on the embedded default, no internet needed. Starts the demo
// registry (HTTPS on 127.0.0.1 with a throwaway CA), then runs the real CLI (dist/cli.js) against
// it the way a person or a pipeline would: inspect, discover, versions, resolve, mirror (twice:
// the second run is incremental), mirror-modules (twice), lock (twice: the second downloads
// nothing), hash and types check.
//   npm run demo               run the tour and exit
//   npm run demo -- --serve    keep the demo registry running (to try the extension against it)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { startDemoRegistry } from '../test/support/demo-registry';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

// The registry lives in this process, so the CLI must run asynchronously (spawnSync would block
// the server it is talking to).
async function run(title: string, args: string[], cwd: string): Promise<number> {
  console.log(`\n### ${title}\n$ tofu-registry ${args.map((a) => (/[\s"'~>()\[]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? 1)));
  // Progress (stderr) came first; the result (stdout) follows it, as in a terminal.
  if (stderr) process.stdout.write(stderr.replace(/^(?=.)/gm, '(stderr) '));
  process.stdout.write(stdout);
  console.log(`(exit ${code})`);
  return code;
}

function zipsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...zipsUnder(p));
    else if (name.endsWith('.zip')) out.push(p);
  }
  return out.sort();
}

async function main(): Promise<number> {
  const serve = process.argv.includes('--serve');
  // Ctrl-C / SIGTERM end the demo through process.exit, so its temp directory (test/support/temp.ts)
  // goes too; while serving, the first Ctrl-C is the signal to stop (handled below).
  for (const [signal, n] of [['SIGINT', 2], ['SIGTERM', 15]] as const) {
    process.on(signal, () => { if (process.listenerCount(signal) === 1) process.exit(128 + n); });
  }
  const demo = await startDemoRegistry();
  const { registry, configDir, root } = demo;
  // the CLI's disk cache (discovery, version lists, module downloads) stays in the demo's temp dir
  process.env.XDG_CACHE_HOME = join(root, 'cache');
  const host = registry.host;
  const ca = ['--ca-file', registry.caCertPath];
  console.log(`# tofu-registry demo\nA private registry is running at https://${host}/ (certificate from a throwaway CA: ${registry.caCertPath}).`);
  console.log(`Demo configuration: ${configDir}`);
  const failures: string[] = [];
  const expect = (title: string, code: number, want: number) => { if (code !== want) failures.push(`${title}: exit ${code}, expected ${want}`); };
  try {
    expect('inspect', await run('What the bundled example configuration calls', ['inspect', join(ROOT, 'examples', 'demo')], ROOT), 0);
    expect('discover', await run('Remote service discovery', ['discover', host, ...ca], root), 0);
    expect('versions', await run('Module versions under a constraint (module rules)', ['versions', `${host}/acme/network/aws`, '--constraint', '~> 2.0', ...ca], root), 0);
    expect('versions --provider', await run('Provider versions (provider rules)', ['versions', `${host}/acme/cloud`, '--provider', '--constraint', '~> 1.2', ...ca], root), 0);
    expect('resolve 204', await run('Download location (204 + X-Terraform-Get)', ['resolve', `${host}/acme/storage/azurerm`, '--version', '1.1.0', ...ca], root), 0);
    expect('resolve json', await run('Download location (200 JSON, relative URL)', ['resolve', `${host}/infra/vpc/google`, '--version', '1.1.0', '--json', ...ca], root), 0);
    const out = join(root, 'mirror');
    const platforms = ['--platform', 'linux_amd64', '--platform', 'darwin_arm64'];
    expect('mirror', await run('Build a verified provider network mirror', ['mirror', '--out', out, ...platforms, ...ca, configDir], root), 0);
    const seen = registry.server.requests.length;
    expect('mirror again', await run('Run it again: everything is up to date, nothing is downloaded', ['mirror', '--out', out, ...platforms, ...ca, configDir], root), 0);
    const rerunRequests = registry.server.requests.length - seen;
    console.log(`(the registry saw ${rerunRequests} requests during this run: discovery and version lists come from the CLI's disk cache)`);
    if (rerunRequests !== 0) failures.push(`mirror again: the registry saw ${rerunRequests} requests, expected 0`);
    expect('mirror failure', await run('A platform the registry does not publish: the failures are named, the exit code is 1', ['mirror', '--out', out, '--platform', 'solaris_sparc', ...ca, configDir], root), 1);
    expect('mirror-modules', await run('Mirror the configuration\'s registry modules as a static modules.v1 site (same OUT as the providers)', ['mirror-modules', '--out', out, '--base-url', 'https://mirror.example.com/', ...ca, configDir], root), 0);
    const before = registry.server.requests.length;
    expect('mirror-modules again', await run('Run it again: every module version is up to date, nothing is fetched', ['mirror-modules', '--out', out, ...ca, configDir], root), 0);
    const moduleRerun = registry.server.requests.length - before;
    if (moduleRerun !== 0) failures.push(`mirror-modules again: the registry saw ${moduleRerun} requests, expected 0`);
    expect('lock', await run('Lock the providers for two platforms (.terraform.lock.hcl as tofu providers lock writes it, in parallel)', ['lock', ...platforms, ...ca, configDir], root), 0);
    console.log(readFileSync(join(configDir, '.terraform.lock.hcl'), 'utf8'));
    const zipsSeen = registry.server.requests.filter((r) => r.path.endsWith('.zip')).length;
    expect('lock again', await run('Lock again: the file is up to date, no archive is downloaded (hash cache)', ['lock', ...platforms, ...ca, configDir], root), 0);
    const relocked = registry.server.requests.filter((r) => r.path.endsWith('.zip')).length - zipsSeen;
    if (relocked !== 0) failures.push(`lock again: ${relocked} archives downloaded, expected 0`);
    const zips = zipsUnder(out).slice(0, 2);
    expect('hash', await run('h1: and zh: hashes of mirrored packages', ['hash', ...zips.map((z) => relative(root, z))], root), 0);
    expect('types check', await run('Check module arguments against the called module\'s variable types (1 error expected)', ['types', 'check', ...ca, '--cache-dir', join(root, 'module-cache'), configDir], root), 1);
    expect('types convert', await run('Convert a value to a type, as OpenTofu does', ['types', 'convert', '--type', 'list(string)', '--value', '["a", 15, true]'], root), 0);
    console.log(`\nServer saw ${registry.server.requests.length} requests.`);
    if (serve) {
      // The README's quick start pastes these into a second terminal (its examples use them).
      console.log(`\nServing until Ctrl+C. In another terminal:\n\nexport REGISTRY='${host}'\nexport CA='${registry.caCertPath}'\nexport DEMO='${configDir}'\n`);
      console.log(`Try the extension: set "tofuRegistry.caFile": "${registry.caCertPath}" and open ${configDir}`);
      await new Promise<void>((r) => process.once('SIGINT', () => r()));
    }
  } finally {
    await demo.stop();
    if (!serve) rmSync(root, { recursive: true, force: true });
  }
  if (failures.length) {
    console.log(`\ndemo FAILED:\n  ${failures.join('\n  ')}`);
    return 1;
  }
  console.log('\ndemo finished: every step behaved as expected.');
  return 0;
}

main().then((c) => process.exit(c), (e) => { console.error(e); process.exit(1); });
