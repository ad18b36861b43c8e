// lanes: sqlite postgres
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, historyProject } from '../../helpers/histories.ts';
import { Browser, type LinkData, MOBILE_UA, madeLink, renderedFile } from '../../helpers/links.ts';
import { RoomReader, madeRoom, viewerConfig } from '../../helpers/rooms.ts';

/**
 * A room link in the public viewer (docs/rooms.md): its page lists the room's tree; each document
 * opens in the page viewer under the room link, its page images checked against the room on every
 * request (a file outside the room is the same 404 as an unknown link); the gates stand before the
 * whole room; one view log per reading of the room, with a Duration item per document and page read.
 */
const t = useTestServer();
let p: HistoryProject;
let deck: string;
let photo: string;
let outside: string;
let roomId: string;
let link: LinkData;

/** The server's clock, moved by the tests (`vi.spyOn` in `useClock`). */
let now = 0;
const useClock = () => vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);
afterEach(() => {
  vi.restoreAllMocks();
});

interface ViewLog {
  id: string;
  leaveTime: string | null;
  totalDuration: number;
  totalPage: number;
  durations: { fileId: string; fileName: string; fileURL: string; pageIndex: string; duration: string; sortIndex: number }[];
}

const viewLogs = async (linkId: string) =>
  ((await t.server.api.get(`/api/v1.7/link/${linkId}/view-logs`, { token: p.sales.token })).json() as { data: ViewLog[] }).data;

beforeAll(async () => {
  p = await historyProject(t.server);
  deck = await renderedFile(t.server, p, p.sales.token);
  photo = await renderedFile(t.server, p, p.sales.token, 'photo.png');
  outside = await renderedFile(t.server, p, p.sales.token, 'chinese.pdf');
  const room = await madeRoom(t.server, p.appId, p.sales.token, {
    name: 'Acme <due> diligence',
    items: [
      { type: 'folder', name: 'Pictures & scans', items: [{ type: 'file', file_id: photo }] },
      { type: 'file', file_id: deck },
    ],
  });
  roomId = room.id;
  link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Team name for it', type: 4, room_id: roomId });
});

describe('the room page', () => {
  it('lists the tree: folders, then each document with its pages, linking to its viewer; the title is the room name', async () => {
    const b = new Browser(t.server);
    const res = await b.get(`/l/${link.shareToken}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'nonce-");
    const html = res.body;
    expect(html).toContain('<title>Acme &lt;due&gt; diligence</title>');
    expect(html).not.toContain('Team name for it');
    expect(html).toContain('<span class="name">Pictures &amp; scans</span>');
    expect(html).toContain('2 documents');
    const docs = [
      ...html.matchAll(
        /<a class="row doc[^"]*" href="([^"]+)" data-room>.*?<span class="name">([^<]+)<\/span><span class="meta">([^<]+)</g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    expect(docs).toEqual([
      [`/l/${link.shareToken}/doc/${photo}`, 'photo.png', '1 page'],
      [`/l/${link.shareToken}/doc/${deck}`, 'deck.pdf', '3 pages'],
    ]);
    expect(html.indexOf('Pictures &amp; scans')).toBeLessThan(html.indexOf('photo.png'));
    expect(viewerConfig(html)).toMatchObject({ token: expect.any(String), events: `/l/${link.shareToken}/events` });
  });

  it("opens a document in the page viewer: its images under the room link, the way back, the beacons' doc", async () => {
    const b = new Browser(t.server);
    const res = await b.get(`/l/${link.shareToken}/doc/${deck}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>deck.pdf</title>');
    expect(res.body).toContain(`<a class="back" href="/l/${link.shareToken}" data-room aria-label="Back to Acme &lt;due&gt; diligence">`);
    expect(res.body).toContain(`src="/l/${link.shareToken}/doc/${deck}/page/1?width=phone`);
    expect(res.body).toMatch(/id="page-3"/);
    expect(viewerConfig(res.body)).toMatchObject({ doc: deck, pages: 3 });
    const image = await b.get(`/l/${link.shareToken}/doc/${deck}/page/2?width=desktop`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/webp');
  });

  it("serves the room, its documents and their images on the project's share domain", async () => {
    const edit = await t.server.api.post(`/api/v1.7/app/${p.appId}`, { share_domain: 'rooms.acme.example' }, { token: p.master.token });
    expect(edit.json()).toMatchObject({ status: 1 });
    const onHost = (host: string, url: string) =>
      t.server.app.inject({ method: 'GET', url, headers: { host, 'user-agent': MOBILE_UA }, remoteAddress: '198.51.100.7' });
    try {
      expect((await onHost('rooms.acme.example', `/l/${link.shareToken}`)).statusCode).toBe(200);
      expect((await onHost('rooms.acme.example', `/l/${link.shareToken}/doc/${deck}`)).statusCode).toBe(200);
      expect((await onHost('rooms.acme.example', `/l/${link.shareToken}/doc/${deck}/page/1?width=phone`)).statusCode).toBe(200);
    } finally {
      await t.server.api.post(`/api/v1.7/app/${p.appId}`, { share_domain: '' }, { token: p.master.token });
    }
  });

  it('answers a file outside the room, an unknown one and a file link page of it with the same 404', async () => {
    const b = new Browser(t.server);
    for (const url of [
      `/l/${link.shareToken}/doc/${outside}`,
      `/l/${link.shareToken}/doc/${outside}/page/1`,
      `/l/${link.shareToken}/doc/nope/page/1`,
      `/l/${link.shareToken}/doc/${deck}/page/4`,
      `/l/${link.shareToken}/page/1`,
      `/l/${link.shareToken}/doc/${deck}/download`,
    ]) {
      const res = await b.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toContain('Link not found');
    }
    // Taken out of the room, a document no longer opens.
    const put = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/room/${roomId}`,
      { items: [{ type: 'file', file_id: deck }] },
      { token: p.sales.token },
    );
    expect(put.json().status).toBe(1);
    expect((await b.get(`/l/${link.shareToken}/doc/${photo}/page/1`)).statusCode).toBe(404);
    await t.server.api.put(
      `/api/v1.7/app/${p.appId}/room/${roomId}`,
      {
        items: [
          { type: 'folder', name: 'Pictures & scans', items: [{ type: 'file', file_id: photo }] },
          { type: 'file', file_id: deck },
        ],
      },
      { token: p.sales.token },
    );
  });

  it("stands the link's passcode before the room and every document", async () => {
    const gated = await madeLink(t.server, p.appId, p.sales.token, { name: 'Gated', type: 4, room_id: roomId, passcode: 'open sesame' });
    const b = new Browser(t.server);
    const page = await b.get(`/l/${gated.shareToken}`);
    expect(page.body).toContain('Enter the passcode');
    expect(page.body).toContain('<title>Shared documents</title>');
    expect((await b.get(`/l/${gated.shareToken}/doc/${deck}`)).body).toContain('Enter the passcode');
    expect((await b.get(`/l/${gated.shareToken}/doc/${deck}/page/1`)).statusCode).toBe(404);
    const unlock = await b.post(`/l/${gated.shareToken}/unlock`, 'passcode=open+sesame', 'application/x-www-form-urlencoded');
    expect(unlock.statusCode).toBe(303);
    expect((await b.get(`/l/${gated.shareToken}/doc/${deck}/page/1`)).statusCode).toBe(200);
    expect((await b.get(`/l/${gated.shareToken}/doc/${deck}`)).body).toContain('<title>deck.pdf</title>');
  });
});

describe('reading a room', () => {
  it('is one view log: a Duration item per document and page read, each within a second of its time', async () => {
    now = Date.now();
    useClock();
    const reader = new RoomReader(t.server, link.shareToken, (ms) => (now += ms));
    await reader.load(null);
    now += 3000;
    await reader.leave();
    now += 500;
    const continued = await reader.load(deck);
    expect(continued).toMatchObject({ counted: true, continued: true, dwell: {} });
    await reader.read(1, 20);
    await reader.read(3, 10);
    now += 1000;
    await reader.leave(3);
    now += 800;
    await reader.load(photo);
    await reader.read(1, 30);
    await reader.leave();
    // Back to the deck: its pages go on from what was read.
    now += 600;
    const again = await reader.load(deck);
    expect(again.dwell).toEqual({ 1: 20_000, 3: 10_000 });
    await reader.read(3, 10);
    await reader.leave(3);

    const logs = await viewLogs(link.id);
    expect(logs).toHaveLength(1);
    const [log] = logs as [ViewLog];
    const read = log.durations.map((d) => [d.fileId, d.fileName, d.pageIndex, Number(d.duration)]);
    expect(read).toEqual([
      [deck, 'deck.pdf', '1', expect.any(Number)],
      [deck, 'deck.pdf', '3', expect.any(Number)],
      [photo, 'photo.png', '1', expect.any(Number)],
    ]);
    const within = (actual: unknown, ms: number) => expect(Math.abs((actual as number) - ms)).toBeLessThanOrEqual(1000);
    within(read[0]?.[3], 20_000);
    within(read[1]?.[3], 20_000);
    within(read[2]?.[3], 30_000);
    expect(log.totalPage).toBe(3);
    within(log.totalDuration, 70_000);
    expect(log.leaveTime).not.toBeNull();
    expect(log.durations[2]?.fileURL).toContain(`/file/${photo}/page/1`);
  });

  it('refuses a beacon naming a document outside the room, or a page beyond the document', async () => {
    const b = new Browser(t.server);
    const token = viewerConfig((await b.get(`/l/${link.shareToken}`)).body).token as string;
    for (const body of [
      { type: 'open', seq: 1, token, page: 1, doc: outside },
      { type: 'open', seq: 1, token, page: 1, doc: 'forged' },
      { type: 'open', seq: 1, token, page: 1, doc: 42 },
      { type: 'open', seq: 1, token, page: 2, doc: photo },
    ]) {
      const res = await b.beacon(link.shareToken, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ status: 0, code: 'beacon_invalid' });
    }
  });
});

describe("a room link's public routes under random input", () => {
  it('never answer 5xx or an undocumented failure', async () => {
    const { default: fc } = await import('fast-check');
    const { undocumented } = await import('../../helpers/openapi.ts');
    const b = new Browser(t.server);
    const view = viewerConfig((await b.get(`/l/${link.shareToken}`)).body).token as string;
    const beaconish = fc.record(
      {
        type: fc.oneof(fc.constantFrom('open', 'page', 'hb', 'hide', 'leave'), fc.string()),
        seq: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.string()),
        token: fc.oneof(fc.constant(view), fc.string()),
        page: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.string()),
        doc: fc.oneof(fc.constantFrom(deck, photo, outside), fc.string(), fc.anything()),
        dwell: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string())), fc.anything()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(beaconish, async (body) => {
        const res = await b.beacon(link.shareToken, JSON.stringify(body));
        expect(res.statusCode).toBeLessThan(500);
        expect(undocumented(res), res.body).toBeUndefined();
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(deck, photo, outside), fc.string()), fc.string(), async (doc, n) => {
        for (const url of [
          `/l/${link.shareToken}/doc/${encodeURIComponent(doc)}`,
          `/l/${link.shareToken}/doc/${encodeURIComponent(doc)}/page/${encodeURIComponent(n)}`,
          `/l/${link.shareToken}/doc/${encodeURIComponent(doc)}/download`,
        ]) {
          const res = await b.get(url);
          expect([200, 404]).toContain(res.statusCode);
        }
      }),
      { numRuns: 60 },
    );
  });
});
