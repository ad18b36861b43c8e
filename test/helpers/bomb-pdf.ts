/**
 * A decompression bomb in a PDF: one page drawing `images` image XObjects, each `side` × `side` RGB
 * pixels (8 bits) whose FlateDecode stream is all zeros. Deflate packs zeros about 1000 to 1, so a
 * file of about 1 MB declares (and inflates to) about 1 GiB of image data, every image within
 * pdf.js's `maxImageSize`. Written by hand: pdf-lib would inflate nothing, but it is simpler to see
 * the whole file.
 */
import { deflateSync } from 'node:zlib';

const streams = new Map<number, Buffer>();

/** The zeros of one image, deflated (kept: every bomb of a run shares them). */
function zeros(bytes: number): Buffer {
  let s = streams.get(bytes);
  if (s === undefined) {
    s = deflateSync(Buffer.alloc(bytes), { level: 9 });
    streams.set(bytes, s);
  }
  return s;
}

/** The PDF's bytes; `tag` makes each file distinct. Defaults: 10 images of 6000 × 6000 (1.08 GB inflated). */
export function bombPdf(tag = '', options: { images?: number; side?: number } = {}): Buffer {
  const images = options.images ?? 10;
  const side = options.side ?? 6000;
  const data = zeros(side * side * 3);
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const object = (n: number, body: (Buffer | string)[]) => {
    offsets[n] = length;
    add(`${n} 0 obj\n`);
    for (const b of body) add(b);
    add('\nendobj\n');
  };
  add(`%PDF-1.7\n%\xe2\xe3\xcf\xd3\n% ${tag.replace(/[\r\n]/g, ' ')}\n`);
  const first = 4; // objects 1–3: catalog, pages, page; then the content stream and the images
  const names = Array.from({ length: images }, (_, i) => `/Im${i} ${first + 1 + i} 0 R`).join(' ');
  object(1, ['<< /Type /Catalog /Pages 2 0 R >>']);
  object(2, ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>']);
  object(3, [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 720 405] /Resources << /XObject << ${names} >> >> /Contents ${first} 0 R >>`]);
  const content = Array.from({ length: images }, (_, i) => `q 720 0 0 405 0 0 cm /Im${i} Do Q`).join('\n');
  object(first, [`<< /Length ${content.length} >>\nstream\n${content}\nendstream`]);
  for (let i = 0; i < images; i++) {
    object(first + 1 + i, [
      `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      data,
      '\nendstream',
    ]);
  }
  const count = first + 1 + images;
  const xref = length;
  add(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) add(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  add(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}
