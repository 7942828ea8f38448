// Limits every archive reader applies while it reads (module and provider packages).
export { inflateLimit, inflateLimitText, MAX_INFLATE_RATIO, RATIO_FLOOR_BYTES, ZipCensus, ZipLimitError } from './limits';
export type { ZipLimits } from './limits';
