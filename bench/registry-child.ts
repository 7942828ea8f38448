// The mirror benchmark's registry, in a process of its own (as a real registry is another
// machine): in the benchmark's own process, the server's TLS encryption and file reads ran on the
// same thread as the mirror being measured. Builds N providers × platforms of signed packages,
// serves them with `latencyMs` added to every response, sends {host, caCertPath, sources,
// archives, bytes} (the archives' paths and total size), then answers IPC messages: 'requests' (how many requests so far), 'reset',
// 'cpu' (its CPU time so far: it shares the machine's cores with what is measured), 'stop'.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildRelease, makeSigningKey, PackageFiles, providerDefinition } from '../test/support/provider-packages';
import { startTestRegistry } from '../test/support/registry-server';
import { testPki } from '../test/support/tls';

export interface RegistryChildArgs {
  work: string;
  providers: number;
  platforms: string[];
  binarySize: number;
  latencyMs: number;
}

async function child(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as RegistryChildArgs;
  const reg = await startTestRegistry({ fixtures: false });
  const files = new PackageFiles(reg.server);
  const key = await makeSigningKey();
  const sources: string[] = [];
  const archives: string[] = [];
  let bytes = 0;
  for (let i = 0; i < args.providers; i++) {
    const rel = await buildRelease(join(args.work, 'pkgs'), { namespace: 'bench', type: `p${i}`, version: '1.0.0', platforms: args.platforms, binarySize: args.binarySize }, key);
    files.add(rel);
    for (const p of rel.packages) { archives.push(p.path); bytes += p.size; }
    reg.addProvider(providerDefinition(files, [rel], [key]));
    sources.push(`${reg.host}/bench/p${i}`);
  }
  reg.server.route('/', async () => { await new Promise((r) => setTimeout(r, args.latencyMs)); return false; });
  const stop = () => void reg.stop().finally(() => {
    rmSync(testPki().dir, { recursive: true, force: true });
    process.exit(0);
  });
  process.on('message', (msg: string) => {
    if (msg === 'requests') process.send!({ requests: reg.server.requests.length });
    else if (msg === 'reset') { reg.server.resetLog(); process.send!({ reset: true }); }
    else if (msg === 'cpu') { const c = process.cpuUsage(); process.send!({ cpuMs: (c.user + c.system) / 1000 }); }
    else if (msg === 'stop') stop();
  });
  process.on('disconnect', stop); // the benchmark went away without saying so
  process.send!({ host: reg.host, caCertPath: reg.caCertPath, sources, archives, bytes });
}

if (require.main === module) child().catch((err) => { process.stderr.write(String(err?.stack ?? err)); process.exit(1); });
