// lanes: sqlite postgres main-thread-reads
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, addCustomers, ago, event, historyProject, ingest } from '../../helpers/histories.ts';

const BASE = 'https://rapport.example';
const t = useTestServer({ PUBLIC_BASE_URL: BASE });
let p: HistoryProject;
const times: Record<string, string> = {};

const get = (url: string, token: string, query: Record<string, string | number> = {}) => t.server.api.get(url, { token, query });
const data = async (url: string, token: string, query: Record<string, string | number> = {}) => (await get(url, token, query)).json().data;

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [
    { id: 'cust-a', owner: p.sales.id, name: 'Alice' },
    { id: 'cust-b', owner: p.sales2.id, name: 'Bob', dealUserId: 'visitor-bob' },
  ]);
  Object.assign(times, {
    l1: ago(3 * DAY),
    l2: ago(2 * DAY),
    l3: ago(DAY),
    c1: ago(3 * HOUR),
    c1end: ago(3 * HOUR - 30_000),
    c2: ago(5 * HOUR),
    c3: ago(4 * HOUR),
    c4: ago(6 * HOUR),
    v1: ago(2 * HOUR),
    v2: ago(90 * 60_000),
    v3: ago(HOUR),
    v4: ago(30 * 60_000),
    p1: ago(2 * DAY),
    p2: ago(DAY),
  });
  const s = String(p.sales.id);
  const s2 = String(p.sales2.id);
  const res = await ingest(t.server, p, [
    event('Link', 'L1', {
      name: 'Product deck',
      type: 1,
      creatorId: p.sales.id,
      creatorName: 'Sally',
      shareToken: 'tok-1',
      file1: 'file-9',
      remark: 'for Q3',
      tags: ['ai', 'cloud'],
      utmSource: 'mail',
      createdAt: times.l1,
    }),
    event('Link', 'L2', {
      name: 'Pricing page',
      type: 2,
      website: 'https://example.com/pricing',
      creatorId: p.sales2.id,
      isDirectional: 1,
      customerId: 'cust-b',
      createdAt: times.l2,
    }),
    event('Link', 'L3', { name: 'Redirect', type: 3, website: 'https://example.com', creatorId: p.master.id, createdAt: times.l3 }),
    event('LinkViewLog', 'V1', {
      linkId: 'L1',
      viewerId: 'cust-a',
      viewerName: 'Alice',
      ip: '203.0.113.1',
      location: 'Shanghai',
      system: 'iOS',
      client: 'Safari',
      clueId: 'K1',
      viewTime: times.v1,
      leaveTime: times.v2,
      spreadId: 'spread-1',
      utmSource: 'mail',
      totalDuration: 5000,
      totalPage: 2,
      durations: [
        {
          id: 'D1',
          fileId: 'file-9',
          fileName: 'deck.pdf',
          fileURL: 'https://cdn.example/p1.png',
          pageIndex: '1',
          duration: '3000',
          sortIndex: 0,
          total: 5000,
        },
        {
          id: 'D2',
          fileId: 'file-9',
          fileName: 'deck.pdf',
          fileURL: 'https://cdn.example/p2.png',
          pageIndex: '2',
          duration: '2000',
          sortIndex: 1,
          total: 5000,
          createdAt: times.v1,
          endedAt: times.v2,
        },
        // Listed after D2 although its id sorts first: durations keep the producer's order.
        { id: 'A0', pageIndex: '3', duration: '0', sortIndex: 2 },
      ],
    }),
    event('LinkViewLog', 'V2', { linkId: 'L1', viewerId: 'anon-1', viewTime: times.v2 }),
    event('LinkViewLog', 'V3', { linkId: 'L1', viewerId: 'anon-1', viewTime: times.v3 }),
    event('LinkViewLog', 'V5', { linkId: 'L2', viewerId: 'visitor-bob', viewTime: times.v3 }),
    event('Clue', 'K1', {
      linkId: 'L1',
      linkName: 'Product deck',
      formType: '1',
      name: 'Alice',
      title: 'CTO',
      email: 'alice@example.com',
      phone: '13800000001',
      company: 'Acme',
      website: 'https://acme.example',
      interested: 'pricing',
      budget: '10k',
      submitAt: times.v1,
    }),
    event('Call', 'C1', {
      fromUserType: 2,
      fromUserId: s,
      toUserType: 1,
      toUserId: 'cust-a',
      callStatus: 1,
      duration: 30,
      audioStatus: 1,
      audioUrl: 'https://cdn.example/c1.mp3',
      m4aAudioUrl: 'https://cdn.example/c1.m4a',
      asyncTaskId: 'task-1',
      callTime: times.c1,
      endTime: times.c1end,
      name: 'Alice',
      phoneNum: '13800000001',
      photoURI: 'https://cdn.example/a.png',
    }),
    event('Call', 'C2', {
      fromUserType: 1,
      fromUserId: 'cust-b',
      toUserType: 2,
      toUserId: s2,
      callStatus: 0,
      duration: 120,
      callTime: times.c2,
    }),
    event('Call', 'C3', {
      fromUserType: 2,
      fromUserId: s,
      toUserType: 1,
      toUserId: 'cust-a',
      callStatus: 1,
      duration: 400,
      callTime: times.c3,
    }),
    event('Call', 'C4', {
      fromUserType: 2,
      fromUserId: String(p.master.id),
      toUserType: 1,
      toUserId: 'cust-b',
      callStatus: 1,
      duration: 1000,
      audioStatus: 2,
      callTime: times.c4,
    }),
    event('Post', 'P1', {
      ownerId: p.sales.id,
      ownerName: 'Sally',
      title: 'Spring news',
      sendTime: times.p1,
      senderCount: 100,
      successLogCount: 98,
      viewLogCount: 40,
      viewLogUserCount: 30,
      linkViewLogCount: 12,
      linkViewLogUserCount: 10,
      returnLogCount: 5,
      returnLogUserCount: 4,
    }),
    event('Post', 'P2', { ownerId: p.sales2.id, title: 'Summer news', sendTime: times.p2 }),
  ]);
  expect(res.json()).toEqual({ status: 1, data: { accepted: 14, duplicates: 0 } });
});

describe('GET /calls', () => {
  const calls = (token: string, query: Record<string, string | number> = {}) =>
    get('/api/v1.7/calls', token, { app_id: p.appId, ...query });
  const ids = async (token: string, query: Record<string, string | number> = {}) =>
    ((await calls(token, query)).json().data as { id: string }[]).map((c) => c.id);

  it('needs app_id: Bad Request naming it', async () => {
    const res = await get('/api/v1.7/calls', p.master.token);
    expect(res.json()).toEqual({ status: 0, code: 'Bad Request', msg: expect.stringContaining('app_id') });
  });

  it('lists the project by callTime desc for Master and Admin, with every field and the customer object', async () => {
    expect(await ids(p.master.token)).toEqual(['C1', 'C3', 'C2', 'C4']);
    expect(await ids(p.admin.token)).toEqual(['C1', 'C3', 'C2', 'C4']);
    const all = (await calls(p.master.token)).json().data as { id: string; customer: { id: string } | null }[];
    expect(all.map((c) => [c.id, c.customer?.id ?? null])).toEqual([
      ['C1', 'cust-a'],
      ['C3', 'cust-a'],
      ['C2', 'cust-b'],
      ['C4', 'cust-b'],
    ]);
    const [c1] = all;
    expect(c1).toEqual({
      id: 'C1',
      appId: p.appId,
      audioUrl: 'https://cdn.example/c1.mp3',
      m4aAudioUrl: 'https://cdn.example/c1.m4a',
      duration: 30,
      callStatus: 1,
      audioStatus: 1,
      callTime: times.c1,
      endTime: times.c1end,
      asyncTaskId: 'task-1',
      fromUserType: 2,
      fromUserId: String(p.sales.id),
      toUserType: 1,
      toUserId: 'cust-a',
      photoURI: 'https://cdn.example/a.png',
      name: 'Alice',
      phoneNum: '13800000001',
      customer: {
        id: 'cust-a',
        appId: p.appId,
        name: 'Alice',
        title: null,
        email: null,
        phone: null,
        company: null,
        status: 1,
        mergedCustomerId: '',
        headportraitUrl: null,
        groupId: null,
        sex: null,
        address: null,
        ageState: null,
        fixedPhone: null,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      },
    });
  });

  it('filters by svc_user_id (caller or receiver), call_status and duration bucket', async () => {
    expect(await ids(p.master.token, { svc_user_id: p.sales.id })).toEqual(['C1', 'C3']);
    expect(await ids(p.master.token, { svc_user_id: p.sales2.id })).toEqual(['C2']);
    expect(await ids(p.master.token, { call_status: 0 })).toEqual(['C2']);
    expect(await ids(p.master.token, { call_status: 1 })).toEqual(['C1', 'C3', 'C4']);
    expect(await ids(p.master.token, { time_range_type: 1 })).toEqual(['C1']);
    expect(await ids(p.master.token, { time_range_type: 2 })).toEqual(['C2']);
    expect(await ids(p.master.token, { time_range_type: 3 })).toEqual(['C3']);
    expect(await ids(p.master.token, { time_range_type: 4 })).toEqual(['C4']);
    expect(await ids(p.master.token, { time_range_type: -1 })).toEqual(['C1', 'C3', 'C2', 'C4']);
    expect(await ids(p.master.token, { call_status: 1, time_range_type: 3, svc_user_id: p.sales.id })).toEqual(['C3']);
  });

  it('pages with start_index and count', async () => {
    expect(await ids(p.master.token, { start_index: 1, count: 2 })).toEqual(['C3', 'C2']);
    expect(await ids(p.master.token, { start_index: 4 })).toEqual([]);
  });

  it('answers Bad Request for bad paging and bad filters', async () => {
    const bad: Record<string, string | number>[] = [
      { count: 0 },
      { count: 'x' },
      { start_index: -1 },
      { start_index: 1.5 },
      { time_range_type: 5 },
      { call_status: 2 },
    ];
    for (const query of bad) {
      expect((await calls(p.master.token, query)).json()).toMatchObject({ status: 0, code: 'Bad Request' });
    }
  });

  it('gives Sales their own calls; another member or an outsider gets NEED_AUTH', async () => {
    expect(await ids(p.sales.token)).toEqual(['C1', 'C3']);
    expect((await calls(p.sales.token, { svc_user_id: p.sales2.id })).json()).toEqual({
      status: 0,
      code: 'NEED_AUTH',
      msg: expect.any(String),
    });
    expect((await calls(p.outsider.token)).json()).toMatchObject({ status: 0, code: 'NEED_AUTH' });
  });
});

describe('GET /app/{app-id}/links and /link/{link-id}/view-logs', () => {
  const links = (token: string, query: Record<string, string | number> = {}) => data(`/api/v1.7/app/${p.appId}/links`, token, query);

  it('lists by createdAt desc with counters computed from stored view logs and clues', async () => {
    const all = await links(p.master.token);
    expect(all.map((l: { id: string }) => l.id)).toEqual(['L3', 'L2', 'L1']);
    const l1 = all[2];
    expect(l1).toEqual({
      id: 'L1',
      appId: p.appId,
      name: 'Product deck',
      shortName: null,
      creatorId: String(p.sales.id),
      creatorName: 'Sally',
      conferenceId: null,
      remark: 'for Q3',
      file1: 'file-9',
      file2: null,
      file3: null,
      file4: null,
      shareToken: 'tok-1',
      formType: '1',
      formPosition: null,
      type: 1,
      website: null,
      clueId: null,
      src: 'link_view',
      formPopTime: null,
      isDirectional: 0,
      customerId: null,
      newViewCount: 3,
      newViewerCount: 2,
      createdAt: times.l1,
      updatedAt: times.l1,
      officialAccountId: null,
      weixinGrantType: null,
      utmSource: 'mail',
      utmMedium: null,
      utmCampaign: null,
      utmContent: null,
      utmTerm: null,
      linkViewLogCount: 3,
      clueCount: 1,
      viewerCount: 2,
      tags: ['ai', 'cloud'],
      // Beyond the interface (links made through the API have them too; docs/links.md): an ingested link's defaults.
      status: 1,
      expiresAt: null,
      hasPasscode: false,
      allowDownload: 0,
      emailGate: 0,
      embed: 0,
      roomId: null,
      formFields: ['name', 'email', 'phone', 'company'],
      title: null,
      emailVerify: 0,
      allowList: [],
      denyList: [],
      agreement: null,
      agreementVersion: 0,
      watermark: 0,
    });
    expect(all[1].customer).toEqual({
      id: 'cust-b',
      appId: p.appId,
      name: 'Bob',
      title: null,
      email: null,
      phone: null,
      mergedCustomerId: '',
      headportraitUrl: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(all[0]).not.toHaveProperty('customer');
  });

  it('adds url only with with_url=1', async () => {
    const withUrl = await links(p.master.token, { with_url: 1 });
    expect(withUrl[2].url).toBe(`${BASE}/l/tok-1`);
    expect((await links(p.master.token, { with_url: 0 }))[2]).not.toHaveProperty('url');
  });

  it('filters by creator and gives Sales only their own links', async () => {
    expect((await links(p.master.token, { svc_user_id: p.sales2.id })).map((l: { id: string }) => l.id)).toEqual(['L2']);
    expect((await links(p.sales.token)).map((l: { id: string }) => l.id)).toEqual(['L1']);
    expect((await get(`/api/v1.7/app/${p.appId}/links`, p.sales.token, { svc_user_id: p.master.id })).json()).toMatchObject({
      code: 'NEED_AUTH',
    });
    expect((await get(`/api/v1.7/app/${p.appId}/links`, p.outsider.token)).json()).toMatchObject({ status: 0, code: 'NEED_AUTH' });
    expect((await get('/api/v1.7/app/no-such-app/links', p.master.token)).json()).toMatchObject({ status: 0, code: 'app_not_found' });
  });

  it('lists view logs by viewTime desc with durations and canBeCreateCustomer', async () => {
    const logs = await data('/api/v1.7/link/L1/view-logs', p.master.token);
    expect(logs.map((v: { id: string }) => v.id)).toEqual(['V3', 'V2', 'V1']);
    expect(logs[0].canBeCreateCustomer).toBe(true);
    expect(logs[2]).toEqual({
      id: 'V1',
      viewerId: 'cust-a',
      viewerName: 'Alice',
      ip: '203.0.113.1',
      location: 'Shanghai',
      system: 'iOS',
      client: 'Safari',
      linkId: 'L1',
      linkName: 'Product deck',
      clueId: 'K1',
      viewTime: times.v1,
      leaveTime: times.v2,
      spreadId: 'spread-1',
      utmSource: 'mail',
      utmMedium: null,
      utmCampaign: null,
      utmContent: null,
      utmTerm: null,
      totalDuration: 5000,
      totalPage: 2,
      canBeCreateCustomer: false,
      durations: [
        {
          id: 'D1',
          fileId: 'file-9',
          fileName: 'deck.pdf',
          fileURL: 'https://cdn.example/p1.png',
          pageIndex: '1',
          duration: '3000',
          linkViewLogId: 'V1',
          sortIndex: 0,
          createdAt: null,
          endedAt: null,
          total: 5000,
        },
        expect.objectContaining({ id: 'D2', pageIndex: '2', duration: '2000', sortIndex: 1, createdAt: times.v1, endedAt: times.v2 }),
        expect.objectContaining({ id: 'A0', fileId: null, pageIndex: '3', sortIndex: 2, createdAt: null, total: null }),
      ],
    });
    // A viewer known as a customer's dealUserId cannot be added again either.
    expect((await data('/api/v1.7/link/L2/view-logs', p.master.token))[0].canBeCreateCustomer).toBe(false);
    expect(
      (await data('/api/v1.7/link/L1/view-logs', p.master.token, { start_index: 1, count: 1 })).map((v: { id: string }) => v.id),
    ).toEqual(['V2']);
  });

  it('resets newViewCount/newViewerCount when the creator reads the view logs, and counts views after that', async () => {
    const l1 = async () => (await links(p.master.token)).find((l: { id: string }) => l.id === 'L1');
    await data('/api/v1.7/link/L1/view-logs', p.master.token); // not the creator: nothing changes
    expect(await l1()).toMatchObject({ newViewCount: 3, newViewerCount: 2 });
    await data('/api/v1.7/link/L1/view-logs', p.sales.token);
    expect(await l1()).toMatchObject({ newViewCount: 0, newViewerCount: 0, linkViewLogCount: 3, viewerCount: 2 });
    await ingest(t.server, p, [event('LinkViewLog', 'V4', { linkId: 'L1', viewerId: 'anon-1', viewTime: times.v4 })]);
    expect(await l1()).toMatchObject({ newViewCount: 1, newViewerCount: 1, linkViewLogCount: 4, viewerCount: 2 });
  });

  it('orders view logs of the same view time by id desc, pages through them, and answers an empty page for a link without views', async () => {
    expect(await data('/api/v1.7/link/L3/view-logs', p.master.token)).toEqual([]);
    await ingest(
      t.server,
      p,
      ['T2', 'T9', 'T5'].map((id) => event('LinkViewLog', id, { linkId: 'L3', viewerId: 'anon-3', viewTime: times.v2 })),
    );
    const ids = async (query: Record<string, number> = {}) =>
      (await data('/api/v1.7/link/L3/view-logs', p.master.token, query)).map((v: { id: string }) => v.id);
    expect(await ids()).toEqual(['T9', 'T5', 'T2']);
    expect(await ids({ start_index: 1, count: 1 })).toEqual(['T5']);
    expect(await ids({ start_index: 3 })).toEqual([]);
  });

  it("answers link_not_found for unknown links, other members' links (Sales) and outsiders", async () => {
    for (const [url, token] of [
      ['/api/v1.7/link/nope/view-logs', p.master.token],
      ['/api/v1.7/link/L1/view-logs', p.sales2.token],
      ['/api/v1.7/link/L1/view-logs', p.outsider.token],
    ] as const) {
      expect((await get(url, token)).json()).toEqual({ status: 0, code: 'link_not_found', msg: expect.any(String) });
    }
    expect((await get('/api/v1.7/link/L1/view-logs', p.admin.token)).json().status).toBe(1);
    expect((await get('/api/v1.7/link/L1/view-logs', p.master.token, { count: -1 })).json()).toMatchObject({ code: 'Bad Request' });
  });
});

describe('GET /posts', () => {
  it('answers a bare array by sendTime desc with every field', async () => {
    const res = await get('/api/v1.7/posts', p.master.token, { app_id: p.appId });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((x: { postId: string }) => x.postId)).toEqual(['P2', 'P1']);
    expect(body[1]).toEqual({
      appId: p.appId,
      ownerId: String(p.sales.id),
      ownerName: 'Sally',
      postId: 'P1',
      title: 'Spring news',
      sendWay: 'email',
      sendTime: times.p1,
      senderCount: 100,
      successLogCount: 98,
      viewLogCount: 40,
      viewLogUserCount: 30,
      linkViewLogCount: 12,
      linkViewLogUserCount: 10,
      returnLogCount: 5,
      returnLogUserCount: 4,
    });
  });

  it('filters by owner_id, pages, and limits Sales to their own', async () => {
    const ids = async (token: string, query: Record<string, string | number>) =>
      ((await get('/api/v1.7/posts', token, { app_id: p.appId, ...query })).json() as { postId: string }[]).map((x) => x.postId);
    expect(await ids(p.master.token, { owner_id: p.sales2.id })).toEqual(['P2']);
    expect(await ids(p.master.token, { start_index: 1, count: 1 })).toEqual(['P1']);
    expect(await ids(p.sales.token, {})).toEqual(['P1']);
  });

  it('keeps the envelope shapes for failures', async () => {
    expect((await get('/api/v1.7/posts', p.master.token)).json()).toMatchObject({
      status: 0,
      code: 'Bad Request',
      msg: expect.stringContaining('app_id'),
    });
    expect((await get('/api/v1.7/posts', p.outsider.token, { app_id: p.appId })).json()).toMatchObject({ status: 0, code: 'NEED_AUTH' });
    expect((await get('/api/v1.7/posts', p.sales.token, { app_id: p.appId, owner_id: p.sales2.id })).json()).toMatchObject({
      code: 'NEED_AUTH',
    });
    expect((await get('/api/v1.7/posts', p.master.token, { app_id: p.appId, count: 'ten' })).json()).toMatchObject({ code: 'Bad Request' });
    const noToken = await t.server.api.get('/api/v1.7/posts', { query: { app_id: p.appId } });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error).toBe('access_denied');
  });
});

describe('customers embedded in calls and links', () => {
  it('are shown to whoever may read the customer, and are null for a Sales member who may not', async () => {
    const q = await historyProject(t.server);
    await addCustomers(t.server, q, [
      { id: 'emb-own', owner: q.sales.id, name: 'Own' },
      { id: 'emb-other', owner: q.sales2.id, name: 'Other' },
    ]);
    const sales = String(q.sales.id);
    const stored = await ingest(t.server, q, [
      event('Call', 'emb-call-own', {
        fromUserType: 2,
        fromUserId: sales,
        toUserType: 1,
        toUserId: 'emb-own',
        callStatus: 1,
        callTime: ago(HOUR),
      }),
      event('Call', 'emb-call-other', {
        fromUserType: 2,
        fromUserId: sales,
        toUserType: 1,
        toUserId: 'emb-other',
        callStatus: 1,
        callTime: ago(2 * HOUR),
      }),
      event('Link', 'emb-link-own', {
        name: 'Deck',
        type: 2,
        website: 'https://example.com',
        creatorId: sales,
        isDirectional: 1,
        customerId: 'emb-own',
      }),
      event('Link', 'emb-link-other', {
        name: 'Deck',
        type: 2,
        website: 'https://example.com',
        creatorId: sales,
        isDirectional: 1,
        customerId: 'emb-other',
      }),
    ]);
    expect(stored.json()).toEqual({ status: 1, data: { accepted: 4, duplicates: 0 } });
    const customerOf = async (path: string, token: string, query: Record<string, string | number>) =>
      Object.fromEntries(
        ((await data(path, token, query)) as { id: string; customer: { id: string } | null }[]).map((r) => [r.id, r.customer?.id ?? null]),
      );
    // The detail's rule: a Sales member reads only their own customers.
    expect((await get(`/api/v1.7/customer/emb-other/detail`, q.sales.token)).json()).toMatchObject({
      status: 0,
      code: 'customer_not_found',
    });
    expect(await customerOf('/api/v1.7/calls', q.sales.token, { app_id: q.appId })).toEqual({
      'emb-call-own': 'emb-own',
      'emb-call-other': null,
    });
    expect(await customerOf(`/api/v1.7/app/${q.appId}/links`, q.sales.token, {})).toEqual({
      'emb-link-own': 'emb-own',
      'emb-link-other': null,
    });
    expect(await customerOf('/api/v1.7/calls', q.master.token, { app_id: q.appId })).toEqual({
      'emb-call-own': 'emb-own',
      'emb-call-other': 'emb-other',
    });
    expect(await customerOf(`/api/v1.7/app/${q.appId}/links`, q.admin.token, {})).toEqual({
      'emb-link-own': 'emb-own',
      'emb-link-other': 'emb-other',
    });
  });
});
