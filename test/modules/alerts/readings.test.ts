// lanes: sqlite postgres
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeEvents } from '../../../src/events/outbox.ts';
import { lastPosition } from '../../../src/events/sequencer.ts';
import { SIGNALS_PER_CUSTOMER_HOUR } from '../../../src/modules/alerts/evaluator.service.ts';
import { signalsRepository } from '../../../src/modules/alerts/signals.repository.ts';
import { createServices } from '../../../src/services.ts';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { BeaconReader, type LinkData, madeLink, renderedFile } from '../../helpers/links.ts';

/**
 * A customer reading a directed deck on a phone, through the viewer's beacons, with the server's clock
 * moved by the test (no real waiting): its open is one alert, its reading one more when it ends (the
 * leave, or no page record for ALERT_READING_QUIET), with the pages read of the deck's and the time,
 * never one per page; each member as their settings say, never about a customer they may not see; once
 * across a restart and two servers.
 */
const t = useTestServer();
let p: HistoryProject;
let link: LinkData;
/** The server's clock, moved by the tests; set in beforeAll to 01:00 (the server's zone) of the coming day. */
let now = Date.now();

interface Entry {
  id: string;
  signal: string;
  customerId: string;
  title: string;
  text: string;
  data: Record<string, unknown>;
}

const pass = () => t.server.services.alerts.evaluator.pass();
async function inbox(token: string, signal?: string): Promise<Entry[]> {
  const res = (await t.server.api.get('/api/v1.7/notifications', { token, query: { count: 100 } })).json();
  expect(res.status, JSON.stringify(res)).toBe(1);
  return (res.data as Entry[]).filter((e) => signal === undefined || e.signal === signal);
}

/** A reader on a phone of a link, a heartbeat every 10 s of the server's clock (`now`). */
const reader = (share: string) => new BeaconReader(t.server, share, (ms) => (now += ms));

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'r-ada', owner: p.sales.id, name: 'Ada' },
    { id: 'r-bob', owner: p.sales2.id, name: 'Bob' },
  ]);
  const fileId = await renderedFile(t.server, p, p.sales.token);
  link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', file_id: fileId, customer_id: 'r-ada' });
  // Scope `all`: the Admin hears of every customer, from a third of a deck read; the second Sales member too, but sees only their own.
  for (const [token, threshold] of [
    [p.admin.token, 30],
    [p.sales2.token, 10],
  ] as const) {
    const res = await t.server.api.put(
      '/api/v1.7/user/notification-settings',
      { projects: [{ app_id: p.appId, scope: 'all', read_threshold: threshold }] },
      { token },
    );
    expect(res.json().status, res.body).toBe(1);
  }
  await pass();
  // The readings start at one in the morning, whatever the hour the suite runs: the words of the
  // score's reasons ("since yesterday") are about days in the server's zone, and the readings below
  // span a day and two hours.
  now = t.server.ctx.clock.dayEnd(Date.now()) + HOUR;
});

afterEach(() => {
  vi.restoreAllMocks();
});
const useClock = () => vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);

describe('a directed deck read on a phone', () => {
  let firstRead: Entry[] = [];

  it("tells its owner it was opened, then once, when the reading ends, what was read: 'Ada read 3 of 3 pages of 'Pricing' (6 min)'", async () => {
    useClock();
    const r = reader(link.shareToken);
    await r.open();
    await pass();
    const opened = await inbox(p.sales.token, 'deck_opened');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ customerId: 'r-ada', title: "Ada opened 'Pricing'", data: { linkId: link.id } });
    // Reading: pages and heartbeats, passes in between; nothing more until it ends.
    await r.read(1, 120);
    await pass();
    await r.read(2, 120);
    await pass();
    await r.read(3, 120);
    await pass();
    expect(await inbox(p.sales.token, 'deck_read')).toEqual([]);
    expect((await inbox(p.sales.token)).length).toBe(1);
    await r.leave(3);
    await pass();
    await pass();
    firstRead = await inbox(p.sales.token, 'deck_read');
    expect(firstRead).toHaveLength(1);
    expect(firstRead[0]?.title).toBe("Ada read 3 of 3 pages of 'Pricing' (6 min)");
    expect(firstRead[0]?.data).toMatchObject({ pagesRead: 3, pageCount: 3, percent: 100, seconds: 360 });
    // The Admin (scope all) too; the second Sales member, who may not see Ada, never.
    expect((await inbox(p.admin.token)).map((e) => e.signal).sort()).toEqual(['deck_opened', 'deck_read']);
    expect(await inbox(p.sales2.token)).toEqual([]);
    expect(await inbox(p.master.token)).toEqual([]);
  });

  it('ends a reading that stops without a leave once no page record came for ALERT_READING_QUIET; below a threshold it tells no one who asked for more', async () => {
    useClock();
    now += 60 * 60_000;
    const r = reader(link.shareToken);
    await r.open();
    await r.read(1, 30);
    await pass();
    // Quiet is counted from the last page record: page 1's, at the open (30 s ago).
    const quiet = t.server.ctx.config.alertReadingQuietSeconds * 1000;
    now += quiet - 50_000;
    await pass();
    expect((await inbox(p.admin.token, 'deck_read')).length).toBe(1);
    now += 30_000;
    await pass();
    // 1 of 3 pages: the Admin (from 30 %) is told, the owner (from 50 %) is not.
    const admin = await inbox(p.admin.token, 'deck_read');
    expect(admin).toHaveLength(2);
    expect(admin[0]?.title).toBe("Ada read 1 of 3 pages of 'Pricing' (30 s)");
    expect(await inbox(p.sales.token, 'deck_read')).toHaveLength(1);
    // A later leave of the same view changes nothing: one alert per reading.
    await r.leave(1);
    await pass();
    expect(await inbox(p.admin.token, 'deck_read')).toHaveLength(2);
    // Its open an hour after the first was told again.
    expect(await inbox(p.sales.token, 'deck_opened')).toHaveLength(2);
  });

  it("tells no one about a customer they may no longer see: the link's creator after the customer moved to a colleague", async () => {
    useClock();
    const fileId = await renderedFile(t.server, p, p.sales2.token);
    const bobs = await madeLink(t.server, p.appId, p.sales2.token, { name: 'Proposal', file_id: fileId, customer_id: 'r-bob' });
    const moved = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/customer/batch-app-member-transfers`,
      {
        datas: JSON.stringify([{ customerId: 'r-bob', srouceGroupId: '', srouceSvcUserId: String(p.sales2.id) }]),
        target_svc_userid: p.sales.id,
      },
      { token: p.master.token, form: true },
    );
    expect(moved.json().status, moved.body).toBe(1);
    const r = reader(bobs.shareToken);
    await r.open();
    await pass();
    expect(await inbox(p.sales2.token)).toEqual([]);
    expect((await inbox(p.sales.token, 'deck_opened')).map((e) => e.title)).toContain("Bob opened 'Proposal'");
  });

  it('is told once across a restart and with two servers passing at once', async () => {
    useClock();
    const db = t.server.ctx.database.db;
    const counts = async () => ({
      notifications: (await db.selectFrom('notifications').select('id').where('app_id', '=', p.appId).execute()).length,
      alerts: (await db.selectFrom('outbox').select('id').where('app_id', '=', p.appId).where('domain_type', '=', 'Alert').execute())
        .length,
    });
    // Bob's reading (above) ends quietly meanwhile: settled first.
    now += 60 * 60_000;
    await pass();
    const before = await counts();
    // A restarted server that lost its position (a crash before the cursor was saved) reads the feed again from the start.
    await db.updateTable('event_cursors').set({ position: 0 }).where('name', '=', 'alerts').execute();
    const restarted = createServices(t.server.ctx);
    try {
      for (let i = 0; i < 10 && (await restarted.alerts.evaluator.pass()).events > 0; i += 1);
      expect(await counts()).toEqual(before);
      // Two servers, one new reading: one alert for each member told.
      const r = reader(link.shareToken);
      await r.open();
      await Promise.all([pass(), restarted.alerts.evaluator.pass(), pass()]);
      await Promise.all([pass(), restarted.alerts.evaluator.pass()]);
      expect((await counts()).notifications).toBe(before.notifications + 2);
    } finally {
      restarted.mailTransport.close();
    }
  });
});

describe('a reading during which the customer becomes a hot lead', () => {
  it('is one alert, at its end, carrying the score: no hot-lead alert of its own seconds before, for members taking either signal', async () => {
    useClock();
    // The next day: not announced yet today. The threshold: above Ada's score now and her return (5
    // points, at the open), reached by the deck read (10 points more) during the reading.
    now += 24 * 60 * 60_000;
    await pass();
    const before = (await t.server.api.get('/api/v1.7/customer/r-ada/detail', { token: p.master.token })).json().data.score as number;
    const put = await t.server.api.put(
      `/api/v1.7/app/${p.appId}/scoring`,
      { hot_score: Math.floor(before) + 10 },
      { token: p.master.token },
    );
    expect(put.json().status, put.body).toBe(1);
    while ((await t.server.services.scoring.recomputeOnce()) !== 0);
    // The Master hears of hot leads only (scope all): the reading's alert is theirs too.
    const only = await t.server.api.put(
      '/api/v1.7/user/notification-settings',
      { projects: [{ app_id: p.appId, scope: 'all', signals: 'hot_lead' }] },
      { token: p.master.token },
    );
    expect(only.json().status, only.body).toBe(1);
    const owned = (await inbox(p.sales.token)).length;
    const r = reader(link.shareToken);
    await r.open();
    await r.read(1, 20);
    await r.read(2, 20);
    await pass();
    // Two of three pages: the deck is read, the score rose past the threshold, Ada announced...
    const hot = await t.server.ctx.database.db
      .selectFrom('outbox')
      .select('body')
      .where('app_id', '=', p.appId)
      .where('domain_type', '=', 'Customer')
      .where('event_type', '=', 'hot')
      .execute();
    expect(hot).toHaveLength(1);
    // ...and nobody told apart while she reads.
    await r.read(3, 20);
    await pass();
    expect(await inbox(p.sales.token, 'hot_lead')).toEqual([]);
    expect(await inbox(p.master.token)).toEqual([]);
    expect((await inbox(p.sales.token)).length).toBe(owned + 1);
    await r.leave(3);
    await pass();
    const read = (await inbox(p.sales.token)).slice(0, (await inbox(p.sales.token)).length - owned - 1);
    expect(read.map((e) => e.signal)).toEqual(['deck_read']);
    const score = (JSON.parse(hot[0]?.body ?? '{}') as { score: number }).score;
    expect(read[0]?.data).toMatchObject({ pagesRead: 3, pageCount: 3, hot: true, score });
    // The reasons as the score gave them: the deck (the file's name) read in two readings, the returns.
    expect(read[0]?.text).toBe(
      `100% of 'Pricing' read, in 1 min. Now a hot lead: Score ${score}: read 3 of 3 pages of 'deck.pdf' twice since yesterday; came back 3 times since yesterday.`,
    );
    // In Chinese (a zh-CN member, the chat channels) the reasons are Chinese too.
    const told = (
      await t.server.ctx.database.db
        .selectFrom('outbox')
        .select('body')
        .where('app_id', '=', p.appId)
        .where('domain_type', '=', 'Alert')
        .execute()
    )
      .map((e) => JSON.parse(e.body) as { signal: string; data: { hot?: boolean }; words: Record<string, { text: string }> })
      .filter((b) => b.signal === 'deck_read' && b.data.hot === true);
    expect(told.map((b) => b.words['zh-CN']?.text)).toEqual([
      `已读 100%，用时 1 分钟。已成为热门线索：评分 ${score}：自昨天起阅读了《deck.pdf》3 页中的 3 页 2 次；自昨天起再次回来阅读 3 次。`,
    ]);
    const master = await inbox(p.master.token);
    expect(master.map((e) => e.signal)).toEqual(['deck_read']);
    expect(await inbox(p.master.token, 'hot_lead')).toEqual([]);
    // The hot lead is recorded (its key taken for the day), folded: not told on its own.
    const signals = await t.server.ctx.database.db
      .selectFrom('alert_signals')
      .select(['signal', 'suppressed', 'subject'])
      .where('app_id', '=', p.appId)
      .where('signal', '=', 'hot_lead')
      .execute();
    expect(signals).toHaveLength(1);
    expect(signals[0]?.suppressed).toBe(1);
  });
});

describe('a hot lead folded into a reading that another pass ends, or whose end is not told', () => {
  let cy: LinkData;
  const db = () => t.server.ctx.database.db;
  /** The scoring module announces Cy as a hot lead now. */
  const announce = (score: number) =>
    db()
      .transaction()
      .execute((trx) =>
        writeEvents(
          trx,
          p.appId,
          [
            {
              event_type: 'hot',
              domainType: 'Customer',
              domainId: 'r-cy',
              body: {
                id: 'r-cy',
                appId: p.appId,
                svcUserId: String(p.sales.id),
                score,
                scoreReasons: ["read 1 of 3 pages of 'deck.pdf' today"],
              },
            },
          ],
          now,
        ),
      );
  const hotSignals = () =>
    db()
      .selectFrom('alert_signals')
      .select(['key', 'suppressed'])
      .where('app_id', '=', p.appId)
      .where('customer_id', '=', 'r-cy')
      .where('signal', '=', 'hot_lead')
      .orderBy('key')
      .execute();
  const cyAlerts = async (signal: string) => (await inbox(p.sales.token, signal)).filter((e) => e.customerId === 'r-cy');

  beforeAll(async () => {
    await addCustomers(t.server, p, [{ id: 'r-cy', owner: p.sales.id, name: 'Cy' }]);
    const fileId = await renderedFile(t.server, p, p.sales.token);
    cy = await madeLink(t.server, p.appId, p.sales.token, { name: 'Offer', file_id: fileId, customer_id: 'r-cy' });
  });

  it("is told on its own when another server's pass ended the reading quietly while this one folded it", async () => {
    useClock();
    now += 2 * HOUR;
    const r = reader(cy.shareToken);
    await r.open();
    await r.read(1, 10);
    await pass();
    await announce(31.44);
    const other = createServices(t.server.ctx);
    const readOpen = signalsRepository.openReadingsOf.bind(signalsRepository);
    try {
      // This pass finds Cy's reading open and folds the hot lead into it; before it commits, another
      // server's pass, which read the feed before the hot lead came, ends the reading gone quiet.
      vi.spyOn(signalsRepository, 'openReadingsOf').mockImplementationOnce(async (...args) => {
        const rows = await readOpen(...args);
        expect(rows.map((row) => row.customer_id)).toEqual(['r-cy']);
        const cursor = await db().selectFrom('event_cursors').select('position').where('name', '=', 'alerts').executeTakeFirstOrThrow();
        await db()
          .updateTable('event_cursors')
          .set({ position: await lastPosition(db()) })
          .where('name', '=', 'alerts')
          .execute();
        now += t.server.ctx.config.alertReadingQuietSeconds * 1000 + 1000;
        expect((await other.alerts.evaluator.pass()).signals).toBeGreaterThan(0);
        await db().updateTable('event_cursors').set({ position: cursor.position }).where('name', '=', 'alerts').execute();
        return rows;
      });
      const done = await pass();
      expect(done.events).toBeGreaterThan(0);
    } finally {
      other.mailTransport.close();
    }
    // The other pass told the reading's end without the hot lead; this one tells the hot lead.
    expect(await cyAlerts('deck_read')).toEqual([]);
    const hot = await cyAlerts('hot_lead');
    expect(hot.map((e) => [e.title, e.text])).toEqual([['Cy is a hot lead', "Score 31.4: read 1 of 3 pages of 'deck.pdf' today"]]);
    expect((await hotSignals()).map((x) => x.suppressed)).toEqual([0]);
  });

  it("is told on its own when the reading's end is recorded without being told (the customer's hour spent)", async () => {
    useClock();
    now += DAY;
    // Ten readings' ends told about Cy in the last hour: the next one is recorded, not told.
    await db()
      .insertInto('alert_signals')
      .values(
        Array.from({ length: SIGNALS_PER_CUSTOMER_HOUR }, (_, i) => ({
          id: `cap-${i}`,
          app_id: p.appId,
          key: `deck_read:cap-${i}`,
          signal: 'deck_read',
          customer_id: 'r-cy',
          subject: cy.id,
          suppressed: 0,
          created_at: now - 60_000,
        })),
      )
      .execute();
    const r = reader(cy.shareToken);
    await r.open();
    await r.read(1, 10);
    await r.read(2, 10);
    await pass();
    await announce(42);
    await pass();
    expect(await cyAlerts('hot_lead')).toHaveLength(1);
    await r.leave(2);
    await pass();
    const hot = await cyAlerts('hot_lead');
    expect(hot).toHaveLength(2);
    expect(hot[0]?.text).toBe("Score 42: read 1 of 3 pages of 'deck.pdf' today");
    // The day's hot lead folded (recorded, not told), the reading's told in its place.
    const signals = await hotSignals();
    expect(signals).toHaveLength(3);
    expect(signals.find((x) => x.key === `hot_lead:r-cy:${t.server.ctx.clock.day(now)}`)?.suppressed).toBe(1);
    expect(signals.filter((x) => x.suppressed === 0)).toHaveLength(2);
  });
});

afterAll(() => {
  vi.restoreAllMocks();
});
