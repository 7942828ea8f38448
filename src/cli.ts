// tofu-registry <command>: a thin, headless front end over the same engine the extension uses.
// Every command prints a documented JSON shape with --json (a public contract: do not rename fields).
import { CliIO, CommandRunner, isUsageError, reportFailure, safeIO } from './cli/common';
import { setFlagsFromString } from 'node:v8';
import { codeCacheReport, RECORD_ENV, useCodeCache } from './cli/code-cache';

// package.json's version, written into the bundle by scripts/build.mjs (absent when tsc-compiled).
declare const __TOFU_REGISTRY_VERSION__: string | undefined;

const USAGE = `usage: tofu-registry <command> [flags]

commands:
  inspect [--json] PATH...                          module calls, required_providers, variables, diagnostics
  discover HOST [--json] [--show-secrets]           remote service discovery for a host (URLs with user
                                                    information or signed queries shown as *** unless
                                                    --show-secrets, for debugging)
  versions ADDRESS [--constraint C] [--provider] [--json]
                                                    available, matching and selected versions; for
                                                    oci://HOST/REPO the tags, version-like newest first;
                                                    for a git source (git::URL, git@HOST:REPO,
                                                    github.com/O/R) its tags and branches (git ls-remote)
  resolve ADDRESS --version V [--json] [--show-secrets]
                                                    download location of a module version (secrets in
                                                    it shown as *** unless --show-secrets); for
                                                    oci://HOST/REPO?tag=T (no --version) the manifest
                                                    and package digests tofu init would download; for
                                                    a git source (no --version) what its ?ref= is (tag,
                                                    branch, commit) and the commit tofu init checks out
  mirror [--platform os_arch]... [--out DIR | --oci TEMPLATE] [--from-mirror URL] [--concurrency N] [--max-dirs N] [--json] [DIR...]
                                                    build or update a provider network mirror; with
                                                    --oci, push the same providers, verified, into an
                                                    OCI registry (TEMPLATE: OpenTofu's repository_template,
                                                    e.g. registry.example.com/tofu/\${namespace}/\${type})
  mirror-modules [--out DIR] [--all-matching] [--base-url URL] [--concurrency N] [--max-modules N] [--max-dirs N] [--json] [DIR...]
                                                    build or update a static module registry (modules.v1)
  hash [--json] ZIP...                              h1: and zh: hashes of provider packages
  lock [--platform os_arch]... [--upgrade] [--net-mirror URL | --fs-mirror DIR | --oci-mirror TEMPLATE] [--concurrency N] [--max-modules N] [--json] [DIR...]
                                                    write .terraform.lock.hcl for every platform, as tofu providers lock
  types check [--json] [--offline] DIR              type constraints and module inputs
  types convert --type T --value V [--json]         convert one literal value to a type
  outdated [--max-modules N] [--max-dirs N] [--json] [DIR...]
                                                    every module and provider: locked, selected, newest,
                                                    status (git calls: tags as versions); exit 1 when
                                                    any is not up to date
  publish-module DIR oci://HOST/REPO --tag T [--tag T2]... [--annotation k=v]... [--force] [--json]
                                                    push DIR as an OpenTofu module package (the same
                                                    files give the same digests; tags set last; a tag
                                                    on other content is refused unless --force)
  publish-provider DIST --address HOST/NAMESPACE/TYPE (--out DIR | --oci TEMPLATE) [--version V] [--signing-key FILE | --public-key FILE] [--force] [--json]
                                                    publish your own provider release (the release
                                                    tooling's zips, SHA256SUMS, .sig), checked, as a
                                                    static registry site tofu init installs from
                                                    behind any web server, or into an OCI registry;
                                                    a published version never changes unless --force;
                                                    the signing key's passphrase comes from
                                                    TOFU_REGISTRY_SIGNING_KEY_PASSPHRASE
  sbom [--format cyclonedx|spdx] [--output FILE] [--offline] [--max-modules N] [--max-dirs N] [DIR...]
                                                    software bill of materials of the root modules:
                                                    every module call (recursively) and provider with
                                                    version, source, package URL and hashes (CycloneDX
                                                    1.6 JSON, or SPDX 2.3; time from SOURCE_DATE_EPOCH)
  lsp [--stdio] [--cache-dir DIR]                   the language server on stdin/stdout, for any editor
                                                    with an LSP client (settings from the client)

network commands (discover, versions, resolve, mirror, mirror-modules, lock, types check, outdated, publish-module, publish-provider, sbom):
  --ca-file PATH (extra CA certificates; NODE_EXTRA_CA_CERTS is honoured too), --timeout SECONDS,
  --cache-dir DIR (default $XDG_CACHE_HOME/tofu-registry or ~/.cache/tofu-registry: discovery and
  version lists are reused for 1 h, fetched modules kept), --no-cache

--max-modules N (mirror-modules, lock, outdated, sbom): how many modules one walk of module calls may
  reach, default 1000; calls nest at most 32 deep.
--max-dirs N (mirror, mirror-modules, outdated, sbom): configuration directories collected under each DIR
  (default 50000); a walk cut short is reported (stderr, --json) and exits 1

tofu-registry <command> --help (or -h, or tofu-registry help <command>) shows that command's usage.
tofu-registry --version prints the version.
`;

/**
 * One command's usage, cut from USAGE (one text to maintain): its synopsis line(s) with their
 * descriptions, and the network flags when USAGE lists it among the network commands.
 */
export function commandUsage(command: string): string {
  const lines = USAGE.split('\n');
  const out: string[] = [];
  let mine = false;
  for (const line of lines.slice(lines.indexOf('commands:') + 1)) {
    if (!line.trim()) break;
    // "  name synopsis   description" starts a command; deeper-indented lines continue its description.
    const m = /^ {2}(\S.*?)(?: {2,}(.*))?$/.exec(line);
    if (m) {
      mine = m[1].split(' ')[0] === command;
      if (mine) out.push(`usage: tofu-registry ${m[1]}`);
    }
    const description = m ? m[2] : line.trim();
    if (mine && description) out.push(`  ${description}`);
  }
  const network = lines.findIndex((l) => l.startsWith('network commands ('));
  const entry = /\(([^)]*)\)/.exec(lines[network])![1].split(', ').find((c) => c.split(' ')[0] === command);
  if (entry) {
    out.push('', entry === command ? 'network flags:' : `network flags (${entry}):`);
    for (const l of lines.slice(network + 1)) {
      if (!l.trim()) break;
      out.push(l);
    }
  }
  return out.join('\n') + '\n';
}

/** The arguments before a `--` (after it, every argument is taken literally, e.g. a file named -h). */
function flagsPart(args: string[]): string[] {
  const end = args.indexOf('--');
  return end < 0 ? args : args.slice(0, end);
}

// Each command's module is loaded only when that command runs, so `inspect` or `--help` never
// compiles or evaluates the network engine, OpenPGP glue or the mirrors (nor loads Node's
// child_process, crypto, zlib…). The CLI build maps each of these requires to a bundle of its own
// (dist/cli-inspect.js, …: scripts/build.mjs): ≈ 14 ms less start-up for `inspect`.
const COMMANDS: Record<string, () => CommandRunner> = {
  inspect: () => (require('./cli/inspect') as typeof import('./cli/inspect')).runInspect,
  discover: () => (require('./cli/registry') as typeof import('./cli/registry')).runDiscover,
  versions: () => (require('./cli/registry') as typeof import('./cli/registry')).runVersions,
  resolve: () => (require('./cli/registry') as typeof import('./cli/registry')).runResolve,
  mirror: () => (require('./cli/mirror') as typeof import('./cli/mirror')).runMirror,
  'mirror-modules': () => (require('./cli/modmirror') as typeof import('./cli/modmirror')).runMirrorModules,
  hash: () => (require('./cli/mirror') as typeof import('./cli/mirror')).runHash,
  lock: () => (require('./cli/lock') as typeof import('./cli/lock')).runLock,
  types: () => (require('./cli/types') as typeof import('./cli/types')).runTypes,
  outdated: () => (require('./cli/outdated') as typeof import('./cli/outdated')).runOutdated,
  'publish-module': () => (require('./cli/publish') as typeof import('./cli/publish')).runPublishModule,
  'publish-provider': () => (require('./cli/publish-provider') as typeof import('./cli/publish-provider')).runPublishProvider,
  sbom: () => (require('./cli/sbom') as typeof import('./cli/sbom')).runSbom,
  lsp: () => (require('./cli/lsp') as typeof import('./cli/lsp')).runLsp,
};

export async function main(argv: string[], rawIO: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  const io = safeIO(rawIO);
  if (command === 'help' && rest.length === 1 && Object.hasOwn(COMMANDS, rest[0])) {
    io.stdout(commandUsage(rest[0]));
    return 0;
  }
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(USAGE);
    return command ? 0 : 2;
  }
  if (command === '--version') {
    io.stdout(`tofu-registry ${typeof __TOFU_REGISTRY_VERSION__ === 'string' ? __TOFU_REGISTRY_VERSION__ : '0.0.0-dev'}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) {
    io.stderr(`tofu-registry: unknown command '${command}' (try --help)\n`);
    return 2;
  }
  // Handled here, once for every command, before any of its own flags are checked.
  if (flagsPart(rest).some((a) => a === '--help' || a === '-h')) {
    io.stdout(commandUsage(command));
    return 0;
  }
  try {
    return await load()(rest, io);
  } catch (err) {
    if (isUsageError(err)) {
      io.stderr(`tofu-registry ${command}: ${err.message}\n`);
      return 2;
    }
    // Commands report their expected failures themselves; this is the last line of defence, with
    // the same contract (one line on stderr, and with --json the error document on stdout).
    return reportFailure(io, err, flagsPart(rest).includes('--json'));
  }
}

if (require.main === module) {
  // A CLI process is short: V8's default inlining budget makes each optimizing compile of the
  // parser's large recursive-descent functions big (≈ 1.8 s of compile jobs over one pass of the
  // 1.6 MB corpus) and a run rarely lives long enough to earn it back. A smaller budget cut the
  // CPU time of `inspect --json` over 11.5 MB by about a fifth, with the same steady-state speed.
  setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
  // Bundled only (dist/): the command's bundle and vendor files come from the V8 code cache the
  // build made (code-cache.ts), when it matches this Node.
  // TOFU_REGISTRY_DEBUG_CODE_CACHE=1 says on stderr, at exit, which bundles it compiled from it.
  if (typeof __TOFU_REGISTRY_VERSION__ === 'string') {
    const use = useCodeCache(__dirname, process.env[RECORD_ENV] === '1');
    if (process.env.TOFU_REGISTRY_DEBUG_CODE_CACHE === '1') process.once('exit', () => process.stderr.write(codeCacheReport(use, __dirname)));
  }
  // `tofu-registry inspect DIR | head`: a reader that stops early closes the pipe. That ends the
  // command quietly, as it ends other command-line tools, instead of an unhandled EPIPE trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') process.stderr.write(`tofu-registry: cannot write the output: ${err.message}\n`);
    process.exit(err.code === 'EPIPE' ? 0 : 1);
  });
  const io: CliIO = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
  };
  // Ctrl-C / SIGTERM end the process through process.exit, so the temporary directories of a run
  // still going are removed (engine/fstree/temp.ts). A command that stops cleanly on a signal
  // (withInterrupt) gets the first one itself; a second one ends the process here.
  for (const [signal, n] of [['SIGINT', 2], ['SIGTERM', 15]] as const) {
    process.on(signal, () => { if (process.listenerCount(signal) === 1) process.exit(128 + n); });
  }
  main(process.argv.slice(2), io).then(
    (code) => { process.exitCode = code; },
    (err) => { process.stderr.write(`tofu-registry: ${String(err)}\n`); process.exitCode = 1; },
  );
}
