import fsp from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';

/** The kinds of file the server renders: a PDF, or an image shown as a one-page file. */
export type FileKind = 'pdf' | 'png' | 'jpeg';

export const MIME_TYPES: Record<FileKind, string> = { pdf: 'application/pdf', png: 'image/png', jpeg: 'image/jpeg' };

/**
 * What a file is, from its magic bytes (never its name or the Content-Type it was sent with):
 * one of the kinds the server renders, or null. An animated PNG counts as a PNG (its first frame
 * is shown); an Adobe Illustrator file, though PDF inside, does not count as a PDF.
 */
export async function sniffFileKind(file: string): Promise<FileKind | null> {
  const type = await fileTypeFromFile(file);
  switch (type?.mime) {
    case 'application/pdf':
      return 'pdf';
    case 'image/png':
    case 'image/apng':
      return 'png';
    case 'image/jpeg':
      return 'jpeg';
    default:
      return null;
  }
}

export interface ImageSize {
  width: number;
  height: number;
}

/**
 * An image's pixel size from its header, read without decoding it: PNG's IHDR, JPEG's first
 * start-of-frame marker (reached by skipping from segment to segment). Null when the header is
 * not where it must be.
 */
export async function imageSizeOfFile(file: string, kind: 'png' | 'jpeg'): Promise<ImageSize | null> {
  const handle = await fsp.open(file, 'r');
  try {
    const read = async (position: number, length: number): Promise<Buffer | null> => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return bytesRead === length ? buffer : null;
    };
    if (kind === 'png') {
      // Signature (8), IHDR length (4) and type (4), then width and height.
      const head = await read(0, 24);
      if (head === null || head.toString('latin1', 12, 16) !== 'IHDR') return null;
      return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
    }
    let position = 2;
    // A JPEG's segments before its frame header are bounded by the file; 10,000 of them is no image.
    for (let segments = 0; segments < 10_000; segments += 1) {
      const marker = await read(position, 4);
      if (marker === null || marker[0] !== 0xff) return null;
      const code = marker[1] as number;
      if (code === 0xff) {
        position += 1; // fill byte
        continue;
      }
      // Markers without a length: TEM and RSTn.
      if (code === 0x01 || (code >= 0xd0 && code <= 0xd7)) {
        position += 2;
        continue;
      }
      const length = marker.readUInt16BE(2);
      // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC): length, precision, height, width.
      if (code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc) {
        const frame = await read(position + 5, 4);
        if (frame === null) return null;
        return { width: frame.readUInt16BE(2), height: frame.readUInt16BE(0) };
      }
      if (code === 0xd9 || code === 0xda || length < 2) return null; // end of image or scan before any frame
      position += 2 + length;
    }
    return null;
  } finally {
    await handle.close();
  }
}
