// Module outputs: declared outputs (override files merged), `module.NAME.OUTPUT` references,
// completion context, hover text and the warning on an undeclared output — for a local module, for
// a module installed by `tofu init` (.terraform/modules/modules.json) and for a registry module
// fetched over HTTPS before `tofu init`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFile } from '../../../src/engine/config/files';
import { parseHcl } from '../../../src/engine/config';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { callSource, checkFile } from '../../../src/engine/modules/check';
import { loadModuleInterface } from '../../../src/engine/modulepkg/variables';
import { moduleCallsOfDirectory, outputCompletionContext, outputMarkdown, outputReferenceAt, outputReferences } from '../../../src/engine/modulepkg/outputs';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import { tempDir } from '../../support/temp';
import { tarGz } from './archives';

const OUTPUTS = `output "vpc_id" {
  value       = "vpc-123"
  description = "ID of the VPC."
}
output "db_password" {
  value     = "x"
  sensitive = true
}
`;

function project(): string {
  const root = tempDir('tofu-registry-outputs-');
  mkdirSync(join(root, 'modules/net'), { recursive: true });
  writeFileSync(join(root, 'modules/net/outputs.tf'), OUTPUTS);
  writeFileSync(join(root, 'modules/net/outputs_override.tf'), 'output "vpc_id" {\n  description = "The VPC (overridden)."\n}\n');
  writeFileSync(join(root, 'main.tf'), 'module "net" {\n  source = "./modules/net"\n}\n');
  writeFileSync(join(root, 'use.tf'), 'locals {\n  id   = module.net.vpc_id\n  nope = "${module.net.subnet_ids[0]}"\n  each = module.net[0].db_password\n}\n');
  return root;
}

test('outputs of a module: sorted, override files replace the description, sensitive kept', async () => {
  const root = project();
  const iface = await loadModuleInterface(join(root, 'modules/net'));
  assert.deepEqual(iface.outputs.map((o) => [o.name, o.description, o.sensitive]), [
    ['db_password', null, true], ['vpc_id', 'The VPC (overridden).', false],
  ]);
  assert.match(outputMarkdown('net', iface.outputs[0]), /output "db_password"[\s\S]*Output of module `net`[\s\S]*\*\*Sensitive\*\*/);
});

test('references: found in traversals, templates and indexed module instances; completion context', () => {
  const text = 'locals {\n  a = module.net.vpc_id\n  b = "${module.net.subnet_ids[0]}"\n  c = module.net["k"].x\n  d = var.module.y\n}\n';
  const file = parseHcl(text);
  const refs = outputReferences(file).map((r) => [r.module, r.output, text.slice(r.outputRange.start.offset, r.outputRange.end.offset)]);
  assert.deepEqual(refs, [['net', 'vpc_id', 'vpc_id'], ['net', 'subnet_ids', 'subnet_ids'], ['net', 'x', 'x']]);
  assert.equal(outputReferenceAt(file, 1, 20)?.output, 'vpc_id');
  assert.equal(outputReferenceAt(file, 4, 10), undefined);
  assert.deepEqual(outputCompletionContext('  id = module.net.'), { module: 'net', prefix: '' });
  assert.deepEqual(outputCompletionContext('  id = "${module.net[0].vp'), { module: 'net', prefix: 'vp' });
  assert.equal(outputCompletionContext('  id = var.module.net.'), undefined);
  assert.equal(outputCompletionContext('  id = module.'), undefined);
});

test('a reference to an undeclared output is a warning on the output name (module in another file)', async () => {
  const root = project();
  const f = await loadFile(join(root, 'use.tf'));
  const r = await checkFile({ path: f.path, text: f.text, syntax: 'hcl', summary: f.summary, file: f.file }, new ModuleResolver({}));
  assert.deepEqual(r.diagnostics.map((d) => [d.severity, f.text.slice(d.range.start.offset, d.range.end.offset), d.message]), [
    ['warning', 'subnet_ids', 'Unsupported attribute: module "net" has no output named "subnet_ids". Its outputs: db_password, vpc_id.'],
  ]);
});

test('outputs of a module installed by tofu init: completion after module.NAME. and the undeclared-output warning, no download', async () => {
  const root = tempDir('tofu-registry-outputs-installed-');
  const source = 'registry.example.invalid/outs/net/aws';
  mkdirSync(join(root, '.terraform/modules/net'), { recursive: true });
  writeFileSync(join(root, '.terraform/modules/net/outputs.tf'), OUTPUTS);
  writeFileSync(join(root, '.terraform/modules/modules.json'), JSON.stringify({ Modules: [
    { Key: '', Source: '', Dir: '.' },
    { Key: 'net', Source: source, Version: '1.2.0', Dir: '.terraform/modules/net' },
  ] }));
  writeFileSync(join(root, 'main.tf'), `module "net" {\n  source  = "${source}"\n  version = "~> 1.0"\n}\n`);
  writeFileSync(join(root, 'use.tf'), 'output "id" {\n  value = module.net.\n}\noutput "x" {\n  value = module.net.subnet_ids\n}\n');
  // no engine, no download cache: only the installed copy can answer (a fetch would fail)
  const resolver = new ModuleResolver({});
  const f = await loadFile(join(root, 'use.tf'));
  // completion, as the editor does it: the context of the line, the call from any file of the directory, its outputs
  const ctx = outputCompletionContext(f.text.split('\n')[1]);
  assert.deepEqual(ctx, { module: 'net', prefix: '' });
  const call = (await moduleCallsOfDirectory({ path: f.path, calls: f.summary.modules })).find((c) => c.name === ctx!.module)!;
  const mod = await resolver.resolve({ callerDir: root, name: call.name, source: callSource(call)!, version: call.version?.literal ?? null });
  assert.deepEqual([mod.via, mod.version, mod.dir], ['installed', '1.2.0', join(root, '.terraform/modules/net')]);
  assert.deepEqual(mod.iface.outputs.map((o) => [o.name, o.description, o.sensitive]), [['db_password', null, true], ['vpc_id', 'ID of the VPC.', false]]);
  // the warning on an output the installed module does not declare
  const r = await checkFile({ path: f.path, text: f.text, syntax: 'hcl', summary: f.summary, file: f.file }, resolver);
  assert.deepEqual(r.diagnostics.map((d) => [d.severity, f.text.slice(d.range.start.offset, d.range.end.offset), d.message]), [
    ['warning', 'subnet_ids', 'Unsupported attribute: module "net" has no output named "subnet_ids". Its outputs: db_password, vpc_id.'],
  ]);
});

test('registry module outputs before tofu init: fetched like types check fetches them', () => withRegistry({}, async (reg) => {
  reg.addModule({ namespace: 'outs', name: 'net', system: 'aws', versions: ['1.0.0'] });
  reg.addFile('/archives/outs/net/aws/1.0.0.tar.gz', tarGz([{ name: 'outputs.tf', data: OUTPUTS }]), 'application/gzip');
  const root = tempDir('tofu-registry-outputs-reg-');
  writeFileSync(join(root, 'main.tf'), `module "net" {\n  source  = "${reg.host}/outs/net/aws"\n  version = "~> 1.0"\n}\noutput "x" {\n  value = module.net.vpc_idd\n}\n`);
  const engine = testEngine(reg);
  const resolver = new ModuleResolver({ engine, cacheDir: tempDir('tofu-registry-outputs-cache-') });
  const f = await loadFile(join(root, 'main.tf'));
  const r = await checkFile({ path: f.path, text: f.text, syntax: 'hcl', summary: f.summary }, resolver);
  assert.deepEqual(r.diagnostics.map((d) => d.message), ['Unsupported attribute: module "net" has no output named "vpc_idd". Its outputs: db_password, vpc_id.']);
  const mod = await resolver.resolve({ callerDir: root, name: 'net', source: `${reg.host}/outs/net/aws`, version: '~> 1.0' });
  assert.equal(mod.via, 'registry');
  assert.deepEqual(mod.iface.outputs.map((o) => o.name), ['db_password', 'vpc_id']);
  await engine.dispose();
}));
