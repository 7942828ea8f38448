// npm run demo: the main job on the embedded default, no internet needed. Starts the demo
// registry (HTTPS on 127.0.0.1 with a throwaway CA), then runs the real CLI (dist/cli.js) against
// it the way a person or a pipeline would: inspect, discover, versions, resolve, mirror (twice:
// the second run is incremental), mirror-modules (twice), lock (twice: the second downloads
// nothing), hash, types check and sbom; then, when Debian's docker-registry is installed, the same
// providers into an OCI registry on loopback (mirror --oci twice, lock --oci-mirror) and a module
// package (publish-module, resolve oci://); last, one language-server exchange over stdio
// (initialize, a completion of a module version, shutdown).
//   npm run demo               run the tour and exit
//   npm run demo -- --serve    keep the demo registry running (to try the extension against it)
import { spawn } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CompletionItem, CompletionList, InitializeResult } from 'vscode-languageserver-protocol/node';
import { DemoRegistry, startDemoRegistry } from '../test/support/demo-registry';
import { eventually, startLsp } from '../test/support/lsp-client';
import { DEFAULT_USERS, startOciRegistry, TestOciRegistry } from '../test/support/oci-registry';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

// The registry lives in this process, so the CLI must run asynchronously (spawnSync would block
// the server it is talking to).
async function run(title: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  console.log(`\n### ${title}\n$ tofu-registry ${args.map((a) => (/[\s"'~>()\[$?]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

type Expect = (title: string, code: number, want: number) => void;

/** Whether `name` is an executable on PATH. */
function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((d) => {
    try {
      accessSync(join(d, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The OCI steps against a real registry: CNCF Distribution (Debian's docker-registry) on loopback,
 * TLS from the demo's throwaway CA, a password (htpasswd) that the CLI finds in an oci_credentials
 * block, as tofu does. Without docker-registry they are skipped with how to get it.
 */
async function ociSteps(demo: DemoRegistry, failures: string[], expect: Expect): Promise<void> {
  if (!onPath('docker-registry')) {
    console.log(`\n### OCI registry: skipped\nDebian's docker-registry (CNCF Distribution) is not installed, so mirror --oci, lock --oci-mirror,
publish-module and resolve oci://… are not shown. To see them: sudo apt-get install docker-registry
(npm test installs it too: scripts/test-packages.sh), then run npm run demo again.`);
    return;
  }
  const { registry, configDir, root } = demo;
  const oci: TestOciRegistry = await startOciRegistry({ auth: 'basic' });
  try {
    const dir = join(root, 'oci');
    mkdirSync(dir);
    const rc = join(dir, 'tofurc');
    writeFileSync(rc, `oci_credentials "${oci.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`);
    const env = { ...process.env, TF_CLI_CONFIG_FILE: rc };
    const ca = ['--ca-file', registry.caCertPath]; // the same throwaway CA signed the OCI registry's certificate
    console.log(`\n# OCI registry\nAn OCI registry (CNCF Distribution, Debian's docker-registry) is running at https://${oci.host}/ with a password;
the CLI finds it in an oci_credentials block of ${rc} (TF_CLI_CONFIG_FILE), as tofu does.`);
    const template = `${oci.host}/opentofu-providers/\${namespace}/\${type}`;
    const platforms = ['--platform', 'linux_amd64', '--platform', 'darwin_arm64'];
    expect('mirror --oci', await run('Push the configuration\'s providers, verified, into the OCI registry (OpenTofu\'s oci_mirror layout)', ['mirror', '--oci', template, ...platforms, ...ca, configDir], root, env), 0);
    const uploads = oci.uploads();
    expect('mirror --oci again', await run('Run it again: every tag is up to date, nothing is uploaded', ['mirror', '--oci', template, ...platforms, ...ca, configDir], root, env), 0);
    if (oci.uploads() !== uploads) failures.push(`mirror --oci again: ${oci.uploads() - uploads} blobs uploaded, expected 0`);
    // A configuration without a lock file, locked from the OCI mirror alone.
    const lockDir = join(dir, 'config');
    mkdirSync(lockDir);
    copyFileSync(join(configDir, 'versions.tf'), join(lockDir, 'versions.tf'));
    expect('lock --oci-mirror', await run('Lock the providers from the OCI mirror (tofu providers lock cannot read one)', ['lock', '--oci-mirror', template, '--platform', 'linux_amd64,darwin_arm64', ...ca, relative(root, lockDir)], root, env), 0);
    const h1 = (file: string) => [...readFileSync(file, 'utf8').matchAll(/"(h1:[^"]+)"/g)].map((m) => m[1]).sort();
    const fromOci = h1(join(lockDir, '.terraform.lock.hcl'));
    const fromOrigin = h1(join(configDir, '.terraform.lock.hcl'));
    const same = fromOci.length > 0 && fromOci.join() === fromOrigin.join();
    console.log(`(the lock file from the OCI mirror records ${same ? 'the same' : 'OTHER'} h1: hashes as the one from the origin registry: ${fromOci.length} and ${fromOrigin.length})`);
    if (!same) failures.push(`lock --oci-mirror: h1: hashes ${fromOci.join(' ')}, the origin's lock has ${fromOrigin.join(' ')}`);
    const repo = `oci://${oci.host}/modules/helpers`;
    expect('publish-module', await run('Publish a module directory as an OpenTofu module package (a deterministic zip, tags set last)', ['publish-module', join('examples', 'demo', 'modules', 'helpers'), repo, '--tag', '1.0.0', ...ca], ROOT, env), 0);
    expect('resolve oci://', await run('What tofu init downloads for that oci:// source', ['resolve', `${repo}?tag=1.0.0`, ...ca], root, env), 0);
  } finally {
    await oci.stop();
  }
}

/** The LSP exchange an editor has with `tofu-registry lsp`: initialize, a completion in a module's version string, shutdown, exit. */
async function lspStep(demo: DemoRegistry, failures: string[]): Promise<void> {
  const { registry, configDir, root } = demo;
  const args = ['--stdio', '--cache-dir', join(root, 'lsp-cache')];
  console.log(`\n### The language server: one exchange over stdio, as any editor's LSP client has it\n$ tofu-registry lsp ${args.join(' ')}`);
  const s = startLsp(args, process.env);
  try {
    const rootUri = pathToFileURL(configDir).href;
    const init = await s.conn.sendRequest('initialize', {
      processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: 'config' }], capabilities: { textDocument: { completion: {}, publishDiagnostics: {} } },
      initializationOptions: { tofuRegistry: { caFile: registry.caCertPath } },
    }) as InitializeResult;
    await s.conn.sendNotification('initialized', {});
    const providers = Object.keys(init.capabilities).filter((k) => k.endsWith('Provider')).map((k) => k.slice(0, -'Provider'.length));
    console.log(`→ initialize\n← ${init.serverInfo?.name} ${init.serverInfo?.version}: ${providers.join(', ')}`);
    if (!init.capabilities.completionProvider) failures.push('language server: no completionProvider in the initialize answer');
    const file = join(configDir, 'main.tf');
    const text = readFileSync(file, 'utf8');
    const uri = pathToFileURL(file).href;
    await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'terraform', version: 1, text } });
    const at = text.indexOf('version = "') + 'version = "'.length;
    const line = text.slice(0, at).split('\n').length - 1;
    const position = { line, character: at - (text.lastIndexOf('\n', at - 1) + 1) };
    console.log(`→ textDocument/completion in main.tf line ${line + 1}: ${text.split('\n')[line].trim()} (module "vpc")`);
    const items = await eventually('version completion', async () => {
      const r = await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position }) as CompletionItem[] | CompletionList | null;
      const list = Array.isArray(r) ? r : r?.items ?? [];
      return list.some((i) => /^\d/.test(i.label)) ? list : undefined;
    });
    const versions = items.filter((i) => /^\d/.test(i.label)).map((i) => i.label);
    const preselected = items.find((i) => i.preselect)?.label;
    const forms = items.filter((i) => !/^\d/.test(i.label)).map((i) => i.label);
    console.log(`← ${versions.map((v) => (v === preselected ? `${v} (preselected: what tofu init selects)` : v)).join(', ')}; constraint forms ${forms.join(', ')}`);
    if (versions.join() !== '2.0.0,1.1.0,1.0.0') failures.push(`language server: versions ${versions.join(', ')}, expected 2.0.0, 1.1.0, 1.0.0`);
    if (preselected !== '1.1.0') failures.push(`language server: ${preselected ?? 'nothing'} preselected, expected 1.1.0 (the newest matching ~> 1.0)`);
  } catch (err) {
    failures.push(`language server: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await s.close();
  }
  console.log(`→ shutdown, exit\n← (exit ${s.child.exitCode})`);
  if (s.child.exitCode !== 0) failures.push(`language server: exit ${s.child.exitCode} after shutdown and exit, expected 0${s.stderr() ? `: ${s.stderr().slice(-500)}` : ''}`);
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
    const sbomFile = join(root, 'sbom.cdx.json');
    expect('sbom', await run('An SBOM of the configuration (CycloneDX 1.6): modules with their package hashes, providers with the lock hashes',
      ['sbom', '--output', sbomFile, ...ca, '--cache-dir', join(root, 'module-cache'), configDir], root, { ...process.env, SOURCE_DATE_EPOCH: '1767225600' }), 0);
    const sbom = JSON.parse(readFileSync(sbomFile, 'utf8')) as { components: Array<{ 'bom-ref': string; name: string; version?: string; purl?: string; hashes?: unknown[] }> };
    for (const c of sbom.components) console.log(`  ${c.name} ${c.version ?? ''}  ${c.purl ?? ''}  (${c.hashes?.length ?? 0} SHA-256)`);
    const vpc = sbom.components.find((c) => c['bom-ref'].startsWith(`module:${host}/infra/vpc/google@`));
    if (!vpc?.hashes?.length) failures.push('sbom: the vpc module is missing or has no package hash');
    if (!sbom.components.some((c) => c['bom-ref'].startsWith('provider:') && (c.hashes?.length ?? 0) > 0)) failures.push('sbom: no provider with the lock file\'s hashes');
    expect('types convert', await run('Convert a value to a type, as OpenTofu does', ['types', 'convert', '--type', 'list(string)', '--value', '["a", 15, true]'], root), 0);
    try {
      await ociSteps(demo, failures, expect);
    } catch (err) {
      failures.push(`OCI registry: ${err instanceof Error ? err.message : String(err)}`);
    }
    await lspStep(demo, failures);
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
