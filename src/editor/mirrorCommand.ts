// Placeholder: implemented by the mirror issue ("OpenTofu: Mirror providers"). Called once from activate().
import type * as vscode from 'vscode';
import type { EditorServices } from './services';

export function registerMirrorCommand(_context: vscode.ExtensionContext, _services: EditorServices): void {}
