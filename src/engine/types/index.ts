// OpenTofu type constraints: model, parser (from the syntax tree), conversion, rendering.
// Layer: syntax and data (docs/architecture.md: it imports only the folders listed below it there).
export * from './model';
export * from './value';
export { parseTypeConstraint, TypeParseResult, TypeParseOptions } from './parse';
export {
  convertValue, convertNoDefaults, applyDefaults, canConvert, unify, formatPath,
  ConversionError, ConversionResult,
} from './convert';
export { renderType, renderTypePretty, renderHclValue, formatValue, goQuote, hclString } from './render';
