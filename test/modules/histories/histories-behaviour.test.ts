// lanes: sqlite postgres main-thread-reads
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import {
  DAY,
  HOUR,
  MINUTE,
  type HistoryProject,
  NO_CLIENT_FIELDS,
  addCustomers,
  ago,
  event,
  historyProject,
  ingest,
} from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;
type Moment = 'h1' | 'h1pv1' | 'h1pv2' | 'h2' | 'h2b' | 'h3' | 'h4' | 'd1' | 'd5' | 'd10' | 'd20' | 'd20b' | 'd40' | 'd100';
/** The records' times, relative to when the suite starts. */
const w = {} as Record<Moment, string>;

const get = (url: string, token: string, query: Record<string, string | number> = {}) => t.server.api.get(url, { token, query });
const overview = async (customerId: string, token: string, type?: number) =>
  (await get(`/api/v1.7/customer/${customerId}/overview`, token, type === undefined ? {} : { time_range_type: type })).json();
const behaviourUrl = (customerId: string) => `/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour`;

const rec = (id: string, action: string, when: string, content: unknown, extra: Record<string, unknown> = {}) =>
  event('BehaviourLog', id, { customerId: 'cust-a', action, when, content: JSON.stringify(content), ...extra });

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'cust-a', owner: p.sales.id, name: 'Alice' },
    { id: 'cust-b', owner: p.sales2.id, name: 'Bob' },
  ]);
  Object.assign(w, {
    h1: ago(HOUR),
    h1pv1: ago(HOUR - MINUTE),
    h1pv2: ago(HOUR - 2 * MINUTE),
    h2: ago(2 * HOUR),
    h2b: ago(2 * HOUR - MINUTE),
    h3: ago(3 * HOUR),
    h4: ago(4 * HOUR),
    d1: ago(DAY),
    d5: ago(5 * DAY),
    d10: ago(10 * DAY),
    d20: ago(20 * DAY),
    d20b: ago(20 * DAY - MINUTE),
    d40: ago(40 * DAY),
    d100: ago(100 * DAY),
  });
  const res = await ingest(t.server, p, [
    event('Link', 'L1', { name: 'Deck', type: 1, creatorId: p.sales.id, tags: ['ai', 'cloud'], shareToken: 'tok-b1' }),
    event('LinkViewLog', 'V1', {
      linkId: 'L1',
      viewerId: 'cust-a',
      viewTime: w.h2,
      durations: [{ id: 'D1', pageIndex: '1', duration: '900' }],
    }),
    event('Clue', 'K1', { linkId: 'L1', name: 'Alice', email: 'alice@example.com', budget: '10k' }),
    event('Call', 'C1', {
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: 'cust-a',
      callStatus: 1,
      duration: 30,
      audioStatus: 1,
      audioUrl: 'https://cdn.example/c1.mp3',
      callTime: w.h3,
      endTime: w.h3,
    }),
    event('Call', 'C3', {
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: 'cust-a',
      callStatus: 1,
      duration: 400,
      callTime: w.h4,
    }),
    rec(
      'b01',
      'access_site',
      w.h1,
      { web_access_log_id: 'wa1', title: 'Home', site: 'example.com', url: '/' },
      { customerName: 'Alice', dealUserId: 'visitor-9' },
    ),
    rec('b02', 'web_page_view', w.h1pv1, { web_access_log_id: 'wa1', title: 'Features', url: '/features' }),
    rec('b03', 'web_page_view', w.h1pv2, { web_access_log_id: 'wa1', title: 'Pricing', url: '/pricing' }),
    rec('b04', 'access_site', w.d10, { web_access_log_id: 'wa2', title: 'Pricing', site: 'example.com' }),
    rec('b05', 'access_site', w.d40, { web_access_log_id: 'wa3', site: 'docs.example' }),
    rec('b06', 'link_view_log', w.h2, { linkId: 'L1', linkType: 1, linkViewLogId: 'V1', title: 'Deck' }),
    rec('b07', 'link_view_clue', w.h2b, { linkId: 'L1', linkType: 1, linkViewLogId: 'V1', clueId: 'K1' }),
    rec('b08', 'call', w.h3, { record_id: 'C1' }, { userType: 1 }),
    rec('b09', 'call', w.h4, { record_id: 'C3' }, { userType: 1 }),
    rec('b10', 'send_message', w.d100, {}),
    rec('b11', 'send_data_by_mail', w.d5, { linkId: 'L1' }),
    rec('b12', 'view_app_page', w.d20, { app_page_view_log_id: 'ap1', title: 'Settings' }),
    rec('b13', 'view_app_page', w.d20b, { app_page_view_log_id: 'ap2', title: 'Settings' }),
    rec('b14', 'view_app_page', w.d1, { app_page_view_log_id: 'ap3', title: 'Home' }),
    rec('b15', 'submit_form', w.d1, { web_page_behaviour_log_id: 'pb1' }),
    rec('b16', 'app_play_media', w.d1, { app_page_behaviour_log_id: 'apb1' }),
    rec('b17', 'remote_demo', w.d1, { userType: 1, userId: 'u1', conference: { id: 'conf-1' } }),
    rec('b18', 'app_launch', w.d1, { app_launch_id: 'al1' }),
    rec('b19', 'our_custom_action', w.d1, { whatever: true }),
    event('BehaviourLog', 'b20', { customerId: 'cust-b', action: 'send_message', when: w.d1 }),
  ]);
  expect(res.json()).toEqual({ status: 1, data: { accepted: 25, duplicates: 0 } });
});

const zero = {
  total: 0,
  linkCount: 0,
  clueCount: 0,
  callCount: 0,
  smsCount: 0,
  sendCount: 0,
  accessSiteCount: 0,
  remoteDemoCount: 0,
  appLaunchCount: 0,
  submitFormCount: 0,
  downloadFileCount: 0,
  playMediaCount: 0,
  contactServiceCount: 0,
  appSubmitFormCount: 0,
  appDownloadFileCount: 0,
  appPlayMediaCount: 0,
  appContactServiceCount: 0,
  appViewAppPageCount: 0,
};
const tag = (name: string, num: number) => ({ tag: name, num, color: expect.stringMatching(/^#[0-9a-f]{6}$/) });

describe('GET /customer/{id}/overview', () => {
  // Hand-computed from the 19 records of cust-a above; `total` leaves out the visit's two page views.
  const all = {
    ...zero,
    total: 17,
    linkCount: 1,
    clueCount: 1,
    callCount: 2,
    smsCount: 1,
    sendCount: 1,
    accessSiteCount: 3,
    remoteDemoCount: 1,
    appLaunchCount: 1,
    submitFormCount: 1,
    appPlayMediaCount: 1,
    appViewAppPageCount: 3,
    webAccessData: [
      { site: 'Home', num: 1 },
      { site: 'Pricing', num: 1 },
      { site: 'docs.example', num: 1 },
    ],
    customerTag: [tag('ai', 1), tag('cloud', 1)],
    appViewPageList: [
      { num: 2, title: 'Settings' },
      { num: 1, title: 'Home' },
    ],
  };

  it('counts everything by default and for time_range_type 1', async () => {
    expect(await overview('cust-a', p.master.token)).toEqual({ status: 1, data: all });
    expect((await overview('cust-a', p.master.token, 1)).data).toEqual(all);
  });

  it('leaves out the record older than 3 months in the 3-month window', async () => {
    expect((await overview('cust-a', p.master.token, 2)).data).toEqual({ ...all, total: 16, smsCount: 0 });
  });

  it('keeps the last month in window 3', async () => {
    expect((await overview('cust-a', p.master.token, 3)).data).toEqual({
      ...all,
      total: 15,
      smsCount: 0,
      accessSiteCount: 2,
      webAccessData: [
        { site: 'Home', num: 1 },
        { site: 'Pricing', num: 1 },
      ],
    });
  });

  it('keeps the last 7 days in window 4', async () => {
    expect((await overview('cust-a', p.master.token, 4)).data).toEqual({
      ...all,
      total: 12,
      smsCount: 0,
      accessSiteCount: 1,
      appViewAppPageCount: 1,
      webAccessData: [{ site: 'Home', num: 1 }],
      appViewPageList: [{ num: 1, title: 'Home' }],
    });
  });

  it('takes the last 7 days on `when` to the minute, not whole calendar days', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-week', owner: p.sales.id }]);
    const res = await ingest(t.server, p, [
      event('Link', 'L-week', { name: 'Deck', type: 1, creatorId: p.sales.id, tags: ['edge'], shareToken: 'tok-week' }),
      // Just inside the week (on the day a week ago, which whole days would leave out) and just outside it.
      event('BehaviourLog', 'wk-in', {
        customerId: 'cust-week',
        action: 'access_site',
        when: ago(7 * DAY - 2 * MINUTE),
        content: JSON.stringify({ web_access_log_id: 'wk1', title: 'Inside' }),
      }),
      event('BehaviourLog', 'wk-tag', {
        customerId: 'cust-week',
        action: 'link_view_log',
        when: ago(7 * DAY - 2 * MINUTE),
        content: JSON.stringify({ linkId: 'L-week', linkType: 1 }),
      }),
      event('BehaviourLog', 'wk-out', {
        customerId: 'cust-week',
        action: 'access_site',
        when: ago(7 * DAY + 2 * MINUTE),
        content: JSON.stringify({ web_access_log_id: 'wk2', title: 'Outside' }),
      }),
      event('BehaviourLog', 'wk-out-tag', {
        customerId: 'cust-week',
        action: 'link_view_log',
        when: ago(7 * DAY + 2 * MINUTE),
        content: JSON.stringify({ linkId: 'L-week', linkType: 1 }),
      }),
    ]);
    expect(res.json()).toEqual({ status: 1, data: { accepted: 5, duplicates: 0 } });
    const week = (await overview('cust-week', p.master.token, 4)).data;
    expect(week).toMatchObject({ total: 2, accessSiteCount: 1, linkCount: 1, webAccessData: [{ site: 'Inside', num: 1 }] });
    expect(week.customerTag).toEqual([tag('edge', 1)]);
    const all = (await overview('cust-week', p.master.token, 1)).data;
    expect(all).toMatchObject({ total: 4, accessSiteCount: 2, linkCount: 2 });
    expect(all.customerTag).toEqual([tag('edge', 2)]);
  });

  it('counts a reading once in `total`, however many pages were turned, in every window', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-reader', owner: p.sales.id }]);
    const item = (id: string, action: string, when: string, content: unknown) =>
      event('BehaviourLog', id, { customerId: 'cust-reader', action, when, content: JSON.stringify(content) });
    const pages = [1, 2, 3, 4, 5, 6].map((n) =>
      item(`rd-p${n}`, 'file_view_duration', ago(HOUR - n * MINUTE), { fileViewDurationId: `fd${n}`, linkViewLogId: 'RV1' }),
    );
    const res = await ingest(t.server, p, [
      item('rd-view', 'link_view_log', ago(HOUR), { linkId: 'L1', linkType: 1, linkViewLogId: 'RV1' }),
      ...pages,
      item('rd-leave', 'link_leave_log', ago(HOUR - 7 * MINUTE), { linkId: 'L1', linkType: 1, linkViewLogId: 'RV1' }),
      item('rd-call', 'call', ago(2 * HOUR), { record_id: 'C1' }),
      item('rd-call-end', 'call_end', ago(2 * HOUR - MINUTE), { record_id: 'C1', duration: 30 }),
    ]);
    expect(res.json().data).toEqual({ accepted: 10, duplicates: 0 });
    for (const type of [1, 2, 3, 4]) {
      expect((await overview('cust-reader', p.master.token, type)).data, `window ${type}`).toMatchObject({
        total: 2,
        linkCount: 1,
        callCount: 1,
      });
    }
    // The records are all there: only the count leaves the parts out.
    expect((await get(behaviourUrl('cust-reader'), p.master.token)).json().data).toHaveLength(10);
  });

  it('gives a colour that stays the same for a tag', async () => {
    const again = (await overview('cust-a', p.admin.token)).data.customerTag;
    const first = (await overview('cust-a', p.master.token)).data.customerTag;
    expect(again).toEqual(first);
  });

  it('keeps lists to 10 items, most visited first', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-many', owner: p.sales.id }]);
    const items = [];
    for (let i = 0; i < 12; i += 1) {
      for (let n = 0; n <= i; n += 1) {
        items.push(
          event('BehaviourLog', `many-${i}-${n}`, {
            customerId: 'cust-many',
            action: 'access_site',
            when: w.d1,
            content: JSON.stringify({ web_access_log_id: `m${i}${n}`, title: `Page ${String(i).padStart(2, '0')}` }),
          }),
        );
      }
    }
    expect((await ingest(t.server, p, items)).json().data.accepted).toBe(78);
    const data = (await overview('cust-many', p.master.token)).data;
    expect(data.total).toBe(78);
    expect(data.webAccessData).toHaveLength(10);
    expect(data.webAccessData[0]).toEqual({ site: 'Page 11', num: 12 });
    expect(data.webAccessData[9]).toEqual({ site: 'Page 02', num: 3 });
  });

  it('answers zeros and empty lists for a customer without records, in every window', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-quiet', owner: p.sales.id }]);
    for (const type of [undefined, 1, 2, 3, 4]) {
      const data = { ...zero, webAccessData: [], customerTag: [], appViewPageList: [] };
      expect(await overview('cust-quiet', p.master.token, type)).toEqual({ status: 1, data });
    }
  });

  it("answers Bad Request for an unknown window, customer_not_found for others' customers and outsiders", async () => {
    expect((await overview('cust-a', p.master.token, 5)).code).toBe('Bad Request');
    expect((await get('/api/v1.7/customer/cust-a/overview', p.master.token, { time_range_type: 'all' })).json().code).toBe('Bad Request');
    expect((await overview('cust-a', p.sales.token)).data.total).toBe(17);
    for (const [id, token] of [
      ['cust-a', p.sales2.token],
      ['cust-a', p.outsider.token],
      ['no-such', p.master.token],
    ] as const) {
      expect(await overview(id, token)).toEqual({ status: 0, code: 'customer_not_found', msg: expect.any(String) });
    }
  });
});

describe('GET /app/{app-id}/member/customer/{customer-id}/behaviour', () => {
  const list = async (token: string, query: Record<string, string | number> = {}, customerId = 'cust-a') =>
    (await get(behaviourUrl(customerId), token, query)).json();
  const ids = async (query: Record<string, string | number> = {}) =>
    ((await list(p.master.token, { count: 100, ...query })).data as { id: string }[]).map((b) => b.id);

  it('answers an empty list for a customer without records, and for a page past the end', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-empty', owner: p.sales.id }]);
    expect(await list(p.master.token, {}, 'cust-empty')).toEqual({ status: 1, data: [] });
    expect(await list(p.sales.token, { start_index: 1000 })).toEqual({ status: 1, data: [] });
    expect((await list(p.sales2.token, {}, 'cust-empty')).code).toBe('customer_not_found');
  });

  it('lists by when desc, ties broken by id desc', async () => {
    expect(await ids()).toEqual([
      'b03',
      'b02',
      'b01',
      'b07',
      'b06',
      'b08',
      'b09',
      // six records share w.d1: by id desc
      'b19',
      'b18',
      'b17',
      'b16',
      'b15',
      'b14',
      'b11',
      'b04',
      'b13',
      'b12',
      'b05',
      'b10',
    ]);
  });

  it('pages with start_index and count (default 20, cut to 100)', async () => {
    expect(await ids({ start_index: 7, count: 3 })).toEqual(['b19', 'b18', 'b17']);
    expect((await list(p.master.token)).data).toHaveLength(19);
    expect((await list(p.master.token, { count: 500 })).status).toBe(1);
  });

  it('selects a time range with start_time and end_time (inclusive)', async () => {
    expect(await ids({ start_time: ago(11 * DAY), end_time: ago(4 * DAY) })).toEqual(['b11', 'b04']);
    expect(await ids({ start_time: w.d20, end_time: w.d20b })).toEqual(['b13', 'b12']);
    expect(await ids({ end_time: ago(50 * DAY) })).toEqual(['b10']);
  });

  it('takes end_time to the end of its second: a record at 10:00:00.500 is within start_time = end_time = 10:00:00', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-ms', owner: p.sales.id }]);
    const res = await ingest(t.server, p, [
      event('BehaviourLog', 'ms-1', { customerId: 'cust-ms', action: 'send_message', when: '2026-05-01T10:00:00.500Z' }),
      event('BehaviourLog', 'ms-2', { customerId: 'cust-ms', action: 'send_message', when: '2026-05-01T10:00:01.000Z' }),
    ]);
    expect(res.json()).toEqual({ status: 1, data: { accepted: 2, duplicates: 0 } });
    const second = { start_time: '2026-05-01 10:00:00', end_time: '2026-05-01 10:00:00', count: 100 };
    const answer = (await list(p.master.token, second, 'cust-ms')) as { data: { id: string }[] };
    expect(answer.data.map((b) => b.id)).toEqual(['ms-1']);
  });

  it('answers Bad Request for bad paging and bad timestamps', async () => {
    const bad: Record<string, string | number>[] = [
      { count: 0 },
      { count: 'ten' },
      { start_index: -1 },
      { start_time: 'yesterday' },
      { end_time: '2026-02-30 10:00:00' },
      { start_time: ago(DAY), end_time: ago(2 * DAY) },
    ];
    for (const query of bad) {
      expect(await list(p.master.token, query)).toMatchObject({ status: 0, code: 'Bad Request', msg: expect.any(String) });
    }
  });

  it('returns every field of a record', async () => {
    const [b01] = (await list(p.master.token, { start_time: w.h1, end_time: w.h1 })).data;
    expect(b01).toEqual({
      id: 'b01',
      appId: p.appId,
      svcUserId: String(p.sales.id),
      dealUserId: 'visitor-9',
      dealUserName: 'Alice',
      action: 'access_site',
      params: null,
      remote_duration: null,
      description: null,
      when: w.h1,
      content: JSON.stringify({ web_access_log_id: 'wa1', title: 'Home', site: 'example.com', url: '/' }),
      ...NO_CLIENT_FIELDS,
      type: 0,
      createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      webAccessLog: { web_access_log_id: 'wa1', title: 'Home', site: 'example.com', url: '/' },
      webPageViewLogs: [
        { id: 'b03', web_access_log_id: 'wa1', title: 'Pricing', url: '/pricing', viewTime: w.h1pv2 },
        { id: 'b02', web_access_log_id: 'wa1', title: 'Features', url: '/features', viewTime: w.h1pv1 },
      ].sort((a, b) => (a.viewTime < b.viewTime ? -1 : 1)),
    });
  });

  it('joins the link view log, the link and the clue', async () => {
    const records = (await list(p.master.token, { start_time: w.h2, end_time: w.h2b })).data;
    const [clue, view] = records;
    expect(view.id).toBe('b06');
    expect(view.dealUserId).toBe('cust-a');
    expect(view.linkViewLog).toMatchObject({
      id: 'V1',
      linkId: 'L1',
      linkName: 'Deck',
      viewerId: 'cust-a',
      canBeCreateCustomer: false,
      durations: [expect.objectContaining({ id: 'D1', pageIndex: '1', duration: '900' })],
    });
    expect(view.linkDetail).toMatchObject({
      id: 'L1',
      name: 'Deck',
      shareToken: 'tok-b1',
      linkViewLogCount: 1,
      clueCount: 1,
      viewerCount: 1,
    });
    expect(view.linkDetail).not.toHaveProperty('url');
    expect(view).not.toHaveProperty('clue');
    expect(clue.id).toBe('b07');
    expect(clue.clue).toMatchObject({
      id: 'K1',
      name: 'Alice',
      email: 'alice@example.com',
      linkId: 'L1',
      budget: '10k',
      submitAt: expect.any(String),
    });
    expect(clue.linkViewLog.id).toBe('V1');
  });

  it('joins calls: handleState 1 with the audio when processed, else 0 with progress', async () => {
    const [done, pending] = (await list(p.master.token, { start_time: w.h4, end_time: w.h3 })).data;
    expect(done).toMatchObject({
      id: 'b08',
      handleState: '1',
      audioUrl: 'https://cdn.example/c1.mp3',
      callTime: w.h3,
      duration: 30,
      endTime: w.h3,
    });
    expect(pending).toMatchObject({ id: 'b09', handleState: '0', progressText: expect.any(String), progressVal: 0 });
    expect(pending).not.toHaveProperty('audioUrl');
  });

  it('lets Sales read their own customers only; outsiders get 403 forbidden', async () => {
    expect((await list(p.sales.token)).data).toHaveLength(19);
    expect(await list(p.sales2.token)).toEqual({ status: 0, code: 'customer_not_found', msg: expect.any(String) });
    expect((await list(p.sales2.token, {}, 'cust-b')).data.map((b: { id: string }) => b.id)).toEqual(['b20']);
    const outsider = await get(behaviourUrl('cust-a'), p.outsider.token);
    expect(outsider.statusCode).toBe(403);
    expect(outsider.json().error).toBe('forbidden');
    expect(await list(p.master.token, {}, 'no-such')).toMatchObject({ code: 'customer_not_found' });
    const other = await historyProject(t.server);
    const wrongApp = await get(`/api/v1.7/app/${other.appId}/member/customer/cust-a/behaviour`, other.master.token);
    expect(wrongApp.json()).toMatchObject({ code: 'customer_not_found' });
  });
});

describe('a directed link in a behaviour record', () => {
  it('carries its customer as /links does, within reach of the caller', async () => {
    await addCustomers(t.server, p, [{ id: 'cust-dir', owner: p.sales.id, name: 'Dora' }]);
    const res = await ingest(t.server, p, [
      event('Link', 'L-dir', {
        name: 'For Dora',
        type: 1,
        creatorId: p.sales.id,
        isDirectional: 1,
        customerId: 'cust-dir',
        shareToken: 'tok-dir',
      }),
      event('BehaviourLog', 'b-dir', {
        customerId: 'cust-dir',
        action: 'link_view_log',
        when: ago(MINUTE),
        content: JSON.stringify({ linkId: 'L-dir', linkType: 1, title: 'For Dora' }),
      }),
    ]);
    expect(res.json().status, res.body).toBe(1);
    for (const token of [p.master.token, p.sales.token]) {
      const links = (await get(`/api/v1.7/app/${p.appId}/links`, token, { count: 100 })).json().data as {
        id: string;
        customer?: unknown;
      }[];
      const fromLinks = links.find((l) => l.id === 'L-dir');
      expect(fromLinks?.customer).toMatchObject({ id: 'cust-dir', name: 'Dora' });
      const records = (await get(behaviourUrl('cust-dir'), token)).json().data as { id: string; linkDetail?: { customer?: unknown } }[];
      const record = records.find((r) => r.id === 'b-dir');
      expect(record?.linkDetail?.customer).toEqual(fromLinks?.customer);
    }
  });
});
