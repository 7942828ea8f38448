// The baseline of the inspect bench, run as its own process: what a script built on HashiCorp's
// HCL parser (@cdktf/hcl2json, WebAssembly) does for `inspect --json DIR` — walk the tree, read
// and parse every .tf file, print one JSON document.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (e.name.endsWith('.tf')) out.push(p);
  }
  return out;
}

async function main(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parse } = require('@cdktf/hcl2json') as { parse(name: string, text: string): Promise<unknown> };
  const out: unknown[] = [];
  for (const f of files(process.argv[2]).sort()) out.push({ path: f, body: await parse(f, readFileSync(f, 'utf8')) });
  process.stdout.write(JSON.stringify({ files: out }, null, 2) + '\n');
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
