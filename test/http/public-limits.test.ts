// lanes: sqlite postgres
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/harness.ts';
import { type HistoryProject, customerEvent, historyProject, ingest } from '../helpers/histories.ts';
import { Browser, type LinkData, madeLink, renderedFile } from '../helpers/links.ts';

/**
 * The public endpoints' limits (docs/operations.md, "Public endpoints"): collect calls and beacons
 * counted per address whatever the visitor or view, a per-link passcode lockout, and a per-project
 * daily quota of anonymous site records, with small settings.
 */
const TOKEN = 'metrics-token-for-tests-0123456789';
const CAP = 10;
const t = useTestServer({
  RATE_LIMITS: 'on',
  RATE_LIMIT_TOKEN: '100000',
  RATE_LIMIT_IP: '100000',
  RATE_LIMIT_VIEWER: '100000',
  RATE_LIMIT_FORM: '100000',
  RATE_LIMIT_SITE_IP: '5',
  RATE_LIMIT_BEACON_IP: '6',
  SITE_ANONYMOUS_DAILY_CAP: String(CAP),
  LINK_PASSCODE_FAILURES: '3',
  LINK_PASSCODE_LOCKOUT: '600',
  METRICS_TOKEN: TOKEN,
});

const ORIGIN = 'https://shop.example.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const newId = () => randomBytes(16).toString('base64url');
const page = () => ({ t: 'page', id: newId(), at: Date.now(), url: `${ORIGIN}/`, title: 'Home' });

interface Site {
  p: HistoryProject;
  key: string;
}

async function siteProject(): Promise<Site> {
  const p = await historyProject(t.server);
  await t.server.api.post(`/api/v1.7/app/${p.appId}`, { site_origins: ORIGIN }, { token: p.master.token });
  const detail = await t.server.api.get(`/api/v1.7/app/${p.appId}`, { token: p.sales.token });
  return { p, key: (detail.json() as { data: { siteKey: string } }).data.siteKey };
}

/** A collect call from `ip` (by default an address of its own). */
function collect(site: Site, body: unknown, ip?: string) {
  return t.server.api.post(`/t/collect?k=${site.key}`, JSON.stringify(body), {
    headers: { 'content-type': 'text/plain', 'user-agent': UA, origin: ORIGIN },
    ...(ip === undefined ? {} : { ip }),
  });
}

const anonymousRecords = async (appId: string) =>
  Number(
    (
      await t.server.ctx.database.db
        .selectFrom('site_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('app_id', '=', appId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('collect calls per address', () => {
  it('a new visitor id per call buys no fresh budget: the address is refused with 429 the page can read', async () => {
    const site = await siteProject();
    const ip = '203.0.113.7';
    for (let i = 0; i < 5; i += 1) {
      const ok = await collect(site, { v: newId(), s: newId(), e: [] }, ip);
      expect(ok.statusCode, ok.body).toBe(200);
    }
    const refused = await collect(site, { v: newId(), s: newId(), e: [page()] }, ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 0, code: 'rate_limited', msg: expect.stringContaining('this address') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The snippet reads Retry-After from the answer: allowed for the page's origin.
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(refused.headers['access-control-expose-headers']).toBe('Retry-After');
    expect(await anonymousRecords(site.p.appId)).toBe(0);
    // IPv6 addresses count per /64: another address in the same /64 shares the budget.
    for (let i = 0; i < 5; i += 1) expect((await collect(site, { v: newId(), s: newId(), e: [] }, '2001:db8:1:2::1')).statusCode).toBe(200);
    expect((await collect(site, { v: newId(), s: newId(), e: [] }, '2001:db8:1:2::ffff')).statusCode).toBe(429);
    // Another address has its own.
    expect((await collect(site, { v: newId(), s: newId(), e: [] }, '203.0.113.8')).statusCode).toBe(200);
  });
});

describe('beacons per address', () => {
  let fileId: string;
  let p: HistoryProject;
  beforeAll(async () => {
    p = await historyProject(t.server);
    fileId = await renderedFile(t.server, p, p.sales.token);
  });

  it('every view from one address together: made-up views buy no fresh budget', async () => {
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Beacons', file_id: fileId });
    const ip = '198.51.100.77';
    const answers: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const b = new Browser(t.server, undefined, ip);
      const token = (await b.open(link.shareToken)).viewToken as string;
      answers.push((await b.beacon(link.shareToken, { type: 'open', seq: 1, token, page: 1 })).statusCode);
      answers.push((await b.beacon(link.shareToken, { type: 'hb', seq: 2, token, page: 1, dwell: { 1: 100 } })).statusCode);
    }
    expect(answers).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    const refused = await new Browser(t.server, undefined, ip).beacon(link.shareToken, { type: 'open', seq: 1, token: 'x', page: 1 });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 0, code: 'rate_limited', msg: expect.stringContaining('beacons from this address') });
    // Another address is answered.
    const other = new Browser(t.server, undefined, '198.51.100.78');
    const token = (await other.open(link.shareToken)).viewToken as string;
    expect((await other.beacon(link.shareToken, { type: 'open', seq: 1, token, page: 1 })).statusCode).toBe(200);
  });
});

describe('a link passcode', () => {
  let p: HistoryProject;
  let fileId: string;
  let link: LinkData;
  const unlock = (b: Browser, passcode: string) =>
    b.post(`/l/${link.shareToken}/unlock`, `passcode=${encodeURIComponent(passcode)}`, 'application/x-www-form-urlencoded');

  beforeAll(async () => {
    p = await historyProject(t.server);
    fileId = await renderedFile(t.server, p, p.sales.token);
    link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Secret', file_id: fileId, passcode: 'letmein!' });
  });

  it('is locked for the link after LINK_PASSCODE_FAILURES wrong ones from any addresses, the right one refused too', async () => {
    const first = await unlock(new Browser(t.server, undefined, '192.0.2.1'), 'guess-1');
    expect(first.statusCode).toBe(403);
    expect((await unlock(new Browser(t.server, undefined, '192.0.2.2'), 'guess-2')).statusCode).toBe(403);
    const third = await unlock(new Browser(t.server, undefined, '192.0.2.3'), 'guess-3');
    expect(third.statusCode).toBe(429);
    expect(third.body).toContain('Too many wrong passcodes');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(590);
    expect(Number(third.headers['retry-after'])).toBeLessThanOrEqual(600);
    // The right passcode, from yet another address, is refused while the lockout lasts.
    const b = new Browser(t.server, undefined, '192.0.2.4');
    const right = await unlock(b, 'letmein!');
    expect(right.statusCode).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(404);
    expect(t.server.logs.some((l) => l.linkId === link.id && String(l.msg).includes('too many wrong passcodes'))).toBe(true);
  });

  it('a new passcode set by the owner ends the lockout', async () => {
    const edit = await t.server.api.put(`/api/v1.7/app/${p.appId}/link/${link.id}`, { passcode: 'a new one' }, { token: p.sales.token });
    expect(edit.json()).toMatchObject({ status: 1 });
    const b = new Browser(t.server, undefined, '192.0.2.5');
    const right = await unlock(b, 'a new one');
    expect(right.statusCode).toBe(303);
    expect((await b.get(`/l/${link.shareToken}/page/1`)).statusCode).toBe(200);
  });

  it("another link's passcode is not locked by this one's", async () => {
    const other = await madeLink(t.server, p.appId, p.sales.token, { name: 'Other', file_id: fileId, passcode: 'other one' });
    for (let i = 0; i < 2; i += 1) {
      const res = await new Browser(t.server).post(`/l/${link.shareToken}/unlock`, 'passcode=nope', 'application/x-www-form-urlencoded');
      expect(res.statusCode).toBe(403);
    }
    const res = await new Browser(t.server).post(
      `/l/${other.shareToken}/unlock`,
      'passcode=other+one',
      'application/x-www-form-urlencoded',
    );
    expect(res.statusCode).toBe(303);
  });
});

describe("a project's daily quota of anonymous site records", () => {
  let site: Site;
  beforeAll(async () => {
    site = await siteProject();
    const res = await ingest(t.server, site.p, [
      customerEvent('quota-ada', { name: 'Ada', email: 'ada@example.com', svcUserId: site.p.sales.id }),
    ]);
    expect(res.json()).toMatchObject({ status: 1 });
  });

  it('stores anonymous records up to the cap, then answers quota_exceeded until the day ends; the count stays within it', async () => {
    const three = () => ({ v: newId(), s: newId(), e: [page(), page(), page()] });
    for (let i = 0; i < 3; i += 1) expect((await collect(site, three())).json()).toEqual({ status: 1, data: {} });
    expect(await anonymousRecords(site.p.appId)).toBe(9);
    const refused = await collect(site, three());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 0, code: 'quota_exceeded' });
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(25 * 3600);
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
    // Every later anonymous call, from any address and visitor, is refused alike; nothing more is stored.
    for (let i = 0; i < 3; i += 1) expect((await collect(site, { v: newId(), s: newId(), e: [page()] })).statusCode).toBe(429);
    expect(await anonymousRecords(site.p.appId)).toBe(9);
    const counted = await t.server.ctx.database.db
      .selectFrom('site_anonymous_counts')
      .select(['day', 'records'])
      .where('app_id', '=', site.p.appId)
      .execute();
    expect(counted).toEqual([{ day: t.server.ctx.clock.day(Date.now()), records: 9 }]);
    expect(t.server.logs.some((l) => l.appId === site.p.appId && String(l.msg).includes('daily quota'))).toBe(true);
  });

  it("a customer's records keep flowing, and a call without records is answered", async () => {
    const v = newId();
    const res = await collect(site, { v, s: newId(), e: [page(), { t: 'identify', email: 'ada@example.com' }] });
    expect(res.json()).toEqual({ status: 1, data: {} });
    const later = await collect(site, { v, s: newId(), e: [page(), page()] });
    expect(later.json()).toEqual({ status: 1, data: {} });
    const behaviour = await t.server.api.get(`/api/v1.7/app/${site.p.appId}/member/customer/quota-ada/behaviour`, {
      token: site.p.master.token,
      query: { count: 100 },
    });
    const records = (behaviour.json() as { data: { action: string }[] }).data.filter((r) => r.action === 'web_page_view');
    expect(records).toHaveLength(3);
    expect((await collect(site, { v: newId(), s: newId(), e: [] })).json()).toEqual({ status: 1, data: {} });
    expect(await anonymousRecords(site.p.appId)).toBe(9);
  });

  it("another project's quota is its own", async () => {
    const other = await siteProject();
    expect((await collect(other, { v: newId(), s: newId(), e: [page()] })).json()).toEqual({ status: 1, data: {} });
    expect(await anonymousRecords(other.p.appId)).toBe(1);
  });

  it('the refusals are counted per project in /metrics', async () => {
    const res = await t.server.api.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    const line = res.body.split('\n').find((l) => l.startsWith(`rapport_site_quota_refused_total{app_id="${site.p.appId}"}`));
    expect(Number(line?.split(' ')[1])).toBe(4);
  });
});
