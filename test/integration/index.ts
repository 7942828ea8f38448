// The Mocha entry run INSIDE the VS Code extension host (same `run()` contract as
// @vscode/test-electron's extensionTestsPath, and as scripts/run-vscode-tests.js's payload).
// Loads every test/integration/*.test.js beside it, so other features can drop their own files here.
// Runs with a mode (TOFU_REGISTRY_TEST_MODE) load only their own files: `untrusted` (untrusted
// workspace) runs *.untrusted.test.js, `coexist` (a Terraform language extension installed beside
// ours) runs *.coexist.test.js; a normal run every other *.test.js.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const resultFile = process.env.VSCODE_TEST_RESULTS;
  const mode = process.env.TOFU_REGISTRY_TEST_MODE === 'untrusted' || process.env.TOFU_REGISTRY_TEST_MODE === 'coexist'
    ? process.env.TOFU_REGISTRY_TEST_MODE : 'integration';
  const modeOf = (f: string): string => /\.(untrusted|coexist)\.test\.js$/.exec(f)?.[1] ?? 'integration';
  const lines: string[] = [];
  const log = (s: string): void => {
    lines.push(s);
    console.log(s);
  };
  const mocha = new Mocha({ ui: 'bdd', timeout: 30000, color: false });
  if (process.env.TOFU_REGISTRY_TEST_GREP) mocha.grep(process.env.TOFU_REGISTRY_TEST_GREP);
  const files = fs.readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js') && modeOf(f) === mode)
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  return new Promise((resolve, reject) => {
    let runner: Mocha.Runner;
    try {
      runner = mocha.run((failures) => {
        const passes = runner.stats?.passes ?? 0;
        if (passes + failures === 0) log('not ok - no integration test ran');
        log(`${passes} passed, ${failures + (passes + failures === 0 ? 1 : 0)} failed`); // CI-parsable closing line
        if (resultFile) fs.writeFileSync(resultFile, lines.join('\n') + '\n');
        if (failures || passes === 0) reject(new Error(`${failures} integration tests failed.`));
        else resolve();
      });
    } catch (err) {
      log(`not ok - loading the integration tests: ${err instanceof Error ? err.stack : String(err)}`);
      log('0 passed, 1 failed');
      if (resultFile) fs.writeFileSync(resultFile, lines.join('\n') + '\n');
      reject(err);
      return;
    }
    runner.on('pass', (t) => log(`ok - ${t.fullTitle()} (${t.duration}ms)`));
    runner.on('fail', (t, e: Error) => log(`not ok - ${t.fullTitle()}: ${e && (e.stack || e.message)}`));
  });
}
