// lockStatus (the diagnostics the editor shows on the lock file and the configuration) and the
// lock-file hover: pure functions over real files on disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectProviderRequirements, coverageKey, lockStatus, ProviderCoverage, readLockFile } from '../../../src/engine/lock';
import { lockHover } from '../../../src/features/lockHover';
import { tempDir } from '../../support/temp';

function setup() {
  const dir = tempDir('lock-status-');
  mkdirSync(join(dir, 'mod'));
  writeFileSync(join(dir, 'main.tf'), 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.1"\n    }\n  }\n}\n\nmodule "m" {\n  source = "./mod"\n}\n');
  writeFileSync(join(dir, 'mod', 'main.tf'), 'resource "random_id" "x" {}\n\nresource "tls_private_key" "k" {}\n');
  const lockText = `provider "registry.opentofu.org/hashicorp/aws" {
  version = "5.0.0"
  hashes = [
    "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
  ]
}

provider "registry.opentofu.org/hashicorp/random" {
  version = "3.6.0"
  hashes = [
    "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
  ]
}

provider "registry.opentofu.org/hashicorp/gone" {
  version = "1.0.0"
}
`;
  return { dir, lockPath: join(dir, '.terraform.lock.hcl'), lockText };
}

test('lockStatus: version outside the constraints, missing provider (where required), stale entry, team platform without h1:', async () => {
  const { dir, lockPath, lockText } = setup();
  const requirements = await collectProviderRequirements(dir);
  const lock = readLockFile(lockText);
  const coverage = new Map<string, ProviderCoverage>([[coverageKey('registry.opentofu.org/hashicorp/random', '3.6.0'), {
    covered: ['linux_amd64'], missing: ['darwin_arm64'], unknown: [], h1Platforms: ['linux_amd64'], zhPlatforms: [], published: [],
  }]]);
  const got = lockStatus({ requirements, lock, lockPath, platforms: ['darwin_arm64', 'linux_amd64'], coverage });
  const at = (d: { file: string; range: { start: { line: number } } }) => `${d.file.slice(dir.length + 1)}:${d.range.start.line + 1}`;
  assert.deepEqual(got.map((d) => [d.code, at(d), d.severity, d.provider]), [
    ['lock-version-mismatch', '.terraform.lock.hcl:2', 'error', 'registry.opentofu.org/hashicorp/aws'],
    ['lock-version-mismatch', 'main.tf:5', 'error', 'registry.opentofu.org/hashicorp/aws'],
    ['lock-missing-platform', '.terraform.lock.hcl:8', 'warning', 'registry.opentofu.org/hashicorp/random'],
    ['lock-missing-provider', 'mod/main.tf:3', 'warning', 'registry.opentofu.org/hashicorp/tls'],
    ['lock-stale-provider', '.terraform.lock.hcl:15', 'warning', 'registry.opentofu.org/hashicorp/gone'],
  ]);
  assert.match(got[0].message, /Locked version 5\.0\.0 of registry\.opentofu\.org\/hashicorp\/aws does not match the configured constraints >= 5\.1\.0/);
  assert.match(got[2].message, /has no h1: hash for darwin_arm64/);
  // Unknown coverage with fewer h1: than team platforms: a gentle note, not a warning.
  const unknown = lockStatus({ requirements, lock, lockPath, platforms: ['darwin_arm64', 'linux_amd64'], coverage: new Map([[coverageKey('registry.opentofu.org/hashicorp/random', '3.6.0'), {
    covered: [], missing: [], unknown: ['darwin_arm64', 'linux_amd64'], h1Platforms: [], zhPlatforms: [], published: [],
  }]]) });
  assert.equal(unknown.find((d) => d.code === 'lock-missing-platform')?.severity, 'information');
  // A module that could not be read: "no longer required" is not certain, so not said.
  writeFileSync(join(dir, 'main.tf'), 'module "x" {\n  source = "./nope"\n}\n');
  const partial = lockStatus({ requirements: await collectProviderRequirements(dir), lock, lockPath, platforms: ['linux_amd64'] });
  assert.deepEqual(partial.filter((d) => d.code === 'lock-stale-provider'), []);
  // The lock file's own problems come along, on the lock file.
  const broken = lockStatus({ requirements, lock: readLockFile('provider "x/y" {\n'), lockPath, platforms: [] });
  assert.ok(broken.some((d) => d.code === 'lock-file' && d.file === lockPath && d.severity === 'error'));
});

test('lock hover: version, requirement, newest, coverage, untrusted', async () => {
  const { dir, lockText } = setup();
  const requirements = await collectProviderRequirements(dir);
  const lock = readLockFile(lockText);
  const aws = lock.providers[0];
  const text = lockHover({
    entry: aws, required: requirements.providers.find((p) => p.address === aws.address), requirementsComplete: true, platforms: ['linux_amd64', 'darwin_arm64'],
    coverage: { covered: ['linux_amd64'], missing: ['darwin_arm64'], unknown: [], h1Platforms: ['linux_amd64'], zhPlatforms: ['darwin_arm64', 'linux_amd64'], published: [] },
    versions: { value: ['5.2.0', '5.1.0', '5.0.0', '6.0.0-beta1'] }, networkAllowed: true,
  });
  assert.match(text, /\*\*Provider lock\*\* `registry\.opentofu\.org\/hashicorp\/aws`/);
  assert.match(text, /Configuration requires: `>= 5\.1\.0` \(root module\) — \$\(error\) the locked version does not match/);
  assert.match(text, /Newest version: \*\*5\.2\.0\*\*\n/);
  assert.match(text, /`h1:` covers: linux\\_amd64\n/);
  assert.match(text, /No `h1:` for team platform darwin\\_arm64/);
  assert.match(text, /`zh:` covers \(SHA256SUMS\): darwin\\_arm64, linux\\_amd64/);
  const gone = lockHover({ entry: lock.providers[2], requirementsComplete: true, platforms: ['linux_amd64'], versions: undefined, networkAllowed: false });
  assert.match(gone, /No longer required by the configuration/);
  assert.match(gone, /untrusted workspace/);
});
