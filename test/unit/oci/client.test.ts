// The OCI Distribution client against a real registry (CNCF Distribution on 127.0.0.1, TLS from
// the test CA): blobs (one PUT, PATCH chunks, cross-repository mount, digest checks), manifests
// (PUT/GET/HEAD by tag and digest), paginated tags, Basic and token auth, clear messages for
// missing and wrong credentials, and a storage redirect that never receives the Authorization header.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EMPTY_CONFIG, MEDIA_TYPE, OciClient, OciCredentials, OciRepository, sha256Digest } from '../../../src/engine/oci';
import { isRegistryError } from '../../../src/engine/net/errors';
import { parseCliConfig } from '../../../src/engine/cliconfig/read';
import { DEFAULT_USERS, startOciRegistry, TestOciRegistry } from '../../support/oci-registry';
import { tempDir } from '../../support/temp';
import { TestHttpsServer } from '../../support/https-server';
import { testPki } from '../../support/tls';

function credentials(home: string, rc = ''): OciCredentials {
  return new OciCredentials({ env: { HOME: home, PATH: process.env.PATH }, platform: 'linux', cliConfig: () => (rc ? [{ file: join(home, '.tofurc'), doc: parseCliConfig(rc) }] : []) });
}

function client(reg: TestOciRegistry, creds?: OciCredentials, extra: Partial<ConstructorParameters<typeof OciClient>[0]> = {}): OciClient {
  return new OciClient({ caFiles: [reg.caCertPath], env: {}, credentials: creds, ...extra });
}

function manifestFor(layer: { digest: string; size: number }): Buffer {
  return Buffer.from(JSON.stringify({
    schemaVersion: 2, mediaType: MEDIA_TYPE.imageManifest, artifactType: 'application/vnd.example.test',
    config: { mediaType: EMPTY_CONFIG.mediaType, digest: EMPTY_CONFIG.digest, size: EMPTY_CONFIG.size },
    layers: [{ mediaType: 'archive/zip', digest: layer.digest, size: layer.size }],
  }));
}

async function pushArtifact(c: OciClient, repo: OciRepository, tag: string, bytes: Buffer): Promise<{ manifest: string; layer: string }> {
  const layer = { digest: sha256Digest(bytes), size: bytes.length };
  await c.pushBlob(repo, layer, bytes);
  await c.pushBlob(repo, EMPTY_CONFIG, Buffer.from('{}'));
  const { digest } = await c.putManifest(repo, tag, { mediaType: MEDIA_TYPE.imageManifest, bytes: manifestFor(layer) });
  return { manifest: digest, layer: layer.digest };
}

describe('anonymous registry', () => {
  let reg: TestOciRegistry;
  before(async () => { reg = await startOciRegistry({ tagPageSize: 2 }); });
  after(async () => { await reg.stop(); });

  test('blobs, manifests and tags round-trip; a present blob is not sent again', async () => {
    const c = client(reg);
    const repo = { registry: reg.host, repository: 'team/providers/thing' };
    assert.deepEqual(await c.listTags(repo), [], 'a repository that does not exist has no tags');
    const bytes = randomBytes(3000);
    const { manifest, layer } = await pushArtifact(c, repo, '1.0.0', bytes);
    assert.equal(reg.uploads(), 2, 'the layer and the empty config');
    const got = await c.getManifest(repo, '1.0.0');
    assert.equal(got.digest, manifest);
    assert.equal(got.mediaType, MEDIA_TYPE.imageManifest);
    assert.deepEqual(await c.headManifest(repo, '1.0.0'), { digest: manifest, mediaType: MEDIA_TYPE.imageManifest, size: got.bytes.length });
    assert.equal((await c.getManifest(repo, manifest)).digest, manifest, 'by digest');
    assert.equal(await c.headManifest(repo, '9.9.9'), undefined);
    assert.deepEqual(await c.getBlobBuffer(repo, { digest: layer, size: bytes.length }, { maxBytes: 1 << 20 }), bytes);
    assert.deepEqual(await c.headBlob(repo, layer), { size: bytes.length });
    reg.resetLog();
    assert.deepEqual(await c.pushBlob(repo, { digest: layer, size: bytes.length }, bytes), { outcome: 'exists' });
    assert.equal(reg.uploads(), 0);
    await c.dispose();
  });

  test('a large blob goes up in PATCH chunks; one in another repository is mounted, not sent', async () => {
    const c = client(reg, undefined, { chunkSize: 1000 });
    const a = { registry: reg.host, repository: 'chunks/a' };
    const b = { registry: reg.host, repository: 'chunks/b' };
    const dir = tempDir('oci-blob-');
    const bytes = randomBytes(2500);
    writeFileSync(join(dir, 'blob'), bytes);
    reg.resetLog();
    assert.deepEqual(await c.pushBlob(a, { digest: sha256Digest(bytes), size: bytes.length }, { path: join(dir, 'blob') }), { outcome: 'uploaded' });
    assert.equal(reg.count('PATCH', '/v2/chunks/a/blobs/uploads/'), 3, '3 chunks of at most 1000 bytes');
    assert.deepEqual(await c.getBlobBuffer(a, { digest: sha256Digest(bytes) }, { maxBytes: 1 << 20 }), bytes);
    reg.resetLog();
    assert.deepEqual(await c.pushBlob(b, { digest: sha256Digest(bytes), size: bytes.length }, bytes, { mountFrom: [a] }), { outcome: 'mounted', from: `${reg.host}/chunks/a` });
    assert.equal(reg.count('PATCH'), 0);
    assert.equal(reg.count('PUT'), 0, 'nothing uploaded');
    assert.deepEqual(await c.getBlobBuffer(b, { digest: sha256Digest(bytes) }, { maxBytes: 1 << 20 }), bytes);
    await c.dispose();
  });

  test('tags come in pages (n, Link rel="next")', async () => {
    const c = client(reg);
    const repo = { registry: reg.host, repository: 'paged' };
    const tags = ['1.0.0', '1.1.0', '2.0.0', '2.0.1_build', 'latest'];
    for (const t of tags) await pushArtifact(c, repo, t, Buffer.from(t));
    reg.resetLog();
    assert.deepEqual((await c.listTags(repo)).sort(), [...tags].sort());
    assert.equal(reg.count('GET', '/tags/list'), 3, 'three pages of at most 2 (the registry caps n)');
    await c.dispose();
  });

  test('a blob whose content does not match the digest asked for is refused', async () => {
    const c = client(reg);
    const repo = { registry: reg.host, repository: 'liar' };
    const bytes = Buffer.from('the real content');
    await c.pushBlob(repo, { digest: sha256Digest(bytes), size: bytes.length }, bytes);
    // the registry itself refuses a mismatching upload (and says so with its error code)
    await assert.rejects(c.pushBlob(repo, { digest: sha256Digest('other'), size: bytes.length }, bytes), (e: Error) => /DIGEST_INVALID|digest/i.test(e.message) && e.message.includes(`${reg.host}/liar`));
    // a size that does not match what the registry has is caught while reading
    await assert.rejects(c.getBlobBuffer(repo, { digest: sha256Digest(bytes), size: bytes.length + 1 }, { maxBytes: 1 << 20 }), /ended after 16 of 17 bytes/);
    await assert.rejects(c.getBlobBuffer(repo, { digest: sha256Digest(bytes) }, { maxBytes: 4 }), (e: Error) => isRegistryError(e, 'too-large'));
    await c.dispose();
  });
});

describe('htpasswd (Basic) registry', () => {
  let reg: TestOciRegistry;
  before(async () => { reg = await startOciRegistry({ auth: 'basic' }); });
  after(async () => { await reg.stop(); });

  test('credentials from an oci_credentials block work; missing and wrong ones give one clear message', async () => {
    const home = tempDir('oci-home-');
    const repo = { registry: reg.host, repository: 'private/thing' };
    const good = client(reg, credentials(home, `oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`));
    await pushArtifact(good, repo, '1.0.0', Buffer.from('zip'));
    assert.ok(reg.requests.some((r) => r.auth === 'Basic' && r.status === 201));
    await good.dispose();

    const none = client(reg, credentials(home));
    await assert.rejects(none.listTags(repo), (e: Error) => isRegistryError(e, 'unauthorized')
      && e.message.includes(`${reg.host} requires authentication to list the tags of ${reg.host}/private/thing`)
      && e.message.includes(join(home, '.docker', 'config.json')), 'names the registry and where credentials were looked for');
    await none.dispose();

    const wrong = client(reg, credentials(home, `oci_credentials "${reg.host}/private" {\n  username = "tofu"\n  password = "not-it"\n}\n`));
    await assert.rejects(wrong.listTags(repo), (e: Error) => isRegistryError(e, 'unauthorized') && !e.message.includes('not-it')
      && e.message.includes(`${reg.host} rejected the credentials from oci_credentials "${reg.host}/private" in ${join(home, '.tofurc')} to list the tags of ${reg.host}/private/thing`));
    await wrong.dispose();
  });

  test('Docker-style auth file: the most specific entry wins', async () => {
    const home = tempDir('oci-home-');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    writeFiles(home, '.docker/config.json', JSON.stringify({ auths: { [reg.host]: { auth: b64('tofu:wrong') }, [`${reg.host}/private`]: { auth: b64(`tofu:${DEFAULT_USERS.tofu}`) } } }));
    const c = client(reg, credentials(home));
    await pushArtifact(c, { registry: reg.host, repository: 'private/other' }, '1.0.0', Buffer.from('x'));
    await assert.rejects(c.listTags({ registry: reg.host, repository: 'public/other' }), /rejected the credentials from "auths" entry/);
    await c.dispose();
  });
});

describe('token-auth registry', () => {
  let reg: TestOciRegistry;
  before(async () => { reg = await startOciRegistry({ auth: 'token', refreshTokens: { 'identity-T0KEN': 'tofu' } }); });
  after(async () => { await reg.stop(); });

  test('Basic credentials at the token server, a token per scope, cached', async () => {
    const home = tempDir('oci-home-');
    const c = client(reg, credentials(home, `oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`));
    const repo = { registry: reg.host, repository: 'tok/thing' };
    await pushArtifact(c, repo, '1.0.0', Buffer.from('zip'));
    assert.deepEqual(await c.listTags(repo), ['1.0.0']);
    const asked = reg.tokenServer!.requests.length;
    assert.ok(asked >= 1 && asked <= 3, `one token per scope set, not per request (${asked})`);
    assert.ok(reg.requests.filter((r) => r.auth).every((r) => r.auth === 'Bearer'));
    await c.listTags(repo);
    assert.equal(reg.tokenServer!.requests.length, asked, 'the cached token is reused');
    await c.dispose();
  });

  test('an identity (refresh) token from a Docker-style file goes through the OAuth2 POST', async () => {
    const home = tempDir('oci-home-');
    writeFiles(home, '.docker/config.json', JSON.stringify({ auths: { [reg.host]: { identitytoken: 'identity-T0KEN' } } }));
    const c = client(reg, credentials(home));
    await pushArtifact(c, { registry: reg.host, repository: 'tok/refresh' }, '2.0.0', Buffer.from('zip2'));
    assert.ok(reg.tokenServer!.requests.some((r) => r.method === 'POST'));
    await c.dispose();
  });

  test('no credentials: the token server gives no access and the message says where credentials were looked for', async () => {
    const home = tempDir('oci-home-');
    const c = client(reg, credentials(home));
    await assert.rejects(c.listTags({ registry: reg.host, repository: 'tok/thing' }), (e: Error) => isRegistryError(e, 'unauthorized')
      && e.message.includes(`${reg.host}/tok/thing`) && e.message.includes('.docker'));
    await c.dispose();
  });
});

describe('storage redirect', () => {
  let reg: TestOciRegistry;
  before(async () => { reg = await startOciRegistry({ auth: 'basic', redirectBlobs: true }); });
  after(async () => { await reg.stop(); });

  test('a blob GET redirected to storage is followed without the Authorization header', async () => {
    const home = tempDir('oci-home-');
    const c = client(reg, credentials(home, `oci_credentials "${reg.host}" {\n  username = "tofu"\n  password = "${DEFAULT_USERS.tofu}"\n}\n`));
    const repo = { registry: reg.host, repository: 'redir/thing' };
    const bytes = randomBytes(5000);
    const { layer } = await pushArtifact(c, repo, '1.0.0', bytes);
    reg.resetLog();
    assert.deepEqual(await c.getBlobBuffer(repo, { digest: layer, size: bytes.length }, { maxBytes: 1 << 20 }), bytes);
    assert.ok(reg.requests.some((r) => r.status === 307 && r.auth === 'Basic'), 'the registry got the credentials and redirected');
    const stored = reg.storage!.requests;
    assert.equal(stored.length, 1, 'the storage server was asked once');
    assert.equal(stored[0].authorization, undefined, 'and never saw the Authorization header');
    await c.dispose();
  });
});

function writeFiles(root: string, rel: string, text: string): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe('a blob that drips', () => {
  // A registry that answers a blob's GET at once, then sends 64 bytes every 100 ms: never a pause
  // the request timeout would catch, but 640 bytes a second — a 256 KiB blob would take 7 minutes.
  const size = 256 * 1024;
  const bytes = randomBytes(size);
  const digest = sha256Digest(bytes);
  const server = new TestHttpsServer();
  const timers = new Set<NodeJS.Timeout>();
  before(async () => {
    await server.start();
    server.route('/v2/', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size), 'docker-content-digest': digest });
      let at = 0;
      const t = setInterval(() => {
        if (res.destroyed || at >= size) { clearInterval(t); timers.delete(t); if (!res.destroyed) res.end(); return; }
        res.write(bytes.subarray(at, at += 64));
      }, 100);
      timers.add(t);
    });
  });
  after(async () => { for (const t of timers) clearInterval(t); await server.stop(); });

  test('is bounded by its size at the floor throughput, not the 30-minute transfer bound; the message names the host and URL', { timeout: 60_000 }, async () => {
    // 1 s to start, then 256 KiB at 64 KiB/s: 5 s in all
    const c = new OciClient({ caFiles: [testPki().caCertPath], env: {}, timeoutMs: 1000 });
    const repo = { registry: server.host, repository: 'slow/blob' };
    for (const known of [{ digest, size }, { digest }]) { // the size from the manifest, or only from Content-Length
      const started = Date.now();
      const read = c.getBlobBuffer(repo, known, { maxBytes: 1 << 20 }).then(() => 'finished', (err: Error) => err);
      const outcome = await Promise.race([read, new Promise((r) => setTimeout(() => r('still reading after 20 s'), 20_000).unref())]);
      const ms = Date.now() - started;
      assert.ok(outcome instanceof Error, String(outcome));
      assert.ok(isRegistryError(outcome, 'timeout'), outcome.message);
      assert.match(outcome.message, new RegExp(`^127\\.0\\.0\\.1:${server.port} sent the blob ${digest} of 127\\.0\\.0\\.1:${server.port}/slow/blob \\(https://127\\.0\\.0\\.1:${server.port}/v2/slow/blob/blobs/${digest}\\) too slowly: \\d+ of ${size} bytes after 5\\.\\d s; a blob of this size may take 5 s \\(1 s to start, then at least 64 KiB/s\\)`));
      assert.ok(ms >= 4900 && ms < 9000, `ended after ${ms} ms`);
    }
    await c.dispose();
  });
});
