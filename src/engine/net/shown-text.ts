// Text from outside — a registry, a git remote, a discovery document, a helper — as a person or a
// log may see it: control characters escaped (a tag holding a newline cannot write a line of its
// own, an ESC sequence cannot repaint a terminal, a bidi override cannot reorder what is read), and
// none of the credential values this process sent, whatever a server echoed back. The messages,
// the log sinks and the CLI's printing layer all pass through here (http-errors.ts `safeText`).

// C0 controls, DEL, C1 controls, the line and paragraph separators and the bidirectional
// formatting characters ("Trojan Source", CVE-2021-42574).
const CONTROL_RANGES: [number, number][] = [[0x00, 0x1f], [0x7f, 0x9f], [0x61c, 0x61c], [0x200e, 0x200f], [0x2028, 0x2029], [0x202a, 0x202e], [0x2066, 0x2069]];
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The controls to escape, less those in `keep`, as one character class: the kept ones never
 * reach the replace callback. The CLI's output keeps its line breaks, and a callback per line
 * break of a large --json document (≈ 100k of them for `inspect` of 11.5 MB) took ≈ 30 ms.
 */
const patterns = new Map<string, RegExp>();
function controlPattern(keep: string): RegExp {
  let re = patterns.get(keep);
  if (!re) {
    const hex = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
    const parts: string[] = [];
    for (const [from, to] of CONTROL_RANGES) {
      let start = -1;
      for (let c = from; c <= to + 1; c++) {
        const escaped = c <= to && !keep.includes(String.fromCharCode(c));
        if (escaped && start < 0) start = c;
        if (!escaped && start >= 0) { parts.push(start === c - 1 ? hex(start) : `${hex(start)}-${hex(c - 1)}`); start = -1; }
      }
    }
    re = new RegExp(`[${parts.join('')}]`, 'g');
    if (patterns.size < 16) patterns.set(keep, re); // callers pass a few constant sets
  }
  return re;
}

/**
 * `text` with every control character written as an escape (`\n`, `\x1b`, `\u202e`); `keep` lists
 * those left as they are. From DEL up the escape is `\uXXXX`, which is also valid inside the JSON
 * text of --json (JSON.stringify escapes the C0 controls itself, not DEL, C1 or bidi characters).
 */
export function escapeControls(text: string, keep = ''): string {
  return text.replace(controlPattern(keep), (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

// The secrets sent in this process live on globalThis: each CLI command runs from a bundle of its
// own (scripts/build.mjs), each with a copy of this module, and the printing layer is in another.
const KEY = Symbol.for('tofu-registry.sent-secrets');
/** Shorter values are not tracked: hiding every "abc" in the output would garble it, and such a secret protects nothing. */
export const MIN_TRACKED_SECRET = 4;
const MAX_TRACKED = 2000;

function sentSecrets(): Set<string> {
  const g = globalThis as { [KEY]?: Set<string> };
  return (g[KEY] ??= new Set<string>());
}

/**
 * Records a credential value about to be sent (a password, a Basic blob, a token — also one a
 * token service handed out), with the forms a server may echo it in (JSON-escaped, URL-encoded):
 * from then on redactSentSecrets hides it in everything printed or logged by this process.
 */
export function rememberSentSecret(value: string | undefined): void {
  if (!value || value.length < MIN_TRACKED_SECRET) return;
  const set = sentSecrets();
  for (const form of new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), escapeControls(value)])) {
    if (set.has(form)) continue;
    set.add(form);
    // a long-running editor session: the oldest go first (a server echoes what it was just sent)
    if (set.size > MAX_TRACKED) set.delete(set.values().next().value!);
  }
}

/** `text` with every credential value sent in this process replaced by "***" (longest first, so a Basic blob goes whole). */
export function redactSentSecrets(text: string): string {
  const set = sentSecrets();
  if (!set.size || !text) return text;
  let out = text;
  for (const s of [...set].sort((a, b) => b.length - a.length)) {
    if (out.includes(s)) out = out.split(s).join('***');
  }
  return out;
}

/**
 * What the CLI's printing layer writes: the product's own layout (line breaks, tabs) kept, every
 * other control character escaped and every credential value sent in this run as "***". Server
 * strings cannot bring a line break here: messages and quoted values were escaped on their way in
 * (RegistryError, shortText), and --json escapes every control character itself.
 */
export function shownOutput(text: string): string {
  return escapeControls(redactSentSecrets(text), '\n\t');
}
