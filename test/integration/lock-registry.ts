// Shared by the lock integration tests: the HTTPS test registry serving providers.v1 answers for
// signed packages — the zips and SHA256SUMS the real tofu 1.9.4 locked (example/fake 1.0.0 and
// 1.1.0) and generated ones — with OpenTofu 1.12 `packages` (h1: as the engine computes it) or without.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { h1OfZip } from '../../src/engine/providerpkg/hash';
import {
  BuiltPackage, BuiltRelease, buildRelease, makeSigningKey, PackageFiles, packagesOf, providerDefinition, signDetached, SigningIdentity,
} from '../support/provider-packages';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { tempDir } from '../support/temp';

export const KNOWN = resolve(__dirname, '../../../test/fixtures/lockfiles/tofu-1.9.4');

export interface LockRegistry {
  reg: TestRegistry;
  files: PackageFiles;
  key: SigningIdentity;
  /** Serves releases, with `packages` in every download answer unless told otherwise. */
  serve(releases: BuiltRelease[], withPackages?: boolean): Promise<void>;
  /** example/fake 1.0.0 and 1.1.0 as tofu 1.9.4 locked them (darwin_arm64, linux_amd64, windows_amd64). */
  knownFake(): Promise<BuiltRelease[]>;
  /** Generated releases of acme/TYPE. */
  build(type: string, versions: string[], platforms: string[]): Promise<BuiltRelease[]>;
}

export async function startLockRegistry(): Promise<LockRegistry> {
  const reg = await startTestRegistry({ fixtures: false });
  const files = new PackageFiles(reg.server);
  const key = await makeSigningKey();
  const pkgDir = tempDir('it-lock-pkgs-');
  return {
    reg, files, key,
    async serve(releases, withPackages = true) {
      const answers = new Map<string, Awaited<ReturnType<typeof packagesOf>>>();
      for (const r of releases) {
        files.add(r);
        if (withPackages) answers.set(r.version, await packagesOf(r, (p) => h1OfZip(p.path)));
      }
      reg.addProvider(providerDefinition(files, releases, [key], (p) => (withPackages ? { packages: answers.get(p.version)! } : undefined)));
    },
    async knownFake() {
      const known: BuiltRelease[] = [];
      for (const version of ['1.0.0', '1.1.0']) {
        const d = join(KNOWN, 'providers/example/fake', version);
        const shasumsName = `terraform-provider-fake_${version}_SHA256SUMS`;
        const shasums = readFileSync(join(d, shasumsName));
        const packages: BuiltPackage[] = ['darwin_arm64', 'linux_amd64', 'windows_amd64'].map((platform) => {
          const filename = `terraform-provider-fake_${version}_${platform}.zip`;
          const bytes = readFileSync(join(d, filename));
          const [os, arch] = platform.split('_');
          return { namespace: 'example', type: 'fake', version, os, arch, platform, filename, path: join(d, filename), sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
        });
        known.push({ namespace: 'example', type: 'fake', version, packages, shasumsName, shasums, signature: await signDetached(shasums, key) });
      }
      return known;
    },
    async build(type, versions, platforms) {
      const out: BuiltRelease[] = [];
      for (const version of versions) out.push(await buildRelease(pkgDir, { namespace: 'acme', type, version, platforms }, key));
      return out;
    },
  };
}
