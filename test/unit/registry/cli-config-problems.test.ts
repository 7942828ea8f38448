// A CLI configuration file that does not parse: tofu prints "There are some problems with the CLI
// configuration" with the file and the error, reads none of that file and goes on with the rest.
// So do we — one warning on stderr (CLI) and in the engine's log — against the real HTTPS registry.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { readCliConfigFiles } from '../../../src/engine/cliconfig/read';
import { testEngine, tempDir, withRegistry } from '../../support/registry-helpers';

const temps: Array<{ remove: () => void }> = [];
after(() => temps.forEach((t) => t.remove()));
function freshDir(): string {
  const t = tempDir('tofu-registry-cliconfig-');
  temps.push(t);
  return t.path;
}

async function run(args: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env: { XDG_CACHE_HOME: freshDir(), ...env }, cwd: process.cwd() });
  return { code, stdout, stderr };
}

const PREFIX = 'tofu-registry: warning: There are some problems with the CLI configuration: ';

test('a ~/.tofurc and a .tfrc.json that do not parse: one warning naming both, the rest of the configuration still used', () => withRegistry({ token: 'secret-from-the-good-file' }, async (reg) => {
  const home = freshDir();
  // an unclosed block (tofu: "Error parsing …/.tofurc: At 4:1: …")
  writeFileSync(join(home, '.tofurc'), `credentials "${reg.host}" {\n  token = "wrong-token"\n\n`);
  mkdirSync(join(home, '.terraform.d'));
  writeFileSync(join(home, '.terraform.d', 'broken.tfrc.json'), '{"credentials": {"x.example": {"token": }}}');
  // the rest: a file that parses, whose token the registry requires
  writeFileSync(join(home, '.terraform.d', 'good.tfrc'), `credentials "${reg.host}" {\n  token = "secret-from-the-good-file"\n}\n`);
  const r = await run(['versions', `${reg.host}/acme/network/aws`, '--json', '--ca-file', reg.caCertPath], { HOME: home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).selected, '2.1.0', 'the command goes on, with the token of the file that parses');
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `one warning: ${r.stderr}`);
  assert.ok(lines[0].startsWith(PREFIX), lines[0]);
  assert.match(lines[0], new RegExp(`Error parsing ${join(home, '.tofurc').replace(/[.]/g, '\\.')}: line \\d+: `));
  assert.match(lines[0], new RegExp(`Error parsing ${join(home, '.terraform.d', 'broken.tfrc.json').replace(/[.]/g, '\\.')}: .*JSON`));
  assert.match(lines[0], /These files are ignored/);
  assert.doesNotMatch(r.stderr, /secret-from-the-good-file|wrong-token/, 'no token in the message');
}));

test('TF_CLI_CONFIG_FILE in the JSON form that does not parse: the warning, then the command answers (human and --json output)', () => withRegistry({}, async (reg) => {
  const cfg = join(freshDir(), 'config.tfrc.json');
  writeFileSync(cfg, '{\n  "host": {"x.example": {"services": {"modules.v1": "https://x.example/"}}},\n');
  for (const json of [true, false]) {
    const r = await run(['discover', reg.host, ...(json ? ['--json'] : []), '--ca-file', reg.caCertPath], { HOME: '/nonexistent', TF_CLI_CONFIG_FILE: cfg });
    assert.equal(r.code, 0, r.stderr);
    const [head, rest] = [r.stderr.slice(0, PREFIX.length + `Error parsing ${cfg}: `.length), r.stderr.slice(PREFIX.length + `Error parsing ${cfg}: `.length)];
    assert.equal(head, `${PREFIX}Error parsing ${cfg}: `);
    assert.match(rest, /^[^\n]*JSON[^\n]*\. This file is ignored, as OpenTofu ignores a CLI configuration file it cannot read; the rest of the configuration is used\.\n$/);
    if (json) assert.equal(JSON.parse(r.stdout).host, reg.host, 'stdout holds only the JSON answer');
  }
}));

test('a file HCL 1 reads (quoted keys, identifier labels) gives no warning; an unterminated string does, with the line where HCL 1 stops (after the newline)', () => withRegistry({}, async (reg) => {
  const dir = freshDir();
  const ok = join(dir, 'ok.tfrc');
  writeFileSync(ok, 'credentials app.terraform.io {\n  "token" = "t"\n}\nplugin_cache_dir = "/tmp/x"\n');
  const quiet = await run(['discover', reg.host, '--json', '--ca-file', reg.caCertPath], { HOME: '/nonexistent', TF_CLI_CONFIG_FILE: ok });
  assert.deepEqual([quiet.code, quiet.stderr], [0, '']);
  const bad = join(dir, 'bad.tfrc');
  writeFileSync(bad, '# comment\ncredentials "a.example" {\n  token = "unterminated\n}\n');
  const r = await run(['discover', reg.host, '--json', '--ca-file', reg.caCertPath], { HOME: '/nonexistent', TF_CLI_CONFIG_FILE: bad });
  assert.equal(r.code, 0);
  assert.match(r.stderr, new RegExp(`^${PREFIX.replace(/[.]/g, '\\.')}Error parsing ${bad.replace(/[.]/g, '\\.')}: line 4: literal not terminated`));
}));

test('the engine: one warning in the log, the onCliConfigProblem callback once, the broken file read as empty (as tofu reads none of it)', () => withRegistry({}, async (reg) => {
  const cfg = join(freshDir(), 'tofurc');
  writeFileSync(cfg, `host "${reg.host}" {\n  services = { "modules.v1" = "https://elsewhere.invalid/" }\n}\ncredentials "a.example" {\n`);
  const problems: string[] = [];
  const engine = testEngine(reg, { cliConfigFile: cfg, onCliConfigProblem: (m) => problems.push(m) });
  try {
    const d = await engine.discoverServices(reg.host);
    assert.equal(d.services['modules.v1'], `${reg.origin}/v1/modules/`, 'the host block of the broken file is not used');
    await engine.listModuleVersions(`${reg.host}/acme/network/aws`);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^There are some problems with the CLI configuration: Error parsing .*tofurc: line 5: /);
    assert.deepEqual(engine.logs.filter((l) => l.level === 'warn').map((l) => l.message), problems);
  } finally {
    await engine.dispose();
  }
  // control characters from the file never reach a terminal
  const ctl = join(freshDir(), 'ctl.tfrc.json');
  writeFileSync(ctl, '{"a": "\x1b[31m\x07');
  const files = readCliConfigFiles([ctl], (m) => problems.push(m));
  assert.equal(files[0].problem !== undefined, true);
  assert.doesNotMatch(problems[1], /[\x00-\x1f]/);
}));
