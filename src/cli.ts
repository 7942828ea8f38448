// tofu-registry <command>: a thin, headless front end over the same engine the extension uses.
// Every command prints a documented JSON shape with --json (a public contract: do not rename fields).
import { CliIO, CommandRunner, UsageError } from './cli/common';
import { runInspect } from './cli/inspect';
import { runDiscover, runResolve, runVersions } from './cli/registry';
import { runHash, runMirror } from './cli/mirror';
import { runMirrorModules } from './cli/modmirror';
import { runLock } from './cli/lock';
import { runTypes } from './cli/types';
import { runOutdated } from './cli/outdated';
import { redactUrls } from './engine/net/http-errors';
import { setFlagsFromString } from 'node:v8';

const USAGE = `usage: tofu-registry <command> [flags]

commands:
  inspect [--json] PATH...                          module calls, required_providers, variables, diagnostics
  discover HOST [--json]                            remote service discovery for a host
  versions ADDRESS [--constraint C] [--provider] [--json]
                                                    available, matching and selected versions
  resolve ADDRESS --version V [--json]              download location of a module version
  mirror [--platform os_arch]... [--out DIR] [--from-mirror URL] [--concurrency N] [--json] [DIR...]
                                                    build or update a provider network mirror
  mirror-modules [--out DIR] [--all-matching] [--base-url URL] [--concurrency N] [--json] [DIR...]
                                                    build or update a static module registry (modules.v1)
  hash [--json] ZIP...                              h1: and zh: hashes of provider packages
  lock [--platform os_arch]... [--upgrade] [--net-mirror URL | --fs-mirror DIR] [--concurrency N] [--json] [DIR...]
                                                    write .terraform.lock.hcl for every platform, as tofu providers lock
  types check [--json] [--offline] DIR              type constraints and module inputs
  types convert --type T --value V [--json]         convert one literal value to a type
  outdated [--json] [DIR...]                        every module and provider: locked, selected, newest,
                                                    status; exit 1 when any is not up to date

network commands (discover, versions, resolve, mirror, mirror-modules, lock, types check, outdated):
  --ca-file PATH (extra CA certificates; NODE_EXTRA_CA_CERTS is honoured too), --timeout SECONDS,
  --cache-dir DIR (default $XDG_CACHE_HOME/tofu-registry or ~/.cache/tofu-registry: discovery and
  version lists are reused for 1 h, fetched modules kept), --no-cache
`;

const COMMANDS: Record<string, CommandRunner> = {
  inspect: runInspect,
  discover: runDiscover,
  versions: runVersions,
  resolve: runResolve,
  mirror: runMirror,
  'mirror-modules': runMirrorModules,
  hash: runHash,
  lock: runLock,
  types: runTypes,
  outdated: runOutdated,
};

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(USAGE);
    return command ? 0 : 2;
  }
  const runner = COMMANDS[command];
  if (!runner) {
    io.stderr(`tofu-registry: unknown command '${command}' (try --help)\n`);
    return 2;
  }
  try {
    return await runner(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`tofu-registry ${command}: ${err.message}\n`);
      return 2;
    }
    // Commands report their expected failures themselves; this is the last line of defence.
    io.stderr(`tofu-registry ${command}: ${redactUrls(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}

if (require.main === module) {
  // A CLI process is short: V8's default inlining budget makes each optimizing compile of the
  // parser's large recursive-descent functions big (≈ 1.8 s of compile jobs over one pass of the
  // 1.6 MB corpus) and a run rarely lives long enough to earn it back. A smaller budget cut the
  // CPU time of `inspect --json` over 11.5 MB by about a fifth, with the same steady-state speed.
  setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
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
