// `tofu-registry sbom` end to end against real servers: the HTTPS test registry (a token, module
// archives behind a download URL with a signature query parameter), a git repository over git's
// dumb HTTP protocol, an HTTP archive, a real OCI registry (CNCF Distribution, Basic auth) and
// local modules nested in roots and in fetched packages; locked and unlocked providers; a
// modules.json as tofu init writes it. Both formats are validated with the official schemas
// (CycloneDX: the CycloneDX library's strict JSON validator; SPDX 2.3: the official schema file
// in test/fixtures/sbom with ajv), two runs give the same bytes, a re-run asks no server
// anything, and no credential or signed-URL secret reaches the output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { main } from '../../../src/cli';
import { packDirectory } from '../../../src/engine/modmirror/tarball';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { DEFAULT_USERS, startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { serveDirectory } from '../../support/static-server';
import { makeBareRepo } from '../../support/git-repo';
import { tempDir } from '../../support/temp';

const TOKEN = 'registry-secret-token-4711';
const SIGNATURE = 'sigsecret0815';
const ARCHIVE_SIG = 'archivesig9999';
const SPDX_SCHEMA = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'sbom', 'spdx-2.3-schema.json');
const EPOCH = '1767225600'; // 2026-01-01T00:00:00Z

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

type Cdx = { metadata: { component: Cdx['components'][number]; timestamp: string }; components: Array<{ 'bom-ref': string; name: string; version?: string; purl?: string;
  hashes?: Array<{ alg: string; content: string }>; properties?: Array<{ name: string; value: string }>; components?: Cdx['components'];
  externalReferences?: Array<{ type: string; url: string }>; pedigree?: { commits: Array<{ uid: string }> } }>; dependencies: Array<{ ref: string; dependsOn: string[] }> };

/** Every component of a CycloneDX document, nested ones and the described one included. */
function allComponents(doc: Cdx): Cdx['components'] {
  const out: Cdx['components'] = [];
  const visit = (list: Cdx['components'] | undefined) => { for (const c of list ?? []) { out.push(c); visit(c.components); } };
  visit([doc.metadata.component]);
  visit(doc.components);
  return out;
}
type Spdx = { spdxVersion: string; documentNamespace: string; creationInfo: { created: string };
  packages: Array<{ SPDXID: string; name: string; versionInfo?: string; downloadLocation: string; checksums?: Array<{ algorithm: string; checksumValue: string }> }>;
  relationships: Array<{ spdxElementId: string; relationshipType: string; relatedSpdxElement: string }> };
const prop = (c: Cdx['components'][number], name: string) => c.properties?.filter((p) => p.name === name).map((p) => p.value) ?? [];

describe('sbom: a workspace with registry, git, HTTP-archive, OCI and local modules', () => {
  let reg: TestRegistry;
  let oci: TestOciRegistry;
  let ws: string;
  let env: NodeJS.ProcessEnv;
  let archives: Record<string, Buffer>;
  let gitCommit: string;
  let ociDigests: { manifestDigest: string; blobDigest: string };
  const run = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    let stdout = '', stderr = '';
    const code = await main([...args, '--ca-file', reg.caCertPath, '--cache-dir', join(ws, 'cache')],
      { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { ...env, ...extraEnv }, cwd: join(ws, 'work') });
    return { code, stdout, stderr };
  };

  before(async () => {
    [reg, oci] = await Promise.all([startTestRegistry({ token: TOKEN, fixtures: false }), startOciRegistry({ auth: 'basic' })]);
    ws = tempDir('sbom-');
    const H = reg.host;
    writeFileSync(join(ws, '.tofurc'), `credentials "${H}" {\n  token = "${TOKEN}"\n}\noci_credentials "${oci.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`);
    env = { HOME: ws, TF_CLI_CONFIG_FILE: join(ws, '.tofurc'), PATH: process.env.PATH, SOURCE_DATE_EPOCH: EPOCH };

    // module packages: the registry module (two versions; each calls a local module of its own), an HTTP archive
    archives = {};
    for (const v of ['1.0.0', '1.2.0']) {
      const src = join(ws, 'pkg', `net-${v}`);
      write(src, {
        'main.tf': `# net ${v}\nmodule "sub" {\n  source = "./modules/sub"\n}\n`,
        'modules/sub/main.tf': 'terraform {\n  required_providers {\n    cloud = {\n      source = "' + H + '/acme/cloud"\n    }\n  }\n}\n',
      });
      await packDirectory(src, join(ws, 'pkg', `net-${v}.tar.gz`));
      archives[v] = readFileSync(join(ws, 'pkg', `net-${v}.tar.gz`));
      reg.addFile(`/archives/net-${v}.tar.gz`, archives[v], 'application/gzip');
    }
    reg.addModule({ namespace: 'acme', name: 'net', system: 'aws', versions: ['1.0.0', '1.2.0'],
      location: (v) => ({ kind: 'json', location: `${reg.origin}/archives/net-${v}.tar.gz?X-Amz-Signature=${SIGNATURE}` }) });
    write(join(ws, 'pkg', 'app'), { 'main.tf': 'variable "name" {\n  type = string\n}\n' });
    await packDirectory(join(ws, 'pkg', 'app'), join(ws, 'pkg', 'app.tar.gz'));
    archives.app = readFileSync(join(ws, 'pkg', 'app.tar.gz'));
    reg.addFile('/files/app.tar.gz', archives.app, 'application/gzip');
    reg.addProvider({ namespace: 'acme', type: 'cloud', versions: [{ version: '1.0.0', platforms: [] }, { version: '1.1.0', platforms: [] }] });
    reg.addProvider({ namespace: 'acme', type: 'extra', versions: [{ version: '2.0.0', platforms: [] }, { version: '2.1.0', platforms: [] }] });

    // a git repository over git's dumb HTTP protocol, on the registry's host (no token needed for files)
    const bare = makeBareRepo(join(ws, 'pkg'), 'repo', { 'v1.0.0': { 'main.tf': 'variable "x" {}\n' } });
    gitCommit = execFileSync('git', ['rev-parse', 'v1.0.0^{commit}'], { cwd: bare }).toString().trim();
    serveDirectory(reg.server, '/git/repo.git/', bare);

    // an OCI module package, published with the product itself
    write(join(ws, 'pkg', 'ocimod'), { 'main.tf': 'variable "y" {}\n' });
    let out = '';
    const published = await main(['publish-module', join(ws, 'pkg', 'ocimod'), `oci://${oci.host}/mods/app`, '--tag', '1.0.0', '--json', '--ca-file', oci.caCertPath],
      { stdout: (t) => { out += t; }, stderr: () => undefined, env, cwd: ws });
    assert.equal(published, 0);
    ociDigests = JSON.parse(out);

    // root a: every kind of call, a lock file pinning one provider, a modules.json as tofu init writes it
    write(join(ws, 'work', 'a'), {
      'main.tf': [
        'terraform {',
        '  required_providers {',
        `    cloud = {\n      source  = "${H}/acme/cloud"\n      version = "~> 1.0"\n    }`,
        `    extra = {\n      source = "${H}/acme/extra"\n    }`,
        '  }',
        '}',
        `module "net" {\n  source  = "${H}/acme/net/aws"\n  version = "~> 1.0"\n}`,
        'module "local" {\n  source = "./modules/local"\n}',
        `module "archive" {\n  source = "${reg.origin}/files/app.tar.gz?sig=${ARCHIVE_SIG}"\n}`,
        `module "git" {\n  source = "git::${reg.origin}/git/repo.git?ref=v1.0.0"\n}`,
        `module "oci" {\n  source = "oci://${oci.host}/mods/app?tag=1.0.0"\n}`,
        '',
      ].join('\n'),
      'modules/local/main.tf': 'module "inner" {\n  source = "./inner"\n}\n',
      'modules/local/inner/main.tf': 'terraform {\n  required_providers {\n    cloud = {\n      source = "' + H + '/acme/cloud"\n    }\n  }\n}\n',
      '.terraform.lock.hcl': [
        '# This file is maintained automatically by "tofu init".',
        '# Manual edits may be lost in future updates.',
        '',
        `provider "${H}/acme/cloud" {`,
        '  version     = "1.0.0"',
        '  constraints = "~> 1.0"',
        '  hashes = [',
        `    "h1:${Buffer.alloc(32, 1).toString('base64')}",`,
        `    "zh:${'ab'.repeat(32)}",`,
        `    "zh:${'cd'.repeat(32)}",`,
        '  ]',
        '}',
        '',
      ].join('\n'),
    });
    // what tofu init installed: net at 1.0.0 (the newest matching is 1.2.0: the installed version is what runs)
    const installed = join(ws, 'work', 'a', '.terraform', 'modules');
    cpSync(join(ws, 'pkg', 'net-1.0.0'), join(installed, 'net'), { recursive: true });
    cpSync(join(ws, 'pkg', 'app'), join(installed, 'archive'), { recursive: true });
    write(join(installed, 'git'), { 'main.tf': 'variable "x" {}\n' });
    cpSync(join(ws, 'pkg', 'ocimod'), join(installed, 'oci'), { recursive: true });
    writeFileSync(join(installed, 'modules.json'), JSON.stringify({
      Modules: [
        { Key: '', Source: '', Dir: '.' },
        { Key: 'archive', Source: `${reg.origin}/files/app.tar.gz?sig=${ARCHIVE_SIG}`, Dir: '.terraform/modules/archive' },
        { Key: 'git', Source: `git::${reg.origin}/git/repo.git?ref=v1.0.0`, Dir: '.terraform/modules/git' },
        { Key: 'local', Source: './modules/local', Dir: 'modules/local' },
        { Key: 'local.inner', Source: './inner', Dir: 'modules/local/inner' },
        { Key: 'net', Source: `${H}/acme/net/aws`, Version: '1.0.0', Dir: '.terraform/modules/net' },
        { Key: 'net.sub', Source: './modules/sub', Dir: '.terraform/modules/net/modules/sub' },
        { Key: 'oci', Source: `oci://${oci.host}/mods/app?tag=1.0.0`, Dir: '.terraform/modules/oci' },
      ],
    }));
    // root b: nothing installed, no lock file: tofu would select net 1.2.0 and cloud 1.1.0
    write(join(ws, 'work', 'b'), {
      'main.tf': `terraform {\n  required_providers {\n    cloud = {\n      source = "${H}/acme/cloud"\n    }\n  }\n}\nmodule "net" {\n  source  = "${H}/acme/net/aws"\n  version = "~> 1.0"\n}\n`,
    });
  });

  after(async () => {
    await Promise.all([reg?.stop(), oci?.stop()]);
    rmSync(ws, { recursive: true, force: true });
  });

  const noSecrets = (text: string) => {
    for (const secret of [TOKEN, SIGNATURE, ARCHIVE_SIG, DEFAULT_USERS.tofu]) assert.ok(!text.includes(secret), `secret ${secret} in the output`);
  };

  let first: string;

  test('CycloneDX 1.6 (default, stdout): schema-valid (strict), every module, provider, hash and dependency; byte-identical re-run with no request', async () => {
    reg.server.resetLog();
    oci.resetLog();
    const a = await run(['sbom', 'a', 'b']);
    assert.equal(a.code, 0, a.stderr);
    noSecrets(a.stdout + a.stderr);
    const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
    const errors = await validator.validate(a.stdout);
    assert.equal(errors, null, JSON.stringify(errors, null, 2));
    // the validator bites: a malformed hash or a field CycloneDX does not define is refused
    const broken = JSON.parse(a.stdout);
    broken.components[0].hashes = [{ alg: 'SHA-256', content: 'not-hex' }];
    assert.notEqual(await validator.validate(JSON.stringify(broken)), null);
    assert.notEqual(await validator.validate(JSON.stringify({ ...JSON.parse(a.stdout), extra: 1 })), null);
    first = a.stdout;
    const doc = JSON.parse(a.stdout) as Cdx;
    assert.equal(doc.metadata.timestamp, '2026-01-01T00:00:00Z', 'SOURCE_DATE_EPOCH');
    const all = allComponents(doc);
    const byRef = new Map(all.map((c) => [c['bom-ref'], c]));
    const H = reg.host;

    // roots
    assert.ok(byRef.has('root:a') && byRef.has('root:b'));
    // registry module: root a runs the installed 1.0.0, root b the selected 1.2.0; each with its archive's SHA-256 and a redacted location
    const net10 = byRef.get(`module:${H}/acme/net/aws@1.0.0`)!;
    const net12 = byRef.get(`module:${H}/acme/net/aws@1.2.0`)!;
    assert.equal(net10.version, '1.0.0');
    assert.deepEqual(net10.hashes, [{ alg: 'SHA-256', content: sha256(archives['1.0.0']) }]);
    assert.deepEqual(net12.hashes, [{ alg: 'SHA-256', content: sha256(archives['1.2.0']) }]);
    assert.equal(net10.purl, `pkg:terraform/acme/net@1.0.0?repository_url=https://${H}&system=aws`);
    assert.deepEqual(net10.externalReferences, [{ url: `${reg.origin}/archives/net-1.0.0.tar.gz?X-Amz-Signature=***`, type: 'distribution' }]);
    assert.deepEqual(prop(net10, 'tofu-registry:source'), [`${H}/acme/net/aws`]);
    // the registry module's own local module is part of it (nested), at its path
    const sub = net10.components?.find((c) => c['bom-ref'] === `module:${H}/acme/net/aws@1.0.0//modules/sub`);
    assert.ok(sub, 'net//modules/sub nested in net');
    assert.deepEqual(prop(sub!, 'tofu-registry:path'), ['modules/sub']);
    // local modules of root a nested in it
    assert.ok(doc.components.find((c) => c['bom-ref'] === 'root:a')!.components!.some((c) => c['bom-ref'] === 'root:a//modules/local'));
    assert.ok(byRef.has('root:a//modules/local/inner'));
    // HTTP archive: its SHA-256, the signature hidden
    const archive = all.find((c) => prop(c, 'tofu-registry:source')[0]?.startsWith(`${reg.origin}/files/app.tar.gz`))!;
    assert.deepEqual(archive.hashes, [{ alg: 'SHA-256', content: sha256(archives.app) }]);
    assert.deepEqual(prop(archive, 'tofu-registry:source'), [`${reg.origin}/files/app.tar.gz?sig=***`]);
    // git: the ref and the commit that was cloned
    const git = all.find((c) => prop(c, 'tofu-registry:source')[0]?.startsWith('git::'))!;
    assert.equal(git.version, 'v1.0.0');
    assert.deepEqual(git.pedigree, { commits: [{ uid: gitCommit }] });
    assert.deepEqual(git.externalReferences, [{ url: `git+${reg.origin}/git/repo.git`, type: 'vcs', comment: 'ref v1.0.0' }]);
    // OCI: tag, manifest digest (purl version), blob digest (the package hash)
    const ociC = byRef.get(`module:oci://${oci.host}/mods/app@${ociDigests.manifestDigest}`)!;
    assert.equal(ociC.version, '1.0.0');
    assert.equal(ociC.purl, `pkg:oci/app@${ociDigests.manifestDigest.replace(':', '%3A')}?repository_url=${oci.host}/mods/app&tag=1.0.0`);
    assert.deepEqual(ociC.hashes, [{ alg: 'SHA-256', content: ociDigests.blobDigest.slice(7) }]);
    // providers: the locked one with its zh: hashes as SHA-256 and every lock hash; unlocked ones with what tofu would select
    const cloud = byRef.get(`provider:${H}/acme/cloud@1.0.0`)!;
    assert.deepEqual(cloud.hashes?.map((h) => h.content), ['ab'.repeat(32), 'cd'.repeat(32)]);
    assert.deepEqual(prop(cloud, 'tofu-registry:locked'), ['true']);
    assert.equal(prop(cloud, 'tofu-registry:lock-hash').length, 3);
    assert.equal(cloud.purl, `pkg:terraform/acme/cloud@1.0.0?repository_url=https://${H}`);
    const extra = byRef.get(`provider:${H}/acme/extra@2.1.0`)!;
    assert.deepEqual(prop(extra, 'tofu-registry:locked'), ['false']);
    assert.ok(byRef.has(`provider:${H}/acme/cloud@1.1.0`), 'root b: cloud unlocked, the newest matching selected');
    // nothing else: the workspace (two roots) + 2 roots + 2 net versions (+ their sub) + local + inner + archive + git + oci + 3 providers
    assert.equal(doc.metadata.component['bom-ref'], 'workspace');
    assert.equal(all.length, 1 + 2 + 4 + 2 + 3 + 3, all.map((c) => c['bom-ref']).join('\n'));
    // dependencies: root → calls and providers; module → nested calls and providers it requires
    const deps = new Map(doc.dependencies.map((d) => [d.ref, d.dependsOn]));
    assert.deepEqual(deps.get('root:a'), [...[`module:${H}/acme/net/aws@1.0.0`, 'root:a//modules/local', archive['bom-ref'], git['bom-ref'], ociC['bom-ref'],
      `provider:${H}/acme/cloud@1.0.0`, `provider:${H}/acme/extra@2.1.0`]].sort());
    assert.deepEqual(deps.get(`module:${H}/acme/net/aws@1.0.0`), [`module:${H}/acme/net/aws@1.0.0//modules/sub`]);
    assert.deepEqual(deps.get(`module:${H}/acme/net/aws@1.0.0//modules/sub`), [`provider:${H}/acme/cloud@1.0.0`]);
    assert.deepEqual(deps.get('root:a//modules/local/inner'), [`provider:${H}/acme/cloud@1.0.0`]);
    assert.deepEqual(deps.get('root:b'), [`module:${H}/acme/net/aws@1.2.0`, `provider:${H}/acme/cloud@1.1.0`]);

    // a second run: the same bytes, and no server asked anything (the caches outdated and types check use)
    reg.server.resetLog();
    oci.resetLog();
    const b = await run(['sbom', 'a', 'b']);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, first);
    assert.deepEqual(reg.server.requests.map((r) => r.path), []);
    // an OCI tag may move, so it is resolved again (its manifest: a HEAD and a GET); the package blob is not fetched again
    assert.equal(oci.count('GET', '/blobs/'), 0);
    assert.ok(oci.requests.every((r) => r.path.includes('/manifests/')), JSON.stringify(oci.requests));
  });

  test('SPDX 2.3: valid against the official SPDX JSON schema; DESCRIBES, DEPENDS_ON, CONTAINS; namespace from the content', async () => {
    const a = await run(['sbom', 'a', 'b', '--format', 'spdx', '--output', 'sbom.spdx.json']);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, '');
    const text = readFileSync(join(ws, 'work', 'sbom.spdx.json'), 'utf8');
    noSecrets(text + a.stderr);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(SPDX_SCHEMA, 'utf8')));
    const doc = JSON.parse(text) as Spdx;
    assert.ok(validate(doc), JSON.stringify(validate.errors, null, 2));
    // the schema bites: a package without its required downloadLocation is refused
    const broken = JSON.parse(text);
    delete broken.packages[1].downloadLocation;
    assert.equal(validate(broken), false);
    assert.equal(doc.spdxVersion, 'SPDX-2.3');
    assert.equal(doc.creationInfo.created, '2026-01-01T00:00:00Z');
    const H = reg.host;
    const pkg = (name: string, version?: string) => doc.packages.find((p) => p.name === name && (version === undefined || p.versionInfo === version))!;
    const net = pkg(`${H}/acme/net/aws`, '1.0.0');
    assert.deepEqual(net.checksums, [{ algorithm: 'SHA256', checksumValue: sha256(archives['1.0.0']) }]);
    assert.equal(net.downloadLocation, `${reg.origin}/archives/net-1.0.0.tar.gz?X-Amz-Signature=***`);
    const git = doc.packages.find((p) => p.downloadLocation.startsWith('git+'))!;
    assert.equal(git.downloadLocation, `git+${reg.origin}/git/repo.git@${gitCommit}`);
    const rel = (type: string) => doc.relationships.filter((r) => r.relationshipType === type);
    assert.equal(rel('DESCRIBES').length, 2);
    assert.ok(rel('CONTAINS').some((r) => r.relatedSpdxElement === pkg(`${H}/acme/net/aws//modules/sub`, '1.0.0').SPDXID));
    assert.ok(rel('DEPENDS_ON').some((r) => r.spdxElementId === net.SPDXID
      && r.relatedSpdxElement === pkg(`${H}/acme/net/aws//modules/sub`, '1.0.0').SPDXID));
    // unique per content: another content (one root) gets another namespace; the same content the same
    const again = await run(['sbom', 'a', 'b', '--format', 'spdx']);
    assert.equal(again.stdout, text);
    const other = JSON.parse((await run(['sbom', 'a', '--format', 'spdx'])).stdout) as Spdx;
    assert.notEqual(other.documentNamespace, doc.documentNamespace);
  });

  test('--offline: only the lock file and modules.json; every installed module with its version and source, hashes said not fetched', async () => {
    reg.server.resetLog();
    oci.resetLog();
    const a = await run(['sbom', 'a', '--offline']);
    assert.equal(a.code, 0, a.stderr);
    assert.deepEqual(reg.server.requests.map((r) => r.path), [], 'no registry asked');
    assert.equal(oci.requests.length, 0);
    noSecrets(a.stdout + a.stderr);
    const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(a.stdout);
    assert.equal(errors, null, JSON.stringify(errors, null, 2));
    const doc = JSON.parse(a.stdout) as Cdx;
    const modules = allComponents(doc).filter((c) => c['bom-ref'].startsWith('module:') || c['bom-ref'].startsWith('root:a//'));
    // exactly the modules of modules.json, with its versions and sources
    const manifest = JSON.parse(readFileSync(join(ws, 'work', 'a', '.terraform', 'modules', 'modules.json'), 'utf8')).Modules
      .filter((m: { Key: string }) => m.Key !== '') as Array<{ Key: string; Source: string; Version?: string }>;
    const shown = (s: string) => s.replace(ARCHIVE_SIG, '***');
    assert.deepEqual(modules.map((c) => prop(c, 'tofu-registry:source')[0]).sort(), manifest.map((m) => shown(m.Source)).sort());
    const net = modules.find((c) => c.name === `${reg.host}/acme/net/aws`)!;
    assert.equal(net.version, '1.0.0');
    assert.equal(net.hashes, undefined, 'no hash invented');
    assert.ok(prop(net, 'tofu-registry:note').some((n) => /not fetched \(--offline\)/.test(n)));
    const git = modules.find((c) => prop(c, 'tofu-registry:source')[0]?.startsWith('git::'))!;
    assert.equal(git.pedigree, undefined, 'commit unknown offline');
    assert.ok(prop(git, 'tofu-registry:note').some((n) => /commit unknown \(NOASSERTION\)/.test(n)));
    const ociC = modules.find((c) => c.name.startsWith('oci://'))!;
    assert.equal(ociC.purl, undefined, 'no digest known offline, so no purl');
    // providers: the lock file's; the unlocked one without a version (the registry was not asked)
    const providers = allComponents(doc).filter((c) => c['bom-ref'].startsWith('provider:'));
    assert.deepEqual(providers.map((c) => [c.name, c.version ?? null]).sort(), [[`${reg.host}/acme/cloud`, '1.0.0'], [`${reg.host}/acme/extra`, null]]);
    assert.match(a.stderr, /offline: module packages were not fetched/);
    // the SPDX form of the same: NOASSERTION where unknown
    const s = await run(['sbom', 'a', '--offline', '--format', 'spdx']);
    const spdx = JSON.parse(s.stdout) as Spdx;
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    assert.ok(ajv.validate(JSON.parse(readFileSync(SPDX_SCHEMA, 'utf8')), spdx), JSON.stringify(ajv.errors));
    assert.equal(spdx.packages.find((p) => p.name === `${reg.host}/acme/net/aws`)!.downloadLocation, 'NOASSERTION');
  });

  test('usage: a wrong --format or SOURCE_DATE_EPOCH is a usage error (exit 2)', async () => {
    const f = await run(['sbom', 'a', '--format', 'xml']);
    assert.equal(f.code, 2);
    assert.match(f.stderr, /--format must be cyclonedx or spdx/);
    const e = await run(['sbom', 'a', '--offline'], { SOURCE_DATE_EPOCH: 'yesterday' });
    assert.equal(e.code, 2);
    assert.match(e.stderr, /SOURCE_DATE_EPOCH must be a number/);
  });
});
