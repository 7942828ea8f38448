// CA files added to the engine's dispatcher (--ca-file, caFiles, NODE_EXTRA_CA_CERTS) come on top
// of the roots Node trusts, never instead of them. The roots are made testable without the
// internet: a child process runs with --use-openssl-ca and SSL_CERT_FILE naming a throwaway CA, so
// that CA is the process's root store; a second throwaway CA is the extra CA file. Servers signed
// by either must be trusted, a server signed by neither must not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp';

function makeCa(dir: string, name: string): { caPath: string; cert: string; key: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', `/CN=tofu-registry test ${name}`, '-keyout', `${name}.key`, '-out', `${name}.pem`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=127.0.0.1', '-keyout', `${name}-server.key`, '-out', `${name}-server.csr`]);
  writeFileSync(join(dir, `${name}.cnf`), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-in', `${name}-server.csr`, '-CA', `${name}.pem`, '-CAkey', `${name}.key`, '-CAcreateserial',
    '-days', '2', '-out', `${name}-server.pem`, '-extfile', `${name}.cnf`]);
  return { caPath: join(dir, `${name}.pem`), cert: readFileSync(join(dir, `${name}-server.pem`), 'utf8'), key: readFileSync(join(dir, `${name}-server.key`), 'utf8') };
}

function serve(cert: string, key: string, body: string): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer({ cert, key }, (_req, res) => res.end(body));
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

// Fetches each URL through createDispatcher({ caFiles: [extra] }) in a process whose root store
// is `roots`; prints one line per URL: its body or the error code.
const CHILD = `
const { createDispatcher } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'src', 'engine', 'net', 'dispatcher'))});
const { request } = require('undici');
const [extra, ...urls] = process.argv.slice(1);
const dispatcher = createDispatcher({ env: {}, caFiles: [extra], connectTimeoutMs: 10000 });
(async () => {
  for (const url of urls) {
    try { const r = await request(url, { dispatcher }); console.log(await r.body.text()); }
    catch (e) { console.log(e.code || e.message); }
  }
  await dispatcher.close();
})();`;

test('an extra CA file is trusted on top of the root store, not instead of it', async () => {
  const dir = tempDir('tofu-registry-extra-ca-');
  const root = makeCa(dir, 'root');
  const extra = makeCa(dir, 'extra');
  const other = makeCa(dir, 'other');
  const servers = [await serve(root.cert, root.key, 'root'), await serve(extra.cert, extra.key, 'extra'), await serve(other.cert, other.key, 'other')];
  try {
    const urls = servers.map((s) => `https://127.0.0.1:${(s.address() as AddressInfo).port}/`);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SSL_CERT_FILE: root.caPath };
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--use-openssl-ca', '-e', CHILD, extra.caPath, ...urls], { env, cwd: join(__dirname, '..', '..', '..', '..') },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))));
    assert.deepEqual(out.trim().split('\n'), ['root', 'extra', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
  } finally {
    for (const s of servers) s.close();
  }
});
