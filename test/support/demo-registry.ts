// The embedded demo registry: the HTTPS test registry (127.0.0.1, throwaway CA) filled with
// everything the product does — private modules (200-JSON and 204-header downloads, a tar.gz
// archive with typed variables), and real provider packages signed with a throwaway OpenPGP key —
// plus a configuration directory that uses them. Used by `npm run demo` and nothing needs internet.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRelease, makeSigningKey, PackageFiles, providerDefinition } from './provider-packages';
import { startTestRegistry, TestRegistry } from './registry-server';
import { tarGz } from '../unit/types/archives';
import { tempDir } from './temp';

export interface DemoRegistry {
  registry: TestRegistry;
  /** A temporary directory holding the demo configuration (`config/`) and room for outputs. */
  root: string;
  configDir: string;
  stop(): Promise<void>;
}

const VPC_VARIABLES = `variable "name" {
  type        = string
  description = "Name of the VPC."
}

variable "cidr_blocks" {
  type        = list(string)
  description = "Address ranges of the VPC."
}

variable "subnets" {
  description = "Subnets per zone."
  type = map(object({
    cidr   = string
    public = optional(bool, false)
  }))
  default = {}
}
`;

const VPC_OUTPUTS = `output "vpc_id" {
  description = "ID of the VPC."
  value       = "vpc-0123"
}

output "subnet_ids" {
  description = "Subnet IDs by zone."
  value       = {}
}

output "flow_log_key" {
  description = "Key that encrypts the VPC flow logs."
  value       = "k"
  sensitive   = true
}
`;

export async function startDemoRegistry(): Promise<DemoRegistry> {
  const registry = await startTestRegistry();
  const root = tempDir('tofu-registry-demo-');
  const host = registry.host;

  // A registry module whose download location is a tar.gz archive on the same host.
  for (const v of ['1.0.0', '1.1.0', '2.0.0']) {
    registry.addFile(`/archives/infra/vpc/${v}.tar.gz`,
      tarGz([{ name: 'variables.tf', data: VPC_VARIABLES }, { name: 'outputs.tf', data: VPC_OUTPUTS }, { name: 'main.tf', data: '# demo module\n' }]), 'application/gzip');
  }

  // Real provider packages: zips, SHA256SUMS and a detached OpenPGP signature.
  const key = await makeSigningKey('tofu-registry demo signer');
  const files = new PackageFiles(registry.server);
  const platforms = ['linux_amd64', 'linux_arm64', 'darwin_arm64', 'windows_amd64'];
  for (const [type, versions] of [['cloud', ['1.2.0', '1.3.0', '2.0.0']], ['dns', ['0.4.1', '0.5.0']]] as const) {
    const releases = [];
    for (const version of versions) {
      releases.push(await buildRelease(join(root, 'packages'), { namespace: 'acme', type, version, platforms }, key));
    }
    for (const r of releases) files.add(r);
    registry.addProvider(providerDefinition(files, releases, [key]));
  }

  const configDir = join(root, 'config');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'versions.tf'), `terraform {
  required_providers {
    cloud = {
      source  = "${host}/acme/cloud"
      version = "~> 1.2"
    }
    dns = {
      source  = "${host}/acme/dns"
      version = ">= 0.4.0"
    }
  }
}
`);
  writeFileSync(join(configDir, 'variables.tf'), `variable "environment" {
  type        = string
  description = "Deployment environment."
}
`);
  writeFileSync(join(configDir, 'main.tf'), `module "vpc" {
  source  = "${host}/infra/vpc/google"
  version = "~> 1.0"

  name        = "demo"
  cidr_blocks = "10.0.0.0/16" # a string where list(string) is expected: types check reports it
  subnets = {
    a = { cidr = "10.0.1.0/24" }
  }
}
`);
  return {
    registry, root, configDir,
    async stop() { await registry.stop(); },
  };
}
