// lanes: sqlite postgres
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { DAY, HOUR, type HistoryProject, addCustomers, historyProject } from '../../helpers/histories.ts';
import { BeaconReader, Browser, MOBILE_UA, madeLink, renderedFile } from '../../helpers/links.ts';

/**
 * Revisits and forwards of directed links, through the viewer's beacons and gates with the server's
 * clock moved by the test: a customer back after days without a view is told once (`revisit`), a
 * new reader of the link is told once per visitor (`forward`): by the address they gave, or likely
 * (a new device on another network than every earlier view), never the customer's second device on
 * their own network; each to the customer's owner and the members with scope `all` who may see it.
 */
const t = useTestServer();
let p: HistoryProject;
let fileId: string;
/** The server's clock, moved by the tests; set in beforeAll to 01:00 (the server's zone) of the coming day. */
let now = Date.now();

interface Entry {
  signal: string;
  customerId: string;
  title: string;
  text: string;
  data: Record<string, unknown>;
}

const pass = () => t.server.services.alerts.evaluator.pass();
async function inbox(token: string, signal: string): Promise<Entry[]> {
  const res = (await t.server.api.get('/api/v1.7/notifications', { token, query: { count: 100 } })).json();
  expect(res.status, JSON.stringify(res)).toBe(1);
  return (res.data as Entry[]).filter((e) => e.signal === signal);
}

/** A device of a reader at an address (its network: the /24); its cookies kept between views. */
const device = (ip: string) => new Browser(t.server, MOBILE_UA, ip);
/** A view of a link on a device: opened, a page read for 20 s, left. */
async function view(share: string, b: Browser): Promise<BeaconReader> {
  const r = new BeaconReader(t.server, share, (ms) => (now += ms), b);
  await r.open();
  await r.read(1, 20);
  await r.leave(1);
  return r;
}
const useClock = () => vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => now);

beforeAll(async () => {
  p = await historyProject(t.server);
  await addCustomers(t.server, p, [{ id: 's-ada', owner: p.sales.id, name: 'Ada' }]);
  await t.server.ctx.database.db
    .updateTable('customers')
    .set({ email: 'ada@example.com', email_lower: 'ada@example.com' })
    .where('app_id', '=', p.appId)
    .where('id', '=', 's-ada')
    .execute();
  fileId = await renderedFile(t.server, p, p.sales.token);
  // Scope `all`: the Admin hears of every customer; the second Sales member too, but may not see Ada.
  for (const token of [p.admin.token, p.sales2.token]) {
    const res = await t.server.api.put(
      '/api/v1.7/user/notification-settings',
      { projects: [{ app_id: p.appId, scope: 'all' }] },
      { token },
    );
    expect(res.json().status, res.body).toBe(1);
  }
  await pass();
  now = t.server.ctx.clock.dayEnd(Date.now()) + HOUR;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a revisit', () => {
  it("tells the owner a customer is back after 4 days without a view: 'Ada is back on 'Pricing'' — 'First view in 4 days.'", async () => {
    useClock();
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Pricing', file_id: fileId, customer_id: 's-ada' });
    const phone = device('198.51.100.7');
    await view(link.shareToken, phone);
    await pass();
    expect(await inbox(p.sales.token, 'revisit')).toEqual([]);
    now += 4 * DAY;
    await view(link.shareToken, phone);
    await pass();
    const back = await inbox(p.sales.token, 'revisit');
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({
      customerId: 's-ada',
      title: "Ada is back on 'Pricing'",
      text: 'First view in 4 days.',
      data: { linkId: link.id, days: 4 },
    });
    // Beside the open itself; the same device is no forward.
    expect((await inbox(p.sales.token, 'deck_opened')).length).toBe(2);
    expect(await inbox(p.sales.token, 'forward')).toEqual([]);
    // The Admin (scope all) too; the second Sales member, who may not see Ada, never.
    expect(await inbox(p.admin.token, 'revisit')).toHaveLength(1);
    expect(await inbox(p.sales2.token, 'revisit')).toEqual([]);
  });

  it('tells a return after a day to no one at the default of 3 days; a member who chose revisit_days 1 hears it (in Chinese if they chose it)', async () => {
    useClock();
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Deck', file_id: fileId, customer_id: 's-ada' });
    const res = await t.server.api.put(
      '/api/v1.7/user/notification-settings',
      { projects: [{ app_id: p.appId, scope: 'all', revisit_days: 1 }], locale: 'zh-CN' },
      { token: p.admin.token },
    );
    expect(res.json().data.projects[0]).toMatchObject({ scope: 'all', revisitDays: 1 });
    const phone = device('198.51.100.8');
    await view(link.shareToken, phone);
    now += DAY + HOUR;
    await view(link.shareToken, phone);
    await pass();
    const sales = (await inbox(p.sales.token, 'revisit')).filter((e) => e.data.linkId === link.id);
    expect(sales).toEqual([]);
    const admin = (await inbox(p.admin.token, 'revisit')).filter((e) => e.data.linkId === link.id);
    expect(admin).toHaveLength(1);
    expect(admin[0]).toMatchObject({ title: 'Ada 再次查看《Deck》', text: '时隔 1 天后首次查看。', data: { days: 1 } });
    await t.server.api.put('/api/v1.7/user/notification-settings', { locale: 'en-US' }, { token: p.admin.token });
  });
});

describe('a forward', () => {
  it('is not a second device on the customer’s network; a new device on another network is a likely forward, told once', async () => {
    useClock();
    now += HOUR;
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Proposal', file_id: fileId, customer_id: 's-ada' });
    await view(link.shareToken, device('203.0.113.10'));
    await pass();
    // The tablet in the same office: no forward.
    await view(link.shareToken, device('203.0.113.77'));
    await pass();
    const ofLink = async () => (await inbox(p.sales.token, 'forward')).filter((e) => e.data.linkId === link.id);
    expect(await ofLink()).toEqual([]);
    // A phone on another network: likely forwarded.
    const elsewhere = device('192.0.2.55');
    await view(link.shareToken, elsewhere);
    await pass();
    const told = await ofLink();
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      customerId: 's-ada',
      title: "'Proposal' was likely forwarded",
      text: 'A new reader opened the link sent to Ada, on another device and another network.',
      data: { linkId: link.id, email: null, likely: true },
    });
    // The same visitor again later: not told twice.
    now += 2 * HOUR;
    await view(link.shareToken, elsewhere);
    await pass();
    expect(await ofLink()).toHaveLength(1);
  });

  it("is a gate address other than the customer's, told once per visitor, to whoever may see the customer", async () => {
    useClock();
    now += HOUR;
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Terms', file_id: fileId, customer_id: 's-ada', email_gate: 1 });
    const gate = async (b: Browser, email: string) => {
      const res = await b.post(`/l/${link.shareToken}/gate`, `email=${encodeURIComponent(email)}`, 'application/x-www-form-urlencoded');
      expect(res.statusCode, res.body).toBe(303);
    };
    const ada = device('203.0.113.20');
    await gate(ada, 'ada@example.com');
    await view(link.shareToken, ada);
    await pass();
    // Jane, on the same network even, gives her own address.
    const jane = device('203.0.113.21');
    await gate(jane, 'jane@other.example');
    await view(link.shareToken, jane);
    await pass();
    const ofLink = async (token: string) => (await inbox(token, 'forward')).filter((e) => e.data.linkId === link.id);
    const told = await ofLink(p.sales.token);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      title: "'Terms' was forwarded",
      text: 'A new reader opened the link sent to Ada (jane@other.example).',
      data: { linkId: link.id, email: 'jane@other.example', verified: false, likely: false },
    });
    // Ada herself on her phone's network, giving her own address: no forward.
    const adaPhone = device('192.0.2.30');
    await gate(adaPhone, 'Ada@Example.com');
    await view(link.shareToken, adaPhone);
    // Jane again an hour later: once per visitor.
    now += HOUR;
    await view(link.shareToken, jane);
    await pass();
    expect(await ofLink(p.sales.token)).toHaveLength(1);
    expect(await ofLink(p.admin.token)).toHaveLength(1);
    expect(await ofLink(p.sales2.token)).toEqual([]);
  });

  it('is a form filled during a view naming another address', async () => {
    useClock();
    now += HOUR;
    const link = await madeLink(t.server, p.appId, p.sales.token, { name: 'Brochure', file_id: fileId, customer_id: 's-ada' });
    const b = device('203.0.113.40');
    const r = new BeaconReader(t.server, link.shareToken, (ms) => (now += ms), b);
    await r.open();
    await pass();
    const form = await b.post(
      `/l/${link.shareToken}/form`,
      JSON.stringify({ email: 'bob@partner.example', name: 'Bob', token: r.viewToken }),
      'application/json',
    );
    expect(form.statusCode, form.body).toBe(200);
    await pass();
    const told = (await inbox(p.sales.token, 'forward')).filter((e) => e.data.linkId === link.id);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toBe('A new reader opened the link sent to Ada (bob@partner.example).');
  });
});
