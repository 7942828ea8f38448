// Shared test data for the configuration tests: broken inputs for the recovery test (also used by
// the fuzz test as insertions) and the shared real-world corpus location.
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

// out/test/unit/config → <repo>/../shared/corpus
export const CORPUS = path.resolve(__dirname, '../../../../../shared/corpus');

export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.tf')) out.push(p);
    }
  };
  walk(CORPUS);
  return out;
}

/** Broken snippets: [what is wrong, the text]. */
export const BROKEN: [string, string][] = [
  ['unterminated string', 'module "m" {\n  source = "abc\n}'],
  ['unterminated string and missing }', 'module "m" {\n  source = "abc'],
  ['dangling =', 'module "m" {\n  source =\n}'],
  ['dangling = and missing }', 'module "m" {\n  version = '],
  ['half-written block header', 'module "m" {'],
  ['block without {', 'module "m"'],
  ['missing } after attributes', 'module "m" {\n  source = "x"\n  version = "1.0"\n'],
  ['stray }', '}'],
  ['missing ] in a list', 'module "m" {\n  x = [1, 2\n}'],
  ['missing } in an object', 'module "m" {\n  x = {a = 1\n}'],
  ['unfinished call', 'module "m" {\n  x = foo(1,\n}'],
  ['unterminated interpolation', 'module "m" {\n  x = "${var.\n}'],
  ['unterminated heredoc', 'locals {\n  x = <<EOT\n  hello\n'],
  ['unterminated block comment', '/* unterminated comment'],
  ['garbage characters', '@@@ $$$ ^^^'],
  ['dangling binary operator', 'locals {\n  x = 1 +\n}'],
  ['conditional without :', 'locals {\n  x = a ? b\n}'],
  ['for expression without :', 'locals {\n  x = [for s in y]\n}'],
  ['unfinished type call', 'variable "t" {\n  type = list(\n}'],
  ['double =', 'locals {\n  a = = 1\n}'],
  ['lone dot', 'locals {\n  x = .\n}'],
  ['nested block missing }', 'resource "a" "b" {\n  c {\n    d = 1\n}'],
  ['template if without endif', 'locals {\n  x = "%{ if a }yes"\n}'],
  ['extra token after value', 'module "m" {\n  source = "a" "b"\n}'],
  ['unclosed parenthesis', 'locals {\n  x = (1 + 2\n}'],
  ['object for without value', 'locals {\n  x = { for k, v in m : k => }\n}'],
  ['unfinished index', 'locals {\n  x = a.b[\n}'],
  ['object and block both unclosed', 'module "m" {\n  providers = {\n    aws = aws.x\n'],
  ['quoted block type', '"label" {}'],
  ['= after block labels', 'module "m" "n" = {}'],
  ['single-line block missing }', 'locals { x = 1'],
  ['list missing ] inside nested block', 'data "x" "y" {\n  filter {\n    name = "a"\n    values = ["b"\n  }\n}'],
  ['single quotes', "module \"m\" {\n  source = 'single quoted'\n}"],
  ['number with trailing dot', 'module "m" {\n  x = 1.\n}'],
  ['heredoc opener only', 'locals {\n  x = <<EOT\n'],
  ['unterminated ${ in string', 'module "m" {\n  x = "${"\n}'],
  ['unterminated ${ before an attribute line', 'module "m" {\n  x = "${var.a\n  y = 2\n}'],
  ['unterminated multi-line ${ with an open call', 'module "m" {\n  x = "${foo(1,\n  y = 2\n'],
  ['unterminated multi-line ${ closed by the block brace', 'module "m" {\n  x = "${foo(\n}'],
  ['unterminated multi-line ${ with an open object', 'locals {\n  x = "${jsonencode({\n    a = 1\n'],
  ['object cut off by the end of a heredoc', 'locals {\n  x = <<EOT\n${ {a = 1\nEOT\n}'],
  ['unclosed object inside ${ (used to hang)', 'locals {\n  x = "${merge({a = 1\n}'],
  ['interpolation outside a string', 'module "m" {\n  x = ${var.y}\n}'],
  ['half-typed attribute name', 'module "m" {\n  sour\n}'],
  ['unterminated label', 'module "m {\n  source = "x"\n}'],
  ['splat without traversal and garbage', 'locals {\n  x = a[*]. ]\n}'],
];
