// Which documents are ours: every *.tf, *.tofu, *.tf.json and *.tofu.json file, whatever language id
// another extension gave it (terraform, opentofu, json, …), and nothing else (a Packer or Terragrunt
// .hcl file is not ours). The selector has no `language`, so it matches any language id.
import type * as vscode from 'vscode';

export const OUR_GLOB = '**/*.{tf,tofu,tf.json,tofu.json}';

export const SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: OUR_GLOB },
  { scheme: 'vscode-remote', pattern: OUR_GLOB },
];

export { isOurFileName } from '../features/documents';

/**
 * `.terraform.lock.hcl`: not a configuration file and not given a language by us (another
 * extension's language, or plain text, stays); only the lock-file features attach to it by name.
 */
export const LOCK_GLOB = '**/.terraform.lock.hcl';

export const LOCK_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: LOCK_GLOB },
  { scheme: 'vscode-remote', pattern: LOCK_GLOB },
];
