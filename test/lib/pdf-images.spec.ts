import { createCanvas } from '@napi-rs/canvas';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { type JpegPage, POINTS_PER_PIXEL, pdfOfImages } from '../../src/lib/pdf-images.ts';

/** A page image of one colour, as JPEG. */
async function page(width: number, height: number, colour: string): Promise<JpegPage> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = colour;
  context.fillRect(0, 0, width, height);
  return { width, height, bytes: new Uint8Array(await canvas.encode('jpeg', 90)) };
}

async function* each<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return Buffer.concat(out);
}

describe('a PDF of JPEG images', () => {
  it('parses back with pdf.js: its pages, their sizes, one image each, drawn in its colours', async () => {
    const pages = [await page(320, 180, '#d02020'), await page(200, 300, '#2040d0'), await page(320, 180, '#20a040')];
    const bytes = await collect(pdfOfImages(3, each(pages)));
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    expect(bytes.subarray(-6).toString('latin1')).toBe('%%EOF\n');

    const pdf = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0 }).promise;
    expect(pdf.numPages).toBe(3);
    for (const [i, expected] of pages.entries()) {
      const p = await pdf.getPage(i + 1);
      const viewport = p.getViewport({ scale: 1 });
      expect([viewport.width, viewport.height]).toEqual([expected.width * POINTS_PER_PIXEL, expected.height * POINTS_PER_PIXEL]);
      const ops = await p.getOperatorList();
      expect(ops.fnArray.filter((f) => f === OPS.paintImageXObject)).toHaveLength(1);
    }
    // The second page drawn: blue all over.
    const second = await pdf.getPage(2);
    const viewport = second.getViewport({ scale: 1 / POINTS_PER_PIXEL });
    const canvas = createCanvas(viewport.width, viewport.height);
    const context = canvas.getContext('2d');
    await second.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
    const [r, g, b] = context.getImageData(100, 150, 1, 1).data;
    expect(Math.abs((r as number) - 0x20)).toBeLessThan(16);
    expect(Math.abs((g as number) - 0x40)).toBeLessThan(16);
    expect(Math.abs((b as number) - 0xd0)).toBeLessThan(16);
    await pdf.destroy();
  });

  it('is written as it goes: the first chunks come before the pages are all drawn', async () => {
    let drawn = 0;
    async function* slowly(): AsyncGenerator<JpegPage> {
      for (let i = 0; i < 3; i++) {
        drawn += 1;
        yield await page(40, 30, '#888888');
      }
    }
    const chunks = pdfOfImages(3, slowly());
    await chunks.next();
    await chunks.next();
    expect(drawn).toBe(0);
    const rest = await collect({ [Symbol.asyncIterator]: () => chunks });
    expect(drawn).toBe(3);
    expect(rest.length).toBeGreaterThan(0);
  });

  it('throws rather than end a document with pages missing or more than announced', async () => {
    const one = await page(40, 30, '#000000');
    await expect(collect(pdfOfImages(2, each([one])))).rejects.toThrow(/1 pages of the 2/);
    await expect(collect(pdfOfImages(1, each([one, one])))).rejects.toThrow(/more pages/);
    await expect(collect(pdfOfImages(0, each([])))).rejects.toThrow(/at least one page/);
  });
});
