// lanes: sqlite postgres main-thread-reads
import { createHmac, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../../../src/lib/ids.ts';
import { loadSiteScript } from '../../../src/lib/viewer-script.ts';
import type { SiteWrite } from '../../../src/modules/ingest/service.ts';
import { createSiteService } from '../../../src/modules/site/service.ts';
import { startTestServer, useTestServer } from '../../helpers/harness.ts';
import { type HistoryProject, customerEvent, historyProject, ingest } from '../../helpers/histories.ts';

/**
 * Site tracking (docs/site-tracking.md): the project's site key and origins, /t.js, and the collect
 * endpoint: refused keys and origins, anonymous history kept and joined to the customer when the
 * visitor is identified, with the original times, through ingestion's write path.
 */
const t = useTestServer();
let p: HistoryProject;
let siteKey: string;
const ORIGIN = 'https://shop.example.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const newId = () => randomBytes(16).toString('base64url');

function collect(body: unknown, opts: { key?: string; origin?: string | null; ua?: string; type?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': opts.type ?? 'text/plain;charset=UTF-8', 'user-agent': opts.ua ?? UA };
  if (opts.origin !== null) headers.origin = opts.origin ?? ORIGIN;
  return t.server.api.post(
    `/t/collect?k=${encodeURIComponent(opts.key ?? siteKey)}`,
    typeof body === 'string' ? body : JSON.stringify(body),
    {
      headers,
    },
  );
}

interface Behaviour {
  id: string;
  action: string;
  when: string;
  content: string;
  dealUserId: string;
  webAccessLog?: Record<string, unknown> | null;
  webPageViewLogs?: Record<string, unknown>[];
}

async function behaviour(customerId: string): Promise<Behaviour[]> {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/member/customer/${customerId}/behaviour`, {
    token: p.master.token,
    query: { count: 100 },
  });
  const body = res.json() as { status: number; data: Behaviour[] };
  expect(body.status).toBe(1);
  // The customer's own creation record aside: what the site recorded.
  return body.data.filter((r) => r.action !== 'create');
}

async function overview(customerId: string) {
  const res = await t.server.api.get(`/api/v1.7/customer/${customerId}/overview`, { token: p.master.token });
  return (res.json() as { data: Record<string, unknown> }).data;
}

/** The project's site secret, as its Master reads it. */
const secretOfSite = async () =>
  ((await t.server.api.get(`/api/v1.7/app/${p.appId}/site`, { token: p.master.token })).json() as { data: { siteSecret: string } }).data
    .siteSecret;

const anonymousCount = async (visitorId: string) =>
  (
    await t.server.ctx.database.db
      .selectFrom('site_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', p.appId)
      .where('visitor_id', '=', visitorId)
      .executeTakeFirstOrThrow()
  ).n;

/** The site visitors' ties to customers in the project. */
const tiesOf = (visitors: string[]) =>
  t.server.ctx.database.db
    .selectFrom('site_visitors')
    .select(['customer_id', 'verified'])
    .where('app_id', '=', p.appId)
    .where('id', 'in', visitors)
    .execute();

beforeAll(async () => {
  p = await historyProject(t.server);
  const res = await ingest(t.server, p, [
    customerEvent('site-ada', { name: 'Ada', email: 'ada@example.com', phone: '13800000001', svcUserId: p.sales.id }),
    customerEvent('site-bob', { name: 'Bob', email: 'bob@example.com', svcUserId: p.sales.id }),
    customerEvent('site-cy', { name: 'Cy', svcUserId: p.sales.id }),
    customerEvent('site-dee', { name: 'Dee', svcUserId: p.sales.id }),
    customerEvent('site-eve', { name: 'Eve', email: 'eve@example.com', svcUserId: p.sales.id }),
    customerEvent('site-fay', { name: 'Fay', email: 'fay@example.com', svcUserId: p.sales.id }),
  ]);
  expect(res.json()).toMatchObject({ status: 1 });
  const edit = await t.server.api.post(
    `/api/v1.7/app/${p.appId}`,
    { site_origins: `${ORIGIN}, http://localhost:8080/` },
    { token: p.master.token },
  );
  expect(edit.json()).toEqual({ status: 1, data: true });
  const detail = await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.sales.token });
  const data = (detail.json() as { data: { siteKey: string; siteOrigins: string } }).data;
  siteKey = data.siteKey;
});

describe('site settings', () => {
  it('the detail shows the site key and origins; the edit normalises origins and refuses what is not one', async () => {
    const detail = (await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.sales.token })).json() as {
      data: Record<string, unknown>;
    };
    expect(detail.data.siteKey).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(detail.data.siteOrigins).toBe('https://shop.example.com,http://localhost:8080');
    expect(detail.data).not.toHaveProperty('siteSecret');
    for (const bad of ['shop.example.com', 'ftp://x.example.com', 'https://x.example.com/path', 'https://x.example.com?q=1']) {
      const res = await t.server.api.post(`/api/v1.7/app/${p.appId}`, { site_origins: bad }, { token: p.master.token });
      expect(res.json()).toMatchObject({ status: 0, code: 'site_origins_invalid' });
    }
    // Sales may not edit the project.
    const sales = await t.server.api.post(`/api/v1.7/app/${p.appId}`, { site_origins: ORIGIN }, { token: p.sales.token });
    expect(sales.statusCode).toBe(403);
  });

  it('the Master and Admins read the site secret and the snippet; Sales may not', async () => {
    const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/site`, { token: p.admin.token });
    const data = (res.json() as { data: { siteKey: string; siteSecret: string; snippet: string; siteOrigins: string } }).data;
    expect(data.siteKey).toBe(siteKey);
    expect(data.siteSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(data.snippet).toBe(`<script async src="${t.server.ctx.config.publicBaseUrl}/t.js" data-key="${siteKey}"></script>`);
    expect((await t.server.api.get(`/api/v1.7/app/${p.appId}/site`, { token: p.sales.token })).statusCode).toBe(403);
  });

  it('a rotated key refuses the old one', async () => {
    const other = await historyProject(t.server);
    const before = (
      (await t.server.api.get(`/api/v1.7/app/${other.appId}/site`, { token: other.master.token })).json() as {
        data: { siteKey: string };
      }
    ).data.siteKey;
    await t.server.api.post(`/api/v1.7/app/${other.appId}`, { site_origins: ORIGIN }, { token: other.master.token });
    const ok = await collect({ v: newId(), s: newId(), e: [] }, { key: before });
    expect(ok.json()).toEqual({ status: 1, data: {} });
    const rotated = await t.server.api.post(`/api/v1.7/app/${other.appId}/site/key`, {}, { token: other.master.token });
    const after = (rotated.json() as { data: { siteKey: string } }).data.siteKey;
    expect(after).not.toBe(before);
    const old = await collect({ v: newId(), s: newId(), e: [] }, { key: before });
    expect(old.statusCode).toBe(400);
    expect(old.json()).toMatchObject({ status: 0, code: 'site_key_invalid' });
    expect((await collect({ v: newId(), s: newId(), e: [] }, { key: after })).statusCode).toBe(200);
    const log = await t.server.api.get(`/api/v1.7/app/${other.appId}/audit-log`, { token: other.master.token });
    expect(JSON.stringify(log.json())).toContain('project.site_key_rotate');
  });
});

describe('GET /t.js', () => {
  it('serves the snippet, cached, cross-origin, gzipped when asked, within 5 KB gzipped', async () => {
    const script = loadSiteScript();
    expect(script).not.toBeNull();
    expect(gzipSync(script?.body ?? Buffer.alloc(0), { level: 9 }).length).toBeLessThanOrEqual(5 * 1024);
    const res = await t.server.api.get('/t.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['cache-control']).toMatch(/public, max-age=\d+/);
    expect(res.headers['content-encoding']).toBe('gzip');
    const etag = res.headers.etag as string;
    const again = await t.server.api.get('/t.js', { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    const text = script?.body.toString('utf8') ?? '';
    expect(text).not.toMatch(/\beval\(|new Function\(/);
  });
});

describe('POST /t/collect', () => {
  it('refuses an origin not on the list (403), a missing one, and an unknown key (400), writing nothing', async () => {
    const v = newId();
    const body = { v, s: newId(), e: [{ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/`, title: 'Home' }] };
    const evil = await collect(body, { origin: 'https://evil.example.net' });
    expect(evil.statusCode).toBe(403);
    expect(evil.json()).toMatchObject({ status: 0, code: 'origin_not_allowed' });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const none = await collect(body, { origin: null });
    expect(none.statusCode).toBe(403);
    const unknown = await collect(body, { key: 'no-such-key' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ status: 0, code: 'site_key_invalid' });
    expect(await anonymousCount(v)).toBe(0);
  });

  it('answers a preflight for allowed origins only', async () => {
    const ok = await t.server.app.inject({
      method: 'OPTIONS',
      url: `/t/collect?k=${siteKey}`,
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(ok.headers['access-control-allow-methods']).toBe('POST');
    const evil = await t.server.app.inject({
      method: 'OPTIONS',
      url: `/t/collect?k=${siteKey}`,
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST' },
    });
    expect(evil.statusCode).toBe(403);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses malformed calls with collect_invalid (400), and bodies over the cap with 413', async () => {
    for (const bad of [
      'not json',
      { v: 'short', s: newId(), e: [] },
      { v: newId(), s: newId(), e: [{ t: 'nope', at: Date.now() }] },
      { v: newId(), s: newId(), e: [{ t: 'page', id: newId(), at: Date.now() - 2 * 24 * 3600 * 1000 }] },
      { v: newId(), s: newId(), e: [{ t: 'act', id: newId(), at: Date.now(), a: 'link_view_log' }] },
      { v: newId(), s: newId(), e: [{ t: 'track', id: newId(), at: Date.now(), a: 'call', d: {} }] },
      { v: newId(), s: newId(), e: [{ t: 'identify', customerId: 'site-ada' }] },
    ]) {
      const res = await collect(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 0, code: 'collect_invalid' });
    }
    const big = await collect({ v: newId(), s: newId(), e: [], pad: 'x'.repeat(20_000) });
    expect(big.statusCode).toBe(413);
  });

  it('keeps an anonymous visit and joins it to the customer an identify names, with its original times', async () => {
    const v = newId();
    const s = newId();
    const start = Date.now() - 10 * 60_000;
    const pages = [newId(), newId(), newId()];
    const first = await collect({
      v,
      s,
      e: [
        {
          t: 'visit',
          at: start,
          url: `${ORIGIN}/?utm_source=mail&secret=1#top`,
          title: 'Home',
          ref: 'https://www.google.com/',
          kw: 'crm tool',
        },
        { t: 'page', id: pages[0], at: start, url: `${ORIGIN}/?utm_source=mail&secret=1`, title: 'Home' },
        { t: 'leave', id: pages[0], at: start + 60_000, since: start, ms: 45_000, url: `${ORIGIN}/`, title: 'Home' },
        { t: 'page', id: pages[1], at: start + 60_000, url: `${ORIGIN}/pricing`, title: 'Pricing' },
        { t: 'act', id: newId(), at: start + 90_000, a: 'download_file', target: `${ORIGIN}/brochure.pdf`, url: `${ORIGIN}/pricing` },
        { t: 'leave', id: pages[1], at: start + 120_000, since: start + 60_000, ms: 50_000, url: `${ORIGIN}/pricing`, title: 'Pricing' },
        { t: 'page', id: pages[2], at: start + 120_000, url: `${ORIGIN}/contact`, title: 'Contact' },
        { t: 'act', id: newId(), at: start + 150_000, a: 'submit_form', target: 'contact-form', url: `${ORIGIN}/contact` },
      ],
    });
    expect(first.json()).toEqual({ status: 1, data: {} });
    expect(first.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(await anonymousCount(v)).toBe(8);
    // Nothing is the customer's yet.
    expect(await behaviour('site-ada')).toEqual([]);

    const identify = await collect({ v, s, e: [{ t: 'identify', email: 'ADA@example.com' }] });
    expect(identify.json()).toEqual({ status: 1, data: {} });
    expect(await anonymousCount(v)).toBe(0);

    const records = await behaviour('site-ada');
    expect(records.map((r) => r.action).sort()).toEqual(
      [
        'access_site',
        'download_file',
        'submit_form',
        'web_page_leave',
        'web_page_leave',
        'web_page_view',
        'web_page_view',
        'web_page_view',
      ].sort(),
    );
    const clock = t.server.ctx.clock;
    const visit = records.find((r) => r.action === 'access_site') as Behaviour;
    expect(visit.when).toBe(clock.format(start));
    expect(visit.dealUserId).toBe(v);
    const content = JSON.parse(visit.content) as Record<string, unknown>;
    expect(content).toMatchObject({
      web_access_log_id: s,
      title: 'Home',
      url: `${ORIGIN}/?utm_source=mail`,
      site: 'shop.example.com',
      keyword: 'crm tool',
      referrer: 'https://www.google.com/',
    });
    expect(visit.webAccessLog).toMatchObject({ web_access_log_id: s, title: 'Home' });
    expect(visit.webPageViewLogs?.map((pv) => pv.title).sort()).toEqual(['Contact', 'Home', 'Pricing']);
    const form = records.find((r) => r.action === 'submit_form') as Behaviour;
    expect(JSON.parse(form.content)).toMatchObject({ target: 'contact-form' });
    expect(form.when).toBe(clock.format(start + 150_000));
    const leave = JSON.parse((records.find((r) => r.action === 'web_page_leave') as Behaviour).content) as Record<string, unknown>;
    expect(leave).toMatchObject({ web_access_log_id: s });
    expect([45_000, 50_000]).toContain(leave.visibleTime);

    const o = await overview('site-ada');
    expect(o).toMatchObject({ accessSiteCount: 1, submitFormCount: 1, downloadFileCount: 1 });
    expect(o.webAccessData).toEqual([{ site: 'Home', num: 1 }]);

    // Later calls of the visitor are the customer's at once.
    await collect({ v, s, e: [{ t: 'act', id: newId(), at: Date.now(), a: 'play_media', target: 'demo', url: `${ORIGIN}/` }] });
    expect((await overview('site-ada')).playMediaCount).toBe(1);
    expect(await anonymousCount(v)).toBe(0);

    // The behaviour records went out as events, as ingested ones do.
    const feed = await t.server.api.get(`/api/v1.7/app/${p.appId}/events`, { token: p.master.token, query: { count: 100 } });
    const ids = new Set(records.map((r) => r.id));
    const events = (feed.json() as { data: { events: { domainType: string; domainId: string }[] } }).data.events;
    expect(events.filter((e) => e.domainType === 'BehaviourLog' && ids.has(e.domainId))).toHaveLength(ids.size);
  });

  it('joins every anonymous record of calls sent while the identify is written, none left anonymous', async () => {
    // Each visitor's pages and its identify go at once: some anonymous calls are still being written
    // when the identify reads what to join, some share its group commit, some come after it.
    const visitors = Array.from({ length: 24 }, () => ({ v: newId(), s: newId() }));
    const page = (n: number) => ({ t: 'page', id: newId(), at: Date.now() - 1000 + n, url: `${ORIGIN}/p${n}`, title: `P${n}` });
    const calls = visitors.flatMap(({ v, s }) => [
      collect({ v, s, e: [page(1)] }),
      collect({ v, s, e: [page(2)] }),
      collect({ v, s, e: [{ t: 'identify', email: 'fay@example.com' }] }),
      collect({ v, s, e: [page(3)] }),
    ]);
    for (const res of await Promise.all(calls)) expect(res.json()).toEqual({ status: 1, data: {} });
    for (const { v } of visitors) expect(await anonymousCount(v)).toBe(0);
    const ours = new Set(visitors.map((x) => x.v));
    const records = (await behaviour('site-fay')).filter((r) => ours.has(r.dealUserId));
    expect(records.filter((r) => r.action === 'web_page_view')).toHaveLength(visitors.length * 3);
  });

  it('a claim nobody vouched for, sent while a signed identify verifies the visitor, does not move it', async () => {
    const hash = createHmac('sha256', await secretOfSite())
      .update('site-bob')
      .digest('hex');
    const visitors = Array.from({ length: 16 }, () => newId());
    for (const v of visitors) await collect({ v, s: newId(), e: [{ t: 'identify', email: 'bob@example.com' }] });
    const calls = visitors.flatMap((v) => [
      collect({ v, s: newId(), e: [{ t: 'identify', customerId: 'site-bob', hash }] }),
      collect({ v, s: newId(), e: [{ t: 'identify', email: 'eve@example.com' }] }),
    ]);
    for (const res of await Promise.all(calls)) expect(res.json()).toEqual({ status: 1, data: {} });
    const ties = await tiesOf(visitors);
    expect(ties).toHaveLength(visitors.length);
    for (const tie of ties) expect(tie).toEqual({ customer_id: 'site-bob', verified: 1 });
  });

  it("writes nothing of a call computed from a visitor's state that changed before its commit", async () => {
    // What the collect calls rely on, asked of the write path directly: each write carries the
    // visitor's state it was computed from, and is left out whole when that state is gone.
    const hash = createHmac('sha256', await secretOfSite())
      .update('site-fay')
      .digest('hex');
    const v = newId();
    await collect({ v, s: newId(), e: [{ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/`, title: 'Home' }] });
    const now = Date.now();
    const write = (site: SiteWrite) => t.server.services.ingest.recordViewer({ appId: p.appId, now, linkTags: [], behaviours: [], site });
    const body = {
      dealUserId: v,
      action: 'web_page_view',
      userType: 0,
      when: t.server.ctx.clock.format(now),
      content: JSON.stringify({ web_access_log_id: newId(), url: `${ORIGIN}/`, title: 'Home' }),
    };
    const tieTo = (customerId: string, verified: boolean, joined: string[]) => ({
      visitorId: v,
      customerId,
      verified,
      via: 'identify' as const,
      joined,
    });
    // A join that did not read the record kept meanwhile: refused, the record stays anonymous.
    const join = await write({
      tie: tieTo('site-eve', false, []),
      guard: { visitorId: v, tiedTo: null, verified: false, joinedAll: true },
    });
    expect(join).toBe(false);
    expect(await anonymousCount(v)).toBe(1);
    // The visitor is then identified, verified.
    await collect({ v, s: newId(), e: [{ t: 'identify', customerId: 'site-fay', hash }] });
    expect(await anonymousCount(v)).toBe(0);
    // An anonymous record computed before that: refused, nothing kept.
    const anonymous = await write({
      anonymous: [{ id: timeOrderedUuid(), visitorId: v, body }],
      guard: { visitorId: v, tiedTo: null, verified: false, joinedAll: false },
    });
    expect(anonymous).toBe(false);
    expect(await anonymousCount(v)).toBe(0);
    // An unverified claim computed while the tie was still unverified: refused, the tie stays.
    const claim = await write({
      tie: tieTo('site-eve', false, []),
      guard: { visitorId: v, tiedTo: 'site-fay', verified: false, joinedAll: false },
    });
    expect(claim).toBe(false);
    expect(await tiesOf([v])).toEqual([{ customer_id: 'site-fay', verified: 1 }]);
  });

  it('answers identify alike whether or not it names a customer, and never makes or edits one', async () => {
    const v = newId();
    const before = await t.server.ctx.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', p.appId)
      .executeTakeFirstOrThrow();
    const page = { t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/`, title: 'Home' };
    const unknown = await collect({ v, s: newId(), e: [page, { t: 'identify', email: 'nobody@example.com', phone: '13999999999' }] });
    const known = await collect({ v: newId(), s: newId(), e: [{ t: 'identify', phone: '138 0000 0001' }] });
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    const after = await t.server.ctx.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_id', '=', p.appId)
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(await anonymousCount(v)).toBe(1);
  });

  it('identifies by customerId only with the HMAC of the site secret, as a verified tie', async () => {
    const siteSecret = await secretOfSite();
    const hash = createHmac('sha256', siteSecret).update('site-bob').digest('hex');
    const v = newId();
    const page = () => ({ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/`, title: 'Home' });
    await collect({ v, s: newId(), e: [page(), { t: 'identify', customerId: 'site-bob', hash: 'ab'.repeat(32) }] });
    expect(await behaviour('site-bob')).toEqual([]);
    await collect({ v, s: newId(), e: [page(), { t: 'identify', customerId: 'site-bob', hash }] });
    expect((await behaviour('site-bob')).map((r) => r.action)).toEqual(['web_page_view', 'web_page_view']);
    const tie = await t.server.ctx.database.db
      .selectFrom('site_visitors')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('id', '=', v)
      .executeTakeFirstOrThrow();
    expect(tie).toMatchObject({ customer_id: 'site-bob', verified: 1, via: 'identify' });
    // An e-mail claim nobody vouched for does not move a verified visitor to another customer.
    await collect({ v, s: newId(), e: [page(), { t: 'identify', email: 'ada@example.com' }] });
    expect((await behaviour('site-bob')).length).toBe(3);
  });

  it('a visitor over its rate budget gets 429 with Retry-After the page can read, so the snippet sends again', async () => {
    const limited = await startTestServer({ RATE_LIMITS: 'on', RATE_LIMIT_SITE_VISITOR: '2' });
    try {
      const q = await historyProject(limited);
      await limited.api.post(`/api/v1.7/app/${q.appId}`, { site_origins: ORIGIN }, { token: q.master.token });
      const key = ((await limited.api.get(`/api/v1.7/app/${q.appId}`, { token: q.sales.token })).json() as { data: { siteKey: string } })
        .data.siteKey;
      const v = newId();
      const call = () =>
        limited.api.post(`/t/collect?k=${key}`, JSON.stringify({ v, s: newId(), e: [] }), {
          headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: ORIGIN },
        });
      expect((await call()).statusCode).toBe(200);
      expect((await call()).statusCode).toBe(200);
      const refused = await call();
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ status: 0, code: 'rate_limited' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(refused.headers['access-control-expose-headers']).toBe('Retry-After');
    } finally {
      await limited.close();
    }
  });

  it('drops bots', async () => {
    const v = newId();
    const res = await collect(
      { v, s: newId(), e: [{ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/`, title: 'Home' }] },
      { ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
    );
    expect(res.json()).toEqual({ status: 1, data: {} });
    expect(await anonymousCount(v)).toBe(0);
  });

  it('records the end of a silent visit once', async () => {
    const siteSecret = await secretOfSite();
    const v = newId();
    const s = newId();
    const at = Date.now() - 5000;
    await collect({
      v,
      s,
      e: [
        { t: 'visit', at, url: `${ORIGIN}/`, title: 'Home', ref: '', kw: '' },
        { t: 'identify', customerId: 'site-cy', hash: createHmac('sha256', siteSecret).update('site-cy').digest('hex') },
      ],
    });
    const db = t.server.ctx.database.db;
    const last = Date.now() - 31 * 60_000;
    await db
      .updateTable('site_visits')
      .set({ last_at: last, started_at: last })
      .where('app_id', '=', p.appId)
      .where('id', '=', s)
      .execute();
    expect(await t.server.services.site.sweep()).toBeGreaterThanOrEqual(1);
    const end = (await behaviour('site-cy')).filter((r) => r.action === 'access_site_end');
    expect(end).toHaveLength(1);
    expect(end[0]?.when).toBe(t.server.ctx.clock.format(last));
    expect(JSON.parse(end[0]?.content as string)).toMatchObject({ web_access_log_id: s, site: 'shop.example.com' });
    expect(await t.server.services.site.sweep()).toBe(0);
  });

  it('expires anonymous history older than SITE_ANONYMOUS_DAYS, and keeps the recent and the identified', async () => {
    const db = t.server.ctx.database.db;
    const siteSecret = await secretOfSite();
    const visit = (at: number) => ({ t: 'visit', at, url: `${ORIGIN}/`, title: 'Home', ref: '', kw: '' });
    const [old, recent, known] = [newId(), newId(), newId()];
    const [oldVisit, knownVisit] = [newId(), newId()];
    await collect({ v: old, s: oldVisit, e: [visit(Date.now() - 5000)] });
    await collect({ v: recent, s: newId(), e: [visit(Date.now() - 5000)] });
    await collect({
      v: known,
      s: knownVisit,
      e: [
        visit(Date.now() - 5000),
        { t: 'identify', customerId: 'site-cy', hash: createHmac('sha256', siteSecret).update('site-cy').digest('hex') },
      ],
    });
    expect(await anonymousCount(old)).toBeGreaterThan(0);
    // The first and the known visitor's visits end 400 days ago, and the first one's records are that old.
    const longAgo = Date.now() - 400 * 24 * 3600 * 1000;
    await db.updateTable('site_events').set({ when_at: longAgo }).where('app_id', '=', p.appId).where('visitor_id', '=', old).execute();
    for (const [v, s] of [
      [old, oldVisit],
      [known, knownVisit],
    ] as const)
      await db
        .updateTable('site_visits')
        .set({ started_at: longAgo, last_at: longAgo, ended_at: longAgo })
        .where('app_id', '=', p.appId)
        .where('visitor_id', '=', v)
        .where('id', '=', s)
        .execute();
    const visitsOf = async (v: string) =>
      (await db.selectFrom('site_visits').select('id').where('app_id', '=', p.appId).where('visitor_id', '=', v).execute()).length;

    expect(t.server.ctx.config.siteAnonymousDays).toBe(395);
    expect(await t.server.services.site.expireAnonymous()).toBeGreaterThanOrEqual(2);
    expect(await anonymousCount(old)).toBe(0);
    expect(await visitsOf(old)).toBe(0);
    expect(await anonymousCount(recent)).toBeGreaterThan(0);
    expect(await visitsOf(recent)).toBe(1);
    // A customer's visits are the customer's history: they stay.
    expect(await visitsOf(known)).toBe(1);
    expect(await t.server.services.site.expireAnonymous()).toBe(0);

    // Identified later, the expired visitor brings nothing older than the limit.
    await collect({
      v: old,
      s: newId(),
      e: [{ t: 'identify', customerId: 'site-cy', hash: createHmac('sha256', siteSecret).update('site-cy').digest('hex') }],
    });
    const joined = (await behaviour('site-cy')).filter((r) => r.when === t.server.ctx.clock.format(longAgo));
    expect(joined).toEqual([]);
  });

  it('a tracked e-mail click joins the visitor to its customer and tells of the return visit', async () => {
    const s = t.server.services;
    const returns: unknown[] = [];
    let counted = 0;
    const site = createSiteService(t.server.ctx, {
      projects: s.projects,
      customers: s.customers.writePath,
      ingest: s.ingest,
      clickTokens: async (appId, token) =>
        appId === p.appId && token === 'signed-click'
          ? {
              customerId: 'site-dee',
              postId: 'post-1',
              countReturn: async () => {
                counted += 1;
              },
            }
          : null,
      returnVisits: async (visit) => {
        returns.push(visit);
      },
    });
    const project = await site.project(siteKey, ORIGIN);
    const v = newId();
    const visitId = newId();
    const visitor = { userAgent: UA, ip: '203.0.113.9' };
    await site.collect(
      project,
      JSON.stringify({ v, s: newId(), c: 'forged', e: [{ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/` }] }),
      visitor,
      async () => {},
    );
    expect(await behaviour('site-dee')).toEqual([]);
    await site.collect(
      project,
      JSON.stringify({
        v,
        s: visitId,
        c: 'signed-click',
        e: [{ t: 'visit', at: Date.now(), url: `${ORIGIN}/offer`, title: 'Offer', ref: '', kw: '' }],
      }),
      visitor,
      async () => {},
    );
    const records = await behaviour('site-dee');
    expect(records.map((r) => r.action).sort()).toEqual(['access_site', 'web_page_view']);
    expect(JSON.parse((records.find((r) => r.action === 'access_site') as Behaviour).content)).toMatchObject({ postId: 'post-1' });
    expect(returns).toEqual([{ appId: p.appId, postId: 'post-1', customerId: 'site-dee', visitId, at: expect.any(Number) }]);
    // The campaign's return visit is counted once the visit is recorded, once.
    expect(counted).toBe(1);
  });

  it("a shared link's form reaches the site visitor the link handed to the project's site", async () => {
    const make = async (website: string) =>
      (
        (
          await t.server.api.post(`/api/v1.7/app/${p.appId}/links`, { name: 'Offer', type: 3, website }, { token: p.sales.token })
        ).json() as { data: { shareToken: string } }
      ).data.shareToken;
    // A target elsewhere gets no hand-off.
    const elsewhere = await t.server.api.get(`/l/${await make('https://elsewhere.example.org/x')}`, { headers: { 'user-agent': UA } });
    expect(elsewhere.statusCode).toBe(302);
    expect(elsewhere.headers.location).toBe('https://elsewhere.example.org/x');

    const shareToken = await make(`${ORIGIN}/offer?utm_source=link`);
    const opened = await t.server.api.get(`/l/${shareToken}`, { headers: { 'user-agent': UA } });
    expect(opened.statusCode).toBe(302);
    const location = new URL(opened.headers.location as string);
    expect(location.origin + location.pathname).toBe(`${ORIGIN}/offer`);
    const handoff = location.searchParams.get('rapport_lv') as string;
    expect(handoff).toBeTruthy();
    const cookie = String(opened.headers['set-cookie']).split(';')[0] as string;

    // On the site: anonymous, the hand-off not yet tied to anyone.
    const v = newId();
    const at = Date.now() - 60_000;
    await collect({ v, s: newId(), l: handoff, e: [{ t: 'page', id: newId(), at, url: `${ORIGIN}/offer`, title: 'Offer' }] });
    expect(await anonymousCount(v)).toBe(1);
    // A forged hand-off names no one.
    await collect({ v, s: newId(), l: `${handoff}x`, e: [] });
    expect(await anonymousCount(v)).toBe(1);

    // The link's form ties the link visitor to Eve; the site visitor's next call joins its history to her.
    const form = await t.server.api.post(
      `/l/${shareToken}/form`,
      { email: 'eve@example.com' },
      { headers: { 'user-agent': UA, cookie, accept: 'application/json' } },
    );
    expect(form.json()).toMatchObject({ status: 1 });
    await collect({ v, s: newId(), l: handoff, e: [{ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/thanks`, title: 'Thanks' }] });
    expect(await anonymousCount(v)).toBe(0);
    const site = (await behaviour('site-eve')).filter((r) => r.action === 'web_page_view');
    expect(site.map((r) => JSON.parse(r.content).title).sort()).toEqual(['Offer', 'Thanks']);
    expect(site.find((r) => JSON.parse(r.content).title === 'Offer')?.when).toBe(t.server.ctx.clock.format(at));
    const tie = await t.server.ctx.database.db
      .selectFrom('site_visitors')
      .selectAll()
      .where('app_id', '=', p.appId)
      .where('id', '=', v)
      .executeTakeFirstOrThrow();
    expect(tie).toMatchObject({ customer_id: 'site-eve', verified: 0, via: 'link' });
  });
});
