// The OCI mirror benchmark's registry, in a process of its own (as a real registry is another
// machine): CNCF Distribution behind the test harness's logging proxy (test/support/oci-registry.ts),
// `delayMs` added to every response. Sends {host, caCertPath}, then answers IPC messages:
// 'counts' ({uploads, requests}: blob uploads completed and requests so far), 'reset', 'stop'.
import { rmSync } from 'node:fs';
import { startOciRegistry } from '../test/support/oci-registry';
import { testPki } from '../test/support/tls';

async function child(): Promise<void> {
  const { delayMs } = JSON.parse(process.argv[2]) as { delayMs: number };
  const reg = await startOciRegistry({ delayMs });
  const stop = () => void reg.stop().finally(() => {
    rmSync(testPki().dir, { recursive: true, force: true });
    process.exit(0);
  });
  process.on('message', (msg: string) => {
    if (msg === 'counts') process.send!({ uploads: reg.uploads(), requests: reg.requests.length });
    else if (msg === 'reset') { reg.resetLog(); process.send!({ reset: true }); }
    else if (msg === 'stop') stop();
  });
  process.on('disconnect', stop); // the benchmark went away without saying so
  process.send!({ host: reg.host, caCertPath: reg.caCertPath });
}

if (require.main === module) child().catch((err) => { process.stderr.write(String(err?.stack ?? err)); process.exit(1); });
