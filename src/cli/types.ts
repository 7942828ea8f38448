// tofu-registry types check|convert — type constraints and module inputs.
//
// `types check [--json] [--ca-file F] [--cache-dir D | --no-cache] [--offline] [--timeout S] DIR`
//   Remote modules (registry, https archives, git::) are fetched below the CLI's disk cache
//   (cacheDirOption, like every network command); --no-cache uses a temporary directory instead.
//   One line per diagnostic (`path:line:col: severity: message`, 1-based), exit 1 when any error.
//   --json: {"diagnostics":[{"path","range":{"start":{"line","character"},"end":{…}},"severity","message"}],
//            "variables":[{"path","name","type"}]}   (ranges 0-based; type canonical, "any" when untyped)
//
// `types convert --type T --value V [--json]`
//   Prints the converted value in `tofu console` notation; on failure the error on stderr, exit 1.
//   --json: {"type":"<canonical>","value":"<console notation>"}
//        or {"type":"<canonical>"|null,"error":{"message","path":[attr names / element indexes],"kind":"type"|"value"|"conversion"}}
import * as os from 'node:os';
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { Engine } from '../engine/engine';
import { ModuleResolver } from '../engine/modules/resolve';
import { checkDirectory } from '../engine/modules/check';
import { convertText } from '../engine/types/text';
import { jsonRange } from './inspect';
import { cacheDirOption, CliIO, flag, parseArgs, printJson, reportFailure, timeoutMsOption, UsageError, value, values } from './common';

export async function runTypes(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'check') return runCheck(rest, io);
  if (sub === 'convert') return runConvert(rest, io);
  throw new UsageError(sub ? `unknown subcommand '${sub}' (expected check or convert)` : 'expected a subcommand: check or convert');
}

async function runCheck(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json', 'offline', 'no-cache'], values: ['ca-file', 'cache-dir', 'timeout'] });
  const json = flag(parsed, 'json');
  if (parsed.positionals.length !== 1) throw new UsageError('expected exactly one DIR');
  const timeoutMs = timeoutMsOption(parsed);
  const cacheDir = cacheDirOption(parsed, io);
  const dir = path.resolve(io.cwd, parsed.positionals[0]);
  const shown = (p: string) => path.relative(io.cwd, p) || '.';
  let engine: Engine | undefined;
  let scratch: string | undefined;
  try {
    const st = await fs.stat(dir).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${parsed.positionals[0]} is not a directory`);
    const offline = flag(parsed, 'offline');
    engine = new Engine({
      env: io.env, cacheDir, caFiles: values(parsed, 'ca-file').map((f) => path.resolve(io.cwd, f)),
      timeoutMs, cliConfigFile: io.env.TF_CLI_CONFIG_FILE || undefined, networkAllowed: () => !offline,
    });
    // --no-cache: remote modules still need a directory to be unpacked into; it goes at the end.
    if (cacheDir === undefined) scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'tofu-registry-'));
    const resolver = new ModuleResolver({
      engine, cacheDir: cacheDir ?? scratch, networkAllowed: () => !offline, timeoutMs,
    });
    const result = await checkDirectory(dir, resolver);
    const errors = result.diagnostics.filter((d) => d.diagnostic.severity === 'error').length;
    if (json) {
      printJson(io, {
        diagnostics: result.diagnostics.map((d) => ({
          path: shown(d.path), range: jsonRange(d.diagnostic.range), severity: d.diagnostic.severity, message: d.diagnostic.message,
        })),
        variables: result.variables.map((v) => ({ path: shown(v.path), name: v.name, type: v.type })),
      });
    } else {
      for (const d of result.diagnostics) {
        const s = d.diagnostic.range.start;
        io.stdout(`${shown(d.path)}:${s.line + 1}:${s.character + 1}: ${d.diagnostic.severity}: ${d.diagnostic.message.replace(/\s*\n\s*/g, ' ')}\n`);
      }
      if (!result.diagnostics.length) io.stderr(`${result.variables.length} variable(s) checked, no problems\n`);
    }
    return errors ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return reportFailure(io, err, json);
  } finally {
    await engine?.dispose();
    if (scratch) await fs.rm(scratch, { recursive: true, force: true });
  }
}

async function runConvert(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['json'], values: ['type', 'value'] });
  const json = flag(parsed, 'json');
  const type = value(parsed, 'type');
  const val = value(parsed, 'value');
  if (type === undefined) throw new UsageError('--type is required');
  if (val === undefined) throw new UsageError('--value is required');
  if (parsed.positionals.length) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
  const r = convertText(type, val);
  if (json) {
    printJson(io, r.error ? { type: r.type ?? null, error: r.error } : { type: r.type, value: r.value });
  } else if (!r.error) {
    io.stdout(`${r.value}\n`);
  }
  if (r.error) {
    const what = r.error.kind === 'type' ? 'invalid type' : r.error.kind === 'value' ? 'invalid value' : 'conversion failed';
    io.stderr(`tofu-registry types convert: ${what}: ${r.error.message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
  return 0;
}
