// How `inspect` shows one file: the JSON contract's file object and the human summary.
import { readFileSync } from 'node:fs';
import { ConfigOverview, overviewOf, Range, ValueInfo } from '../engine/config';
import { parseTypeConstraint } from '../engine/types/parse';
import { renderType } from '../engine/types/render';

type JsonValue = string | { expression: string } | null;

function jsonValue(v: ValueInfo | null): JsonValue {
  if (!v) return null;
  return v.literal !== null ? v.literal : { expression: v.text };
}

export function jsonRange(r: Range): { start: { line: number; character: number }; end: { line: number; character: number } } {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/** The JSON contract's file object. A FileSummary (extractFile) is an overview too. */
export function summaryToJson(p: string, s: ConfigOverview): unknown {
  return {
    path: p,
    modules: s.modules.map((m) => ({ name: m.name, source: jsonValue(m.source), version: jsonValue(m.version), range: jsonRange(m.range) })),
    requiredProviders: s.requiredProviders.map((r) => ({ name: r.name, source: jsonValue(r.source), version: jsonValue(r.version) })),
    variables: s.variables.map((v) => ({ name: v.name, type: jsonValue(v.type) })),
    diagnostics: s.diagnostics.map((d) => ({ message: d.message, range: jsonRange(d.range) })),
  };
}

function human(v: ValueInfo | null): string {
  if (!v) return '-';
  return v.literal !== null ? JSON.stringify(v.literal) : v.text.replace(/\s+/g, ' ');
}

/** A type on one line, canonical when it parses (newline-separated object attributes stay readable). */
function humanType(v: ValueInfo | null): string {
  if (!v || v.literal !== null) return human(v);
  const parsed = parseTypeConstraint(v.expr);
  return parsed.diagnostics.some((d) => d.severity === 'error') ? human(v) : renderType(parsed.type);
}

export function humanSummary(p: string, s: ConfigOverview): string {
  const lines = [p];
  for (const m of s.modules) lines.push(`  module ${JSON.stringify(m.name)}  source ${human(m.source)}  version ${human(m.version)}  (line ${m.range.start.line + 1})`);
  for (const r of s.requiredProviders) lines.push(`  provider ${r.name}  source ${human(r.source)}  version ${human(r.version)}${r.legacy ? '  (legacy string form)' : ''}`);
  for (const v of s.variables) lines.push(`  variable ${JSON.stringify(v.name)}  type ${humanType(v.type)}`);
  for (const d of s.diagnostics) lines.push(`  ${d.severity} ${d.range.start.line + 1}:${d.range.start.character + 1}  ${d.message}`);
  if (lines.length === 1) lines.push('  (no modules, providers or variables)');
  return lines.join('\n') + '\n';
}

/** One file's output (the JSON contract's file object, or the human lines), or why it could not be read. */
export type RenderedFile<T> = { output: T } | { error: string };

/**
 * Reads and parses one file and returns its object of the JSON output, already serialized. Not the
 * object itself: its strings are slices of the file's text, which would then stay alive (and be
 * copied by every young-generation collection) until the document is written. The read is
 * synchronous on purpose (see runInspect).
 */
export function jsonFile(shown: string, abs: string): RenderedFile<string> {
  const r = summarize(shown, abs);
  return 'error' in r ? r : { output: fileJson(shown, r.output) };
}

// The file object written directly, byte for byte what JSON.stringify(summaryToJson(…), null, 2)
// writes at depth 2 of `{"files": [...]}` (test/unit/config/inspect-cli.test.ts compares them).
// On a large tree, building the plain objects, stringifying them and re-indenting the result took
// about a tenth of the run. Strings still go through JSON.stringify: its escaping is the contract.

/** Indentation by depth, two spaces a level. */
const INDENT = Array.from({ length: 10 }, (_, i) => '  '.repeat(i));

/** `{ "k": v, … }` at depth d; the values are already serialized at depth d + 1. */
function objectAt(d: number, fields: string[]): string {
  const inner = INDENT[d + 1];
  return `{\n${inner}${fields.join(`,\n${inner}`)}\n${INDENT[d]}}`;
}

/** `[ … ]` at depth d (`[]` when empty); each item serialized at depth d + 1. */
function arrayAt<T>(d: number, items: T[], item: (x: T, depth: number) => string): string {
  if (!items.length) return '[]';
  const inner = INDENT[d + 1];
  let out = `[\n${inner}${item(items[0], d + 1)}`;
  for (let i = 1; i < items.length; i++) out += `,\n${inner}${item(items[i], d + 1)}`;
  return `${out}\n${INDENT[d]}]`;
}

function valueAt(d: number, v: ValueInfo | null): string {
  if (!v) return 'null';
  return v.literal !== null ? JSON.stringify(v.literal) : objectAt(d, [`"expression": ${JSON.stringify(v.text)}`]);
}

function rangeAt(d: number, r: Range): string {
  return objectAt(d, [
    `"start": ${objectAt(d + 1, [`"line": ${r.start.line}`, `"character": ${r.start.character}`])}`,
    `"end": ${objectAt(d + 1, [`"line": ${r.end.line}`, `"character": ${r.end.character}`])}`,
  ]);
}

/** What follows `"path"` in the object of a file with nothing to report, at depth 2. */
const EMPTY_FILE_TAIL = ',\n      "modules": [],\n      "requiredProviders": [],\n      "variables": [],\n      "diagnostics": []\n    }';

/** One file object of the `inspect --json` document, serialized at depth 2 (see summaryToJson for its shape). */
export function fileJson(p: string, s: ConfigOverview): string {
  // Most files of a large tree (resources, outputs) have nothing to report: their object is a constant tail.
  if (!s.modules.length && !s.requiredProviders.length && !s.variables.length && !s.diagnostics.length) return `{\n      "path": ${JSON.stringify(p)}${EMPTY_FILE_TAIL}`;
  const d = 2;
  return objectAt(d, [
    `"path": ${JSON.stringify(p)}`,
    `"modules": ${arrayAt(d + 1, s.modules, (m, i) => objectAt(i, [
      `"name": ${JSON.stringify(m.name)}`, `"source": ${valueAt(i + 1, m.source)}`, `"version": ${valueAt(i + 1, m.version)}`, `"range": ${rangeAt(i + 1, m.range)}`,
    ]))}`,
    `"requiredProviders": ${arrayAt(d + 1, s.requiredProviders, (r, i) => objectAt(i, [
      `"name": ${JSON.stringify(r.name)}`, `"source": ${valueAt(i + 1, r.source)}`, `"version": ${valueAt(i + 1, r.version)}`,
    ]))}`,
    `"variables": ${arrayAt(d + 1, s.variables, (v, i) => objectAt(i, [`"name": ${JSON.stringify(v.name)}`, `"type": ${valueAt(i + 1, v.type)}`]))}`,
    `"diagnostics": ${arrayAt(d + 1, s.diagnostics, (x, i) => objectAt(i, [`"message": ${JSON.stringify(x.message)}`, `"range": ${rangeAt(i + 1, x.range)}`]))}`,
  ]);
}

/** The `{"files": [...]}` document from serialized file objects, exactly as JSON.stringify(…, null, 2) writes it. */
export function filesDocument(parts: string[]): string {
  return parts.length ? `{\n  "files": [\n    ${parts.join(',\n    ')}\n  ]\n}\n` : '{\n  "files": []\n}\n';
}

/** The human summary lines of one file. */
export function humanFile(shown: string, abs: string): RenderedFile<string> {
  const r = summarize(shown, abs);
  return 'error' in r ? r : { output: humanSummary(shown, r.output) };
}

function summarize(shown: string, abs: string): RenderedFile<ConfigOverview> {
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    return { error: `cannot read ${shown}: ${(err as Error).message}` };
  }
  return { output: overviewOf(text, shown) };
}
