// The JSON syntax (.tf.json, .tofu.json) mapped onto the same Body/Block/Attribute shapes.
// Without provider schemas, which keys are blocks is decided by OpenTofu's known block types
// (module, variable, resource, terraform { required_providers } …); everything else is an
// attribute. A string containing `${` / `%{` is a template; `variable.type` is an HCL expression.
import { Attribute, Block, BlockLabel, Body, BodyItem, ConfigFile, Diagnostic, Expression, ObjectItem, Range } from './ast';
import { parseEmbedded } from './parser';
import { LineMap } from './tokens';

type JVal =
  | { t: 'obj'; members: JMember[]; start: number; end: number }
  | { t: 'arr'; items: JVal[]; start: number; end: number }
  | { t: 'str'; value: string; escaped: boolean; start: number; end: number }
  | { t: 'lit'; value: number | boolean | null; start: number; end: number }
  | { t: 'err'; start: number; end: number };

interface JMember { key: string; keyStart: number; keyEnd: number; value: JVal }

/** Label counts of the top-level block types; nested block types per parent. */
const TOP_BLOCKS: Record<string, number> = {
  module: 1, variable: 1, output: 1, provider: 1, resource: 2, data: 2, ephemeral: 2, terraform: 0, locals: 0,
  moved: 0, import: 0, removed: 0, check: 1,
};
const NESTED_BLOCKS: Record<string, Record<string, number>> = {
  terraform: { required_providers: 0, backend: 1, cloud: 0, encryption: 0 },
  variable: { validation: 0 },
  output: { precondition: 0 },
};

class JsonReader {
  i = 0;
  diags: Diagnostic[] = [];
  failed = false;
  constructor(readonly text: string, readonly lm: LineMap) {}

  ws(): void {
    const t = this.text;
    for (let c = t.charCodeAt(this.i); c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff; c = t.charCodeAt(++this.i));
  }

  fail(message: string): JVal {
    const at = Math.min(this.i, this.text.length);
    if (!this.failed) this.diags.push({ message, range: this.lm.range(at, Math.min(at + 1, this.text.length)), severity: 'error' });
    this.failed = true;
    return { t: 'err', start: at, end: at };
  }

  private depth = 0;

  value(): JVal {
    if (this.depth >= 200) return this.fail('JSON nested too deeply');
    this.depth++;
    try {
      return this.valueInner();
    } finally {
      this.depth--;
    }
  }

  private valueInner(): JVal {
    this.ws();
    const t = this.text;
    const start = this.i;
    const c = t.charCodeAt(start);
    if (c === 123) return this.object();
    if (c === 91) return this.array();
    if (c === 34) return this.string();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (t.startsWith(word, start)) { this.i += word.length; return { t: 'lit', value, start, end: this.i }; }
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      let j = start + 1;
      for (let d = t.charCodeAt(j); (d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45; d = t.charCodeAt(++j));
      const n = Number(t.slice(start, j));
      if (!Number.isNaN(n)) { this.i = j; return { t: 'lit', value: n, start, end: j }; }
    }
    return this.fail(start >= t.length ? 'Unexpected end of JSON input' : `Unexpected character "${t[start]}" in JSON`);
  }

  string(): JVal & { t: 'str' } {
    const t = this.text;
    const start = this.i;
    let j = start + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === 34) break;
      if (j >= t.length || c === 10) {
        this.fail('Unterminated JSON string');
        this.i = j;
        return { t: 'str', value: t.slice(start + 1, j), escaped, start, end: j };
      }
      if (c === 92) { escaped = true; j += 2; continue; }
      j++;
    }
    this.i = j + 1;
    let value = t.slice(start + 1, j);
    if (escaped) {
      try { value = JSON.parse(t.slice(start, j + 1)) as string; } catch { this.fail('Invalid escape in JSON string'); }
    }
    return { t: 'str', value, escaped, start, end: j + 1 };
  }

  object(): JVal {
    const start = this.i++;
    const members: JMember[] = [];
    for (;;) {
      this.ws();
      if (this.text.charCodeAt(this.i) === 125) { this.i++; break; }
      if (members.length) {
        if (this.text.charCodeAt(this.i) !== 44) { this.fail('Expected "," or "}" in JSON object'); break; }
        this.i++;
        this.ws();
      }
      if (this.text.charCodeAt(this.i) !== 34) { this.fail('Expected a property name in JSON object'); break; }
      const key = this.string();
      this.ws();
      if (this.text.charCodeAt(this.i) !== 58) { this.fail('Expected ":" after a JSON property name'); break; }
      this.i++;
      const value = this.value();
      members.push({ key: key.value, keyStart: key.start, keyEnd: key.end, value });
      if (this.failed) break;
    }
    return { t: 'obj', members, start, end: this.i };
  }

  array(): JVal {
    const start = this.i++;
    const items: JVal[] = [];
    for (;;) {
      this.ws();
      if (this.text.charCodeAt(this.i) === 93) { this.i++; break; }
      if (items.length) {
        if (this.text.charCodeAt(this.i) !== 44) { this.fail('Expected "," or "]" in JSON array'); break; }
        this.i++;
      }
      items.push(this.value());
      if (this.failed) break;
    }
    return { t: 'arr', items, start, end: this.i };
  }
}

class Mapper {
  constructor(readonly text: string, readonly lm: LineMap, readonly diags: Diagnostic[]) {}

  r(start: number, end: number): Range {
    return this.lm.range(start, end);
  }

  blocks(type: string, typeStart: number, typeEnd: number, v: JVal, nLabels: number, labels: BlockLabel[], out: BodyItem[], nested: Record<string, number> | undefined): void {
    if (v.t === 'arr') {
      for (const item of v.items) this.blocks(type, typeStart, typeEnd, item, nLabels, labels, out, nested);
      return;
    }
    if (v.t !== 'obj') {
      this.diags.push({ message: `Expected a JSON object for the ${type} block`, range: this.r(v.start, v.end), severity: 'error' });
      return;
    }
    if (nLabels > 0) {
      for (const m of v.members) {
        this.blocks(type, typeStart, typeEnd, m.value, nLabels - 1, [...labels, { value: m.key, range: this.r(m.keyStart, m.keyEnd) }], out, nested);
      }
      return;
    }
    const block: Block = {
      kind: 'block', type, typeRange: this.r(typeStart, typeEnd), labels, body: this.body(v, type, nested),
      range: this.r(typeStart, v.end), closed: this.text.charCodeAt(v.end - 1) === 125,
    };
    out.push(block);
  }

  body(v: JVal & { t: 'obj' }, type: string, nested: Record<string, number> | undefined): Body {
    const items: BodyItem[] = [];
    for (const m of v.members) {
      if (m.key === '//') continue;
      const n = nested?.[m.key];
      if (n !== undefined) {
        this.blocks(m.key, m.keyStart, m.keyEnd, m.value, n, [], items, undefined);
        continue;
      }
      const asType = type === 'variable' && m.key === 'type';
      const attr: Attribute = {
        kind: 'attribute', name: m.key, nameRange: this.r(m.keyStart, m.keyEnd), expr: this.expr(m.value, asType),
        range: this.r(m.keyStart, m.value.end),
      };
      items.push(attr);
    }
    return { items, range: this.r(v.start, v.end) };
  }

  expr(v: JVal, asExpression: boolean): Expression {
    const range = this.r(v.start, v.end);
    switch (v.t) {
      case 'lit': return { kind: 'literal', value: v.value, range };
      case 'err': return { kind: 'invalid', range };
      case 'arr': return { kind: 'tuple', items: v.items.map((x) => this.expr(x, false)), range };
      case 'obj': {
        const items: ObjectItem[] = v.members.map((m) => ({
          key: { kind: 'literal', value: m.key, range: this.r(m.keyStart, m.keyEnd) }, keyIsBare: false,
          value: this.expr(m.value, false), range: this.r(m.keyStart, m.value.end),
        }));
        return { kind: 'object', items, range };
      }
      case 'str': {
        const closed = this.text.charCodeAt(v.end - 1) === 34 && v.end - v.start >= 2;
        const cs = v.start + 1;
        const ce = closed ? v.end - 1 : v.end;
        if (!asExpression && v.value.indexOf('${') < 0 && v.value.indexOf('%{') < 0) {
          return { kind: 'literal', value: v.value, range, contentRange: this.r(cs, ce), quoting: 'quoted', unterminated: closed ? undefined : true };
        }
        let parsed: { expr: Expression; diagnostics: Diagnostic[] };
        if (!v.escaped) {
          parsed = parseEmbedded(this.text, this.lm, cs, ce, !asExpression);
        } else {
          // Escapes shift offsets: parse the decoded text on its own and pin every range to the string.
          parsed = parseEmbedded(v.value, new LineMap(v.value), 0, v.value.length, !asExpression);
          pinRanges(parsed.expr, range);
          for (const d of parsed.diagnostics) d.range = range;
        }
        this.diags.push(...parsed.diagnostics);
        const e = parsed.expr;
        if (e.kind === 'template') { e.range = range; e.contentRange = this.r(cs, ce); }
        return e;
      }
    }
  }
}

function pinRanges(node: unknown, range: Range): void {
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (key === 'range' || key === 'nameRange' || key === 'contentRange') o[key] = range;
    else pinRanges(o[key], range);
  }
}

/** Parses a file in the JSON syntax (.tf.json, .tofu.json). Never throws. */
export function parseJsonConfig(text: string): ConfigFile {
  const lm = new LineMap(text);
  const reader = new JsonReader(text, lm);
  const root = reader.value();
  reader.ws();
  if (!reader.failed && reader.i < text.length) reader.fail('Unexpected text after the JSON document');
  const diags = reader.diags;
  const items: BodyItem[] = [];
  const mapper = new Mapper(text, lm, diags);
  if (root.t === 'obj') {
    for (const m of root.members) {
      if (m.key === '//') continue;
      mapper.blocks(m.key, m.keyStart, m.keyEnd, m.value, TOP_BLOCKS[m.key] ?? 0, [], items, NESTED_BLOCKS[m.key]);
    }
  } else if (root.t !== 'err') {
    diags.push({ message: 'The root of a JSON configuration file must be an object', range: lm.range(root.start, root.end), severity: 'error' });
  }
  return { syntax: 'json', body: { items, range: lm.range(0, text.length) }, diagnostics: diags };
}
