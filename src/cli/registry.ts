// Placeholder: implemented by its issue. Replace this file.
import { CliIO } from './common';
export async function runDiscover(_args: string[], io: CliIO): Promise<number> { io.stderr('not implemented yet\n'); return 1; }
export async function runVersions(_args: string[], io: CliIO): Promise<number> { io.stderr('not implemented yet\n'); return 1; }
export async function runResolve(_args: string[], io: CliIO): Promise<number> { io.stderr('not implemented yet\n'); return 1; }
