// Records the V8 code cache of the CLI's bundles (src/cli/code-cache.ts) after scripts/build.mjs
// has written them: runs each command group once, the way a user's first run starts, with
// TOFU_REGISTRY_RECORD_CODE_CACHE=1, so each process leaves in dist/code-cache/<V8>-<arch>/ what V8
// compiled of its bundle and of the vendor files it loaded. The network commands ask 127.0.0.1:1,
// where nothing listens: they load and set up everything a real run does up to the first
// connection (undici included) and fail at once — no network is needed, nothing is downloaded.
// Only this Node (the one that builds) gets a cache; another Node finds none and compiles as usual.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CONFIG = `terraform {
  required_providers {
    x = { source = "127.0.0.1:1/training/x" }
  }
}

variable "v" {
  type = object({ name = string, tags = optional(map(string), {}) })
}

module "m" {
  source  = "127.0.0.1:1/training/m/aws"
  version = "~> 1.0"
}
`;

/** Records dist/code-cache for the bundles in `dist`; returns how long it took (ms). */
export function recordCodeCache(dist = 'dist') {
  const t0 = performance.now();
  rmSync(join(dist, 'code-cache'), { recursive: true, force: true });
  const work = mkdtempSync(join(tmpdir(), 'tofu-registry-code-cache-'));
  try {
    const cfg = join(work, 'cfg');
    mkdirSync(cfg);
    writeFileSync(join(cfg, 'main.tf'), CONFIG);
    mkdirSync(join(work, 'release'));
    const runs = [
      ['inspect', '--json', cfg],
      ['types', 'check', '--json', '--offline', cfg],
      ['versions', '127.0.0.1:1/training/m/aws', '--json', '--timeout', '5'],
      ['lock', '--json', '--timeout', '5', cfg],
      ['mirror', '--json', '--timeout', '5', '--out', join(work, 'mirror'), cfg],
      ['mirror-modules', '--json', '--timeout', '5', '--out', join(work, 'modules'), cfg],
      ['outdated', '--json', '--timeout', '5', cfg],
      ['sbom', '--timeout', '5', '--output', join(work, 'sbom.json'), cfg],
      ['publish-module', cfg, 'oci://127.0.0.1:1/training/m', '--tag', 'v1.0.0', '--json', '--timeout', '5'],
      ['publish-provider', join(work, 'release'), '--address', '127.0.0.1:1/training/x', '--out', join(work, 'site'), '--json'],
      ['lsp', '--stdio'], // stdin at its end: the server starts and stops
    ];
    for (const args of runs) {
      // A clean environment: no proxy, credentials or CA settings of the machine that builds.
      spawnSync(process.execPath, [resolve(dist, 'cli.js'), ...args], {
        cwd: work, stdio: 'ignore', timeout: 60_000,
        env: { PATH: process.env.PATH, HOME: work, XDG_CACHE_HOME: join(work, 'cache'), TOFU_REGISTRY_RECORD_CODE_CACHE: '1' },
      });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return performance.now() - t0;
}
