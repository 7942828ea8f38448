// Shared setup for the lock tests: the HTTPS test registry with real signed provider packages (the
// mirror fixture), the zips and SHA256SUMS the real tofu 1.9.4 locked (test/fixtures/lockfiles,
// signed here with the test key: the hashes do not depend on who signed), configuration
// directories on disk, and `packages` answers (correct, or contradicting the signed SHA256SUMS).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import { h1OfZip } from '../../../src/engine/providerpkg/hash';
import { BuiltPackage, BuiltRelease, packagesOf, PackagesAnswer, providerDefinition, signDetached } from '../../support/provider-packages';
import { Fixture, startFixture } from '../mirror/fixture';

export const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'lockfiles');
export const KNOWN = join(FIXTURES, 'tofu-1.9.4');
export const KNOWN_HOST = 'registry.peer.test';
export const KNOWN_PLATFORMS = ['darwin_arm64', 'linux_amd64', 'windows_amd64'];

export interface LockFixture extends Fixture {
  /** Serves example/fake 1.0.0 and 1.1.0 exactly as tofu 1.9.4 locked them; with `packages` when given. */
  serveKnownAnswers(packages?: (rel: BuiltRelease) => Promise<PackagesAnswer>): Promise<BuiltRelease[]>;
  /** Re-registers a provider's releases with `packages` answers (undefined: none). */
  servePackages(releases: BuiltRelease[], packages?: (rel: BuiltRelease) => Promise<PackagesAnswer>): Promise<void>;
  /** A configuration directory from relative path → content (registry.peer.test replaced by the test host). */
  config(files: Record<string, string>): string;
  /** Archive (.zip) requests the registry's file server saw since the last resetLog(). */
  archiveRequests(): string[];
  /** An engine with its own disk cache directory (a fresh one unless given). */
  lockEngine(cacheDir?: string): Engine;
  /** Text with registry.peer.test replaced by the test registry's host. */
  here(text: string): string;
}

let n = 0;

export async function startLockFixture(): Promise<LockFixture> {
  const fx = await startFixture();
  const here = (text: string) => text.split(KNOWN_HOST).join(fx.reg.host);
  const servePackages = async (releases: BuiltRelease[], packages?: (rel: BuiltRelease) => Promise<PackagesAnswer>) => {
    const answers = new Map<string, PackagesAnswer>();
    if (packages) for (const r of releases) answers.set(r.version, await packages(r));
    fx.reg.addProvider(providerDefinition(fx.files, releases, [fx.key], (p) => {
      const a = answers.get(p.version);
      return a ? { packages: a } : undefined;
    }));
  };
  return Object.assign(fx, {
    here,
    servePackages,
    async serveKnownAnswers(packages?: (rel: BuiltRelease) => Promise<PackagesAnswer>) {
      const releases: BuiltRelease[] = [];
      for (const version of ['1.0.0', '1.1.0']) {
        const dir = join(KNOWN, 'providers', 'example', 'fake', version);
        const shasumsName = `terraform-provider-fake_${version}_SHA256SUMS`;
        const shasums = readFileSync(join(dir, shasumsName));
        const pkgs: BuiltPackage[] = KNOWN_PLATFORMS.map((platform) => {
          const [os, arch] = platform.split('_');
          const filename = `terraform-provider-fake_${version}_${platform}.zip`;
          const path = join(dir, filename);
          const bytes = readFileSync(path);
          return { namespace: 'example', type: 'fake', version, os, arch, platform, filename, path, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
        });
        releases.push({ namespace: 'example', type: 'fake', version, packages: pkgs, shasumsName, shasums, signature: await signDetached(shasums, fx.key) });
      }
      for (const r of releases) fx.files.add(r);
      await servePackages(releases, packages);
      return releases;
    },
    config(files: Record<string, string>) {
      const dir = join(fx.root, `cfg-${++n}`);
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, rel)), { recursive: true });
        writeFileSync(join(dir, rel), here(text));
      }
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    archiveRequests() {
      return fx.reg.server.requests.filter((r) => r.path.endsWith('.zip')).map((r) => r.path);
    },
    lockEngine(cacheDir = join(fx.root, `cache-${++n}`)) {
      return fx.engine({ cacheDir });
    },
  });
}

/** `packages` with each platform's h1: as the engine computes it from the archive (what a registry would publish). */
export const correctPackages = (rel: BuiltRelease) => packagesOf(rel, (p) => h1OfZip(p.path));

/** The mtime and content of a file, to prove it was left alone. */
export function snapshot(path: string): { text: string; mtimeMs: number; ino: number } {
  const st = statSync(path);
  return { text: readFileSync(path, 'utf8'), mtimeMs: st.mtimeMs, ino: st.ino };
}
