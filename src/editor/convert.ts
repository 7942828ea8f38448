// Feature ranges (plain data) → vscode ranges.
import * as vscode from 'vscode';
import type { LineRange } from '../features/completion';

export function toRange(r: LineRange): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
