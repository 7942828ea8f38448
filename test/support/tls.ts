// A throwaway certificate authority made at test time (openssl), and a leaf certificate for the
// loopback names the test servers answer on. Nothing is ever written outside a temp directory.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp';

export interface TestPki {
  dir: string;
  /** PEM of the CA certificate: what clients must trust (ca-file / NODE_EXTRA_CA_CERTS). */
  caCert: string;
  caCertPath: string;
  /** Server certificate + key for 127.0.0.1, ::1 and localhost. */
  cert: string;
  key: string;
}

let cached: TestPki | undefined;

/** One CA per process is plenty; every server in the process shares it. */
export function testPki(): TestPki {
  if (cached) return cached;
  const dir = tempDir('tofu-registry-pki-');
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=tofu-registry test CA', '-keyout', 'ca.key', '-out', 'ca.pem',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=127.0.0.1', '-keyout', 'server.key', '-out', 'server.csr']);
  writeFileSync(join(dir, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
    '-days', '2', '-out', 'server.pem', '-extfile', 'ext.cnf']);
  cached = {
    dir,
    caCert: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    caCertPath: join(dir, 'ca.pem'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
  };
  return cached;
}
