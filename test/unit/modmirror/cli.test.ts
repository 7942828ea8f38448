// tofu-registry mirror-modules: the exact JSON shape (a public contract), the human output ending
// with the host blocks, exit codes (1 when anything failed, 2 on usage).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { startModuleOrigin, ModuleOrigin } from '../../support/module-origin';
import { tempDir } from '../../support/temp';

let o: ModuleOrigin;
before(async () => { o = await startModuleOrigin(); });
after(async () => { await o.stop(); });

async function run(args: string[], cwd = process.cwd()) {
  let stdout = '';
  let stderr = '';
  const env = { HOME: o.root, XDG_CACHE_HOME: tempDir('modmirror-cli-cache-'), TF_CLI_CONFIG_FILE: o.rcFile };
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env, cwd });
  return { code, stdout, stderr };
}

test('mirror-modules --json: exactly the documented shape; exit 1 because one module failed', async () => {
  const h = o.reg.host;
  const ws = o.workspace('cli', {
    'main.tf': `module "base" {\n  source  = "${h}/acme/base/aws"\n  version = ">= 1.0.0, < 2.0.0"\n}\n\nmodule "broken" {\n  source = "${h}/acme/broken/aws"\n}\n\nmodule "gh" {\n  source = "github.com/acme/terraform-aws-thing?ref=v1"\n}\n\nmodule "secret" {\n  source = "git::https://deploy:s3cr3t-pa55@git.example.com/x.git"\n}\n`,
  });
  const out = join(tempDir('modmirror-cli-out-'), 'site');
  const r = await run(['mirror-modules', '--json', '--out', out, '--ca-file', o.reg.caCertPath, '--all-matching', '--base-url', 'https://artifacts.example.com/tf', ws]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, '', 'progress is not printed with --json');
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(doc), ['out', 'mirrored', 'upToDate', 'failed', 'skipped', 'cliConfig']);
  assert.equal(doc.out, out);
  assert.deepEqual(doc.mirrored, ['1.0.0', '1.1.0'].map((v) => ({
    module: `${h}/acme/base/aws`, version: v, location: `${o.reg.origin}/archives/base/${v}.tar.gz`, archive: `modules/${h}/acme/base/aws/${v}.tar.gz`,
  })));
  assert.deepEqual(doc.upToDate, []);
  assert.deepEqual(doc.failed.map((f: Record<string, string>) => Object.keys(f)), [['module', 'version', 'step', 'message']]);
  assert.deepEqual([doc.failed[0].module, doc.failed[0].version, doc.failed[0].step], [`${h}/acme/broken/aws`, '1.0.0', 'fetch']);
  assert.deepEqual(doc.skipped.map((s: Record<string, string>) => [Object.keys(s), s.source]), [
    [['source', 'reason'], 'git::https://***@git.example.com/x.git'], [['source', 'reason'], 'github.com/acme/terraform-aws-thing?ref=v1'],
  ]);
  assert.ok(!r.stdout.includes('s3cr3t-pa55'), 'a password in a module source is never printed');
  assert.match(doc.skipped[1].reason, /^GitHub repository: not mirrorable without changing the source/);
  assert.equal(doc.cliConfig, `host "${h}" {\n  services = {\n    "modules.v1"   = "https://artifacts.example.com/tf/modules/${h}/"\n    "providers.v1" = "${o.reg.origin}/v1/providers/"\n  }\n}\n`);

  // the human output: progress on stderr, the summary and the same host blocks on stdout
  const again = await run(['mirror-modules', '--out', out, '--ca-file', o.reg.caCertPath, ws]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, new RegExp(`^up-to-date +${h}/acme/base/aws 1\\.1\\.0$`, 'm'));
  // a failure is named on stderr as it happens and explained once, in the summary on stdout
  assert.match(again.stderr, /^failed +.*acme\/broken\/aws 1\.0\.0 \(reason below\)$/m);
  assert.ok(!again.stderr.includes('fetching the package failed'), again.stderr);
  assert.match(again.stdout, /^FAILED .*acme\/broken\/aws 1\.0\.0: fetching the package failed/m);
  assert.match(again.stdout, /: 0 mirrored, 1 up to date, 1 failed, 2 sources skipped\n/);
  assert.ok(!again.stdout.includes('s3cr3t-pa55') && !again.stderr.includes('s3cr3t-pa55'));
  assert.ok(again.stdout.endsWith(`host "${h}" {\n  services = {\n    "modules.v1"   = "https://mirror.example.com/modules/${h}/"\n    "providers.v1" = "${o.reg.origin}/v1/providers/"\n  }\n}\n`), again.stdout);
  assert.match(again.stdout, /with the URL it is served at \(--base-url\)/);
});

test('mirror-modules: usage errors exit 2 with one line on stderr', async () => {
  const ws = o.workspace('usage', { 'main.tf': 'module "x" {\n  source = "./y"\n}\n' });
  for (const [args, message] of [
    [['--concurrency', '0'], /--concurrency must be an integer from 1 to 64/],
    [['--base-url', 'ftp://x/'], /--base-url must be the http\(s\) URL OUT is served at/],
    [['--base-url', 'https://x/?q=1'], /--base-url must be/],
    [['--platform', 'linux_amd64'], /unknown flag --platform/],
  ] as const) {
    const r = await run(['mirror-modules', ...args, ws]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  const empty = await run(['mirror-modules', tempDir('modmirror-empty-')]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /no \.tf\/\.tofu files under/);
});

test('mirror-modules --json: a command-level failure (OUT locked) prints {"error":…} and exits 1', async () => {
  const ws = o.workspace('locked', { 'main.tf': `module "b" {\n  source = "${o.reg.host}/acme/base/aws"\n}\n` });
  const out = tempDir('modmirror-cli-locked-');
  require('node:fs').writeFileSync(join(out, '.tofu-registry-mirror.lock'), JSON.stringify({ pid: process.pid, host: require('node:os').hostname() }));
  const r = await run(['mirror-modules', '--json', '--out', out, '--ca-file', o.reg.caCertPath, ws]);
  assert.equal(r.code, 1);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.error.message, /\.tofu-registry-mirror\.lock is held by another mirror run/);
  assert.deepEqual(Object.keys(doc.error), ['message', 'url', 'status']);
});
