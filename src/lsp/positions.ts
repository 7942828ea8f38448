// Positions as the client counts them: UTF-16 code units (LSP's default, and what the features
// layer and the parser use), or UTF-8 bytes when the client offered `utf-8` in
// general.positionEncodings. Only the column differs; lines are lines.

export type PositionEncoding = 'utf-16' | 'utf-8';

/** The encoding to use: utf-8 when the client offers it (it saves both sides a conversion), else utf-16. */
export function chooseEncoding(offered: readonly string[] | undefined): PositionEncoding {
  return offered?.includes('utf-8') ? 'utf-8' : 'utf-16';
}

/** UTF-8 byte count of one UTF-16 code unit sequence up to `end`. */
function utf8Length(line: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end && i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < line.length) { n += 4; i++; } // a surrogate pair
    else n += 3;
  }
  return n;
}

/** A column in the client's encoding → the UTF-16 column on `line` (the line's text). */
export function toUtf16Column(line: string, character: number, enc: PositionEncoding): number {
  if (enc === 'utf-16') return character;
  let bytes = 0;
  let i = 0;
  while (i < line.length && bytes < character) {
    const c = line.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < line.length;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    i += pair ? 2 : 1;
  }
  return i;
}

/** A UTF-16 column on `line` → the client's encoding. */
export function fromUtf16Column(line: string, character: number, enc: PositionEncoding): number {
  return enc === 'utf-16' ? character : utf8Length(line, character);
}
