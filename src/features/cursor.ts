// Where the cursor is, read from the text itself so that it works while the user is typing
// (an unterminated `version = "~> 5.` that the parser had to recover from). Pure (no vscode).

export interface StringAtCursor {
  attr: 'version' | 'source';
  /** Offsets of the string content (inside the quotes). */
  contentStart: number;
  contentEnd: number;
  /** Line and UTF-16 columns of the content, for building ranges. */
  line: number;
  startChar: number;
  endChar: number;
  value: string;
  terminated: boolean;
}

export interface TextOwner {
  kind: 'module' | 'provider';
  name: string;
  source?: string;
  /** Offset where the owning block/entry starts. */
  start: number;
}

function lineBounds(text: string, offset: number): { start: number; end: number; line: number } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  let end = text.indexOf('\n', offset);
  if (end < 0) end = text.length;
  if (end > start && text[end - 1] === '\r') end--;
  let line = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) line++;
  return { start, end, line };
}

const KEY_BEFORE = /(?:^|[\s{,])"?(version|source)"?\s*[=:]\s*$/;

/** The `version = "…"` / `source = "…"` string the cursor is in (HCL or JSON syntax), if any. */
export function stringAtCursor(text: string, offset: number, lineHint?: number): StringAtCursor | undefined {
  const { start, end, line: computed } = lineBounds(text, offset);
  const line = lineHint ?? computed;
  let i = start;
  while (i < end) {
    const ch = text[i];
    if (ch === '#' || (ch === '/' && text[i + 1] === '/')) return undefined;
    if (ch !== '"') { i++; continue; }
    const open = i;
    let j = i + 1;
    while (j < end && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    const terminated = j < end;
    const close = Math.min(j, end);
    if (offset > open && offset <= close) {
      const m = KEY_BEFORE.exec(text.slice(start, open));
      if (!m) return undefined;
      return {
        attr: m[1] as 'version' | 'source', contentStart: open + 1, contentEnd: close, line,
        startChar: open + 1 - start, endChar: close - start, value: text.slice(open + 1, close), terminated,
      };
    }
    i = close + 1;
  }
  return undefined;
}

function braceDelta(line: string): number {
  let d = 0;
  let inStr = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '#' || (c === '/' && line[i + 1] === '/')) break;
    else if (c === '{') d++;
    else if (c === '}') d--;
  }
  return d;
}

const MODULE_HEAD = /^\s*module\s+"([^"]*)"\s*\{/;
const ENTRY_HEAD = /^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*\{/;
const SOURCE_ATTR = /(?:^|[\s{,])source\s*=\s*"([^"\n]*)"/;

/**
 * Fallback when the syntax tree could not place the cursor (a block broken by what is being typed):
 * walk up the lines to the enclosing `module "x" {` or `name = {` of required_providers, and read
 * its `source` from the block's lines.
 */
export function ownerByText(text: string, offset: number): TextOwner | undefined {
  const lines = text.split('\n');
  const { line: cur, start: curStart } = lineBounds(text, offset);
  // The cursor line itself may hold the whole entry: `aws = { source = "…", version = "…" }`
  const own = lines[cur] ?? '';
  const ownEntry = ENTRY_HEAD.exec(own);
  if (ownEntry) return { kind: 'provider', name: ownEntry[1], source: SOURCE_ATTR.exec(own)?.[1], start: curStart };
  let depth = 0;
  for (let l = cur - 1; l >= 0 && l > cur - 400; l--) {
    depth += braceDelta(lines[l]);
    if (depth <= 0) continue;
    const mod = MODULE_HEAD.exec(lines[l]);
    const entry = mod ? null : ENTRY_HEAD.exec(lines[l]);
    if (!mod && !entry) return undefined;
    let source: string | undefined;
    let d = 0;
    for (let k = l; k < lines.length && k < l + 400; k++) {
      const s = SOURCE_ATTR.exec(lines[k]);
      if (s && d <= 1 && k !== cur) { source = s[1]; break; }
      d += braceDelta(lines[k]);
      if (k > l && d <= 0) break;
    }
    let start = 0;
    for (let k = 0; k < l; k++) start += lines[k].length + 1;
    return mod ? { kind: 'module', name: mod[1], source, start } : { kind: 'provider', name: entry![1], source, start };
  }
  return undefined;
}
