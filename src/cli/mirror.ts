// Placeholder: implemented by its issue. Replace this file.
import { CliIO } from './common';
export async function runMirror(_args: string[], io: CliIO): Promise<number> { io.stderr('not implemented yet\n'); return 1; }
export async function runHash(_args: string[], io: CliIO): Promise<number> { io.stderr('not implemented yet\n'); return 1; }
