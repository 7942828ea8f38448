// The editor's one log ("Show log"), made safe in one place: every line any feature writes passes
// through safeText, so a module source, an error from git or a helper, or a pre-signed URL in a
// message never shows user:password, a secret query value or a credential sent in this session,
// nor a control character a server sent, whoever forgot to clean it.
// Pure (no vscode import): it wraps any object with the LogOutputChannel's writing methods.
import { safeText } from '../engine/net/http-errors';

// a log line: one line (a server's newline escaped); a stack trace keeps its own line breaks
const clean = (text: string, keep = ''): string => safeText(text, keep);

/** The methods of vscode.LogOutputChannel (and OutputChannel) that write text. */
const WRITERS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

function redactArg(arg: unknown): unknown {
  if (typeof arg === 'string') return clean(arg);
  if (arg instanceof Error) {
    const e = new Error(clean(arg.message));
    e.name = arg.name;
    e.stack = arg.stack === undefined ? undefined : clean(arg.stack, '\n');
    return e;
  }
  if (arg !== null && typeof arg === 'object') {
    // VS Code would serialise it; serialise it here so its strings are redacted too.
    try { return clean(JSON.stringify(arg)); } catch { return clean(String(arg)); }
  }
  return arg;
}

/**
 * `channel` with every writing method redacting its arguments (strings, errors, objects); every
 * other member is the channel's own (show, dispose, logLevel, onDidChangeLogLevel, …).
 */
export function redactingLog<T extends object>(channel: T): T {
  return new Proxy(channel, {
    get(target, prop) {
      const member = Reflect.get(target, prop, target) as unknown;
      if (typeof member !== 'function') return member;
      const fn = member as (...args: unknown[]) => unknown;
      if (typeof prop === 'string' && WRITERS.has(prop)) return (...args: unknown[]) => fn.apply(target, args.map(redactArg));
      return fn.bind(target);
    },
  });
}
