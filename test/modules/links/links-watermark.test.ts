// lanes: sqlite postgres
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { OPS, getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { drawWatermark } from '../../../src/lib/watermark.js';
import { type Decoded, decode } from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, madeLink, renderedFile } from '../../helpers/links.ts';
import { madeRoomLink, viewerConfig } from '../../helpers/rooms.ts';

/**
 * Links with a watermark (docs/links.md, "Watermarks and deterrence"): the viewer's page images carry
 * the reader (the e-mail gate's address, else the visitor's short id), the time and their address,
 * drawn in; never cached; the download is a PDF of those images.
 */
const t = useTestServer();
let p: HistoryProject;
let fileId: string;
let plain: LinkData;
let marked: LinkData;

/** 2026-11-01 09:05:31 UTC: the watermark says 09:05. */
const NOW = Date.UTC(2026, 10, 1, 9, 5, 31);

beforeAll(async () => {
  p = await historyProject(t.server);
  fileId = await renderedFile(t.server, p, p.sales.token);
  plain = await madeLink(t.server, p.appId, p.sales.token, { name: 'Plain', file_id: fileId });
  marked = await madeLink(t.server, p.appId, p.sales.token, { name: 'Marked', file_id: fileId, watermark: 1 });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The image a page is expected to be: `base` with `text` drawn in by the watermark's own function. */
async function expected(base: Buffer, text: string): Promise<Decoded> {
  const image = await loadImage(base);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, image.width, image.height);
  context.drawImage(image, 0, 0);
  drawWatermark(context, image.width, image.height, text);
  return { width: image.width, height: image.height, pixels: context.getImageData(0, 0, image.width, image.height).data };
}

/**
 * How far `served` is from `a`, over the pixels where `a` and `b` differ clearly (the watermark's
 * text, when they are a page with and without it): the mean difference of a channel there.
 */
function distanceWhereDiffer(served: Decoded, a: Decoded, b: Decoded): { pixels: number; mean: number } {
  let pixels = 0;
  let sum = 0;
  for (let i = 0; i < a.pixels.length; i += 4) {
    let apart = 0;
    for (let c = 0; c < 3; c++) apart = Math.max(apart, Math.abs((a.pixels[i + c] as number) - (b.pixels[i + c] as number)));
    if (apart <= 48) continue;
    pixels += 1;
    for (let c = 0; c < 3; c++) sum += Math.abs((served.pixels[i + c] as number) - (a.pixels[i + c] as number));
  }
  return { pixels, mean: pixels === 0 ? 0 : sum / (pixels * 3) };
}

/** The mean difference of a channel over the whole image. */
function meanDifference(a: Decoded, b: Decoded): number {
  let sum = 0;
  for (let i = 0; i < a.pixels.length; i += 4)
    for (let c = 0; c < 3; c++) sum += Math.abs((a.pixels[i + c] as number) - (b.pixels[i + c] as number));
  return sum / ((a.pixels.length / 4) * 3);
}

/**
 * The served image is the page with this reader's text drawn in (`mine`): close to it over the whole
 * image and where the text is (at least `textPixels` pixels), far there from the page without it
 * (`unmarked`) and from the page with another reader's text (`other`). WebP's loss is the only
 * difference: a channel's mean difference of 6–8 on the text's pixels, against 40 for the others.
 */
function expectWatermarked(served: Decoded, pages: { mine: Decoded; unmarked: Decoded; other: Decoded }, textPixels: number): void {
  const { mine, unmarked, other } = pages;
  expect([served.width, served.height]).toEqual([mine.width, mine.height]);
  expect(meanDifference(served, mine)).toBeLessThan(2.5);
  expect(meanDifference(served, mine)).toBeLessThan(meanDifference(served, unmarked));
  const onText = distanceWhereDiffer(served, mine, unmarked);
  expect(onText.pixels).toBeGreaterThan(textPixels);
  expect(onText.mean).toBeLessThan(12);
  expect(distanceWhereDiffer(served, unmarked, mine).mean).toBeGreaterThan(30);
  expect(distanceWhereDiffer(served, other, mine).mean).toBeGreaterThan(30);
}

/** A reader at a fixed address who opened the link's page (so has the visitor cookie). */
async function reader(link: LinkData, ip: string): Promise<{ b: Browser; short: string }> {
  const b = new Browser(t.server, undefined, ip);
  expect((await b.get(`/l/${link.shareToken}`)).statusCode).toBe(200);
  const visitor = b.cookies.get('rapport_visitor') as string;
  expect(visitor).toMatch(/^[A-Za-z0-9_-]{22}$/);
  return { b, short: visitor.slice(0, 8) };
}

describe('a link with a watermark', () => {
  it('is made and edited with watermark 0 or 1, which its Link record shows', async () => {
    expect(plain.watermark).toBe(0);
    expect(marked.watermark).toBe(1);
    const off = await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${marked.id}`, { watermark: 0 }, { token: p.sales.token });
    expect(off.json()).toMatchObject({ status: 1, data: { watermark: 0 } });
    const on = await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${marked.id}`, { watermark: 1 }, { token: p.sales.token });
    expect(on.json()).toMatchObject({ status: 1, data: { watermark: 1 } });
    const bad = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/links`,
      { name: 'x', file_id: fileId, watermark: 2 },
      { token: p.sales.token },
    );
    expect(bad.json()).toMatchObject({ status: 0 });
    const listed = (await t.server.api.get(`/api/v1.7/app/${p.appId}/links`, { token: p.sales.token })).json() as { data: LinkData[] };
    expect(listed.data.find((l) => l.id === marked.id)?.watermark).toBe(1);
  });

  it.each(['desktop', 'phone'] as const)(
    'serves the %s page image with the visitor, the time and the address drawn in, as the watermark draws them',
    async (width) => {
      vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(NOW);
      const { b, short } = await reader(marked, '203.0.113.77');
      const base = await b.get(`/l/${plain.shareToken}/page/1?width=${width}`);
      expect(base.statusCode).toBe(200);
      const res = await b.get(`/l/${marked.shareToken}/page/1?width=${width}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/webp');
      expect(res.headers['cache-control']).toBe('no-store, private');
      expect(res.headers.etag).toBeUndefined();

      const served = await decode(res.rawPayload);
      const unmarked = await decode(base.rawPayload);
      const text = `visitor ${short} \u00b7 2026-11-01T09:05Z \u00b7 203.0.113.77`;
      const mine = await expected(base.rawPayload, text);
      // Another reader's watermark (another address), to tell a close match from a loose one.
      const other = await expected(base.rawPayload, `visitor ${short} \u00b7 2026-11-01T09:05Z \u00b7 198.51.100.200`);

      expectWatermarked(served, { mine, unmarked, other }, width === 'desktop' ? 20_000 : 4_000);
    },
  );

  it("names the reader by the e-mail gate's address once the gate is passed", async () => {
    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(NOW);
    const gated = await madeLink(t.server, p.appId, p.sales.token, { name: 'Gated', file_id: fileId, watermark: 1, email_gate: 1 });
    const b = new Browser(t.server, undefined, '198.51.100.23');
    expect((await b.get(`/l/${gated.shareToken}/page/2`)).statusCode).toBe(404);
    const passed = await b.post(`/l/${gated.shareToken}/gate`, 'email=ada%40example.com&name=Ada', 'application/x-www-form-urlencoded');
    expect(passed.statusCode).toBe(303);
    const res = await b.get(`/l/${gated.shareToken}/page/2?width=desktop`);
    expect(res.statusCode).toBe(200);
    const base = await b.get(`/l/${plain.shareToken}/page/2?width=desktop`);
    const mine = await expected(base.rawPayload, 'ada@example.com \u00b7 2026-11-01T09:05Z \u00b7 198.51.100.23');
    const other = await expected(
      base.rawPayload,
      `visitor ${(b.cookies.get('rapport_visitor') ?? '').slice(0, 8)} \u00b7 2026-11-01T09:05Z \u00b7 198.51.100.23`,
    );
    expectWatermarked(await decode(res.rawPayload), { mine, unmarked: await decode(base.rawPayload), other }, 20_000);
  });

  it('draws each request anew: another minute, another image; If-None-Match gets no 304', async () => {
    const now = vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(NOW);
    const { b } = await reader(marked, '203.0.113.78');
    const first = await b.get(`/l/${marked.shareToken}/page/3`);
    now.mockReturnValue(NOW + 60_000);
    const later = await b.get(`/l/${marked.shareToken}/page/3`, { 'if-none-match': '*' });
    expect(later.statusCode).toBe(200);
    expect(later.rawPayload.equals(first.rawPayload)).toBe(false);
    // A page the file does not have, and a link closed to the reader: the same 404 as without a watermark.
    expect((await b.get(`/l/${marked.shareToken}/page/4`)).statusCode).toBe(404);
    expect((await new Browser(t.server).get(`/l/not-a-token/page/1`)).statusCode).toBe(404);
  });
});

describe("a watermarked link's download", () => {
  it('is a PDF of the watermarked pages at the desktop width, one image a page, when the link allows download', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Take', file_id: fileId, watermark: 1, allow_download: 1 });
    const { b } = await reader(link, '203.0.113.79');
    const res = await b.get(`/l/${link.shareToken}/download`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['cache-control']).toBe('no-store, private');
    expect(res.headers['content-disposition']).toContain('filename="deck.pdf"');
    const pdf = await getDocument({ data: new Uint8Array(res.rawPayload), isEvalSupported: false, verbosity: 0 }).promise;
    expect(pdf.numPages).toBe(3);
    for (let n = 1; n <= 3; n++) {
      const page = await pdf.getPage(n);
      const ops = await page.getOperatorList();
      expect(ops.fnArray.filter((f) => f === OPS.paintImageXObject)).toHaveLength(1);
    }
    // The page as drawn is the desktop page image with the watermark: its ink where the plain page has none.
    const first = await pdf.getPage(1);
    const viewport = first.getViewport({ scale: 2 });
    expect(Math.round(viewport.width)).toBe(1600);
    const canvas = createCanvas(Math.round(viewport.width), Math.round(viewport.height));
    const context = canvas.getContext('2d');
    await first.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
    const drawn: Decoded = {
      width: canvas.width,
      height: canvas.height,
      pixels: context.getImageData(0, 0, canvas.width, canvas.height).data,
    };
    const unmarked = await decode((await b.get(`/l/${plain.shareToken}/page/1?width=desktop`)).rawPayload);
    expect(meanDifference(drawn, unmarked)).toBeGreaterThan(2);
    await pdf.destroy();
  });

  it('is the 404 page without allow_download, as for any link', async () => {
    const { b } = await reader(marked, '203.0.113.80');
    const res = await b.get(`/l/${marked.shareToken}/download`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    expect((await b.get(`/l/${marked.shareToken}`)).body).not.toContain('/download');
  });
});

describe('a room link with a watermark', () => {
  it("serves each document's page images with the reader drawn in, and its download as a watermarked PDF", async () => {
    vi.spyOn(t.server.ctx.clock, 'now').mockReturnValue(NOW);
    const link = await madeRoomLink(t.server, p.appId, p.sales.token, fileId, {
      name: 'Room',
      watermark: 1,
      allow_download: 1,
    });
    const { b, short } = await reader(link, '203.0.113.81');
    const doc = await b.get(`/l/${link.shareToken}/doc/${fileId}`);
    expect(doc.statusCode).toBe(200);
    expect(viewerConfig(doc.body)).toMatchObject({ guard: true });
    expect(doc.body).toContain('class="wm"');

    const res = await b.get(`/l/${link.shareToken}/doc/${fileId}/page/2?width=desktop`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store, private');
    const base = await b.get(`/l/${plain.shareToken}/page/2?width=desktop`);
    const mine = await expected(base.rawPayload, `visitor ${short} \u00b7 2026-11-01T09:05Z \u00b7 203.0.113.81`);
    const other = await expected(base.rawPayload, `visitor ${short} \u00b7 2026-11-01T09:05Z \u00b7 198.51.100.201`);
    expectWatermarked(await decode(res.rawPayload), { mine, unmarked: await decode(base.rawPayload), other }, 20_000);

    const download = await b.get(`/l/${link.shareToken}/doc/${fileId}/download`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    const pdf = await getDocument({ data: new Uint8Array(download.rawPayload), isEvalSupported: false, verbosity: 0 }).promise;
    expect(pdf.numPages).toBe(3);
    await pdf.destroy();
    // A file the room does not hold is the 404 page, watermark or not.
    expect((await b.get(`/l/${link.shareToken}/doc/${p.appId}/page/1`)).statusCode).toBe(404);
  });
});
