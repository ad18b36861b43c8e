// lanes: sqlite postgres
/**
 * A customer reading a deck on a phone, through the viewer's beacons (docs/links.md, docs/scoring.md):
 * the page turns that reach the share of the deck earn the deck-read points, the time on the
 * project's key page earns its points when the reading ends, and the customer tops the hot leads
 * with the reasons in words. The clock is the test's, so dwell is credited without waiting.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, customerEvent, historyProject, ingest } from '../../helpers/histories.ts';
import { Browser, type LinkData, madeLink, renderedFile } from '../../helpers/links.ts';

const t = useTestServer();
let p: HistoryProject;
let fileId: string;
let link: LinkData;
let now = Date.now();

interface Lead {
  customerId: string;
  score: number;
  lastSignal: { kind: string; action: string } | null;
  scoreReasons: { kind: string; text: string; points: number; pages?: number; pageCount?: number; keyPages?: number[]; seconds?: number }[];
}

beforeAll(async () => {
  p = await historyProject(t.server);
  const res = await ingest(t.server, p, [
    customerEvent('v-ada', { svcUserId: String(p.sales.id) }),
    customerEvent('v-other', { svcUserId: String(p.sales.id) }),
  ]);
  expect(res.json()).toMatchObject({ status: 1 });
  fileId = await renderedFile(t.server, p, p.sales.token);
  link = await madeLink(t.server, p.appId, p.sales.token, { name: 'For Ada', file_id: fileId, customer_id: 'v-ada' });
  // Someone else scored earlier: Ada must come out on top of the hot leads.
  await ingest(t.server, p, [
    {
      event_type: 'create',
      domainType: 'BehaviourLog',
      domainId: 'v-other-form',
      body: { customerId: 'v-other', action: 'submit_form', when: new Date(now - 3_600_000).toISOString() },
    },
  ]);
  const put = await t.server.api.put(
    `/api/v1.7/app/${p.appId}/scoring`,
    { key_pages: [{ fileId, pages: [2] }] },
    { token: p.master.token },
  );
  expect(put.json()).toMatchObject({ status: 1, data: { keyPages: [{ fileId, pages: [2] }] } });
  vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);
});

afterAll(() => {
  vi.restoreAllMocks();
});

const leads = async () =>
  ((await t.server.api.get(`/api/v1.7/app/${p.appId}/hot-leads`, { token: p.sales.token })).json() as { data: Lead[] }).data;

describe('a customer reading a deck on a phone', () => {
  it('earns the deck-read points once two pages of three are read, and the key page time when the reading ends', async () => {
    const b = new Browser(t.server);
    const token = (await b.open(link.shareToken)).viewToken as string;
    expect(token).toBeTruthy();
    const beacon = async (body: Record<string, unknown>) => {
      const res = await b.beacon(link.shareToken, { token, ...body });
      expect(res.statusCode, res.body).toBe(200);
    };
    await beacon({ type: 'open', seq: 1, page: 1 });
    let ada = (await leads()).find((l) => l.customerId === 'v-ada');
    expect(ada).toBeUndefined();

    now += 10_000;
    await beacon({ type: 'page', seq: 2, page: 2, dwell: { 1: 10_000 } });
    ada = (await leads())[0];
    expect(ada).toMatchObject({
      customerId: 'v-ada',
      lastSignal: { kind: 'deck_read', action: 'file_view_duration' },
      scoreReasons: [{ kind: 'deck_read', text: "read 2 of 3 pages of 'deck.pdf' today", pages: 2, pageCount: 3 }],
    });
    expect(ada?.score).toBeCloseTo(10, 0);

    // Dwell alone writes no record and earns nothing yet; the leave ends the reading.
    now += 10_000;
    await beacon({ type: 'hb', seq: 3, page: 2, dwell: { 1: 10_000, 2: 10_000 } });
    now += 10_000;
    await beacon({ type: 'leave', seq: 4, page: 2, dwell: { 1: 10_000, 2: 20_000 } });
    ada = (await leads())[0];
    expect(ada?.customerId).toBe('v-ada');
    expect(ada?.lastSignal).toMatchObject({ kind: 'key_page', action: 'file_view_duration' });
    expect(ada?.scoreReasons.find((r) => r.kind === 'key_page')).toMatchObject({
      text: "spent 20 s on key page 2 of 'deck.pdf' today",
      keyPages: [2],
      seconds: 20,
    });
    expect(ada?.score).toBeCloseTo(12, 0);

    const detail = (await t.server.api.get('/api/v1.7/customer/v-ada/detail', { token: p.sales.token })).json() as {
      data: { score: number; scoreReasons: unknown[] };
    };
    expect(detail.data.score).toBe(ada?.score);
    expect(detail.data.scoreReasons).toEqual(ada?.scoreReasons);
  });

  it('a reading reopened and left again earns only its new key page time, and no second deck read', async () => {
    const b = new Browser(t.server);
    const token = (await b.open(link.shareToken)).viewToken as string;
    now += 60_000;
    await b.beacon(link.shareToken, { token, type: 'open', seq: 1, page: 2 });
    now += 10_000;
    await b.beacon(link.shareToken, { token, type: 'leave', seq: 2, page: 2, dwell: { 2: 10_000 } });
    const ada = (await leads())[0] as Lead;
    // A second reading: its one page is under the share; 10 s more on the key page.
    expect(ada.scoreReasons.find((r) => r.kind === 'deck_read')).toMatchObject({ text: "read 2 of 3 pages of 'deck.pdf' today" });
    expect(ada.scoreReasons.find((r) => r.kind === 'key_page')).toMatchObject({
      text: "spent 30 s on key page 2 of 'deck.pdf' twice today",
    });
    expect(ada.score).toBeCloseTo(13, 0);
  });
});
