// Placeholder: implemented by the type-constraints issue (hover on types, module input completion,
// type diagnostics). Called once from activate().
import type * as vscode from 'vscode';
import type { EditorServices } from './services';

export function registerTypeFeatures(_context: vscode.ExtensionContext, _services: EditorServices): void {}
