// Placeholder: implemented by its issue. Replace this file.
import { CliIO } from './common';
export async function runInspect(_args: string[], io: CliIO): Promise<number> { io.stderr('not implemented yet\n'); return 1; }
