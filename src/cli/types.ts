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
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { checkDirectory } from '../engine/modules/check';
import { redactUrls } from '../engine/net/http-errors';
import { convertText } from '../engine/types/text';
import { jsonRange } from './inspect';
import { CliIO, flag, parseArgs, printJson, UsageError, value } from './common';
import { withModuleResolver } from './resolverRun';

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
  const dir = path.resolve(io.cwd, parsed.positionals[0]);
  const shown = (p: string) => path.relative(io.cwd, p) || '.';
  return withModuleResolver(parsed, io, flag(parsed, 'offline'), async (_engine, resolver) => {
    const st = await fs.stat(dir).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${parsed.positionals[0]} is not a directory`);
    const result = await checkDirectory(dir, resolver);
    const errors = result.diagnostics.filter((d) => d.diagnostic.severity === 'error').length;
    // Messages quote module sources and fetch errors: the last step before output hides their secrets.
    const message = (d: { diagnostic: { message: string } }) => redactUrls(d.diagnostic.message);
    if (json) {
      printJson(io, {
        diagnostics: result.diagnostics.map((d) => ({
          path: shown(d.path), range: jsonRange(d.diagnostic.range), severity: d.diagnostic.severity, message: message(d),
        })),
        variables: result.variables.map((v) => ({ path: shown(v.path), name: v.name, type: v.type })),
      });
    } else {
      for (const d of result.diagnostics) {
        const s = d.diagnostic.range.start;
        io.stdout(`${shown(d.path)}:${s.line + 1}:${s.character + 1}: ${d.diagnostic.severity}: ${message(d).replace(/\s*\n\s*/g, ' ')}\n`);
      }
      if (!result.diagnostics.length) io.stderr(`${result.variables.length} variable(s) checked, no problems\n`);
    }
    return errors ? 1 : 0;
  });
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
