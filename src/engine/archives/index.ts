// Limits and checks every archive reader applies while it reads (module and provider packages):
// sizes, inflate ratio, entry counts, CRC-32.
// Layer: IO with limits (docs/architecture.md: it imports only the folders listed below it there).
export { inflateLimit, inflateLimitText, MAX_INFLATE_RATIO, RATIO_FLOOR_BYTES, ZipCensus, ZipLimitError } from './limits';
export type { ZipLimits } from './limits';
export { crc32, tableCrc32 } from './crc32';
