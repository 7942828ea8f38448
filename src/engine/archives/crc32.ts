// CRC-32 (IEEE 802.3, the zip format's checksum) of bytes as they are read. Node's zlib.crc32
// (Node ≥ 20.15; ≈ 4 GB/s here) where there is one, else a table in JavaScript: VS Code 1.90's
// extension host runs Node 20.9. `node:zlib` is a lazy module in the bundles (scripts/build.mjs),
// so it is loaded by the first call, not by importing this file.
import * as zlib from 'node:zlib';

let table: Int32Array | undefined;

/** CRC-32 of `data` continuing from `value` (the CRC of the bytes before it; 0 to start). */
export function crc32(data: Uint8Array, value = 0): number {
  const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  return typeof native === 'function' ? native(data, value) : tableCrc32(data, value);
}

/** crc32 in JavaScript, one byte at a time (the fallback; ≈ 0.35 GB/s). */
export function tableCrc32(data: Uint8Array, value = 0): number {
  const t = (table ??= crcTable());
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function crcTable(): Int32Array {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
}
