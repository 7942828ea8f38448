// One cold `inspect --json DIR` timed phase by phase inside a fresh process (inspect.bench.ts runs
// it): loading the modules, the walk, the reads, parsing + rendering each file cold (V8 compiling
// the parser as it goes), the document and the printing layer's escaping. The same steps as the CLI,
// from the compiled modules rather than the bundle, so the phases can be told apart; prints JSON.
const phases: Record<string, number> = {};
let t = performance.now();
const lap = (name: string) => { const now = performance.now(); phases[name] = now - t; t = now; };

const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
setFlagsFromString('--max-inlined-bytecode-size-cumulative=300'); // as src/cli.ts does
const { readFileSync } = require('node:fs') as typeof import('node:fs');
const config = require('../src/engine/config') as typeof import('../src/engine/config');
const render = require('../src/cli/inspect-render') as typeof import('../src/cli/inspect-render');
const { shownOutput } = require('../src/engine/net/shown-text') as typeof import('../src/engine/net/shown-text');
lap('load');

const root = process.argv[2];
const files = config.findConfigFilesSync([root]);
lap('walk');
// File by file as the CLI goes (each text dies young instead of 12 MB of them staying alive
// through the parse), the reads and the parses timed apart.
config.warmUpParser({ overview: true });
const shown = files.map((f) => f.slice(root.length + 1)); // as the CLI names them, below the PATH given
const parts: string[] = [];
let readMs = 0;
let parseMs = performance.now() - t;
for (let i = 0; i < files.length; i++) {
  const t0 = performance.now();
  const text = readFileSync(files[i], 'utf8');
  const t1 = performance.now();
  parts.push(render.fileJson(shown[i], config.overviewOf(text, shown[i])));
  readMs += t1 - t0;
  parseMs += performance.now() - t1;
}
phases.read = readMs;
phases.parse = parseMs;
t = performance.now();
const out = shownOutput(render.filesDocument(parts));
lap('document');
process.stdout.write(JSON.stringify({ phases, files: files.length, bytes: out.length }));
