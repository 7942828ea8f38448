// collectProviderRequirements: the providers of a whole module tree as tofu sees them — local
// modules read from disk, remote modules installed by tofu init (.terraform/modules) or fetched
// from the registry — with each constraint's origin, and the problems tofu would refuse.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { collectProviderRequirements } from '../../../src/engine/lock';
import { ModuleResolver } from '../../../src/engine/modulepkg/resolve';
import { tempDir, tempTree } from '../../support/temp';
import { tarGz } from '../types/archives';
import { LockFixture, startLockFixture } from './fixture';

let fx: LockFixture;
before(async () => { fx = await startLockFixture(); });
after(async () => { await fx.stop(); });

const tree = (files: Record<string, string>) => tempTree('lock-reqs-', files);

test('root + local, installed and fetched modules: every provider, constraints merged with their origins', async () => {
  const h = fx.reg.host;
  fx.reg.addModule({ namespace: 'acme', name: 'dns', system: 'aws', versions: ['1.0.0', '1.1.0'] });
  fx.reg.addFile('/archives/acme/dns/aws/1.1.0.tar.gz', tarGz([{ name: 'main.tf', data: 'terraform {\n  required_providers {\n    dns = {\n      source  = "hashicorp/dns"\n      version = ">= 3.0"\n    }\n  }\n}\n' }]), 'application/gzip');
  const root = tree({
    'versions.tf': `terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    legacy = ">= 1.0"
    tls = {
      source = "${h}/acme/tls"
    }
  }
}
`,
    'main.tf': `provider "google" {
  version = "~> 4.0"
}

resource "random_id" "x" {}

resource "aws_instance" "y" {
  provider = aws.west
}

data "terraform_remote_state" "z" {}

module "net" {
  source = "./modules/net"
}

module "vpc" {
  source  = "acme/vpc/aws"
  version = "~> 2.0"
}

module "dns" {
  source  = "${h}/acme/dns/aws"
  version = "~> 1.0"
}
`,
    'override.tf': 'terraform {\n  required_providers {\n    tls = {\n      source  = "' + h + '/acme/tls"\n      version = "2.0.0"\n    }\n  }\n}\n',
    'modules/net/main.tf': 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.1"\n    }\n  }\n}\n',
    'modules/net/extra.tf.json': JSON.stringify({ resource: { null_resource: { a: {} } } }),
    'json.tf.json': JSON.stringify({ terraform: { required_providers: { http: { source: 'hashicorp/http', version: '~> 3.4' } } } }),
    '.terraform/modules/modules.json': JSON.stringify({ Modules: [
      { Key: '', Source: '', Dir: '.' },
      { Key: 'vpc', Source: 'registry.opentofu.org/acme/vpc/aws', Version: '2.1.0', Dir: '.terraform/modules/vpc' },
    ] }),
    '.terraform/modules/vpc/main.tf': 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = "< 6.0.0"\n    }\n  }\n}\n',
  });
  const resolver = new ModuleResolver({ engine: fx.engine(), cacheDir: tempDir('lock-reqs-cache-') });
  const r = await collectProviderRequirements(root, { resolver });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.providers.map((p) => [p.address, p.constraints]), [
    [`${h}/acme/tls`, ['2.0.0']],
    ['registry.opentofu.org/hashicorp/aws', ['~> 5.0', '>= 5.1', '< 6.0.0']],
    ['registry.opentofu.org/hashicorp/dns', ['>= 3.0']],
    ['registry.opentofu.org/hashicorp/google', ['~> 4.0']],
    ['registry.opentofu.org/hashicorp/http', ['~> 3.4']],
    ['registry.opentofu.org/hashicorp/legacy', ['>= 1.0']],
    ['registry.opentofu.org/hashicorp/null', []],
    ['registry.opentofu.org/hashicorp/random', []],
  ]);
  assert.deepEqual(r.builtIn, ['terraform.io/builtin/terraform']);
  assert.deepEqual(r.modules.map((m) => m.path), ['net', 'vpc', 'dns']);
  const aws = r.providers.find((p) => p.address.endsWith('/aws'))!;
  assert.deepEqual(aws.origins.map((o) => [o.module, o.file.slice(root.length + 1), o.range.start.line, o.kind]), [
    ['', 'versions.tf', 4, 'required_providers'],
    ['net', 'modules/net/main.tf', 4, 'required_providers'],
    ['vpc', '.terraform/modules/vpc/main.tf', 4, 'required_providers'],
  ]);
  const random = r.providers.find((p) => p.address.endsWith('/random'))!;
  assert.deepEqual(random.origins.map((o) => [o.kind, o.localName, o.range.start.line]), [['implied', 'random', 4]]);
  assert.equal(r.providers.find((p) => p.address.endsWith('/google'))!.origins[0].kind, 'provider-block');
  // The unsaved text of an editor buffer wins over the file on disk.
  const edited = await collectProviderRequirements(root, { resolver, overlay: new Map([[join(root, 'modules/net/main.tf'), '']]) });
  assert.deepEqual(edited.providers.find((p) => p.address.endsWith('/aws'))!.constraints, ['~> 5.0', '< 6.0.0']);
});

test('problems tofu would refuse are reported; the rest is still read', async () => {
  const root = tree({
    'main.tf': `terraform {
  required_providers {
    bad = {
      source  = "not a/valid/source/address"
    }
    aws = {
      source  = "hashicorp/aws"
      version = "=> 1.0"
    }
    ok = {
      source = "acme/ok"
    }
  }
}

module "gone" {
  source = "./missing"
}

module "remote" {
  source = "git::https://example.invalid/x.git"
}
`,
  });
  const r = await collectProviderRequirements(root);
  assert.deepEqual(r.providers.map((p) => p.address), ['registry.opentofu.org/acme/ok', 'registry.opentofu.org/hashicorp/aws']);
  const expected: Array<[number, RegExp]> = [
    [2, /^provider "bad": invalid provider source "not a\/valid\/source\/address"/],
    [7, /^invalid version constraint "=> 1\.0": invalid constraint operator "=>"; did you mean ">="\?$/],
    [16, /^module "gone" \(\.\/missing\) could not be read, so its providers are unknown: module directory \.\/missing does not exist \(resolved to .*\)$/],
    [20, /^module "remote" \(git::https:\/\/example\.invalid\/x\.git\) could not be read, so its providers are unknown: not a local module/],
  ];
  assert.equal(r.errors.length, expected.length, JSON.stringify(r.errors.map((e) => e.message)));
  expected.forEach(([line, re], i) => {
    assert.equal(r.errors[i].range?.start.line, line);
    assert.match(r.errors[i].message, re);
    assert.equal(r.errors[i].file, join(root, 'main.tf'));
  });
});
