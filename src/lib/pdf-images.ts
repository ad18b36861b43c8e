/**
 * A PDF of JPEG images, one image filling each page, written as it goes (a watermarked link's
 * download: docs/links.md, "Watermarks and deterrence"; ADR 0044).
 *
 * Why this and not a library: the installed @napi-rs/canvas has Skia's PDF backend (`PDFDocument`),
 * but it answers the whole document as one buffer once it is closed, so nothing could be sent before
 * the last page is drawn and a 500-page deck would be held whole; PDF libraries for Node (pdf-lib,
 * PDFKit) also build the document in memory. A document of images is small enough to write by hand:
 * the catalog and the page tree come first (their object numbers follow from the page count), then
 * each page, its content stream and its image (the JPEG's bytes as they are: `/DCTDecode`), then the
 * cross-reference table of every object's offset. Only one page's image is held at a time.
 *
 * PDF 1.4 (ISO 32000-1 §7): objects `n 0 obj … endobj`, a stream's `/Length` its exact byte count,
 * cross-reference entries of exactly 20 bytes.
 */

/** A page's image: a baseline JPEG of three components (what @napi-rs/canvas encodes), and its size in pixels. */
export interface JpegPage {
  width: number;
  height: number;
  bytes: Uint8Array;
}

/** Points (1/72 inch) per pixel: a 1600 px wide page image is an 800 pt (11.1 inch) wide page, a slide's size. */
export const POINTS_PER_PIXEL = 0.5;

const ascii = (text: string) => Buffer.from(text, 'latin1');
/** Objects before the pages': the catalog (1) and the page tree (2). */
const FIRST_PAGE_OBJECT = 3;
/** Each page is three objects: the page, its content stream, its image. */
const OBJECTS_PER_PAGE = 3;
const pageObject = (index: number) => FIRST_PAGE_OBJECT + index * OBJECTS_PER_PAGE;
const points = (pixels: number) => Math.round(pixels * POINTS_PER_PIXEL * 100) / 100;

/**
 * The PDF of `pageCount` pages, whose images `pages` yields in order, as chunks to send. It throws
 * when `pages` yields another number of pages than it said (or throws itself): a response under way
 * is then cut short, never ended as a document with missing pages.
 */
export async function* pdfOfImages(pageCount: number, pages: AsyncIterable<JpegPage>): AsyncGenerator<Buffer> {
  if (!Number.isInteger(pageCount) || pageCount < 1) throw new Error('a PDF needs at least one page');
  const offsets: number[] = [];
  let written = 0;
  const chunk = (...parts: Buffer[]) => {
    const out = Buffer.concat(parts);
    written += out.length;
    return out;
  };
  const object = (n: number, body: string) => {
    offsets[n] = written;
    return chunk(ascii(`${n} 0 obj\n${body}\nendobj\n`));
  };

  // The header, with a comment of bytes above 127 so that transfers treat the file as binary.
  yield chunk(ascii('%PDF-1.4\n'), Buffer.from([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]));
  yield object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  const kids = Array.from({ length: pageCount }, (_, i) => `${pageObject(i)} 0 R`).join(' ');
  yield object(2, `<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`);

  let index = 0;
  for await (const page of pages) {
    if (index >= pageCount) throw new Error(`more pages than the ${pageCount} announced`);
    const n = pageObject(index);
    const w = points(page.width);
    const h = points(page.height);
    yield object(
      n,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${n + 2} 0 R >> >> /Contents ${n + 1} 0 R >>`,
    );
    const content = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`;
    yield object(n + 1, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    offsets[n + 2] = written;
    yield chunk(
      ascii(
        `${n + 2} 0 obj\n<< /Type /XObject /Subtype /Image /Width ${page.width} /Height ${page.height} ` +
          `/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${page.bytes.byteLength} >>\nstream\n`,
      ),
      Buffer.from(page.bytes.buffer, page.bytes.byteOffset, page.bytes.byteLength),
      ascii('\nendstream\nendobj\n'),
    );
    index += 1;
  }
  if (index !== pageCount) throw new Error(`${index} pages of the ${pageCount} announced`);

  const size = pageObject(pageCount);
  const xref = written;
  const entries = ['0000000000 65535 f \n'];
  for (let n = 1; n < size; n += 1) entries.push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  yield chunk(ascii(`xref\n0 ${size}\n${entries.join('')}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
}
