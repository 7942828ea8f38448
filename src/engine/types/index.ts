// OpenTofu type constraints: model, parser (from the syntax tree), conversion, rendering.
export * from './model';
export * from './value';
export { parseTypeConstraint, TypeParseResult, TypeParseOptions } from './parse';
export {
  convertValue, convertNoDefaults, applyDefaults, canConvert, unify, formatPath,
  ConversionError, ConversionResult,
} from './convert';
export { renderType, renderTypePretty, renderHclValue, formatValue, goQuote, hclString } from './render';
