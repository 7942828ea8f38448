// tofu-registry publish-provider DIST --address HOST/NAMESPACE/TYPE (--out DIR | --oci TEMPLATE)
//     [--version V] [--signing-key FILE | --public-key FILE] [--force] [--json]
//   The team's own provider release (the release tooling's zips, SHA256SUMS, .sig, manifest) checked,
//   then merged into a static registry site in DIR that `tofu init` installs from behind any web
//   server, or pushed into an OCI registry in OpenTofu's oci_mirror layout (engine/providerpublish).
//   The signing key's passphrase comes from TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE, never a flag.
//   --json: {"address","version","platforms","written","unchanged","site"} (--out) or
//           {…, "repository","tag"} (--oci)
//   Exit 0 on success, 1 on a refusal or failure (nothing written), 2 on usage errors.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseProviderSource } from '../engine/addresses/provider-source';
import { parseRepositoryTemplate } from '../engine/ocimirror';
import { publishProvider, ProviderPublishError, PublishProviderReport } from '../engine/providerpublish';
import { CliIO, flag, parseArgs, printJson, UsageError, value, withInterrupt } from './common';
import { withEngine } from './registry';

export const PASSPHRASE_VARIABLE = 'TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE';
const KEY_MAX = 1024 * 1024;

export async function runPublishProvider(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, {
    booleans: ['json', 'force', 'no-cache'],
    values: ['address', 'out', 'oci', 'version', 'signing-key', 'public-key', 'ca-file', 'timeout', 'cache-dir'],
  });
  if (parsed.positionals.length !== 1) throw new UsageError('expected the release directory DIST');
  const addressText = value(parsed, 'address');
  if (!addressText) throw new UsageError('--address HOST/NAMESPACE/TYPE is required (the source address users put in required_providers)');
  if (addressText.split('/').length !== 3) throw new UsageError(`--address must be HOST/NAMESPACE/TYPE with the host that serves the registry, got ${JSON.stringify(addressText)}`);
  let address;
  try { address = parseProviderSource(addressText); } catch (err) { throw new UsageError(`--address: ${(err as Error).message}`); }
  const out = value(parsed, 'out');
  const oci = value(parsed, 'oci');
  if ((out === undefined) === (oci === undefined)) throw new UsageError('give one of --out DIR (a static registry site) and --oci TEMPLATE (an OCI registry)');
  if (oci !== undefined) {
    try { parseRepositoryTemplate(oci); } catch (err) { throw new UsageError(`--oci: ${(err as Error).message}`); }
    if (flag(parsed, 'force')) throw new UsageError('--force applies to --out: an OCI tag that holds other content is never replaced (publish a new version)');
  }
  const signingKeyFile = value(parsed, 'signing-key');
  const publicKeyFile = value(parsed, 'public-key');
  if (signingKeyFile !== undefined && publicKeyFile !== undefined) throw new UsageError('--signing-key and --public-key exclude each other (the signing key\'s public part is published)');
  const dist = path.resolve(io.cwd, parsed.positionals[0]);
  if (!(await fs.stat(dist).catch(() => undefined))?.isDirectory()) throw new UsageError(`${parsed.positionals[0]} is not a directory`);
  const readKey = async (file: string | undefined, flagName: string) => {
    if (file === undefined) return undefined;
    const p = path.resolve(io.cwd, file);
    const st = await fs.stat(p).catch(() => undefined);
    if (!st?.isFile() || st.size > KEY_MAX) throw new UsageError(`--${flagName} ${file}: not a readable key file`);
    return fs.readFile(p, 'utf8');
  };
  const signingKey = await readKey(signingKeyFile, 'signing-key');
  const publicKey = await readKey(publicKeyFile, 'public-key');

  return withEngine(parsed, io, async (engine, json) => {
    let r: PublishProviderReport;
    try {
      r = await withInterrupt((signal) => publishProvider({
        dist, address, version: value(parsed, 'version'), force: flag(parsed, 'force'), signal,
        ...(out !== undefined ? { out: path.resolve(io.cwd, out) } : { oci, engine }),
        signingKey, publicKey, passphrase: io.env[PASSPHRASE_VARIABLE] || undefined, passphraseSource: PASSPHRASE_VARIABLE,
      }));
    } catch (err) {
      if (err instanceof ProviderPublishError) throw new Error(err.message);
      throw err;
    }
    if (json) {
      printJson(io, {
        address: r.address, version: r.version, platforms: r.platforms, written: r.written, unchanged: r.unchanged,
        ...(r.site !== undefined ? { site: r.site } : { repository: r.repository, tag: r.tag }),
      });
      return;
    }
    const where = r.site ?? `${r.repository}:${r.tag}`;
    io.stdout(`${r.address} ${r.version} (${r.platforms.join(', ')}) → ${where}: ${r.written.length} written, ${r.unchanged.length} unchanged\n`);
    for (const f of r.written) io.stdout(`  wrote ${f}\n`);
    for (const f of r.removed ?? []) io.stdout(`  removed ${f}\n`);
    if (r.site !== undefined) {
      io.stdout(`\nServe ${r.site} at https://${address.host}/ (the site's root must be the host's root: tofu asks for /.well-known/terraform.json), then:\n\n`);
      io.stdout(`  required_providers {\n    ${address.type} = { source = "${address.address}" }\n  }\n`);
    } else if (r.providerInstallation) {
      io.stdout(`\nFor tofu init to install it from the registry, add to the CLI configuration (~/.tofurc):\n\n${r.providerInstallation}`);
    }
  });
}
