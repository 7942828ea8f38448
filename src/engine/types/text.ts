// Type constraints and values given as source text (the CLI, tests, JSON-syntax files).
import type { Diagnostic, Expression, Range } from '../config/ast';
import { parseExpression } from '../config/parser';
import { ANY, Type } from './model';
import { parseTypeConstraint, TypeParseResult } from './parse';
import { Value, valueFromExpression } from './value';
import { ConversionError, convertValue } from './convert';
import { formatValue, renderType } from './render';

/** Parse a type constraint written in HCL native syntax. */
export function parseTypeText(text: string): TypeParseResult {
  const parsed = parseExpression(text);
  if (parsed.diagnostics.some((d) => d.severity === 'error')) {
    return { type: ANY, diagnostics: parsed.diagnostics };
  }
  return parseTypeConstraint(parsed.expr, { text });
}

/** A literal value written in HCL native syntax (references and calls become unknown). */
export function parseValueText(text: string): { value: Value; expr: Expression; diagnostics: Diagnostic[] } {
  const parsed = parseExpression(text);
  return { value: valueFromExpression(parsed.expr, text), expr: parsed.expr, diagnostics: parsed.diagnostics };
}

/**
 * A type given as a JSON-syntax string (`"type": "list(string)"` in .tf.json): parsed as a native
 * expression; diagnostics are placed on the whole string.
 */
export function parseTypeFromJsonString(source: string, range: Range): TypeParseResult {
  const r = parseTypeText(source);
  return { type: r.type, diagnostics: r.diagnostics.map((d) => ({ ...d, range })) };
}

export interface ConvertTextResult {
  /** Canonical form of the type, when the type parsed. */
  type?: string;
  /** `tofu console` notation of the converted value. */
  value?: string;
  error?: { message: string; path: (string | number)[]; kind: 'type' | 'value' | 'conversion' };
}

/** `tofu-registry types convert`: convert one literal value to one type, both as text. */
export function convertText(typeText: string, valueText: string): ConvertTextResult {
  const t = parseTypeText(typeText);
  const terr = t.diagnostics.find((d) => d.severity === 'error');
  if (terr) return { error: { message: terr.message, path: [], kind: 'type' } };
  const type: Type = t.type;
  const v = parseValueText(valueText);
  const verr = v.diagnostics.find((d) => d.severity === 'error');
  if (verr) return { type: renderType(type), error: { message: verr.message, path: [], kind: 'value' } };
  const r = convertValue(v.value, type);
  if (!r.ok) return { type: renderType(type), error: conversionError(r.error) };
  return { type: renderType(type), value: formatValue(r.value) };
}

function conversionError(e: ConversionError): ConvertTextResult['error'] {
  return { message: e.message, path: e.path, kind: 'conversion' };
}
