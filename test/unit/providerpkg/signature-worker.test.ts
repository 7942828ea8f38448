// The signature checks on their worker thread (startSignatureWorker, as `lock` starts it): the same
// outcome as in this thread for every kind of signature, answered by the worker; a worker that
// cannot start leaves the checks to this thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { signatureWorkerStats, startSignatureWorker, stopSignatureWorker, SignatureCheck, SigningKey, verifyDetachedSignature, verifyDetachedSignatureHere } from '../../../src/engine/providerpkg/signature';
import { makeSigningKey, signDetached } from '../../support/provider-packages';

const doc = Buffer.from('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  terraform-provider-x_1.0.0_linux_amd64.zip\n');
const DIST = join(__dirname, '..', '..', '..', '..', 'dist');

async function cases(): Promise<Array<[string, Uint8Array, Uint8Array, SigningKey[]]>> {
  const [signer, other] = await Promise.all([makeSigningKey('signer'), makeSigningKey('other')]);
  const sig = await signDetached(doc, signer);
  const armored = Buffer.from(await openpgp.sign({ message: await openpgp.createMessage({ binary: doc }), signingKeys: signer.privateKey, detached: true }) as string);
  const tampered = Buffer.from(doc);
  tampered[0] = 0x62;
  return [
    ['good', doc, sig, [{ asciiArmor: other.publicArmored }, { asciiArmor: signer.publicArmored }]],
    ['armored', doc, armored, [{ asciiArmor: signer.publicArmored }]],
    ['unknown key', doc, sig, [{ asciiArmor: other.publicArmored }]],
    ['tampered', tampered, sig, [{ asciiArmor: signer.publicArmored }]],
    ['garbage', doc, Buffer.from('not a signature'), [{ asciiArmor: signer.publicArmored }]],
    ['no keys', doc, sig, []],
  ];
}

async function sameOnWorker(workerFile?: string): Promise<void> {
  const all = await cases();
  const here: SignatureCheck[] = [];
  for (const [, d, s, k] of all) here.push(await verifyDetachedSignatureHere(d, s, k));
  assert.deepEqual(here.map((c) => c.ok), [true, true, false, false, false, false]);
  assert.ok(startSignatureWorker(workerFile));
  try {
    const before = signatureWorkerStats().answered;
    const onWorker = await Promise.all(all.map(([, d, s, k]) => verifyDetachedSignature(d, s, k)));
    for (let i = 0; i < all.length; i++) assert.deepEqual(onWorker[i], here[i], all[i][0]);
    assert.deepEqual(signatureWorkerStats(), { running: true, answered: before + all.length });
  } finally {
    await stopSignatureWorker();
  }
}

test('signature worker (compiled, out/): every check answered there, with the outcome of this thread', () => sameOnWorker());

test('signature worker of the bundles (dist/signature-worker.js, openpgp from dist/vendor): the same',
  () => {
    assert.ok(existsSync(join(DIST, 'signature-worker.js')), 'dist/ is not built: run npm run build (npm test and npm run test:unit do)');
    return sameOnWorker(join(DIST, 'signature-worker.js'));
  });

test('a signature worker that cannot start leaves the checks to this thread, with the same outcome', async () => {
  const [, d, s, k] = (await cases())[0];
  assert.ok(startSignatureWorker(join(__dirname, 'no-such-worker.js')));
  try {
    const check = await verifyDetachedSignature(d, s, k);
    assert.equal(check.ok, true);
    assert.deepEqual(signatureWorkerStats(), { running: false, answered: 0 });
  } finally {
    await stopSignatureWorker();
  }
});

test('a started signature worker never keeps the process alive: idle, or after its checks', async () => {
  const mod = JSON.stringify(join(__dirname, '..', '..', '..', 'src', 'engine', 'providerpkg', 'signature'));
  for (const use of ['', `s.verifyDetachedSignature(Buffer.from('x'), Buffer.from('not a signature'), [{ asciiArmor: 'x' }]).then((c) => console.log(c.reason));`]) {
    const child = spawn(process.execPath, ['-e', `const s = require(${mod}); s.startSignatureWorker(); ${use}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(timer);
    assert.equal(code, 0, `the process exited by itself (${use ? 'after a check' : 'idle'})`);
    assert.equal(out.trim(), use ? 'malformed' : '');
  }
});
