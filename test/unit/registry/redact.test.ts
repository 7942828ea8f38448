// Secrets in URLs never reach a message or a log: one function (shownUrl, and redactUrls for
// running text) in src/engine/net/http-errors.ts, one test per form, then the real paths a URL
// takes into a message: an HTTP error after a redirect to a pre-signed URL, the CLI's error JSON,
// the engine's log, a network mirror's archive URL, and git's own stderr.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { fetchModule } from '../../../src/engine/modulepkg/fetch';
import { HttpClient } from '../../../src/engine/net/http';
import { redactUrls, shownUrl } from '../../../src/engine/net/http-errors';
import { NetworkMirrorClient } from '../../../src/engine/registry/network-mirror';
import { testEngine, withRegistry } from '../../support/registry-helpers';
import { tempDir } from '../../support/temp';

const SECRET = 'S3CR3T-value_42';

describe('shownUrl: one form per secret', () => {
  const forms: Array<[string, string, string]> = [
    ['S3 pre-signed X-Amz-Signature', `https://b.s3.amazonaws.com/p.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${SECRET}`, 'https://b.s3.amazonaws.com/p.zip?X-Amz-Algorithm=***&X-Amz-Signature=***'],
    ['S3 X-Amz-Credential', `https://b.s3.amazonaws.com/p.zip?X-Amz-Credential=${SECRET}%2F20240101%2Fus-east-1`, 'https://b.s3.amazonaws.com/p.zip?X-Amz-Credential=***'],
    ['S3 X-Amz-Security-Token', `https://b.s3.amazonaws.com/p.zip?X-Amz-Security-Token=${SECRET}&x-id=GetObject`, 'https://b.s3.amazonaws.com/p.zip?X-Amz-Security-Token=***&x-id=GetObject'],
    ['Azure SAS sig=', `https://acct.blob.core.windows.net/c/p.zip?sv=2022-11-02&sp=r&sig=${SECRET}`, 'https://acct.blob.core.windows.net/c/p.zip?sv=2022-11-02&sp=r&sig=***'],
    ['token=', `https://git.example.com/archive.tar.gz?token=${SECRET}&ref=v1`, 'https://git.example.com/archive.tar.gz?token=***&ref=v1'],
    ['access_token', `https://api.example.com/x?access_token=${SECRET}`, 'https://api.example.com/x?access_token=***'],
    ['GitLab private_token', `https://gitlab.example.com/api/v4/projects/1/repository/archive?private_token=${SECRET}`, 'https://gitlab.example.com/api/v4/projects/1/repository/archive?private_token=***'],
    ['CloudFront / GCS v2 Signature', `https://d1.cloudfront.net/p.zip?Expires=1700000000&Signature=${SECRET}&Key-Pair-Id=K2`, 'https://d1.cloudfront.net/p.zip?Expires=1700000000&Signature=***&Key-Pair-Id=***'],
    ['GCS X-Goog-Signature', `https://storage.googleapis.com/b/p.zip?X-Goog-Credential=${SECRET}&X-Goog-Signature=${SECRET}`, 'https://storage.googleapis.com/b/p.zip?X-Goog-Credential=***&X-Goog-Signature=***'],
    ['go-getter sshkey (a private key)', `git::ssh://git@example.com/repo.git?ref=v1&sshkey=${SECRET}`, 'git::ssh://git@example.com/repo.git?ref=v1&sshkey=***'],
    ['user:password', `https://user:${SECRET}@git.example.com/org/repo.git`, 'https://***@git.example.com/org/repo.git'],
    ['token as user name', `git::https://${SECRET}@github.com/org/repo.git?ref=v2`, 'git::https://***@github.com/org/repo.git?ref=v2'],
    ['"@" inside the password', `https://u:p@${SECRET}@h.example/x`, 'https://***@h.example/x'],
    ['token in the fragment', `https://app.example/cb#access_token=${SECRET}&state=1`, 'https://app.example/cb#access_token=***&state=1'],
    ['scp-like git address with sshkey', `git@github.com:org/repo.git?sshkey=${SECRET}`, 'git@github.com:org/repo.git?sshkey=***'],
  ];
  for (const [name, url, want] of forms) {
    it(name, () => {
      assert.equal(shownUrl(url), want);
      assert.ok(!redactUrls(`failed: ${url}.`).includes(SECRET), name);
    });
  }

  it('keeps what is not a secret, as written', () => {
    for (const u of [
      'https://registry.example.com/v1/modules/corp/net/aws/versions',
      'https://h.example/archive.tar.gz?archive=tar.gz',
      'git::https://example.com/vpc.git//modules/x?ref=v1.2.0&depth=1',
      'git::ssh://git@example.com/storage.git',
      's3::https://s3-eu-west-1.amazonaws.com/bucket/vpc.zip?version=1234',
      'HTTPS://Example.COM/a%20b?x=1',
    ]) assert.equal(shownUrl(u), u);
  });

  it('redacts every URL and secret parameter in running text, keeping punctuation', () => {
    assert.equal(redactUrls(`GET https://h.example/dl?token=${SECRET}&ref=v1 → 302 (3 ms)`), 'GET https://h.example/dl?token=***&ref=v1 → 302 (3 ms)');
    assert.equal(redactUrls(`see https://x.example/a?sig=${SECRET}.`), 'see https://x.example/a?sig=***.');
    assert.equal(redactUrls(`fatal: unable to access 'https://oauth2:${SECRET}@gitlab.example.com/g/r.git/': The requested URL returned error: 403`),
      "fatal: unable to access 'https://***@gitlab.example.com/g/r.git/': The requested URL returned error: 403");
    assert.equal(redactUrls(`(from git::https://${SECRET}@github.com/o/r.git)`), '(from git::https://***@github.com/o/r.git)');
    assert.equal(redactUrls(`cannot clone git@host:r.git?sshkey=${SECRET} now`), 'cannot clone git@host:r.git?sshkey=*** now');
    assert.equal(redactUrls('registry registry.example.com unreachable: connect ECONNREFUSED 127.0.0.1:443'), 'registry registry.example.com unreachable: connect ECONNREFUSED 127.0.0.1:443');
  });
});

describe('secrets never reach messages, logs or the CLI output', () => {
  it('an HTTP error after a redirect to a pre-signed URL, in the error, its url and the log', () => withRegistry({}, async (reg) => {
    const signed = `/signed/p.zip?X-Amz-Credential=${SECRET}&X-Amz-Signature=${SECRET}`;
    reg.server.route('/redirect-to-signed', (_req, res) => { res.writeHead(302, { Location: signed, 'Content-Length': '0' }); res.end(); });
    const engine = testEngine(reg);
    try {
      await assert.rejects(engine.http.getJson(`${reg.origin}/redirect-to-signed`), (e: Error & { url?: string }) => {
        assert.ok(!e.message.includes(SECRET) && !String(e.url).includes(SECRET), e.message);
        assert.match(e.message, /X-Amz-Signature=\*\*\*/);
        return true;
      });
      const dl = engine.http.download(`${reg.origin}/redirect-to-signed`, { maxBytes: 10 });
      await assert.rejects(dl, (e: Error) => !e.message.includes(SECRET));
      assert.ok(engine.logs.some((l) => l.message.includes('/signed/p.zip?')), 'the request was logged');
      assert.ok(engine.logs.every((l) => !l.message.includes(SECRET)));
    } finally {
      await engine.dispose();
    }
  }));

  it('the CLI: one line on stderr and the error JSON', () => withRegistry({}, async (reg) => {
    reg.server.route('/v1/modules/acme/network/aws/versions', (_req, res) => { res.writeHead(302, { Location: `/signed/versions?token=${SECRET}`, 'Content-Length': '0' }); res.end(); });
    reg.server.route('/signed/', (_req, res) => { res.writeHead(500, { 'Content-Length': '0' }); res.end(); });
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['versions', `${reg.host}/acme/network/aws`, '--json', '--no-cache', '--ca-file', reg.caCertPath],
      { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { HOME: '/nonexistent-home-for-tests' }, cwd: process.cwd() });
    assert.equal(code, 1);
    const json = JSON.parse(out.join('')) as { error: { message: string; url: string } };
    assert.match(json.error.url, /token=\*\*\*/);
    for (const text of [out.join(''), err.join('')]) assert.ok(!text.includes(SECRET), text);
  }));

  it("a network mirror's archive URL in a hash mismatch", () => withRegistry({}, async (reg) => {
    reg.addFile('/m/p.zip', 'not a zip');
    const http = new HttpClient({ caFiles: [reg.caCertPath], env: {} });
    const dest = join(tempDir('redact-'), 'p.zip');
    try {
      const client = new NetworkMirrorClient(`${reg.origin}/m/`, http);
      await assert.rejects(client.fetchArchive({ url: `${reg.origin}/m/p.zip?sig=${SECRET}`, rawUrl: 'p.zip', hashes: [`zh:${'0'.repeat(64)}`] }, dest, { maxBytes: 1000 }),
        (e: Error & { url?: string }) => !e.message.includes(SECRET) && !String(e.url).includes(SECRET) && /sig=\*\*\*/.test(e.message));
    } finally {
      await http.dispose();
    }
  }));

  it("git's own stderr, when a clone with a token in the URL fails", { skip: spawnSync('git', ['--version']).status !== 0 ? 'git is not installed' : false }, async () => {
    const cache = tempDir('redact-git-');
    mkdirSync(join(cache, 'x'));
    writeFileSync(join(cache, 'x', 'f'), '');
    const http = new HttpClient({ env: {} });
    try {
      // Nothing listens on port 9: git fails and prints the URL it was given.
      await assert.rejects(fetchModule(`git::https://oauth2:${SECRET}@127.0.0.1:9/g/r.git?ref=v1`, 'k', { http, cacheDir: cache, gitTimeoutMs: 20_000 }),
        (e: Error) => { assert.ok(!e.message.includes(SECRET), e.message); assert.match(e.message, /git clone of https:\/\/\*\*\*@127\.0\.0\.1:9/); return true; });
    } finally {
      await http.dispose();
    }
  });
});

describe('types check: module sources with secrets (human and --json output)', () => {
  const sources = [
    `https://user:${SECRET}@example.invalid/x.zip?token=${SECRET}`,
    `https://example.invalid/y.zip?X-Amz-Signature=${SECRET}`,
    `https://example.invalid/z.zip?sig=${SECRET}`,
    `git::https://${SECRET}@github.com/o/r.git?ref=v1`,
  ];
  const config = (list: string[]) => list.map((s, i) => `module "m${i}" {\n  source = "${s}"\n}\n`).join('');
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['types', 'check', ...args],
      { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { HOME: '/nonexistent-home-for-tests' }, cwd: process.cwd() });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('--offline: every "not installed" warning shows the source redacted', async () => {
    const dir = tempDir('redact-types-');
    writeFileSync(join(dir, 'main.tf'), config(sources));
    const human = await run(['--offline', dir]);
    assert.equal(human.code, 0, human.err);
    assert.equal(human.out.match(/warning: Cannot check the inputs of module "m\d": module \S+ is not installed/g)?.length, sources.length, human.out);
    assert.match(human.out, /module https:\/\/\*\*\*@example\.invalid\/x\.zip\?token=\*\*\* is not installed/);
    assert.match(human.out, /module git::https:\/\/\*\*\*@github\.com\/o\/r\.git\?ref=v1 is not installed/);
    const json = await run(['--offline', '--json', dir]);
    const doc = JSON.parse(json.out) as { diagnostics: { message: string }[] };
    assert.equal(doc.diagnostics.length, sources.length);
    assert.ok(doc.diagnostics.some((d) => d.message.includes('y.zip?X-Amz-Signature=***')), json.out);
    for (const text of [human.out, human.err, json.out, json.err]) assert.ok(!text.includes(SECRET), text);
  });

  it('sources it cannot read (hg::, an unknown getter) are named redacted too', async () => {
    const dir = tempDir('redact-types-');
    writeFileSync(join(dir, 'main.tf'), config([`hg::https://user:${SECRET}@hg.example/r?rev=1`, `nope::https://h.example/m?token=${SECRET}`]));
    for (const args of [['--no-cache', dir], ['--no-cache', '--json', dir]]) {
      const r = await run(args);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /hg::https:\/\/\*\*\*@hg\.example\/r\?rev=1/);
      assert.match(r.out, /token=\*\*\*/);
      assert.ok(!r.out.includes(SECRET) && !r.err.includes(SECRET), r.out + r.err);
    }
  });

  it('outdated --json: a git source keeps its field, its secret hidden', async () => {
    const dir = tempDir('redact-outdated-');
    // (a host that never resolves: git sources are looked up with git ls-remote, and this one is unreachable)
    writeFileSync(join(dir, 'main.tf'), config([`git::https://${SECRET}@git.example.invalid/o/r.git?ref=v1`]));
    const out: string[] = [];
    const code = await main(['outdated', '--json', '--no-cache', dir],
      { stdout: (t) => out.push(t), stderr: () => undefined, env: { HOME: '/nonexistent-home-for-tests', PATH: process.env.PATH }, cwd: process.cwd() });
    assert.equal(code, 1, out.join('')); // an unreachable remote is an error entry, like an unreachable registry
    assert.ok(!out.join('').includes(SECRET), out.join(''));
    const doc = JSON.parse(out.join('')) as { dependencies: { source: string; status: string }[] };
    assert.equal(doc.dependencies[0].status, 'error');
    assert.deepEqual(doc.dependencies.map((d) => d.source), ['git::https://***@git.example.invalid/o/r.git?ref=v1']);
  });
});
