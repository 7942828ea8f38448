// Dependency actions in a real VS Code extension host, where the constraint needs no edit:
// "Upgrade to newest" on a provider whose constraint already allows the newest relocks it (the
// file stays as it is, the lock file then holds the newest for the team's platforms), an upgrade
// nothing can perform says why in a warning, and "Update within constraint" on a module shows the
// version `tofu init -upgrade` installs.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { UpdateWithinResult, UpgradeResult } from '../../src/editor/dependencyActions';
import { capturingMessages, depItem, DepsFixture, startDepsFixture } from './deps-fixture';
import { closeAll, EXTENSION_ID, waitFor, workspaceDir } from './editor-helpers';

describe('dependency actions without a constraint edit (real extension host)', function () {
  this.timeout(90000);
  let fx: DepsFixture;
  let root: string;
  let stack: string;
  const LABEL = 'deps-actions/stack';
  const read = (name: string) => fs.readFileSync(path.join(stack, name), 'utf8');

  before(async () => {
    fx = await startDepsFixture();
    const h = fx.reg.host;
    root = path.join(workspaceDir(), 'deps-actions');
    stack = path.join(root, 'stack');
    fs.mkdirSync(path.join(stack, '.terraform', 'modules', 'net'), { recursive: true });
    fs.writeFileSync(path.join(stack, 'versions.tf'), `terraform {\n  required_providers {\n    random = {\n      source  = "${h}/hashicorp/random"\n      version = "~> 3.5" # keep\n    }\n  }\n}\n`);
    fs.writeFileSync(path.join(stack, 'main.tf'), `module "net" {\n  source  = "${h}/deps/net/aws"\n  version = "~> 1.0"\n}\n`);
    // no version matches: beside the stack, whose relock would otherwise fail on it
    fs.mkdirSync(path.join(root, 'stuck'));
    fs.writeFileSync(path.join(root, 'stuck', 'main.tf'), `module "stuck" {\n  source  = "${h}/deps/net/aws"\n  version = "> 5.0"\n}\n`);
    fs.writeFileSync(path.join(stack, '.terraform.lock.hcl'), `provider "${h}/hashicorp/random" {\n  version = "3.5.0"\n  hashes  = ["h1:AAAA"]\n}\n`);
    // `tofu init` installed net at 1.0.0
    fs.writeFileSync(path.join(stack, '.terraform', 'modules', 'modules.json'), JSON.stringify({ Modules: [
      { Key: '', Source: '', Dir: '.' },
      { Key: 'net', Source: `${h}/deps/net/aws`, Version: '1.0.0', Dir: '.terraform/modules/net' },
    ] }));
  });

  after(async () => {
    await closeAll();
    if (root) fs.rmSync(root, { recursive: true, force: true });
    await fx?.stop();
  });

  it('"Upgrade to newest" on a provider whose constraint already allows the newest relocks it; the file is unchanged', async () => {
    await waitFor('the stack in the graph', async () => (await fx.view.refresh())?.directories.some((d) => d.dir === stack && d.providers.length === 1), 30000);
    const random = depItem(fx.view, LABEL, 'random');
    assert.deepEqual([random.dep.locked, random.dep.newestMatching, random.dep.newest, random.dep.status], ['3.5.0', '3.6.0', '3.6.0', 'update-in-range']);
    // the item offers "Upgrade to newest" inline (the menu rule of package.json)
    const menus = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.menus['view/item/context'] as Array<{ command: string; when: string; group: string }>;
    const inline = menus.find((m) => m.command === 'tofuRegistry.dependencies.upgrade' && m.group.startsWith('inline'))!;
    assert.match(random.contextValue, new RegExp(/viewItem =~ \/(.*)\/$/.exec(inline.when)![1]));
    const filesBefore = { versions: read('versions.tf'), main: read('main.tf') };
    const { r, shown } = await capturingMessages(async (msgs) => ({ r: await vscode.commands.executeCommand<UpgradeResult>('tofuRegistry.dependencies.upgrade', random), shown: msgs }));
    assert.equal(r.applied.length, 0, 'no constraint edit');
    assert.deepEqual(r.relocked.map((x) => [x.dep.name, x.plan.version]), [['random', '3.6.0']]);
    assert.equal(r.lock?.failed, false, r.lock?.message);
    assert.deepEqual({ versions: read('versions.tf'), main: read('main.tf') }, filesBefore);
    // the newest, for every team platform, with its packages' own hashes
    assert.equal(read('.terraform.lock.hcl'), await fx.expectedLock([['hashicorp/random', '3.6.0', '~> 3.5']]));
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.match(shown[0], /^info: OpenTofu: Upgraded random → 3\.6\.0 \("~> 3\.5" already allows 3\.6\.0: the lock file moves from 3\.5\.0 to 3\.6\.0\)\. .*version changed: [^ ]*hashicorp\/random 3\.5\.0 → 3\.6\.0\.$/);
    await waitFor('the view to show random up to date', async () => (await fx.view.refresh())?.directories.find((d) => d.dir === stack)?.providers[0].status === 'up-to-date', 30000);
  });

  it('"Upgrade to newest" that nothing can perform is a warning that says why', async () => {
    await waitFor('the stuck module in the graph', async () => (await fx.view.refresh())?.directories.some((d) => d.dir === path.join(root, 'stuck')), 30000);
    const stuck = depItem(fx.view, 'deps-actions/stuck', 'stuck');
    assert.equal(stuck.dep.status, 'unsatisfiable');
    const { r, shown } = await capturingMessages(async (msgs) => ({ r: await vscode.commands.executeCommand<UpgradeResult>('tofuRegistry.dependencies.upgrade', stuck), shown: msgs }));
    assert.deepEqual([r.applied.length, r.relocked.length, r.lock], [0, 0, undefined]);
    assert.deepEqual(shown, ['warning: OpenTofu: Nothing upgraded. Cannot upgrade: module stuck: cannot rewrite "> 5.0" to reach 2.0.0.']);
  });

  it('"Update within constraint" on a module shows the version tofu init -upgrade installs', async () => {
    await waitFor('the stack in the graph', async () => (await fx.view.refresh())?.directories.some((d) => d.dir === stack), 30000);
    const net = depItem(fx.view, LABEL, 'net');
    assert.deepEqual([net.dep.locked, net.dep.newestMatching, net.dep.newest], ['1.0.0', '1.1.0', '2.0.0']);
    const lockBefore = read('.terraform.lock.hcl');
    const { r, shown } = await capturingMessages(async (msgs) => ({ r: await vscode.commands.executeCommand<UpdateWithinResult>('tofuRegistry.dependencies.updateWithin', net), shown: msgs }));
    const expected = 'module "net": nothing to edit — tofu init -upgrade installs 1.1.0 (installed: 1.0.0).';
    assert.equal(r.message, expected);
    assert.deepEqual(shown, [`info: OpenTofu: ${expected}`]);
    assert.equal(r.lock, undefined, 'a module relocks nothing');
    assert.equal(read('.terraform.lock.hcl'), lockBefore);
  });
});
