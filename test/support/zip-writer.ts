// A small, real zip writer for tests and benchmarks (stored or deflated entries, directory
// entries, UTF-8 names, streamed to disk so large archives never sit in memory).
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  /** Entry name as stored (a string is encoded as UTF-8 and flagged so). Directories end with '/'. */
  name: string | Buffer;
  /** Content (omit for directories). */
  data?: Buffer;
  /** Large content generated on the fly: `size` bytes produced by `chunk(i)` repeatedly. */
  generated?: { size: number; chunk: Buffer };
  /** 0 = stored (default for generated), 8 = deflate (default for data). */
  method?: 0 | 8;
  /**
   * Write the CRC-32 and sizes in a data descriptor after the data (flag bit 3, as a streaming
   * writer does; the local header then holds zeros): with its optional signature or without.
   */
  descriptor?: 'signed' | 'unsigned';
}

/** Writes the zip to `path`; returns sha256 (hex) and size of the archive. */
export async function writeZip(path: string, entries: ZipEntrySpec[]): Promise<{ sha256: string; size: number }> {
  const out = createWriteStream(path);
  const sha = createHash('sha256');
  let offset = 0;
  const write = (b: Buffer): Promise<void> => {
    sha.update(b);
    offset += b.length;
    return out.write(b) ? Promise.resolve() : new Promise((r) => out.once('drain', () => r()));
  };
  const central: Buffer[] = [];
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name;
    const utf8 = typeof e.name === 'string' && /[^\x00-\x7f]/.test(e.name);
    const flags = (utf8 ? 0x800 : 0) | (e.descriptor ? 0x8 : 0);
    const isDir = name[name.length - 1] === 0x2f;
    let crc = 0;
    let size = 0;
    let payload: Buffer | undefined;
    let method: 0 | 8 = 0;
    if (e.generated) {
      for (let done = 0; done < e.generated.size; done += e.generated.chunk.length) {
        crc = crc32(e.generated.chunk.subarray(0, Math.min(e.generated.chunk.length, e.generated.size - done)), crc);
      }
      size = e.generated.size;
    } else {
      const data = e.data ?? Buffer.alloc(0);
      crc = crc32(data);
      size = data.length;
      method = isDir || data.length === 0 ? 0 : e.method ?? 8;
      payload = method === 8 ? deflateRawSync(data) : data;
    }
    const compSize = payload ? payload.length : size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date 1980-01-01
    if (!e.descriptor) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(compSize, 18);
      local.writeUInt32LE(size, 22);
    }
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const headerOffset = offset;
    await write(local);
    await write(name);
    if (payload) {
      await write(payload);
    } else if (e.generated) {
      for (let done = 0; done < e.generated.size; done += e.generated.chunk.length) {
        await write(e.generated.chunk.subarray(0, Math.min(e.generated.chunk.length, e.generated.size - done)));
      }
    }
    if (e.descriptor) {
      const d = Buffer.alloc(16);
      d.writeUInt32LE(0x08074b50, 0);
      d.writeUInt32LE(crc, 4);
      d.writeUInt32LE(compSize, 8);
      d.writeUInt32LE(size, 12);
      await write(e.descriptor === 'signed' ? d : d.subarray(4));
    }
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(0x031e, 4); // made by unix, 3.0
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(flags, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt16LE(0, 12);
    cd.writeUInt16LE(0x21, 14);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(compSize, 20);
    cd.writeUInt32LE(size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(isDir ? (0o40755 << 16) | 0x10 : (0o100644 << 16) >>> 0, 38);
    cd.writeUInt32LE(headerOffset, 42);
    central.push(cd, name);
  }
  const cdStart = offset;
  for (const b of central) await write(b);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(offset - cdStart, 12);
  eocd.writeUInt32LE(cdStart, 16);
  await write(eocd);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { sha256: sha.digest('hex'), size: offset };
}
