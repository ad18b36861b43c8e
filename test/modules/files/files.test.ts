// lanes: sqlite postgres
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_FONTS,
  type FileData,
  darkPixels,
  decode,
  differingPixels,
  fixture,
  multipart,
  pageImage,
  settled,
  storedFiles,
  upload,
} from '../../helpers/files.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';

/**
 * Files over HTTP: upload (PDF, PNG, JPEG), rendering after the answer, the page images, new
 * versions, and every way an upload is refused (`invalid_file`, nothing stored). FILE_FONT_DIR
 * holds a font with the fixture's Chinese glyphs (the machine need have no CJK font).
 */
const MAX_BYTES = 200_000;
const t = useTestServer({ FILE_MAX_BYTES: String(MAX_BYTES), FILE_MAX_PAGES: '20', FILE_FONT_DIR: FIXTURE_FONTS });

let p: HistoryProject;

beforeAll(async () => {
  p = await historyProject(t.server);
});

const data = (res: { json(): unknown }) => (res.json() as { data: FileData }).data;

describe('uploading a PDF', () => {
  let file: FileData;

  it('answers at once with the file processing, then renders every page', async () => {
    const bytes = fixture('deck.pdf');
    const res = await upload(t.server, p.appId, p.sales.token, { filename: 'Q3 review.pdf', bytes, contentType: 'application/pdf' });
    expect(res.json()).toMatchObject({
      status: 1,
      data: { appId: p.appId, name: 'Q3 review.pdf', size: bytes.length, mimeType: 'application/pdf', pageCount: 3, version: 1 },
    });
    const answered = data(res);
    expect(['processing', 'ready']).toContain(answered.status);
    expect(answered.id).toMatch(/^[0-9a-f-]{36}$/);
    file = await settled(t.server, p.appId, p.sales.token, answered.id);
    expect(file).toMatchObject({ status: 'ready', renderedPages: 3, pageCount: 3, failure: null });
  });

  it('reads it back, alone and in the list, for any member', async () => {
    for (const token of [p.master.token, p.admin.token, p.sales2.token]) {
      expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/file/${file.id}`, { token })).json()).toEqual({ status: 1, data: file });
      const list = (await t.server.api.get(`/api/v1.7/app/${p.appId}/files`, { token })).json() as { data: FileData[] };
      expect(list.data.map((f) => f.id)).toContain(file.id);
    }
    const missing = await t.server.api.get(`/api/v1.7/app/${p.appId}/file/00000000-0000-7000-8000-000000000000`, { token: p.sales.token });
    expect(missing.json()).toMatchObject({ status: 0, code: 'file_not_found' });
  });

  it('serves each page as WebP at the desktop and phone widths, with content on it', async () => {
    for (let n = 1; n <= 3; n++) {
      const desktop = await pageImage(t.server, p.appId, p.sales.token, file.id, n);
      expect(desktop.statusCode).toBe(200);
      expect(desktop.headers['content-type']).toBe('image/webp');
      const big = await decode(desktop.rawPayload);
      expect([big.width, big.height]).toEqual([1600, 900]);
      // The title bar, the text and the charts: a good share of the page is not white.
      expect(darkPixels(big)).toBeGreaterThan(10_000);
      const phone = await pageImage(t.server, p.appId, p.sales.token, file.id, n, 'phone');
      expect(phone.headers['content-type']).toBe('image/webp');
      const small = await decode(phone.rawPayload);
      expect([small.width, small.height]).toEqual([750, 422]);
    }
  });

  it('answers 304 to a client that has the image, and refuses pages the file does not have', async () => {
    const first = await pageImage(t.server, p.appId, p.sales.token, file.id, 1);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    const again = await pageImage(t.server, p.appId, p.sales.token, file.id, 1, 'desktop', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    const phone = await pageImage(t.server, p.appId, p.sales.token, file.id, 1, 'phone', { 'if-none-match': etag });
    expect(phone.statusCode).toBe(200);

    expect((await pageImage(t.server, p.appId, p.sales.token, file.id, 4)).json()).toMatchObject({ status: 0, code: 'page_not_found' });
    expect((await pageImage(t.server, p.appId, p.sales.token, file.id, 0)).json()).toMatchObject({ status: 0, code: 'Bad Request' });
    const tablet = await t.server.api.get(`/api/v1.7/app/${p.appId}/file/${file.id}/page/1`, {
      token: p.sales.token,
      query: { width: 'tablet' },
    });
    expect(tablet.json()).toMatchObject({ status: 0, code: 'Bad Request' });
  });

  it('is not shown to anyone outside the project', async () => {
    const token = p.outsider.token;
    for (const res of [
      await t.server.api.get(`/api/v1.7/app/${p.appId}/file/${file.id}`, { token }),
      await t.server.api.get(`/api/v1.7/app/${p.appId}/files`, { token }),
      await pageImage(t.server, p.appId, token, file.id, 1),
      await upload(t.server, p.appId, token, { filename: 'x.pdf', bytes: fixture('deck.pdf') }),
      await upload(t.server, p.appId, token, { filename: 'x.pdf', bytes: fixture('deck.pdf') }, { fileId: file.id }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
    }
  });

  it('records the upload in the audit log', async () => {
    const log = (await t.server.api.get(`/api/v1.7/app/${p.appId}/audit-log`, { token: p.master.token })).json() as {
      data: { action: string; targetId: string; svcUserId: string }[];
    };
    expect(log.data).toContainEqual(expect.objectContaining({ action: 'file.upload', targetId: file.id, svcUserId: String(p.sales.id) }));
  });
});

describe('images', () => {
  it('a PNG and a JPEG are one-page files, drawn no wider than they are', async () => {
    for (const [name, mime, desktop, phone] of [
      ['photo.png', 'image/png', [800, 600], [750, 563]],
      ['photo.jpg', 'image/jpeg', [640, 336], [640, 336]],
    ] as const) {
      const res = await upload(t.server, p.appId, p.sales.token, { filename: name, bytes: fixture(name) });
      expect(res.json()).toMatchObject({ status: 1, data: { mimeType: mime, pageCount: 1 } });
      const file = await settled(t.server, p.appId, p.sales.token, data(res).id);
      expect(file).toMatchObject({ status: 'ready', renderedPages: 1 });
      const big = await decode((await pageImage(t.server, p.appId, p.sales.token, file.id, 1)).rawPayload);
      expect([big.width, big.height]).toEqual(desktop);
      const small = await decode((await pageImage(t.server, p.appId, p.sales.token, file.id, 1, 'phone')).rawPayload);
      expect([small.width, small.height]).toEqual(phone);
    }
  });

  it('the type comes from the bytes, not the name or the Content-Type sent', async () => {
    const res = await upload(t.server, p.appId, p.sales.token, {
      filename: 'photo.png',
      bytes: fixture('deck.pdf'),
      contentType: 'image/png',
    });
    expect(res.json()).toMatchObject({ status: 1, data: { name: 'photo.png', mimeType: 'application/pdf', pageCount: 3 } });
    await settled(t.server, p.appId, p.sales.token, data(res).id);
  });
});

describe('refused uploads', () => {
  let q: HistoryProject;
  const refused: { what: string; res: () => Promise<{ json(): unknown; headers: Record<string, unknown> }> }[] = [];

  beforeAll(async () => {
    q = await historyProject(t.server);
    const twentyOne = await PDFDocument.create();
    for (let i = 0; i < 21; i++) twentyOne.addPage([200, 200]);
    const tooManyPages = Buffer.from(await twentyOne.save());
    const put = (filename: string, bytes: Buffer) => () => upload(t.server, q.appId, q.sales.token, { filename, bytes });
    refused.push(
      { what: 'a text file named .pdf', res: put('not-a-pdf.pdf', fixture('not-a-pdf.pdf')) },
      { what: 'a corrupt PDF', res: put('corrupt.pdf', fixture('corrupt.pdf')) },
      { what: 'a PDF that needs a password', res: put('encrypted.pdf', fixture('encrypted-password.pdf')) },
      { what: 'an encrypted PDF that opens without one', res: put('encrypted.pdf', fixture('encrypted-permissions.pdf')) },
      { what: 'a PNG over 40 megapixels (by its header)', res: put('huge.png', fixture('huge.png')) },
      { what: 'a JPEG over 40 megapixels (by its header)', res: put('huge.jpg', fixture('huge.jpg')) },
      { what: 'an empty file', res: put('empty.pdf', Buffer.alloc(0)) },
      { what: 'a PDF with more pages than FILE_MAX_PAGES', res: put('long.pdf', tooManyPages) },
      {
        what: 'a file over FILE_MAX_BYTES (cut off while it arrives)',
        res: put('big.pdf', Buffer.concat([fixture('deck.pdf'), Buffer.alloc(MAX_BYTES + 1000, 0x20)])),
      },
      {
        what: 'a body larger than any file may be (refused before it is read)',
        res: put('bigger.pdf', Buffer.concat([fixture('deck.pdf'), Buffer.alloc(MAX_BYTES * 3, 0x20)])),
      },
      { what: 'no file part', res: () => upload(t.server, q.appId, q.sales.token, null, { fields: { name: 'nothing' } }) },
      {
        what: 'the file in another field',
        res: () => upload(t.server, q.appId, q.sales.token, { field: 'upload', filename: 'd.pdf', bytes: fixture('deck.pdf') }),
      },
      { what: 'a JSON body', res: () => t.server.api.post(`/api/v1.7/app/${q.appId}/files`, { name: 'x' }, { token: q.sales.token }) },
    );
  });

  it('each gets invalid_file with a message saying why', async () => {
    const answers: Record<string, unknown> = {};
    for (const r of refused) {
      const res = await r.res();
      answers[r.what] = res.json();
      expect(res.json(), r.what).toMatchObject({ status: 0, code: 'invalid_file', msg: expect.any(String) });
    }
    const msg = (what: string) => (answers[what] as { msg: string }).msg;
    expect(msg('a PDF that needs a password')).toMatch(/encrypted/);
    expect(msg('an encrypted PDF that opens without one')).toMatch(/encrypted/);
    expect(msg('a PNG over 40 megapixels (by its header)')).toMatch(/8000 × 6000/);
    expect(msg('a JPEG over 40 megapixels (by its header)')).toMatch(/10000 × 5000/);
    expect(msg('a PDF with more pages than FILE_MAX_PAGES')).toMatch(/21 pages; at most 20/);
    expect(msg('a file over FILE_MAX_BYTES (cut off while it arrives)')).toMatch(/larger than 200000 bytes/);
    expect(msg('a text file named .pdf')).toMatch(/not a PDF, PNG or JPEG/);
  });

  it('a body larger than any file may be is answered before it is read, and the connection closed', async () => {
    const body = multipart({ filename: 'bigger.pdf', bytes: Buffer.alloc(MAX_BYTES * 3, 0x20) });
    const res = await t.server.api.post(`/api/v1.7/app/${q.appId}/files`, body.payload, {
      token: q.sales.token,
      headers: { 'content-type': body.contentType },
    });
    expect(res.json()).toMatchObject({ status: 0, code: 'invalid_file' });
    expect(res.headers.connection).toBe('close');
  });

  it('and leaves nothing behind: no file, no page, no audit entry, nothing on disk', async () => {
    const list = (await t.server.api.get(`/api/v1.7/app/${q.appId}/files`, { token: q.master.token })).json() as { data: unknown[] };
    expect(list.data).toEqual([]);
    const rows = await t.server.ctx.database.db.selectFrom('files').select('id').where('app_id', '=', q.appId).execute();
    expect(rows).toEqual([]);
    const pages = await t.server.ctx.database.db.selectFrom('file_pages').select('page').where('app_id', '=', q.appId).execute();
    expect(pages).toEqual([]);
    const log = (await t.server.api.get(`/api/v1.7/app/${q.appId}/audit-log`, { token: q.master.token })).json() as {
      data: { action: string }[];
    };
    expect(log.data.filter((e) => e.action.startsWith('file.'))).toEqual([]);
    const onDisk = storedFiles(t.server.ctx.config.dataDir);
    expect(onDisk.filter((f) => f.startsWith(`${q.appId}/`) || f.startsWith('.incoming/'))).toEqual([]);
  });
});

describe('a new version', () => {
  it('keeps the id, replaces the content and its pages, and removes the previous version', async () => {
    const first = await upload(t.server, p.appId, p.sales.token, { filename: 'deck.pdf', bytes: fixture('deck.pdf') });
    const original = await settled(t.server, p.appId, p.sales.token, data(first).id);
    const before = storedFiles(t.server.ctx.config.dataDir).filter((f) => f.startsWith(`${p.appId}/${original.id}/`));
    expect(before.filter((f) => f.endsWith('original.pdf'))).toHaveLength(1);
    expect(before.filter((f) => f.endsWith('.webp'))).toHaveLength(6);

    const res = await upload(
      t.server,
      p.appId,
      p.sales.token,
      { filename: 'photo.png', bytes: fixture('photo.png') },
      { fileId: original.id },
    );
    expect(res.json()).toMatchObject({
      status: 1,
      data: { id: original.id, version: 2, mimeType: 'image/png', pageCount: 1, name: 'photo.png' },
    });
    const replaced = await settled(t.server, p.appId, p.sales.token, original.id);
    expect(replaced).toMatchObject({ id: original.id, status: 'ready', version: 2, renderedPages: 1, createdAt: original.createdAt });
    const page = await decode((await pageImage(t.server, p.appId, p.sales.token, original.id, 1)).rawPayload);
    expect(page.width).toBe(800);
    expect((await pageImage(t.server, p.appId, p.sales.token, original.id, 2)).json()).toMatchObject({ code: 'page_not_found' });

    const after = storedFiles(t.server.ctx.config.dataDir).filter((f) => f.startsWith(`${p.appId}/${original.id}/`));
    expect(after.filter((f) => f.endsWith('original.png'))).toHaveLength(1);
    expect(after.filter((f) => f.endsWith('.webp'))).toHaveLength(2);
    expect(after.some((f) => before.includes(f))).toBe(false);
  });

  it('is the uploader’s, a Master’s or an Admin’s to give; a bad one changes nothing', async () => {
    const res = await upload(t.server, p.appId, p.sales.token, { filename: 'deck.pdf', bytes: fixture('deck.pdf') });
    const file = await settled(t.server, p.appId, p.sales.token, data(res).id);
    const other = await upload(t.server, p.appId, p.sales2.token, { filename: 'x.png', bytes: fixture('photo.png') }, { fileId: file.id });
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({ error: 'forbidden' });

    const bad = await upload(t.server, p.appId, p.admin.token, { filename: 'x.pdf', bytes: fixture('corrupt.pdf') }, { fileId: file.id });
    expect(bad.json()).toMatchObject({ status: 0, code: 'invalid_file' });
    expect(await settled(t.server, p.appId, p.sales.token, file.id)).toEqual(file);
    expect((await pageImage(t.server, p.appId, p.sales.token, file.id, 3)).statusCode).toBe(200);

    const byAdmin = await upload(t.server, p.appId, p.admin.token, { filename: 'x.jpg', bytes: fixture('photo.jpg') }, { fileId: file.id });
    expect(byAdmin.json()).toMatchObject({ status: 1, data: { version: 2 } });
    expect(await settled(t.server, p.appId, p.sales.token, file.id)).toMatchObject({ status: 'ready', version: 2 });
    const byMaster = await upload(
      t.server,
      p.appId,
      p.master.token,
      { filename: 'y.pdf', bytes: fixture('deck.pdf') },
      { fileId: file.id },
    );
    expect(byMaster.json(), byMaster.body).toMatchObject({ status: 1, data: { version: 3, name: 'y.pdf' } });
    expect(await settled(t.server, p.appId, p.sales.token, file.id)).toMatchObject({ status: 'ready', version: 3, renderedPages: 3 });
    const missing = await upload(t.server, p.appId, p.master.token, { filename: 'y.pdf', bytes: fixture('deck.pdf') }, { fileId: 'nope' });
    expect(missing.json()).toMatchObject({ status: 0, code: 'file_not_found' });
  });
});

describe('a Chinese deck whose font is not embedded', () => {
  it('renders its text with the CMaps and a font that has the glyphs', async () => {
    const res = await upload(t.server, p.appId, p.sales.token, { filename: '销售演示.pdf', bytes: fixture('chinese.pdf') });
    expect(res.json()).toMatchObject({ status: 1, data: { name: '销售演示.pdf', pageCount: 2 } });
    const file = await settled(t.server, p.appId, p.sales.token, data(res).id);
    expect(file.status).toBe('ready');
    const first = await decode((await pageImage(t.server, p.appId, p.sales.token, file.id, 1)).rawPayload);
    const second = await decode((await pageImage(t.server, p.appId, p.sales.token, file.id, 2)).rawPayload);
    // The text (48 pt from x=50, baseline y=80 of a 400 × 200 page) is drawn…
    const text = { x: 0.1, y: 0.25, w: 0.5, h: 0.45 };
    expect(darkPixels(first, text)).toBeGreaterThan(10_000);
    expect(darkPixels(second, text)).toBeGreaterThan(10_000);
    // …and nothing outside it.
    expect(darkPixels(first, { x: 0, y: 0, w: 1, h: 0.2 })).toBe(0);
    // Different words are different shapes (a font without the glyphs draws the same empty box for each).
    expect(differingPixels(first, second)).toBeGreaterThan(10_000);
  });
});

describe('settings', () => {
  it('default to 50 MiB, 500 pages, 10 s a page and 384 MB for the renderer, and are checked at start', async () => {
    const { ConfigError, loadConfig } = await import('../../../src/config.ts');
    expect(loadConfig({}).files).toEqual({
      maxBytes: 50 * 1024 * 1024,
      maxPages: 500,
      pageTimeoutMs: 10_000,
      renderMemoryMb: 384,
      fontDir: undefined,
    });
    const env = { FILE_MAX_BYTES: '1048576', FILE_MAX_PAGES: '20', FILE_RENDER_PAGE_TIMEOUT_MS: '2500', FILE_RENDER_MEMORY_MB: '256' };
    expect(loadConfig(env).files).toMatchObject({ maxBytes: 1048576, maxPages: 20, pageTimeoutMs: 2500, renderMemoryMb: 256 });
    expect(() => loadConfig({ FILE_MAX_BYTES: '50MB' })).toThrow(ConfigError);
    expect(() => loadConfig({ FILE_MAX_PAGES: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ FILE_RENDER_PAGE_TIMEOUT_MS: '10' })).toThrow(ConfigError);
    expect(() => loadConfig({ FILE_RENDER_MEMORY_MB: '64' })).toThrow(/FILE_RENDER_MEMORY_MB must be between 192/);
    expect(() => loadConfig({ FILE_RENDER_MEMORY_MB: '1g' })).toThrow(/FILE_RENDER_MEMORY_MB must be a whole number/);
    expect(() => loadConfig({ FILE_FONT_DIR: '/no/such/directory' })).toThrow(/FILE_FONT_DIR/);
  });
});
