// Which documents are ours: every *.tf, *.tofu, *.tf.json and *.tofu.json file, whatever language id
// another extension gave it (terraform, opentofu, json, …), and nothing else (a Packer or Terragrunt
// .hcl file is not ours). The selector has no `language`, so it matches any language id.
import type * as vscode from 'vscode';

export const OUR_GLOB = '**/*.{tf,tofu,tf.json,tofu.json}';

export const SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: OUR_GLOB },
  { scheme: 'vscode-remote', pattern: OUR_GLOB },
];

const OURS = /\.(?:tf|tofu)(?:\.json)?$/;

export function isOurFileName(p: string): boolean {
  return OURS.test(p);
}
