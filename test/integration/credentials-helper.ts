// A real credentials helper for the integration tests: terraform-credentials-ittest, installed in
// $XDG_DATA_HOME/opentofu/plugins (one of the directories OpenTofu searches; the test runner gives
// the extension host its own XDG_DATA_HOME), and a CLI configuration that names it.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What the helper prints on stderr, in every mode: it must never reach a diagnostic or "Show log". */
export const HELPER_STDERR_MARKER = 'IT-HELPER-STDERR-3e9d';

export interface InstalledHelper {
  /** The CLI configuration naming the helper. */
  rc: string;
  /** One JSON line per call: the helper's arguments. */
  log: string;
  calls(): string[][];
}

/**
 * Installs the helper (answering `token` for `forHost`, or failing when mode is 'fail'); undefined
 * unless XDG_DATA_HOME lies in the runner's own state directory (the workspace's parent): a test
 * must never put a program into the developer's real plugin directory.
 */
export function installHelper(dir: string, forHost: string, token: string, mode: 'ok' | 'fail' = 'ok'): InstalledHelper | undefined {
  const data = process.env.XDG_DATA_HOME;
  const ws = process.env.TOFU_REGISTRY_TEST_WORKSPACE;
  if (!data || !ws) return undefined;
  const inState = path.relative(path.dirname(path.resolve(ws)), path.resolve(data));
  if (!inState || inState.startsWith('..') || path.isAbsolute(inState)) return undefined;
  const plugins = path.join(data, 'opentofu', 'plugins');
  fs.mkdirSync(plugins, { recursive: true });
  const program = path.join(plugins, 'terraform-credentials-ittest');
  fs.writeFileSync(program, `#!${process.execPath}
const args = process.argv.slice(2);
const opt = (k) => args[args.indexOf(k) + 1];
require('fs').appendFileSync(opt('--log'), JSON.stringify(args) + '\\n');
process.stderr.write('${HELPER_STDERR_MARKER} asked for ' + args.at(-1) + '\\n');
if (opt('--mode') === 'fail') { process.stderr.write('it-helper: vault is sealed\\nSECOND-LINE-NOT-SHOWN\\n'); process.exit(3); }
process.stdout.write(JSON.stringify(args.at(-1) === opt('--for') ? { token: ${JSON.stringify(token)} } : {}));
`);
  fs.chmodSync(program, 0o755);
  const log = path.join(dir, `helper-${mode}.log`);
  const rc = path.join(dir, `helper-${mode}.tofurc`);
  fs.writeFileSync(rc, `credentials_helper "ittest" {\n  args = ["--log", ${JSON.stringify(log)}, "--mode", "${mode}", "--for", "${forHost}"]\n}\n`);
  return {
    rc, log,
    calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : []),
  };
}
