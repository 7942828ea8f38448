// `tofu-registry outdated` end to end against the HTTPS test registry, over real files: every
// status from a real case, `selected` as `tofu init` picks it (module and provider rules, the lock
// file and installed modules respected), the exact JSON shape, one request per distinct
// module/provider across directories, and the exit codes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { main } from '../../../src/cli';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';
import { tempDir } from '../../support/temp';

let reg: TestRegistry;
let ws: string;

function write(rel: string, text: string): void {
  const p = join(ws, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

/** A required_providers block: [local name, "namespace/type", constraint]. */
const providers = (entries: Array<[string, string, string]>) => ['terraform {\n  required_providers {',
  ...entries.map(([name, addr, c]) => `    ${name} = {\n      source  = "${reg.host}/${addr}"\n      version = "${c}"\n    }`),
  '  }\n}\n'].join('\n');

const lock = (entries: Array<[string, string]>) => entries.map(([addr, v]) =>
  `provider "${addr}" {\n  version     = "${v}"\n  constraints = "~> 1.0"\n  hashes = [\n    "h1:AAAA",\n  ]\n}\n`).join('\n');

before(async () => {
  reg = await startTestRegistry();
  ws = tempDir('tofu-registry-outdated-');
  const h = reg.host;
  // stack-a: modules of every status (acme/network/aws: 1.0.0 … 1.10.0, 2.0.0, 2.1.0, 3.0.0-rc.1)
  write('stack-a/main.tf', [
    `module "uptodate" {\n  source  = "${h}/acme/network/aws"\n  version = "~> 2.0"\n}`,
    `module "inrange" {\n  source  = "${h}/acme/network/aws"\n  version = "~> 1.2"\n}`,
    `module "outrange" {\n  source  = "${h}/acme/network/aws"\n  version = "~> 1.2"\n}`,
    `module "pessimistic" {\n  source  = "${h}/acme/network/aws"\n  version = "~> 1"\n}`,
    `module "unsat" {\n  source  = "${h}/acme/network/aws"\n  version = "> 5.0"\n}`,
    `module "missing" {\n  source  = "${h}/acme/missing/aws"\n  version = "~> 1.0"\n}`,
    `module "down" {\n  source  = "127.0.0.1:1/acme/network/aws"\n  version = "~> 1.0"\n}`,
    `module "local" {\n  source = "./modules/local"\n}`,
    '',
  ].join('\n'));
  write('stack-a/modules/local/main.tf', 'variable "x" {}\n');
  // `tofu init` installed "inrange" at 1.2.0 (it keeps that while it matches the constraint)
  write('stack-a/.terraform/modules/inrange/main.tf', '');
  write('stack-a/.terraform/modules/modules.json', JSON.stringify({ Modules: [
    { Key: '', Source: '', Dir: '.' },
    { Key: 'inrange', Source: `${h}/acme/network/aws`, Version: '1.2.0', Dir: '.terraform/modules/inrange' },
  ] }));
  // stack-b: providers (acme/widget: 1.0.0, 1.1.0, 2.0.0-alpha1, 2.0.0; hashicorp/random: 3.5.0, 3.6.0)
  write('stack-b/versions.tf', providers([['widget', 'acme/widget', '~> 1'], ['random', 'hashicorp/random', '~> 3.0']]));
  write('stack-b/.terraform.lock.hcl', lock([[`${h}/acme/widget`, '1.0.0'], [`${h}/hashicorp/random`, '3.6.0']]));
  // stack-c: no lock; an exact prerelease pin; a child module's constraint narrows the root's
  write('stack-c/versions.tf', providers([['widget', 'acme/widget', '>= 1.0'], ['random', 'hashicorp/random', '3.5.0']]) +
    'module "child" {\n  source = "./modules/child"\n}\n');
  write('stack-c/modules/child/versions.tf', providers([['widget', 'acme/widget', '< 2.0.0']]) +
    `module "net" {\n  source  = "${h}/acme/network/aws"\n  version = "~> 1.2"\n}\n`);
  // tofu init installed the child's "net" at 1.2.0 (modules.json key "child.net")
  write('stack-c/.terraform/modules/child.net/main.tf', '');
  write('stack-c/.terraform/modules/modules.json', JSON.stringify({ Modules: [
    { Key: '', Source: '', Dir: '.' },
    { Key: 'child', Source: './modules/child', Dir: 'modules/child' },
    { Key: 'child.net', Source: `${h}/acme/network/aws`, Version: '1.2.0', Dir: '.terraform/modules/child.net' },
  ] }));
  // stack-d: the lock contradicts the constraint; an exactly requested prerelease
  write('stack-d/versions.tf', providers([['widget', 'acme/widget', '~> 2.0'], ['pre', 'hashicorp/random', '~> 3.6']]));
  write('stack-d/.terraform.lock.hcl', lock([[`${h}/acme/widget`, '1.1.0']]));
  write('stack-e/versions.tf', providers([['widget', 'acme/widget', '2.0.0-alpha1']]));
  write('current/versions.tf', providers([['random', 'hashicorp/random', '~> 3.6']]));
  // stack-f: a lock file tofu init refuses (hashes must be a list)
  write('stack-f/versions.tf', providers([['widget', 'acme/widget', '~> 1.0']]));
  write('stack-f/.terraform.lock.hcl', `provider "${h}/acme/widget" {\n  version = "1.0.0"\n  hashes  = "h1:AAAA"\n}\n`);
  // acme/beta: the newest published version is a prerelease (2.1.0-beta1 > 2.0.0)
  reg.addProvider({ namespace: 'acme', type: 'beta', versions: ['1.0.0', '2.0.0', '2.1.0-beta1'].map((version) => ({ version, platforms: [] })) });
  write('beta-locked/versions.tf', providers([['beta', 'acme/beta', '~> 2.0']]));
  write('beta-locked/.terraform.lock.hcl', lock([[`${h}/acme/beta`, '2.0.0']]));
  write('beta-old/versions.tf', providers([['beta', 'acme/beta', '~> 1.0']]));
  write('beta-old/.terraform.lock.hcl', lock([[`${h}/acme/beta`, '1.0.0']]));
  write('beta-named/versions.tf', providers([['beta', 'acme/beta', '2.1.0-beta1']]));
  // stack-g: the locked version (1.0.5) is not (or no longer) published
  write('stack-g/versions.tf', providers([['widget', 'acme/widget', '~> 1.0']]));
  write('stack-g/.terraform.lock.hcl', lock([[`${h}/acme/widget`, '1.0.5']]));
});

after(async () => { await reg?.stop(); });

async function run(args: string[], cwd = ws) {
  let stdout = '', stderr = '';
  const env = { HOME: '/nonexistent', XDG_CACHE_HOME: tempDir('tofu-registry-outdated-cache-') };
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, env, cwd });
  return { code, stdout, stderr };
}

type Row = Record<string, string | null>;
const pick = (rows: Row[], dir: string, name: string) => {
  const r = rows.find((x) => x.dir === dir && x.name === name);
  assert.ok(r, `a row for ${dir} ${name} in ${JSON.stringify(rows.map((x) => `${x.dir}:${x.name}`))}`);
  return r;
};
const brief = (r: Row) => [r.locked, r.selected, r.newestMatching, r.newest, r.status];

test('outdated --json: every status from a real case, selected as tofu init picks it', async () => {
  reg.server.resetLog();
  const r = await run(['outdated', '--json', '--ca-file', reg.caCertPath, '--timeout', '5']);
  assert.equal(r.code, 1, r.stderr);
  const rows = (JSON.parse(r.stdout) as { dependencies: Row[] }).dependencies;
  const h = reg.host;
  // the exact shape of one row, and its field order: the documented one (deepEqual ignores key order)
  for (const row of rows) {
    assert.deepEqual(Object.keys(row), ['dir', 'kind', 'name', 'source', 'constraint', 'locked', 'selected', 'newestMatching', 'newest', 'status', 'message']);
  }
  assert.deepEqual(pick(rows, 'stack-a', 'inrange'), {
    dir: 'stack-a', kind: 'module', name: 'inrange', source: `${h}/acme/network/aws`, constraint: '~> 1.2',
    locked: '1.2.0', selected: '1.2.0', newestMatching: '1.10.0', newest: '2.1.0', status: 'update-in-range', message: null,
  });
  assert.deepEqual(brief(pick(rows, 'stack-a', 'uptodate')), [null, '2.1.0', '2.1.0', '2.1.0', 'up-to-date']);
  assert.deepEqual(brief(pick(rows, 'stack-a', 'outrange')), [null, '1.10.0', '1.10.0', '2.1.0', 'update-out-of-range']);
  // module rules: "~> 1" has no upper bound (go-version), so init picks 2.1.0; never the 3.0.0-rc.1
  assert.deepEqual(brief(pick(rows, 'stack-a', 'pessimistic')), [null, '2.1.0', '2.1.0', '2.1.0', 'up-to-date']);
  const unsat = pick(rows, 'stack-a', 'unsat');
  assert.deepEqual(brief(unsat), [null, null, null, '2.1.0', 'unsatisfiable']);
  assert.equal(unsat.message, 'no version matches "> 5.0" (newest 2.1.0)');
  const missing = pick(rows, 'stack-a', 'missing');
  assert.equal(missing.status, 'not-found');
  assert.match(missing.message!, new RegExp(`module ${h.replace(/\./g, '\\.')}/acme/missing/aws not found on ${h.replace(/\./g, '\\.')}`));
  const down = pick(rows, 'stack-a', 'down');
  assert.equal(down.status, 'error');
  assert.match(down.message!, /127\.0\.0\.1:1/);
  assert.deepEqual(pick(rows, 'stack-a', 'local'), {
    dir: 'stack-a', kind: 'module', name: 'local', source: './modules/local', constraint: null, locked: null,
    selected: null, newestMatching: null, newest: null, status: 'up-to-date', message: 'local module: not versioned',
  });
  // provider rules: "~> 1" is < 2.0.0; the lock holds 1.0.0 back
  const widgetB = pick(rows, 'stack-b', 'widget');
  assert.equal(widgetB.source, `${h}/acme/widget`);
  assert.deepEqual(brief(widgetB), ['1.0.0', '1.0.0', '1.1.0', '2.0.0', 'update-in-range']);
  assert.deepEqual(brief(pick(rows, 'stack-b', 'random')), ['3.6.0', '3.6.0', '3.6.0', '3.6.0', 'up-to-date']);
  // a child module's "< 2.0.0" joins the root's ">= 1.0"; an exact pin below the newest
  const widgetC = pick(rows, 'stack-c', 'widget');
  assert.equal(widgetC.constraint, '>= 1.0, < 2.0.0');
  assert.deepEqual(brief(widgetC), [null, '1.1.0', '1.1.0', '2.0.0', 'update-out-of-range']);
  assert.deepEqual(brief(pick(rows, 'stack-c', 'random')), [null, '3.5.0', '3.5.0', '3.6.0', 'update-out-of-range']);
  // stack-c/modules/child is stack-c's child module, not a configuration of its own: its widget
  // constraint is counted once, in stack-c's row above, and its module call is one of stack-c's
  // (tofu init installs it: modules.json key "child.net" holds 1.2.0 back)
  assert.deepEqual(rows.filter((x) => x.dir!.startsWith('stack-c/')), []);
  assert.deepEqual(pick(rows, 'stack-c', 'net'), {
    dir: 'stack-c', kind: 'module', name: 'net', source: `${h}/acme/network/aws`, constraint: '~> 1.2', locked: '1.2.0',
    selected: '1.2.0', newestMatching: '1.10.0', newest: '2.1.0', status: 'update-in-range', message: null,
  });
  // the lock contradicts the constraint: tofu init fails until -upgrade
  const widgetD = pick(rows, 'stack-d', 'widget');
  assert.deepEqual(brief(widgetD), ['1.1.0', null, '2.0.0', '2.0.0', 'unsatisfiable']);
  assert.match(widgetD.message!, /locked version 1\.1\.0 does not match "~> 2\.0".*tofu init -upgrade/);
  // a prerelease only when the constraint names it exactly; the newest release is still offered
  assert.deepEqual(brief(pick(rows, 'stack-e', 'widget')), [null, '2.0.0-alpha1', '2.0.0-alpha1', '2.0.0', 'update-out-of-range']);
  // a lock file tofu refuses: init fails, whatever the registry offers
  const widgetF = pick(rows, 'stack-f', 'widget');
  assert.deepEqual(brief(widgetF), ['1.0.0', null, '1.1.0', '2.0.0', 'error']);
  assert.match(widgetF.message!, /^tofu init refuses the lock file: .*stack-f\/\.terraform\.lock\.hcl:3: /);
  // a locked version the registry does not list: tofu init fails ("no longer available"), the lock is still shown
  const widgetG = pick(rows, 'stack-g', 'widget');
  assert.deepEqual(brief(widgetG), ['1.0.5', null, '1.1.0', '2.0.0', 'error']);
  assert.equal(widgetG.message, 'locked version 1.0.5 is no longer available from the registry: tofu init fails until the lock is updated (tofu init -upgrade)');
  // a newer prerelease is never the newest nor an upgrade: not newer than 2.0.0 for "~> 2.0" (up to date),
  // not the target beyond "~> 1.0"; only a constraint naming it selects it
  assert.deepEqual(brief(pick(rows, 'beta-locked', 'beta')), ['2.0.0', '2.0.0', '2.0.0', '2.0.0', 'up-to-date']);
  assert.deepEqual(brief(pick(rows, 'beta-old', 'beta')), ['1.0.0', '1.0.0', '1.0.0', '2.0.0', 'update-out-of-range']);
  assert.deepEqual(brief(pick(rows, 'beta-named', 'beta')), [null, '2.1.0-beta1', '2.1.0-beta1', '2.1.0-beta1', 'up-to-date']);
  // one versions request per distinct module/provider, however many directories use it
  assert.equal(reg.server.count('/v1/modules/acme/network/aws/versions'), 1);
  assert.equal(reg.server.count('/v1/providers/acme/widget/versions'), 1);
  assert.equal(reg.server.count('/v1/providers/hashicorp/random/versions'), 1);
  assert.equal(reg.server.count('/.well-known/terraform.json'), 1);
});

test('outdated: table output, exit 0 when everything is up to date, usage and failure exits', async () => {
  const ok = await run(['outdated', '--ca-file', reg.caCertPath, 'current']);
  assert.equal(ok.code, 0, ok.stderr);
  const lines = ok.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^DIR\s+KIND\s+NAME\s+CONSTRAINT\s+LOCKED\s+SELECTED\s+MATCHING\s+NEWEST\s+STATUS$/);
  assert.match(lines[1], /^current\s+provider\s+random\s+~> 3\.6\s+-\s+3\.6\.0\s+3\.6\.0\s+3\.6\.0\s+up-to-date$/);
  assert.equal(lines.length, 2);
  const table = await run(['outdated', '--ca-file', reg.caCertPath, 'stack-d']);
  assert.equal(table.code, 1);
  assert.match(table.stdout, /stack-d: provider widget: locked version 1\.1\.0 does not match/);
  // a child module directory: left out when found by walking, listed when named
  const walked = await run(['outdated', '--ca-file', reg.caCertPath, 'stack-c']);
  assert.equal(walked.code, 1);
  assert.deepEqual(walked.stdout.split('\n').slice(1).filter(Boolean).map((l) => l.split(/\s+/).slice(0, 3).join(' ')),
    ['stack-c module child', 'stack-c module child.net', 'stack-c provider widget', 'stack-c provider random']);
  assert.equal(walked.stderr, '4 dependencies: 3 outdated, 0 with problems\n');
  const named = await run(['outdated', '--json', '--ca-file', reg.caCertPath, 'stack-c', 'stack-c/modules/child']);
  assert.deepEqual((JSON.parse(named.stdout) as { dependencies: Row[] }).dependencies.map((x) => `${x.dir} ${x.name}`),
    ['stack-c child', 'stack-c net', 'stack-c widget', 'stack-c random', 'stack-c/modules/child net', 'stack-c/modules/child widget']);
  const usage = await run(['outdated', '--bogus']);
  assert.equal(usage.code, 2);
  assert.equal(usage.stderr, 'tofu-registry outdated: unknown flag --bogus\n');
  const nodir = await run(['outdated', '--json', 'no-such-dir']);
  assert.equal(nodir.code, 1);
  assert.deepEqual(JSON.parse(nodir.stdout), { error: { message: 'no-such-dir is not a directory', url: null, status: null } });
});
