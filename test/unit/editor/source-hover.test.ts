// go-getter module sources in the editor: the hover says what `tofu init` fetches (package,
// ref, archive, subdirectory, secrets hidden), and registry-only features stay silent (no
// diagnostic, no lookup) — only a source tofu init cannot fetch is an error.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseConfig } from '../../../src/engine/config';
import { computeDiagnostics } from '../../../src/features/diagnostics';
import { sourceHover } from '../../../src/features/hover';
import type { Settled } from '../../../src/features/lookup';
import { collectRefs } from '../../../src/features/refs';
import { moduleSourceInfo } from '../../../src/features/target';

const never = (): Settled<string[]> => { throw new Error('a non-registry source must never be looked up'); };

function hover(source: string): string {
  return sourceHover({ source, ...moduleSourceInfo(source), networkAllowed: true });
}

describe('editor: go-getter module sources', () => {
  it('hover names the source type, the package tofu init fetches, its ref / archive, and the subdirectory', () => {
    const gh = hover('github.com/acme/infra//modules/vpc?ref=v1.2.0');
    assert.match(gh, /^\*\*GitHub repository\*\* \(github source, fetched directly by `tofu init`, not through a registry\)/);
    assert.match(gh, /Package: `git::https:\/\/github\.com\/acme\/infra\.git\?ref=v1\.2\.0` \(ref `v1\.2\.0`\)/);
    assert.match(gh, /Subdirectory: `modules\/vpc`/);
    assert.doesNotMatch(gh, /Service discovery|\$\(error\)/);
    assert.match(hover('git@github.com:acme/infra.git?ref=main'), /Package: `git::ssh:\/\/git@github\.com\/acme\/infra\.git\?ref=main` \(ref `main`\)/);
    assert.match(hover('bitbucket.org/acme/infra'), /\*\*Bitbucket repository\*\*[^]*`git::https:\/\/bitbucket\.org\/acme\/infra\.git`/);
    assert.match(hover('acme-modules.s3-eu-west-1.amazonaws.com/vpc.zip'), /\*\*Amazon S3 bucket\*\*[^]*`s3::https:\/\/s3-eu-west-1\.amazonaws\.com\/acme-modules\/vpc\.zip`/);
    assert.match(hover('gcs::https://www.googleapis.com/storage/v1/b/vpc.zip'), /\*\*Google Cloud Storage bucket\*\*/);
    assert.match(hover('hg::http://example.com/vpc.hg?ref=v1'), /\*\*Mercurial repository\*\*[^]*\(ref `v1`\)/);
    assert.match(hover('https://example.com/vpc-module?archive=zip'), /\*\*HTTP URL\*\*[^]*\(archive `zip`\)/);
  });

  it('hover never shows a secret of the source', () => {
    const h = hover('git::https://oauth2:S3CRET@gitlab.example.com/g/r.git?ref=v1&sshkey=K3Y');
    assert.ok(!h.includes('S3CRET') && !h.includes('K3Y'), h);
    assert.match(h, /`git::https:\/\/\*\*\*@gitlab\.example\.com\/g\/r\.git\?ref=v1&sshkey=\*\*\*`/);
  });

  it('registry-only features stay silent for every fetchable form; a form tofu init refuses is an error', () => {
    const sources = ['github.com/acme/infra?ref=v1', 'bitbucket.org/acme/infra', 'git@github.com:acme/infra.git', 'git::https://example.com/x.git',
      's3::https://s3.amazonaws.com/b/x.zip', 'gcs::https://www.googleapis.com/storage/v1/b/x.zip', 'hg::http://example.com/x', 'https://example.com/x?archive=tar.gz',
      'www.googleapis.com/storage/v1/b/x', 'b.s3.amazonaws.com/x.zip', 'oci://registry.example.com/m/vpc'];
    const text = sources.map((s, i) => `module "m${i}" {\n  source = "${s}"\n}\n`).join('');
    const refs = collectRefs(parseConfig(text, 'main.tf'), text);
    assert.deepEqual(computeDiagnostics(refs, never, true), { diagnostics: [], wanted: [], network: [] });
    const bad = 'module "x" {\n  source = "ssh://git@example.com/x.git"\n}\n';
    const diags = computeDiagnostics(collectRefs(parseConfig(bad, 'main.tf'), bad), never, true).diagnostics;
    assert.deepEqual(diags.map((d) => d.code), ['invalid-source']);
    assert.match(diags[0].message, /no getter for "ssh"/);
    assert.match(hover('ssh://git@example.com/x.git'), /^\*\*Not a module source `tofu init` can fetch\*\*[^]*\$\(error\) tofu init cannot download it/);
  });
});
