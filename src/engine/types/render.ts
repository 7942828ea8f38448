// Rendering: types in OpenTofu's type syntax (canonical one-line form like hcl's TypeString, and
// an indented form for hovers), values as HCL literals, and values in `tofu console` notation.
import { ObjectAttribute, Type, friendlyName } from './model';
import { NamedValue, Value } from './value';

const IDENT_RE = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_-]*$/u;

function attrName(name: string): string {
  return IDENT_RE.test(name) ? name : JSON.stringify(name);
}

/**
 * Canonical one-line form (hcl typeexpr.TypeString, plus optional markers and defaults):
 * `list(object({enabled=optional(bool,true),name=string}))`. Attributes in name order.
 */
export function renderType(t: Type): string {
  switch (t.kind) {
    case 'list': case 'set': case 'map': return `${t.kind}(${renderType(t.element)})`;
    case 'tuple': return `tuple([${t.elements.map(renderType).join(',')}])`;
    case 'object': return `object({${t.attributes.map((a) => `${attrName(a.name)}=${renderAttrType(a, renderType, true)}`).join(',')}})`;
    default: return t.kind;
  }
}

function renderAttrType(a: ObjectAttribute, render: (t: Type) => string, compact: boolean): string {
  if (!a.optional) return render(a.type);
  if (a.defaultRaw === undefined) return `optional(${render(a.type)})`;
  return `optional(${render(a.type)},${compact ? '' : ' '}${renderHclValue(a.defaultRaw, compact)})`;
}

/**
 * Indented form for hovers: objects one attribute per line, `=` aligned like `tofu fmt`.
 */
export function renderTypePretty(t: Type, indent = 0): string {
  const pad = ' '.repeat(indent + 2);
  switch (t.kind) {
    case 'list': case 'set': case 'map': return `${t.kind}(${renderTypePretty(t.element, indent)})`;
    case 'tuple': {
      const parts = t.elements.map((e) => renderTypePretty(e, indent + 2));
      if (parts.every((p) => !p.includes('\n')) && parts.join(', ').length < 60) return `tuple([${parts.join(', ')}])`;
      return `tuple([\n${parts.map((p) => pad + p).join(',\n')},\n${' '.repeat(indent)}])`;
    }
    case 'object': {
      if (!t.attributes.length) return 'object({})';
      const width = Math.max(...t.attributes.map((a) => attrName(a.name).length));
      const lines = t.attributes.map((a) =>
        `${pad}${attrName(a.name).padEnd(width)} = ${renderAttrType(a, (x) => renderTypePretty(x, indent + 2), false)}`);
      return `object({\n${lines.join('\n')}\n${' '.repeat(indent)}})`;
    }
    default: return t.kind;
  }
}

// ---------------------------------------------------------------------------------------------
// HCL literal syntax

export function hclString(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      default: {
        const cp = ch.codePointAt(0)!;
        out += cp < 0x20 || cp === 0x7f ? `\\u${cp.toString(16).padStart(4, '0')}` : ch;
      }
    }
  }
  return out.replace(/\$\{/g, '$${').replace(/%\{/g, '%%{') + '"';
}

/** A value as an HCL literal: `{ name = "a", tags = ["x"] }` (compact: `{name="a",tags=["x"]}`). */
export function renderHclValue(v: Value, compact = false): string {
  const sep = compact ? ',' : ', ';
  const eq = compact ? '=' : ' = ';
  const named = (items: NamedValue[]) => {
    if (!items.length) return '{}';
    const body = items.map((a) => `${attrName(a.name)}${eq}${renderHclValue(a.value, compact)}`).join(sep);
    return compact ? `{${body}}` : `{ ${body} }`;
  };
  switch (v.kind) {
    case 'string': return hclString(v.value);
    case 'number': return v.value;
    case 'bool': return String(v.value);
    case 'null': return 'null';
    case 'unknown': return '(known after apply)';
    case 'tuple': case 'list': case 'set': return `[${v.elements.map((e) => renderHclValue(e, compact)).join(sep)}]`;
    case 'object': return named(v.attributes);
    case 'map': return named(v.entries);
  }
}

// ---------------------------------------------------------------------------------------------
// `tofu console` notation (OpenTofu internal/repl FormatValue)


export function formatValue(v: Value, indent = 0): string {
  switch (v.kind) {
    case 'unknown': return '(known after apply)';
    case 'null': {
      const t = v.type;
      switch (t.kind) {
        case 'any': return 'null';
        case 'string': return 'tostring(null)';
        case 'number': return 'tonumber(null)';
        case 'bool': return 'tobool(null)';
        case 'list': return `tolist(null) /* of ${friendlyName(t.element)} */`;
        case 'set': return `toset(null) /* of ${friendlyName(t.element)} */`;
        case 'map': return `tomap(null) /* of ${friendlyName(t.element)} */`;
        default: return `null /* ${friendlyName(t)} */`;
      }
    }
    case 'string': return formatMultiline(v.value, indent) ?? goQuote(v.value);
    case 'number': return v.value;
    case 'bool': return String(v.value);
    case 'tuple': return formatSequence(v.elements, indent);
    case 'list': return `tolist(${formatSequence(v.elements, indent)})`;
    case 'set': return `toset(${formatSequence(v.elements, indent)})`;
    case 'object': return formatMapping(v.attributes, indent);
    case 'map': return `tomap(${formatMapping(v.entries, indent)})`;
  }
}

function formatMultiline(s: string, indent: number): string | undefined {
  const lines = s.split('\n');
  if (lines.length < 2) return undefined;
  const op = indent > 0 ? '<<-' : '<<';
  let delim = 'EOT';
  while (lines.some((l) => l.trim() === delim)) delim += '_';
  const pad = ' '.repeat(indent);
  return `${op}${delim}${lines.map((l) => `\n${pad}${l}`).join('')}\n${pad}${delim}`;
}

function formatSequence(elems: Value[], indent: number): string {
  if (!elems.length) return '[]';
  const pad = ' '.repeat(indent + 2);
  return `[${elems.map((e) => `\n${pad}${formatValue(e, indent + 2)},`).join('')}\n${' '.repeat(indent)}]`;
}

function formatMapping(items: NamedValue[], indent: number): string {
  if (!items.length) return '{}';
  const pad = ' '.repeat(indent + 2);
  // Keys are formatted like any string value (a key with a newline becomes a heredoc).
  const key = (name: string) => formatMultiline(name, indent + 2) ?? goQuote(name);
  return `{${items.map((a) => `\n${pad}${key(a.name)} = ${formatValue(a.value, indent + 2)}`).join('')}\n${' '.repeat(indent)}}`;
}

/** Go's strconv.Quote: printable characters as they are, everything else escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if ((cp >= 0x80 && cp <= 0x9f) || cp === 0xad || (cp >= 0xd800 && cp <= 0xdfff) ||
      (cp >= 0x200b && cp <= 0x200f) || cp === 0x2028 || cp === 0x2029 || cp === 0xfeff) {
      out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return out + '"';
}
