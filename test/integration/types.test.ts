// Module inputs in a real VS Code extension host: completion of input names and a type-mismatch
// diagnostic, for a local module and for a registry module served as a tar.gz over HTTPS.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startTestRegistry, TestRegistry } from '../support/registry-server';
import { tarGz } from '../unit/types/archives';
import { closeAll, completions, extensionApi, hoverText, labelOf, openFile, positionOf, trustTestCa, waitFor, workspaceDir } from './editor-helpers';

const VARS = `variable "name" {
  type        = string
  description = "Name prefix."
}
variable "cidrs" {
  type = list(string)
}
variable "settings" {
  type = object({
    owner   = string
    enabled = optional(bool, true)
  })
  default = null
}
`;

function typeDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'tofu-registry types');
}

function sortedLabels(items: vscode.CompletionItem[], names: string[]): string[] {
  return items.filter((i) => names.includes(labelOf(i)))
    .sort((a, b) => (a.sortText ?? labelOf(a)).localeCompare(b.sortText ?? labelOf(b)))
    .map(labelOf);
}

describe('type constraints and module inputs (real extension host)', function () {
  this.timeout(60000);
  let reg: TestRegistry;

  before(async () => {
    reg = await startTestRegistry();
    reg.addModule({ namespace: 'typetest', name: 'net', system: 'aws', versions: ['1.0.0', '1.2.0'] });
    reg.addFile('/archives/typetest/net/aws/1.2.0.tar.gz', tarGz([{ name: 'variables.tf', data: VARS }]), 'application/gzip');
    const api = await extensionApi();
    await trustTestCa(api, reg);
    const mod = path.join(workspaceDir(), 'types-local', 'modules', 'net');
    fs.mkdirSync(mod, { recursive: true });
    fs.writeFileSync(path.join(mod, 'variables.tf'), VARS);
  });

  after(async () => {
    await closeAll();
    await reg?.stop();
  });

  for (const kind of ['local', 'registry'] as const) {
    it(`${kind} module: input completion (required first, typed) and a type-mismatch diagnostic`, async () => {
      const source = kind === 'local' ? './modules/net' : `${reg.host}/typetest/net/aws`;
      const version = kind === 'local' ? '' : '  version = "~> 1.0"\n';
      const doc = await openFile(`types-local/${kind}.tf`,
        `module "net" {\n  source  = "${source}"\n${version}  cidrs   = ["10.0.0.0/24", ["nested"]]\n  \n}\n`);
      const diag = await waitFor(`type mismatch diagnostic on ${kind}.tf`, () =>
        typeDiagnostics(doc.uri).find((d) => /Invalid value for input variable "cidrs"/.test(d.message)), 30000);
      assert.match(diag.message, /element 1: string required, but got tuple/);
      assert.equal(doc.getText(diag.range), '["nested"]');
      assert.equal(diag.severity, vscode.DiagnosticSeverity.Error);
      const missing = typeDiagnostics(doc.uri).find((d) => /Missing required argument/.test(d.message));
      assert.ok(missing && /"name"/.test(missing.message), 'missing required input "name" is reported');

      const items = await completions(doc, positionOf(doc, '  \n}', 2));
      assert.deepEqual(sortedLabels(items, ['name', 'settings', 'cidrs']), ['name', 'settings'], 'unset inputs, required first');
      const name = items.find((i) => labelOf(i) === 'name')!;
      assert.equal((name.label as vscode.CompletionItemLabel).description, 'string');
      assert.match(String(name.detail), /required · string/);
      assert.match((name.documentation as vscode.MarkdownString).value, /Name prefix\./);

      const hover = await hoverText(doc, positionOf(doc, 'cidrs', 2));
      assert.match(hover, /list\(string\)/);
    });
  }

  it('hover on a var.NAME reference shows the variable declared in another file of the directory', async () => {
    fs.writeFileSync(path.join(workspaceDir(), 'types-local', 'inputs.tf'),
      'variable "region" {\n  type        = string\n  default     = "eu-west-1"\n  description = "Region to deploy to."\n}\n');
    const doc = await openFile('types-local/refs.tf', 'locals {\n  where = "in-${var.region}"\n}\n');
    const hover = await hoverText(doc, positionOf(doc, 'var.region', 5));
    assert.match(hover, /Variable.*region/);
    assert.match(hover, /type = string/);
    assert.match(hover, /Region to deploy to\./);
    assert.match(hover, /default `"eu-west-1"`/);
  });

  it('hover on a variable type spells out optional attributes and defaults; bad defaults are diagnosed', async () => {
    const doc = await openFile('types-local/vars.tf',
      'variable "s" {\n  type = object({ owner = string, enabled = optional(bool, true) })\n  default = { enabled = false }\n}\n');
    const hover = await hoverText(doc, positionOf(doc, 'object(', 2));
    assert.match(hover, /enabled = optional\(bool, true\)/);
    assert.match(hover, /owner {3}= string/);
    const d = await waitFor('invalid default diagnostic', () =>
      typeDiagnostics(doc.uri).find((x) => /Invalid default value for variable/.test(x.message)));
    assert.match(d.message, /attribute "owner" is required by object type/);
  });
});
