// tofu-registry lsp [--stdio] [--cache-dir DIR]
//   The language server (src/lsp) on stdin/stdout: nothing but protocol on stdout, logs on stderr
//   and through window/logMessage. `--stdio` is accepted because LSP clients add it. Settings come
//   from the client (initializationOptions / workspace/configuration section "tofuRegistry").
import { StreamMessageReader, StreamMessageWriter, createConnection } from 'vscode-languageserver/node';
import { listen } from '../lsp/listen';
import { CliIO, defaultCacheDir, parseArgs, UsageError, value } from './common';

declare const __TOFU_REGISTRY_VERSION__: string | undefined;

export async function runLsp(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args, { booleans: ['stdio'], values: ['cache-dir'] });
  if (parsed.positionals.length) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
  const cacheDir = value(parsed, 'cache-dir') ?? defaultCacheDir(io.env);
  // Anything a dependency prints with console.log would corrupt the protocol: send it to stderr.
  console.log = console.info = console.debug = (...a: unknown[]) => { process.stderr.write(`${a.map(String).join(' ')}\n`); };
  const connection = createConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
  const version = typeof __TOFU_REGISTRY_VERSION__ === 'string' ? __TOFU_REGISTRY_VERSION__ : '0.0.0-dev';
  const code = await listen(connection, { cacheDir, version });
  process.exit(code); // the client said exit: stdin and timers must not keep the process
}
