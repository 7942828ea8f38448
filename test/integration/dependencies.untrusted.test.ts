// Run only in an UNTRUSTED workspace: the dependencies view still shows the local facts
// (constraints, lock file versions) but no request reaches the registry (counted on the server).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { extensionApi, workspaceDir } from './editor-helpers';

describe('untrusted workspace: dependencies view without network', function () {
  this.timeout(60000);
  let reg: TestRegistry;

  before(async () => { reg = await startTestRegistry(); });
  after(async () => { await reg?.stop(); });

  it('lists modules and providers with their local facts and asks no registry', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'this suite runs in an untrusted workspace');
    const dir = path.join(workspaceDir(), 'untrusted-deps');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'main.tf'), `module "net" {\n  source  = "${reg.host}/acme/network/aws"\n  version = "~> 1.0"\n}\n` +
      `terraform {\n  required_providers {\n    widget = {\n      source  = "${reg.host}/acme/widget"\n      version = "~> 1.0"\n    }\n  }\n}\n`);
    fs.writeFileSync(path.join(dir, '.terraform.lock.hcl'), `provider "${reg.host}/acme/widget" {\n  version = "1.0.0"\n}\n`);
    const view = (await extensionApi()).dependencies!;
    const graph = await view.refresh();
    const d = graph?.directories.find((x) => x.dir === dir);
    assert.ok(d, 'the directory is in the graph');
    const items = view.getChildren(view.getChildren().find((n) => n.label === 'untrusted-deps')).flatMap((g) => view.getChildren(g));
    assert.deepEqual(items.map((n) => n.description).sort(), ['~> 1.0 · locked 1.0.0 · registry not asked', '~> 1.0 · registry not asked']);
    assert.equal(reg.server.requests.length, 0);
  });
});
