// Heredocs: recognising a `<<EOT` / `<<-EOT` opener, finding the line that closes it, and where
// an unterminated one stops (before the next line that looks like a top-level block header, so
// the rest of the file still parses).
import { CLASS, HeaderFinder } from './scanhelpers';

export interface HeredocOpening {
  marker: string;
  /** `<<-`: the content's common indentation is stripped. */
  flush: boolean;
  /** Offset after the opener's newline. */
  contentStart: number;
  /** Where the template content ends: the start of the closing line, or the recovery point. */
  limit: number;
  /** The closing marker's range; both at the recovery point when `missing`. */
  closeStart: number;
  closeEnd: number;
  missing: boolean;
}

export class HeredocFinder {
  /** Markers known to have no closing line after the given offset. */
  private readonly unclosedMarkers = new Map<string, number>();

  constructor(private readonly text: string, private readonly to: number, private readonly headers: HeaderFinder) {}

  /** The heredoc opened by `<<` at `i`, or undefined when no marker and newline follow it there. */
  open(i: number, end: number): HeredocOpening | undefined {
    const text = this.text;
    let j = i + 2;
    const flush = text.charCodeAt(j) === 45;
    if (flush) j++;
    const ms = j;
    const c = text.charCodeAt(j);
    if (!(c < 128 && CLASS[c] & 1)) return undefined;
    while (j < end && text.charCodeAt(j) < 128 && CLASS[text.charCodeAt(j)] & 2) j++;
    const me = j;
    if (text.charCodeAt(j) === 13) j++;
    if (text.charCodeAt(j) !== 10) return undefined;
    const marker = text.slice(ms, me);
    const contentStart = j + 1;
    // A marker known to have no closing line after an earlier offset is not searched again: many
    // unterminated heredocs cannot make the scan quadratic.
    const known = this.unclosedMarkers.get(marker);
    const close = known !== undefined && known <= contentStart ? undefined : findHeredocClose(text, marker, contentStart, this.to);
    if (close) return { marker, flush, contentStart, limit: close.limit, closeStart: close.start, closeEnd: close.end, missing: false };
    if (known === undefined || known > contentStart) this.unclosedMarkers.set(marker, contentStart);
    const header = this.headers.next(contentStart);
    const stop = header >= 0 && header < this.to ? header : this.to;
    return { marker, flush, contentStart, limit: stop, closeStart: stop, closeEnd: stop, missing: true };
  }
}

/**
 * The closing line of a heredoc: a line holding only (indentation +) the marker, searched from
 * `contentStart` up to `to`. Returns `limit` (where the content ends: the start of the closing
 * line) and the marker's own range, or undefined.
 */
export function findHeredocClose(text: string, marker: string, contentStart: number, to: number): { limit: number; start: number; end: number } | undefined {
  for (let k = text.indexOf(marker, contentStart); k >= 0 && k < to; k = text.indexOf(marker, k + 1)) {
    let ls = k;
    while (ls > contentStart && (text.charCodeAt(ls - 1) === 32 || text.charCodeAt(ls - 1) === 9)) ls--;
    if (ls !== contentStart && text.charCodeAt(ls - 1) !== 10) continue;
    const after = k + marker.length;
    const a = text.charCodeAt(after);
    if (after < to && a !== 10 && !(a === 13 && text.charCodeAt(after + 1) === 10)) continue;
    return { limit: ls, start: k, end: after };
  }
  return undefined;
}
