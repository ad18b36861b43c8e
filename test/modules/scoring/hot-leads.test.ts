// lanes: sqlite postgres
/**
 * Hot leads through HTTP (docs/scoring.md, "Hot leads"): customers whose score rose most recently
 * first, with score, reasons and last signal; visibility as the customer list's (a Sales member sees
 * their own, and naming a colleague is refused); buying groups as one account by company or e-mail
 * domain, free-mail domains never; a merged customer's score moves to its survivor, and an erased
 * customer's score goes with it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../helpers/harness.ts';
import { HOUR, type HistoryProject, customerEvent, event, historyProject, ingest } from '../../helpers/histories.ts';

const t = useTestServer();
let p: HistoryProject;
const T0 = Date.UTC(2026, 10, 5, 9, 0, 0);
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

interface Lead {
  customerId: string;
  name: string | null;
  svcUserId: string;
  score: number;
  rise: number;
  risenAt: string;
  lastSignal: { kind: string; action: string; at: string; points: number } | null;
  scoreReasons: { kind: string; text: string }[];
}
interface Account {
  account: string;
  accountType: string;
  score: number;
  maxScore: number;
  memberCount: number;
  members: Lead[];
}

const hot = async (token: string, query: Record<string, string | number> = {}) => {
  const res = await t.server.api.get(`/api/v1.7/app/${p.appId}/hot-leads`, { token, query });
  return { http: res.statusCode, body: res.json() as { status: number; code?: string; data: Lead[] & Account[] } };
};

/** A form filled in by the customer `hoursAgo` hours ago: 15 points. */
const form = (id: string, customer: string, hoursAgo: number) =>
  event('BehaviourLog', id, { customerId: customer, action: 'submit_form', when: fmt(T0 - hoursAgo * HOUR) });

beforeAll(async () => {
  vi.spyOn(t.server.ctx.clock, 'now').mockImplementation(() => T0);
  p = await historyProject(t.server);
  const sales = String(p.sales.id);
  const sales2 = String(p.sales2.id);
  const res = await ingest(t.server, p, [
    customerEvent('h-ann', { svcUserId: sales, company: 'Acme Ltd', email: 'ann@acme.example' }),
    customerEvent('h-bob', { svcUserId: sales2, email: 'bob@acme.example' }),
    customerEvent('h-cat', { svcUserId: sales, company: ' acme  ltd ', email: 'cat@gmail.com' }),
    customerEvent('h-dan', { svcUserId: sales2, email: 'dan@gmail.com' }),
    customerEvent('h-eve', { svcUserId: sales, email: 'eve@qq.com' }),
    customerEvent('h-cold', { svcUserId: sales }),
    form('f-ann', 'h-ann', 5),
    form('f-bob', 'h-bob', 4),
    form('f-cat', 'h-cat', 3),
    form('f-dan', 'h-dan', 2),
    form('f-eve', 'h-eve', 1),
    // An older rise does not put a customer ahead again.
    form('f-ann-old', 'h-ann', 48),
  ]);
  expect(res.json(), res.body).toMatchObject({ status: 1 });
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe('hot leads', () => {
  it('orders by the latest rise, with score, reasons and the signal of the rise', async () => {
    const { body } = await hot(p.master.token);
    expect(body.status).toBe(1);
    expect(body.data.map((l) => l.customerId)).toEqual(['h-eve', 'h-dan', 'h-cat', 'h-bob', 'h-ann']);
    const eve = body.data[0] as Lead;
    expect(eve).toMatchObject({
      name: 'Customer h-eve',
      svcUserId: String(p.sales.id),
      rise: 15,
      risenAt: fmt(T0 - HOUR),
      lastSignal: { kind: 'form', action: 'submit_form', at: fmt(T0 - HOUR), points: 15 },
      scoreReasons: [{ kind: 'form', text: 'filled in a form on the site today' }],
    });
    expect(eve.score).toBeCloseTo(15, 0);
    const ann = body.data[4] as Lead;
    expect(ann.scoreReasons[0]).toMatchObject({ text: 'filled in a form on the site twice since Tuesday' });
    // Pages: start_index and count.
    expect((await hot(p.master.token, { start_index: 1, count: 2 })).body.data.map((l) => l.customerId)).toEqual(['h-dan', 'h-cat']);
  });

  it("shows a Sales member their own customers only, and refuses a colleague's", async () => {
    expect((await hot(p.sales.token)).body.data.map((l) => l.customerId)).toEqual(['h-eve', 'h-cat', 'h-ann']);
    expect((await hot(p.sales.token, { svc_user_id: p.sales.id })).body.data).toHaveLength(3);
    expect((await hot(p.sales.token, { svc_user_id: p.sales2.id })).http).toBe(403);
    expect((await hot(p.master.token, { svc_user_id: p.sales2.id })).body.data.map((l) => l.customerId)).toEqual(['h-dan', 'h-bob']);
    expect((await hot(p.master.token, { svc_user_id: 'x1' })).body).toMatchObject({ status: 0, code: 'Bad Request' });
    expect((await hot(p.outsider.token)).http).toBe(403);
  });

  it('groups a buying group as one account by company, else e-mail domain; free-mail domains never', async () => {
    const { body } = await hot(p.master.token, { group_by: 'company' });
    expect(body.status).toBe(1);
    const accounts = body.data as Account[];
    expect(accounts.map((a) => [a.accountType, a.account, a.members.map((m) => m.customerId)])).toEqual([
      ['customer', 'Customer h-eve', ['h-eve']],
      ['customer', 'Customer h-dan', ['h-dan']],
      ['company', 'acme ltd', ['h-cat', 'h-ann']],
      ['domain', 'acme.example', ['h-bob']],
    ]);
    const acme = accounts[2] as Account;
    expect(acme.memberCount).toBe(2);
    expect(acme.score).toBeCloseTo((acme.members[0]?.score ?? 0) + (acme.members[1]?.score ?? 0), 0);
    expect(acme.maxScore).toBe(Math.max(...acme.members.map((m) => m.score)));
    // The Sales member's own, grouped.
    const own = (await hot(p.sales.token, { group_by: 'company' })).body.data as Account[];
    expect(own.map((a) => a.members.length)).toEqual([1, 2]);
    expect((await hot(p.master.token, { group_by: 'owner' })).body).toMatchObject({ status: 0, code: 'group_by_invalid' });
  });
});

describe('merges and erasure', () => {
  it("moves a merged customer's score to its survivor", async () => {
    const before = (await hot(p.master.token)).body.data;
    const score = (id: string) => before.find((l) => l.customerId === id)?.score ?? 0;
    const res = await t.server.api.post(
      `/api/v1.7/app/${p.appId}/member/${p.master.id}/customer/merge`,
      { main_customer_id: 'h-ann', merge_user_ids: 'h-cat' },
      { token: p.master.token, form: true },
    );
    expect(res.json(), res.body).toMatchObject({ status: 1 });
    const after = (await hot(p.master.token)).body.data;
    expect(after.map((l) => l.customerId)).toEqual(['h-eve', 'h-dan', 'h-ann', 'h-bob']);
    const ann = after.find((l) => l.customerId === 'h-ann') as Lead;
    expect(ann.score).toBeCloseTo(score('h-ann') + score('h-cat'), 0);
    expect(ann.risenAt).toBe(fmt(T0 - 3 * HOUR));
    // The history job's later passes move nothing twice.
    await t.server.services.merges.runPending(0);
    const moved = (await hot(p.master.token)).body.data.find((l) => l.customerId === 'h-ann') as Lead;
    expect(moved.score).toBe(ann.score);
  });

  it("erases a customer's score with it", async () => {
    const res = await t.server.api.post(`/api/v1.7/app/${p.appId}/customer/h-ann/erase`, {}, { token: p.master.token });
    expect(res.json(), res.body).toMatchObject({ status: 1, data: { erased: { customer_scores: 1 } } });
    expect((await hot(p.master.token)).body.data.map((l) => l.customerId)).toEqual(['h-eve', 'h-dan', 'h-bob']);
    const rows = await t.server.ctx.database.db
      .selectFrom('customer_scores')
      .select('customer_id')
      .where('app_id', '=', p.appId)
      .where('customer_id', 'in', ['h-ann', 'h-cat'])
      .execute();
    expect(rows).toEqual([]);
  });
});
