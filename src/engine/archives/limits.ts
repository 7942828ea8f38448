// Limits every archive reader applies while it reads, whatever the archive claims: module packages
// (tar.gz, tar, zip) and provider packages (zip). A hostile registry controls the archive, so the
// checks run as the bytes come in — an inflated size counted chunk by chunk, a zip's entries
// counted as the central directory is walked — never after the whole thing has been read.
import type { Entry } from 'yauzl';

/**
 * How many times its compressed size an archive may inflate to. Real packages stay far below it
 * (Go binaries ≈ 2–4×, Terraform sources ≈ 4–10×); deflate's own maximum is ≈ 1032×, which is
 * what a bomb of zeros reaches.
 */
export const MAX_INFLATE_RATIO = 100;

/** Below this inflated size the ratio is not checked (a tiny archive of a few small files may compress well). */
export const RATIO_FLOOR_BYTES = 64 * 1024 * 1024;

/** How many bytes an archive of `archiveBytes` may inflate to: `maxBytes`, or less when the ratio limit is lower. */
export function inflateLimit(maxBytes: number, archiveBytes: number): number {
  return Math.min(maxBytes, Math.max(RATIO_FLOOR_BYTES, MAX_INFLATE_RATIO * archiveBytes));
}

/** What an inflate limit says in a message: the cap, or the ratio when that is what bit. */
export function inflateLimitText(maxBytes: number, archiveBytes: number): string {
  const limit = inflateLimit(maxBytes, archiveBytes);
  return limit < maxBytes ? `more than ${MAX_INFLATE_RATIO} times its ${archiveBytes}-byte size (${limit} bytes)` : `more than ${maxBytes} bytes`;
}

export interface ZipLimits {
  /** Entries the central directory may list. */
  maxEntries: number;
  /** Total declared uncompressed size (yauzl's validateEntrySizes holds every entry to its declared size). */
  maxBytes: number;
  /** Size of the zip file (for the ratio limit). */
  archiveBytes: number;
}

export class ZipLimitError extends Error {}

/**
 * The checks of one walk over a zip's central directory, entry by entry (nothing of an entry is
 * kept but its data range): the entry count (the count the end record declares is checked before
 * the first entry is read, so a directory of a million entries fails at once), the declared total
 * size against the cap and the ratio limit, and overlapping entries — two central directory
 * records whose data ranges share bytes, which is how a zip of many "duplicated" entries or an
 * overlapping-entries bomb reuses one compressed stream. A legitimate zip never overlaps.
 */
export class ZipCensus {
  private count = 0;
  private declared = 0;
  /** Start offsets and ends (exclusive) of every entry's local header + data, sorted by start. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly byteLimit: number;

  /** `entryCount`: what the end record says (yauzl walks exactly that many entries). Error messages are a predicate ("has more than …"): callers put the archive's name before it. */
  constructor(entryCount: number, private readonly limits: ZipLimits) {
    this.byteLimit = inflateLimit(limits.maxBytes, limits.archiveBytes);
    if (entryCount > limits.maxEntries) throw this.tooMany(entryCount);
  }

  add(entry: Pick<Entry, 'uncompressedSize' | 'compressedSize' | 'relativeOffsetOfLocalHeader'>): void {
    if (++this.count > this.limits.maxEntries) throw this.tooMany();
    this.declared += entry.uncompressedSize;
    if (this.declared > this.byteLimit) {
      throw new ZipLimitError(`unpacks to ${inflateLimitText(this.limits.maxBytes, this.limits.archiveBytes)}`);
    }
    // The local header is at least 30 bytes before the data: [start, start + 30 + compressed) is
    // inside the entry whatever its name and extra fields are (no false alarm on a real zip).
    const start = entry.relativeOffsetOfLocalHeader;
    const end = start + 30 + entry.compressedSize;
    let lo = 0, hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] < start) lo = mid + 1; else hi = mid;
    }
    if ((lo > 0 && this.ends[lo - 1] > start) || (lo < this.starts.length && this.starts[lo] < end)) {
      throw new ZipLimitError(`has overlapping entries (two entries share the data at offset ${start})`);
    }
    this.starts.splice(lo, 0, start);
    this.ends.splice(lo, 0, end);
  }

  private tooMany(listed?: number): ZipLimitError {
    return new ZipLimitError(`has more than ${this.limits.maxEntries} entries${listed ? ` (its central directory lists ${listed})` : ''}`);
  }
}
