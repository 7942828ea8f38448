// tofu-registry COMMAND --help / -h (and `help COMMAND`): that command's usage on stdout, exit 0,
// for every command, before its own flags are looked at; after `--` an argument is taken
// literally. And the failure contract of the dispatcher: usage errors exit 2 with one line on
// stderr and nothing on stdout, even with --json; an unexpected failure exits 1 and, with --json,
// prints the {"error":{"message","url","status"}} document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import type { CliIO } from '../../../src/cli/common';
import { tempDir } from '../../support/temp';

const COMMANDS = ['inspect', 'discover', 'versions', 'resolve', 'mirror', 'mirror-modules', 'hash', 'lock', 'types', 'outdated'];
const NETWORK = new Set(['discover', 'versions', 'resolve', 'mirror', 'mirror-modules', 'lock', 'types', 'outdated']);
const work = tempDir('cli-help-');

async function run(args: string[], env: CliIO['env'] = { HOME: '/nonexistent', XDG_CACHE_HOME: join(work, 'cache') }) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env, cwd: work });
  return { code, stdout, stderr };
}

test('every command: --help and -h print its usage (the lines of the full usage) on stdout and exit 0', async () => {
  const full = (await run(['--help'])).stdout;
  for (const command of COMMANDS) {
    const help = await run([command, '--help']);
    assert.deepEqual([help.code, help.stderr], [0, ''], command);
    const synopses = help.stdout.split('\n').filter((l) => l.startsWith('usage: '));
    assert.ok(synopses.length >= 1, `${command}: ${help.stdout}`);
    for (const s of synopses) {
      assert.ok(s.startsWith(`usage: tofu-registry ${command} `), s);
      assert.ok(full.includes(`\n  ${s.slice('usage: tofu-registry '.length)}`), `${command}: "${s}" is the full usage's line`);
    }
    assert.equal(help.stdout.includes('--ca-file PATH'), NETWORK.has(command), `${command}: network flags`);
    assert.equal((await run([command, '-h'])).stdout, help.stdout, `${command} -h`);
    assert.equal((await run(['help', command])).stdout, help.stdout, `help ${command}`);
  }
  assert.match((await run(['lock', '--help'])).stdout, /^usage: tofu-registry lock \[--platform os_arch\]\.\.\. \[--upgrade\] .*\n {2}write \.terraform\.lock\.hcl for every platform/);
  assert.equal((await run(['types', '--help'])).stdout.match(/^usage: tofu-registry types (check|convert) /gm)?.length, 2);
});

test('--help wins over the other arguments (nothing runs); after -- it is an argument', async () => {
  for (const args of [['lock', '--bogus', '--help'], ['discover', 'registry.invalid', '--json', '-h'], ['types', 'convert', '--help'], ['versions', '--constraint', '1', '--help']]) {
    const r = await run(args);
    assert.deepEqual([r.code, r.stderr], [0, ''], args.join(' '));
    assert.match(r.stdout, new RegExp(`^usage: tofu-registry ${args[0]} `), args.join(' '));
  }
  const literal = await run(['hash', '--json', '--', '-h']);
  assert.equal(literal.code, 1);
  assert.match(JSON.parse(literal.stdout).error.message, /cannot hash -h: ENOENT/);
  // The real process: exit code 0, usage on stdout.
  const cli = join(__dirname, '..', '..', '..', 'src', 'cli.js');
  const p = spawnSync(process.execPath, [cli, 'mirror-modules', '--help'], { env: { HOME: '/nonexistent', PATH: process.env.PATH }, encoding: 'utf8' });
  assert.deepEqual([p.status, p.stderr], [0, '']);
  assert.match(p.stdout, /^usage: tofu-registry mirror-modules \[--out DIR\]/);
});

test('failure contract: a usage error is one line on stderr and exit 2 even with --json; an unexpected failure with --json is the error document, exit 1', async () => {
  writeFileSync(join(work, 'main.tf'), 'terraform {}\n');
  const usage = await run(['lock', '--json', '--bogus', work]);
  assert.deepEqual(usage, { code: 2, stdout: '', stderr: 'tofu-registry lock: unknown flag --bogus\n' });
  // An error no command expects (here: reading the environment throws) reaches the dispatcher.
  const boom = new Proxy({}, { get() { throw new Error('environment unreadable'); } }) as CliIO['env'];
  const json = await run(['lock', '--json', work], boom);
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.stdout), { error: { message: 'environment unreadable', url: null, status: null } });
  assert.equal(json.stderr, 'tofu-registry: environment unreadable\n');
  const human = await run(['lock', work], boom);
  assert.deepEqual(human, { code: 1, stdout: '', stderr: 'tofu-registry: environment unreadable\n' });
});
