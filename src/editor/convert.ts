// Engine ranges (plain data) → vscode ranges.
import * as vscode from 'vscode';
import type { Range } from '../engine/config/ast';

export function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
