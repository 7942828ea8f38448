// Test helper: small tar / tar.gz archives built byte by byte, so tests can also make the
// malicious ones (`../` paths, escaping links) that no well-behaved packer would write.
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  data?: string | Buffer;
  /** '0' file (default), '5' directory, '2' symbolic link, '1' hard link, '6' FIFO. */
  type?: '0' | '1' | '2' | '5' | '6';
  linkname?: string;
}

function field(buf: Buffer, offset: number, length: number, value: string): void {
  buf.write(value.slice(0, length), offset, length, 'utf8');
}

function octal(n: number, length: number): string {
  return n.toString(8).padStart(length - 1, '0') + '\0';
}

export function tarBuffer(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = e.data === undefined ? Buffer.alloc(0) : Buffer.from(e.data);
    const h = Buffer.alloc(512);
    field(h, 0, 100, e.name);
    field(h, 100, 8, octal(e.type === '5' ? 0o755 : 0o644, 8));
    field(h, 108, 8, octal(0, 8));
    field(h, 116, 8, octal(0, 8));
    field(h, 124, 12, octal(data.length, 12));
    field(h, 136, 12, octal(Math.floor(Date.now() / 1000), 12));
    field(h, 148, 8, '        ');
    field(h, 156, 1, e.type ?? '0');
    field(h, 157, 100, e.linkname ?? '');
    field(h, 257, 6, 'ustar\0');
    field(h, 263, 2, '00');
    let sum = 0;
    for (const b of h) sum += b;
    field(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tarGz(entries: TarEntry[]): Buffer {
  return gzipSync(tarBuffer(entries));
}
