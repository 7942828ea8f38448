// What the editor features need from one parsed document: the module calls and the provider
// requirements, with the exact ranges of their `source` and `version` values. Pure (no vscode):
// works on the syntax-tree contract (src/engine/config/ast.ts) plus the document text.
import type { Attribute, Block, BodyItem, ConfigFile, Expression, ObjectExpr, Range } from '../engine/config/ast';

export interface ValueRef {
  /** The string value when the expression is a plain literal string; null otherwise. */
  value: string | null;
  /** The whole expression (with quotes). */
  range: Range;
  /** Inside the quotes (literal strings only). */
  contentRange?: Range;
  /** The attribute (name … value). */
  attrRange: Range;
}

export interface ModuleRef {
  kind: 'module';
  name: string;
  /** The block (module "name" { … }). */
  range: Range;
  headerRange: Range;
  source?: ValueRef;
  version?: ValueRef;
  /** Indentation used by the block's attributes (for inserting `version`). */
  indent: string;
}

export interface ProviderRef {
  kind: 'provider';
  /** Local name (`aws` in `aws = { … }`). */
  name: string;
  /** The entry (name = { … } or name = "constraint"). */
  range: Range;
  headerRange: Range;
  source?: ValueRef;
  version?: ValueRef;
  /** True when the entry is the legacy `name = "constraint"` form. */
  legacy: boolean;
  indent: string;
}

export type Ref = ModuleRef | ProviderRef;

export interface DocRefs {
  modules: ModuleRef[];
  providers: ProviderRef[];
}

function stringValue(expr: Expression, attrRange: Range, text: string): ValueRef {
  const ref: ValueRef = { value: null, range: expr.range, attrRange };
  if (expr.kind === 'literal' && typeof expr.value === 'string') {
    ref.value = expr.value;
    if (expr.contentRange) {
      ref.contentRange = expr.contentRange;
      return ref;
    }
    const s = expr.range.start;
    const e = expr.range.end;
    if (text.charCodeAt(s.offset) === 0x22 /* " */) {
      const closed = e.offset - s.offset >= 2 && text.charCodeAt(e.offset - 1) === 0x22;
      const endOff = closed ? e.offset - 1 : e.offset;
      ref.contentRange = {
        start: { line: s.line, character: s.character + 1, offset: s.offset + 1 },
        end: { line: e.line, character: e.character - (closed ? 1 : 0), offset: endOff },
      };
    }
  }
  return ref;
}

function indentOf(text: string, offset: number): string {
  let i = offset;
  while (i > 0 && text[i - 1] !== '\n') i--;
  const m = /^[ \t]*/.exec(text.slice(i, i + 200));
  return m ? m[0] : '';
}

function attrs(items: BodyItem[]): Map<string, Attribute> {
  const m = new Map<string, Attribute>();
  for (const it of items) if (it.kind === 'attribute') m.set(it.name, it);
  return m;
}

function objectKey(item: ObjectExpr['items'][number]): string | undefined {
  const k = item.key;
  if (k.kind === 'literal' && typeof k.value === 'string') return k.value;
  if (k.kind === 'variable') return k.name;
  return undefined;
}

function moduleRef(block: Block, text: string): ModuleRef {
  const a = attrs(block.body.items);
  const src = a.get('source');
  const ver = a.get('version');
  const first = block.body.items[0];
  return {
    kind: 'module',
    name: block.labels[0]?.value ?? '',
    range: block.range,
    headerRange: { start: block.typeRange.start, end: (block.labels[block.labels.length - 1]?.range ?? block.typeRange).end },
    source: src ? stringValue(src.expr, src.range, text) : undefined,
    version: ver ? stringValue(ver.expr, ver.range, text) : undefined,
    indent: first ? indentOf(text, first.range.start.offset) : indentOf(text, block.range.start.offset) + '  ',
  };
}

function providerRefs(block: Block, text: string, out: ProviderRef[]): void {
  for (const it of block.body.items) {
    if (it.kind !== 'attribute') continue;
    const base = { kind: 'provider' as const, name: it.name, range: it.range, headerRange: it.nameRange };
    if (it.expr.kind === 'object') {
      const ref: ProviderRef = { ...base, legacy: false, indent: '' };
      for (const item of it.expr.items) {
        const key = objectKey(item);
        if (key === 'source') ref.source = stringValue(item.value, item.range, text);
        else if (key === 'version') ref.version = stringValue(item.value, item.range, text);
      }
      const first = it.expr.items[0];
      ref.indent = first && first.range.start.line !== it.range.start.line
        ? indentOf(text, first.range.start.offset) : indentOf(text, it.range.start.offset) + '  ';
      out.push(ref);
    } else {
      // legacy `aws = "~> 1.0"`: a version constraint only, source implied
      out.push({ ...base, legacy: true, indent: indentOf(text, it.range.start.offset),
        version: stringValue(it.expr, it.range, text) });
    }
  }
}

/** Module calls and required_providers entries of one file, in source order. */
export function collectRefs(file: ConfigFile, text: string): DocRefs {
  const modules: ModuleRef[] = [];
  const providers: ProviderRef[] = [];
  for (const it of file.body.items) {
    if (it.kind !== 'block') continue;
    if (it.type === 'module' && it.labels.length >= 1) modules.push(moduleRef(it, text));
    else if (it.type === 'terraform') {
      for (const inner of it.body.items) {
        if (inner.kind === 'block' && inner.type === 'required_providers') providerRefs(inner, text, providers);
      }
    }
  }
  return { modules, providers };
}

export function contains(r: Range, offset: number): boolean {
  return r.start.offset <= offset && offset <= r.end.offset;
}

/** The module call or provider entry whose range contains the offset. */
export function refAt(refs: DocRefs, offset: number): Ref | undefined {
  return refs.modules.find((m) => contains(m.range, offset)) ?? refs.providers.find((p) => contains(p.range, offset));
}

/** Which attribute value of a ref the offset is in (value range, quotes included). */
export function valueAt(ref: Ref, offset: number): { attr: 'source' | 'version'; value: ValueRef } | undefined {
  if (ref.version && contains(ref.version.range, offset)) return { attr: 'version', value: ref.version };
  if (ref.source && contains(ref.source.range, offset)) return { attr: 'source', value: ref.source };
  return undefined;
}

/** Which attribute (name or value) of a ref the offset is on: for hovers. */
export function attributeAt(ref: Ref, offset: number): { attr: 'source' | 'version'; value: ValueRef } | undefined {
  if (ref.version && contains(ref.version.attrRange, offset)) return { attr: 'version', value: ref.version };
  if (ref.source && contains(ref.source.attrRange, offset)) return { attr: 'source', value: ref.source };
  return undefined;
}

/**
 * `parse` remembered per source text (the same sources are parsed on every keystroke's
 * diagnostics, hover and completion); forgets everything past `max` entries.
 */
export function memoizedSourceParser<T>(parse: (source: string) => T | undefined, max = 2000): (source: string) => T | undefined {
  const parsed = new Map<string, T | null>();
  return (source) => {
    let p = parsed.get(source);
    if (p === undefined) {
      if (parsed.size > max) parsed.clear();
      p = parse(source) ?? null;
      parsed.set(source, p);
    }
    return p ?? undefined;
  };
}
