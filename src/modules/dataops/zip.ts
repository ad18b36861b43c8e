import fsp from 'node:fs/promises';
import fs from 'node:fs';
import zlib from 'node:zlib';

/**
 * Reading the entries of a ZIP archive on disk (an XLSX workbook) one at a time, streamed, within
 * bounds a hostile archive cannot talk its way past: the central directory is read from the end of
 * the file (a few KiB), every entry's declared inflated size counts against one budget before any
 * byte is inflated, and an entry that inflates beyond what it declared is stopped at that point
 * (an archive may lie about its sizes; the inflater is the only witness).
 */
export class ZipRefused extends Error {}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** More entries than any workbook has: a directory this long is an attack on the reader itself. */
const MAX_ENTRIES = 10_000;
const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_MIN = 22;
/** The end record is followed by a comment of at most 65,535 bytes. */
const EOCD_SEARCH = EOCD_MIN + 0xffff;

async function readAt(handle: fsp.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, position);
  if (bytesRead < length) throw new ZipRefused('the archive is cut short');
  return buf;
}

/** The ZIP64 end record's entry count, directory size and offset, when the plain end record defers to it. */
async function zip64End(handle: fsp.FileHandle, locatorAt: number): Promise<{ count: number; size: number; offset: number }> {
  if (locatorAt < 0) throw new ZipRefused('the archive has no ZIP64 end record');
  const locator = await readAt(handle, locatorAt, 20);
  if (locator.readUInt32LE(0) !== EOCD64_LOCATOR) throw new ZipRefused('the archive has no ZIP64 end record');
  const at = Number(locator.readBigUInt64LE(8));
  const end = await readAt(handle, at, 56);
  if (end.readUInt32LE(0) !== 0x06064b50) throw new ZipRefused('the archive has a broken ZIP64 end record');
  return { count: Number(end.readBigUInt64LE(32)), size: Number(end.readBigUInt64LE(40)), offset: Number(end.readBigUInt64LE(48)) };
}

/** Sizes and offset of a central entry, from its ZIP64 extra field where the plain ones are saturated. */
function zip64Values(extra: Buffer, wanted: { size: boolean; compressed: boolean; offset: boolean }): number[] {
  for (let i = 0; i + 4 <= extra.length;) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === 0x0001) {
      const out: number[] = [];
      let p = i + 4;
      for (const need of [wanted.size, wanted.compressed, wanted.offset]) {
        if (!need) continue;
        if (p + 8 > i + 4 + len) throw new ZipRefused('the archive has a broken ZIP64 field');
        out.push(Number(extra.readBigUInt64LE(p)));
        p += 8;
      }
      return out;
    }
    i += 4 + len;
  }
  throw new ZipRefused('the archive has a broken ZIP64 field');
}

function centralEntry(dir: Buffer, at: number): { entry: ZipEntry; next: number; flags: number } {
  if (at + 46 > dir.length || dir.readUInt32LE(at) !== CENTRAL) throw new ZipRefused('the archive has a broken central directory');
  const flags = dir.readUInt16LE(at + 8);
  const method = dir.readUInt16LE(at + 10);
  let compressedSize = dir.readUInt32LE(at + 20);
  let size = dir.readUInt32LE(at + 24);
  const nameLen = dir.readUInt16LE(at + 28);
  const extraLen = dir.readUInt16LE(at + 30);
  const commentLen = dir.readUInt16LE(at + 32);
  let localOffset = dir.readUInt32LE(at + 42);
  const next = at + 46 + nameLen + extraLen + commentLen;
  if (next > dir.length) throw new ZipRefused('the archive has a broken central directory');
  const name = dir.toString('utf8', at + 46, at + 46 + nameLen);
  const wanted = { size: size === 0xffffffff, compressed: compressedSize === 0xffffffff, offset: localOffset === 0xffffffff };
  if (wanted.size || wanted.compressed || wanted.offset) {
    const values = zip64Values(dir.subarray(at + 46 + nameLen, at + 46 + nameLen + extraLen), wanted);
    if (wanted.size) size = values.shift() as number;
    if (wanted.compressed) compressedSize = values.shift() as number;
    if (wanted.offset) localOffset = values.shift() as number;
  }
  return { entry: { name, method, compressedSize, size, localOffset }, next, flags };
}

/**
 * The archive's entries by name, from its central directory. Refused: no end record, an encrypted
 * entry, more than 10,000 entries, or declared inflated sizes adding up to more than `maxInflated`.
 */
export async function zipEntries(path: string, maxInflated: number): Promise<Map<string, ZipEntry>> {
  const handle = await fsp.open(path, 'r');
  try {
    const fileSize = (await handle.stat()).size;
    const tailLen = Math.min(fileSize, EOCD_SEARCH);
    const tail = await readAt(handle, fileSize - tailLen, tailLen);
    let at = -1;
    for (let i = tail.length - EOCD_MIN; i >= 0; i -= 1) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new ZipRefused('it is not a ZIP archive (no end of central directory)');
    let count = tail.readUInt16LE(at + 10);
    let dirSize = tail.readUInt32LE(at + 12);
    let dirOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
      ({ count, size: dirSize, offset: dirOffset } = await zip64End(handle, fileSize - tailLen + at - 20));
    }
    if (count > MAX_ENTRIES) throw new ZipRefused(`it has ${count} entries; a workbook may have at most ${MAX_ENTRIES}`);
    if (dirOffset + dirSize > fileSize) throw new ZipRefused('the archive has a broken central directory');
    const dir = await readAt(handle, dirOffset, dirSize);
    const entries = new Map<string, ZipEntry>();
    let declared = 0;
    let p = 0;
    for (let i = 0; i < count; i += 1) {
      const { entry, next, flags } = centralEntry(dir, p);
      p = next;
      if (flags & 0x1) throw new ZipRefused(`its entry ${entry.name} is encrypted`);
      declared += entry.size;
      if (declared > maxInflated) throw new ZipRefused(`its entries inflate to more than ${maxInflated} bytes (IMPORT_XLSX_MAX_INFLATED)`);
      if (entry.localOffset + 30 + entry.compressedSize > fileSize) throw new ZipRefused(`its entry ${entry.name} is cut short`);
      entries.set(entry.name, entry);
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/**
 * An entry's inflated bytes, a chunk at a time. The inflater stops (refused) as soon as it has
 * given one byte more than the entry declared, so a lying entry costs no more than an honest one.
 */
export async function* entryBytes(path: string, entry: ZipEntry): AsyncGenerator<Buffer> {
  if (entry.method !== 0 && entry.method !== 8) throw new ZipRefused(`its entry ${entry.name} uses an unknown compression`);
  const handle = await fsp.open(path, 'r');
  let start: number;
  try {
    const local = await readAt(handle, entry.localOffset, 30);
    if (local.readUInt32LE(0) !== LOCAL) throw new ZipRefused(`its entry ${entry.name} has a broken header`);
    start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    await handle.close();
  }
  if (entry.compressedSize === 0) return;
  const raw = fs.createReadStream(path, { start, end: start + entry.compressedSize - 1, highWaterMark: 64 * 1024 });
  const source = entry.method === 8 ? raw.pipe(zlib.createInflateRaw({ chunkSize: 64 * 1024 })) : raw;
  raw.on('error', (err) => source.destroy(err));
  let inflated = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > entry.size) throw new ZipRefused(`its entry ${entry.name} inflates beyond the ${entry.size} bytes it declares`);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof ZipRefused) throw err;
    if ((err as NodeJS.ErrnoException).code?.startsWith('Z_')) throw new ZipRefused(`its entry ${entry.name} is corrupt`);
    throw err;
  } finally {
    raw.destroy();
    source.destroy();
  }
}
