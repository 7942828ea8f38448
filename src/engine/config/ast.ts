// The syntax tree of an OpenTofu configuration file (HCL native syntax, and the JSON syntax mapped
// onto the same shapes). Plain data: no classes, no methods, safe to cache and to send across
// processes. Every node carries its exact source range (NO_RANGE outside a scoped parse's scope).
//
// Positions are 0-based lines and UTF-16 code-unit characters (what VS Code and LSP use), plus the
// 0-based UTF-16 offset into the file text so that `text.slice(range.start.offset, range.end.offset)`
// is the node's source text.

export interface Position {
  line: number;
  character: number;
  offset: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/**
 * The range of every node outside the scope of a scoped parse (ParseOptions.scope): such a parse
 * does not compute what nobody will read. Frozen, so it is never edited in place.
 */
export const NO_RANGE: Range = Object.freeze({
  start: Object.freeze({ line: 0, character: 0, offset: 0 }),
  end: Object.freeze({ line: 0, character: 0, offset: 0 }),
});

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  message: string;
  range: Range;
  severity: Severity;
}

// ---------------------------------------------------------------------------------------------
// Structure

export interface ConfigFile {
  /** 'hcl' for .tf/.tofu, 'json' for .tf.json/.tofu.json */
  syntax: 'hcl' | 'json';
  body: Body;
  diagnostics: Diagnostic[];
}

export interface Body {
  /** Attributes and blocks in source order. */
  items: BodyItem[];
  range: Range;
}

export type BodyItem = Attribute | Block;

export interface Attribute {
  kind: 'attribute';
  name: string;
  nameRange: Range;
  expr: Expression;
  /** From the name to the end of the expression. */
  range: Range;
}

export interface BlockLabel {
  value: string;
  /** Range of the label token including its quotes, if any. */
  range: Range;
}

export interface Block {
  kind: 'block';
  type: string;
  typeRange: Range;
  labels: BlockLabel[];
  body: Body;
  /** From the type keyword to the closing brace (or to where recovery ended the block). */
  range: Range;
  /** False when the closing brace was missing and the parser recovered. */
  closed: boolean;
}

// ---------------------------------------------------------------------------------------------
// Expressions

export type Expression =
  | LiteralExpr
  | TemplateExpr
  | TupleExpr
  | ObjectExpr
  | VariableExpr
  | GetAttrExpr
  | IndexExpr
  | SplatExpr
  | CallExpr
  | ConditionalExpr
  | BinaryExpr
  | UnaryExpr
  | ForExpr
  | ParenExpr
  | InvalidExpr;

interface ExprBase {
  range: Range;
}

/** number, bool, null, or a quoted string/heredoc with no interpolation or directive. */
export interface LiteralExpr extends ExprBase {
  kind: 'literal';
  value: string | number | boolean | null;
  /** Quoted strings and heredocs: the content (between the quotes; to the end of the line when unterminated). */
  contentRange?: Range;
  /** Quoted strings and heredocs: the closing quote/marker was missing. */
  unterminated?: boolean;
  /** 'quoted' | 'heredoc' for strings written as templates (absent for numbers, bools, null, bare object keys). */
  quoting?: 'quoted' | 'heredoc';
}

/** A quoted string or heredoc containing at least one `${…}` or `%{…}`. */
export interface TemplateExpr extends ExprBase {
  kind: 'template';
  parts: TemplatePart[];
  heredoc: boolean;
  /** The content (between the quotes / heredoc markers; to the end of the line when unterminated). */
  contentRange?: Range;
  unterminated?: boolean;
}

export type TemplatePart =
  | { kind: 'text'; value: string; range: Range }
  | { kind: 'interpolation'; expr: Expression; range: Range }
  | { kind: 'if'; cond: Expression; then: TemplatePart[]; else?: TemplatePart[]; range: Range }
  | { kind: 'for'; keyVar?: string; valueVar: string; collection: Expression; body: TemplatePart[]; range: Range };

export interface TupleExpr extends ExprBase {
  kind: 'tuple';
  items: Expression[];
}

export interface ObjectItem {
  /** A bare identifier key is a LiteralExpr string with `bareKey: true` semantics (see keyIsBare). */
  key: Expression;
  keyIsBare: boolean;
  value: Expression;
  range: Range;
}

export interface ObjectExpr extends ExprBase {
  kind: 'object';
  items: ObjectItem[];
}

/** A root name: `var`, `local`, `string` (in type expressions), `each`, … */
export interface VariableExpr extends ExprBase {
  kind: 'variable';
  name: string;
}

export interface GetAttrExpr extends ExprBase {
  kind: 'getattr';
  target: Expression;
  name: string;
}

export interface IndexExpr extends ExprBase {
  kind: 'index';
  target: Expression;
  key: Expression;
  /** true for legacy `foo.0` index syntax */
  legacy: boolean;
}

export interface SplatExpr extends ExprBase {
  kind: 'splat';
  target: Expression;
  /** `[*]` is full, `.*` is an attribute-only splat */
  full: boolean;
  /** The traversal applied to each element (relative, rooted at an implicit element), if any. */
  each?: Expression;
}

export interface CallExpr extends ExprBase {
  kind: 'call';
  name: string;
  nameRange: Range;
  args: Expression[];
  /** `f(list...)` */
  expandFinal: boolean;
}

export interface ConditionalExpr extends ExprBase {
  kind: 'conditional';
  cond: Expression;
  then: Expression;
  else: Expression;
}

export type BinaryOp = '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';

export interface BinaryExpr extends ExprBase {
  kind: 'binary';
  op: BinaryOp;
  left: Expression;
  right: Expression;
}

export interface UnaryExpr extends ExprBase {
  kind: 'unary';
  op: '!' | '-';
  operand: Expression;
}

export interface ForExpr extends ExprBase {
  kind: 'for';
  keyVar?: string;
  valueVar: string;
  collection: Expression;
  /** Present for object `for` expressions (`{for k, v in x : k => v}`). */
  keyExpr?: Expression;
  valueExpr: Expression;
  cond?: Expression;
  /** `...` grouping in object for expressions */
  grouping: boolean;
}

export interface ParenExpr extends ExprBase {
  kind: 'paren';
  expr: Expression;
}

/** What the parser produced where the source was broken; a diagnostic explains it. */
export interface InvalidExpr extends ExprBase {
  kind: 'invalid';
}
