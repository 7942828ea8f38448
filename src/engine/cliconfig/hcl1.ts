// A reader of HCL 1 — what OpenTofu reads the CLI configuration (~/.tofurc) with — faithful to
// hashicorp/hcl v1 where it matters for what we print: its scanner's quoted strings (a `${` opens a
// region where quotes and newlines do not end the string until the braces balance — HCL 2's `$${`
// escape does not exist there — escapes as C's, NUL and U+E123 refused), its Unquote (text inside
// `${…}` copied as written) and the grammar of the file (blocks with string/identifier labels,
// `key = value`, objects, lists, heredocs, # // /* */ comments). Any error throws: tofu then
// reports the file as invalid and reads none of it. readCliConfigFiles (read.ts) asks it whether a
// file parses, so that we warn and skip exactly where tofu does; the values themselves are read by
// the project's HCL parser (read.ts), which keeps source ranges.

export type Hcl1Value = string | number | boolean | Hcl1Value[] | Hcl1Object;
export interface Hcl1Object { items: Hcl1Item[] }
export interface Hcl1Item { keys: string[]; value: Hcl1Value; assign: boolean }

type Tok = { type: 'IDENT' | 'STRING' | 'NUMBER' | 'BOOL' | 'HEREDOC' | 'LBRACE' | 'RBRACE' | 'LBRACK' | 'RBRACK' | 'COMMA' | 'ASSIGN' | 'EOF'; text: string; line: number };

export class Hcl1Error extends Error {
  /** The line (1-based) where hashicorp/hcl v1 stops, when known. */
  line?: number;
}

/** Nesting past MAX_HCL1_DEPTH: not an error hashicorp/hcl v1 reports, only one this reader cannot decide. */
export class Hcl1DepthError extends Hcl1Error {}
export const MAX_HCL1_DEPTH = 1000;

function hcl1Error(line: number, message: string): Hcl1Error {
  const e = new Hcl1Error(`${line}: ${message}`);
  e.line = line;
  return e;
}

function scan(src: string): Tok[] {
  const chars = [...src]; // runes
  const toks: Tok[] = [];
  let i = 0;
  let line = 1;
  const fail = (msg: string): never => { throw hcl1Error(line, msg); };
  const next = (): string | undefined => {
    const ch = chars[i++];
    if (ch === undefined) return undefined;
    if (ch === '\n') line++;
    if (ch === '\0') fail('unexpected null character (0x00)');
    if (ch === '\uE123') fail('unicode code point U+E123 reserved for internal use');
    return ch;
  };
  const peek = () => chars[i];
  const isLetter = (c: string | undefined) => !!c && (/[A-Za-z_]/.test(c) || (c.codePointAt(0)! >= 0x80 && /\p{L}/u.test(c)));
  const isDigit = (c: string | undefined) => !!c && (/[0-9]/.test(c) || (c.codePointAt(0)! >= 0x80 && /\p{Nd}/u.test(c)));
  const isDecimal = (c: string | undefined) => !!c && /[0-9]/.test(c);
  const digitVal = (c: string | undefined) => (c !== undefined && /^[0-9a-fA-F]$/.test(c) ? parseInt(c, 16) : 16);
  const scanEscape = () => {
    const c = next();
    // scanDigits: n digits of `base` from `first` on; the character after them is put back
    const digits = (base: number, n: number, first: string | undefined) => {
      let ch = first;
      let left = n;
      while (left > 0 && digitVal(ch) < base) {
        ch = next();
        if (ch === undefined) break;
        left--;
      }
      if (left > 0) fail('illegal char escape');
      if (left !== n && ch !== undefined) { i--; if (ch === '\n') line--; }
    };
    if (c !== undefined && 'abfnrtv\\"'.includes(c)) return;
    if (c !== undefined && /[0-7]/.test(c)) return digits(8, 3, c);
    if (c === 'x') return digits(16, 2, next());
    if (c === 'u') return digits(16, 4, next());
    if (c === 'U') return digits(16, 8, next());
    fail('illegal char escape');
  };
  for (;;) {
    let ch = next();
    while (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') ch = next();
    const start = i - 1;
    const tokLine = line;
    const push = (type: Tok['type']) => toks.push({ type, text: chars.slice(start, i).join(''), line: tokLine });
    if (ch === undefined) { toks.push({ type: 'EOF', text: '', line }); return toks; }
    if (isLetter(ch)) {
      while (isLetter(peek()) || isDigit(peek()) || peek() === '-' || peek() === '.') next();
      const text = chars.slice(start, i).join('');
      push(text === 'true' || text === 'false' ? 'BOOL' : 'IDENT');
    } else if (isDecimal(ch) || (ch === '-' && isDecimal(peek()))) {
      const m = /^-?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)/.exec(chars.slice(start, start + 400).join(''))!;
      i = start + [...m[0]].length;
      push('NUMBER');
    } else if (ch === '"') {
      let braces = 0;
      for (;;) {
        const c = next();
        if ((c === '\n' && braces === 0) || c === undefined) fail('literal not terminated');
        if (c === '"' && braces === 0) break;
        if (braces === 0 && c === '$' && peek() === '{') { braces++; next(); } else if (braces > 0 && c === '{') braces++;
        if (braces > 0 && c === '}') braces--;
        if (c === '\\') scanEscape();
      }
      push('STRING');
    } else if (ch === '#' || ch === '/') {
      if (ch === '#' || peek() === '/') {
        while (peek() !== undefined && peek() !== '\n') next();
      } else if (peek() === '*') {
        next();
        let prev = '';
        for (;;) {
          const c = next();
          if (c === undefined) fail('comment not terminated');
          if (prev === '*' && c === '/') break;
          prev = c!;
        }
      } else fail("expected '/' for comment");
    } else if (ch === '<') {
      if (next() !== '<') fail("heredoc expected second '<'");
      const anchorStart = i;
      if (peek() === '-') next();
      while (isLetter(peek()) || isDigit(peek())) next();
      const anchor = chars.slice(anchorStart, i).join('');
      if (peek() === '\r') next();
      if (next() !== '\n' || !anchor) fail('invalid heredoc anchor');
      const ident = anchor.replace(/^-/, '');
      for (;;) {
        const lineStart = i;
        while (peek() !== undefined && peek() !== '\n') next();
        if (new RegExp(`^\\s*${ident}\\r*$`).test(chars.slice(lineStart, i).join(''))) break;
        if (next() === undefined) fail('heredoc not terminated');
      }
      push('HEREDOC');
    } else {
      const single: Record<string, Tok['type']> = { '[': 'LBRACK', ']': 'RBRACK', '{': 'LBRACE', '}': 'RBRACE', ',': 'COMMA', '=': 'ASSIGN' };
      if (!single[ch]) fail(`illegal char ${JSON.stringify(ch)}`);
      push(single[ch]);
    }
  }
}

/** hcl/strconv.Unquote: C escapes, with `${…}` copied as written (its braces must balance). */
export function hcl1Unquote(quoted: string): string {
  let s = quoted.slice(1, -1);
  if (s.includes('\n')) throw new Hcl1Error('invalid syntax: newline in string');
  let out = '';
  while (s.length) {
    if (s.startsWith('${')) {
      out += '${';
      s = s.slice(2);
      let braces = 1;
      while (s.length && braces > 0) {
        const c = String.fromCodePoint(s.codePointAt(0)!);
        s = s.slice(c.length);
        out += c;
        if (c === '{') braces++;
        else if (c === '}') braces--;
      }
      if (braces !== 0) throw new Hcl1Error('invalid syntax: unbalanced ${');
      if (!s.length) break;
      // as Unquote: the character after the region is read as a plain one, even a `$` of another `${`
    }
    const c = s[0];
    if (c === '"') throw new Hcl1Error('invalid syntax: quote in string');
    if (c !== '\\') { const r = String.fromCodePoint(s.codePointAt(0)!); out += r; s = s.slice(r.length); continue; }
    const e = s[1];
    s = s.slice(2);
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"' };
    if (e !== undefined && simple[e] !== undefined) { out += simple[e]; continue; }
    const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hex) {
      if (!/^[0-9a-fA-F]+$/.test(s.slice(0, hex)) || s.length < hex) throw new Hcl1Error('invalid syntax: escape');
      out += String.fromCodePoint(parseInt(s.slice(0, hex), 16));
      s = s.slice(hex);
      continue;
    }
    if (e !== undefined && /[0-7]/.test(e) && /^[0-7]{2}/.test(s)) { out += String.fromCharCode(parseInt(e + s.slice(0, 2), 8)); s = s.slice(2); continue; }
    throw new Hcl1Error('invalid syntax: escape');
  }
  return out;
}

/** The items of an HCL 1 file; throws Hcl1Error where hashicorp/hcl v1 reports an error. */
export function parseHcl1(src: string): Hcl1Item[] {
  const toks = scan(src);
  let p = 0;
  const fail = (msg: string): never => { throw hcl1Error(toks[p].line, `${msg} (at ${JSON.stringify(toks[p].text)})`); };
  const unquote = (t: Tok) => {
    try { return hcl1Unquote(t.text); } catch (err) { throw hcl1Error(t.line, (err as Error).message); }
  };
  const key = (t: Tok) => (t.type === 'STRING' ? unquote(t) : t.text);
  let depth = 0;
  // hashicorp/hcl v1 recurses as deep as the file nests (Go's stacks grow); ours would overflow
  const deeper = () => {
    if (++depth > MAX_HCL1_DEPTH) throw new Hcl1DepthError(`${toks[p].line}: nested more than ${MAX_HCL1_DEPTH} levels deep`);
  };
  const value = (): Hcl1Value => {
    const t = toks[p];
    switch (t.type) {
      case 'STRING': p++; return unquote(t);
      case 'NUMBER': p++; return Number(t.text);
      case 'BOOL': p++; return t.text === 'true';
      case 'HEREDOC': p++; return t.text;
      case 'LBRACE': return object();
      case 'LBRACK': {
        deeper();
        p++;
        const list: Hcl1Value[] = [];
        while (toks[p].type !== 'RBRACK') {
          list.push(value());
          if (toks[p].type === 'COMMA') p++;
          else if (toks[p].type !== 'RBRACK') fail('expected "," or "]" in a list');
        }
        p++;
        depth--;
        return list;
      }
      default: return fail('expected a value');
    }
  };
  const object = (): Hcl1Object => {
    deeper();
    p++; // {
    const items = list('RBRACE');
    p++; // }
    depth--;
    return { items };
  };
  const list = (end: 'RBRACE' | 'EOF'): Hcl1Item[] => {
    const items: Hcl1Item[] = [];
    while (toks[p].type !== end) {
      const keys: string[] = [];
      while (toks[p].type === 'IDENT' || toks[p].type === 'STRING') keys.push(key(toks[p++]));
      if (!keys.length) fail('expected a key');
      if (toks[p].type === 'ASSIGN') {
        if (keys.length > 1) fail('nested object expected: LBRACE');
        p++;
        items.push({ keys, value: value(), assign: true });
      } else if (toks[p].type === 'LBRACE') {
        items.push({ keys, value: object(), assign: false });
      } else fail('expected "=" or "{"');
      if (toks[p].type === 'COMMA') p++;
    }
    return items;
  };
  const items = list('EOF');
  return items;
}

/** Blocks (or assignments) of a type with their labels: `credentials "h" {…}` → [{labels: ["h"], body}]. */
export function hcl1Blocks(items: Hcl1Item[], type: string): Array<{ labels: string[]; body: Hcl1Item[] }> {
  return items.filter((it) => it.keys[0] === type && !it.assign && isObject(it.value))
    .map((it) => ({ labels: it.keys.slice(1), body: (it.value as Hcl1Object).items }));
}

function isObject(v: Hcl1Value): v is Hcl1Object {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Items as a plain record (nested objects and lists too; keys of a block joined by " "), for assertions. */
export function hcl1Plain(items: Hcl1Item[]): Record<string, unknown> {
  const plain = (v: Hcl1Value): unknown => (isObject(v) ? hcl1Plain(v.items) : Array.isArray(v) ? v.map(plain) : v);
  return Object.fromEntries(items.map((it) => [it.keys.join(' '), plain(it.value)]));
}
